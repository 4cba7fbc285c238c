/**
 * Batch requests against a small node:http server: it reads each batch with the codec's
 * parseBatchRequest, answers with encodeBatchResponse, and answers single calls too, so that
 * a call in a batch can be compared with the same call sent alone.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BatchResponseError,
  ClientConfigError,
  GoogleApiError,
  googleBatchUrl,
  NetworkError,
  type ResourceClientOptions,
} from '../src/index.ts';
import {
  type BatchPartRequest,
  type BatchPartResponse,
  encodeBatchResponse,
  parseBatchRequest,
} from '../src/multipart.ts';
import { batchingTestClient } from './fixture.ts';
import { fakeClock, table } from './support.ts';

/** A request as the server saw it; `parts` for a batch. */
interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  parts?: BatchPartRequest[];
}

/** What the server sends back: an HTTP answer, or `hang-up` to close the connection unanswered. */
type Reply = { status?: number; headers?: Record<string, string>; body?: string } | 'hang-up';

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/**
 * A server at `http://127.0.0.1:<port>`; `answer` is given each request (batches with their
 * parts) and its number among the batches, from 0. Single calls are answered `{ single: true }`.
 */
async function serve(answer: (request: Seen & { parts: BatchPartRequest[] }, batch: number) => Reply) {
  const seen: Seen[] = [];
  let batches = 0;
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const request: Seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
    seen.push(request);
    if (!request.path.startsWith('/batch/')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"single":true}');
      return;
    }
    request.parts = parseBatchRequest(req.headers['content-type'], body);
    const reply = answer(request as Seen & { parts: BatchPartRequest[] }, batches++);
    if (reply === 'hang-up') {
      req.socket.destroy();
      return;
    }
    res.writeHead(reply.status ?? 200, reply.headers ?? {}).end(reply.body ?? '');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const batchesSeen = () => seen.filter((s) => s.parts) as (Seen & { parts: BatchPartRequest[] })[];
  return { origin, base: `${origin}/api/v1`, seen, batches: batchesSeen };
}

/** A batch answer with these parts. */
function batchOf(parts: BatchPartResponse[]): Reply {
  const { contentType, body } = encodeBatchResponse(parts);
  return { status: 200, headers: { 'content-type': contentType }, body };
}

/** The answer part of `part` with `status` and a JSON body. */
function answerTo(
  part: BatchPartRequest,
  status: number,
  json?: unknown,
  headers: Record<string, string> = {},
) {
  return {
    status,
    headers: json === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    contentId: `response-${part.contentId}`,
  } satisfies BatchPartResponse;
}

/** Google's error envelope. */
const envelope = (status: number, reason: string) => ({
  error: {
    code: status,
    message: `problem ${status}`,
    errors: [{ domain: 'global', reason, message: reason }],
  },
});

/** The last segment of a part's path: the thing's id of `things.get`. */
const idOf = (part: BatchPartRequest) => part.target.split('?')[0]?.split('/').at(-1);

/** Answers every part 200 with `{ id }` of the thing its path names. */
const echo = (request: { parts: BatchPartRequest[] }) =>
  batchOf(request.parts.map((part) => answerTo(part, 200, { id: idOf(part) })));

/** A client of the server that never really sleeps, with a token. */
function client(base: string, options: ResourceClientOptions = {}) {
  const clock = fakeClock();
  return { clock, c: batchingTestClient({ accessToken: 'token-1', clock, ...options }, base) };
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);

describe('what a batch sends', () => {
  it('goes to /batch and the base path at the host, as multipart/mixed, with the credentials on the request', async () => {
    const server = await serve(echo);
    const { c } = client(server.base, { headers: { 'X-Goog-Api-Client': 'test/1' } });
    await c.batch((b) => [b.things.get({ ownerId: 'o', thingId: 'a' })]);
    const [request] = server.batches();
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/batch/api/v1');
    expect(request?.headers['content-type']).toMatch(/^multipart\/mixed; boundary=batch_[0-9a-f]+$/);
    expect(request?.headers.authorization).toBe('Bearer token-1');
    expect(request?.headers['x-goog-api-client']).toBe('test/1');
    // Outer headers apply to every part: a part carries only its own.
    expect(request?.parts[0]?.headers).toEqual({});
  });

  it('encodes each call as the same call sent alone: method, path and query, headers, body', async () => {
    const server = await serve(echo);
    const { c } = client(server.base);
    await c.batch((b) => [
      b.things.list({ ownerId: 'me@example.com', q: 'a b', maxResults: 5 }),
      b.things.insert({ ownerId: 'o', sendUpdates: 'all', name: 'Ünïcode ✓', tags: ['x'] }),
      b.things.update({ ownerId: 'o', thingId: 't/1', ifMatch: '"e1"', name: 'n' }),
      b.things.get({ ownerId: 'o', thingId: 't', ifNoneMatch: '"e2"', fields: 'id,name' }),
      b.things.delete({ ownerId: 'o', thingId: 't' }),
      b.colors.get(),
    ]);
    const parts = server.batches()[0]?.parts ?? [];
    await c.things.list({ ownerId: 'me@example.com', q: 'a b', maxResults: 5 });
    await c.things.insert({ ownerId: 'o', sendUpdates: 'all', name: 'Ünïcode ✓', tags: ['x'] });
    await c.things.update({ ownerId: 'o', thingId: 't/1', ifMatch: '"e1"', name: 'n' });
    await c.things.get({ ownerId: 'o', thingId: 't', ifNoneMatch: '"e2"', fields: 'id,name' });
    await c.things.delete({ ownerId: 'o', thingId: 't' });
    await c.colors.get();
    const singles = server.seen.filter((s) => !s.parts);
    expect(parts).toHaveLength(6);
    expect(singles).toHaveLength(6);
    for (const [i, part] of parts.entries()) {
      const single = singles[i] as Seen;
      expect(part.method).toBe(single.method);
      expect(part.target).toBe(single.path);
      expect(part.body ?? '').toBe(single.body);
      for (const name of ['content-type', 'if-match', 'if-none-match'])
        expect(part.headers[name], `${name} of part ${i + 1}`).toBe(single.headers[name]);
      if (part.body) expect(part.headers['content-length']).toBe(String(Buffer.byteLength(part.body)));
      expect(part.contentId).toBe(`call-${i + 1}`);
    }
  });

  it('sends an empty batch as no request at all', async () => {
    const server = await serve(echo);
    const { c } = client(server.base);
    await expect(c.batch(() => [])).resolves.toEqual([]);
    expect(server.seen).toEqual([]);
  });

  it.each([
    [
      'a resource method’s promise',
      (c: ReturnType<typeof client>['c']) => {
        const sent = c.colors.get();
        sent.catch(() => {});
        return [sent];
      },
      /item 0 is not a call/,
    ],
    ['no array', () => 'calls', /must return an array/],
  ])('refuses %s before sending anything', async (_name, wrong, message) => {
    const server = await serve(echo);
    const { c } = client(server.base);
    await expect(c.batch(() => wrong(c) as never)).rejects.toThrow(message);
    expect(server.batches()).toEqual([]);
  });

  it('refuses a call whose path parameter is missing, before sending anything', async () => {
    const server = await serve(echo);
    const { c } = client(server.base);
    await expect(
      c.batch((b) => [b.colors.get(), b.things.get({ ownerId: 'o', thingId: '' })]),
    ).rejects.toThrow('things.get: the path parameter "thingId" is required');
    expect(server.seen).toEqual([]);
  });

  it.each([
    [{ maxCalls: 51 }, 'maxCalls must be a whole number from 1 to 50'],
    [{ maxCalls: 0 }, 'maxCalls must be a whole number from 1 to 50'],
    [{ maxCalls: 2.5 }, 'maxCalls must be a whole number from 1 to 50'],
    [{ timeoutMs: 0 }, 'timeoutMs must be a positive number'],
    [{ retry: { maxAttempts: 0 } }, 'retry.maxAttempts must be a number of at least 1'],
  ])('refuses the options %j', async (options, message) => {
    const server = await serve(echo);
    const { c } = client(server.base);
    const attempt = c.batch((b) => [b.colors.get()], options);
    await expect(attempt).rejects.toThrow(ClientConfigError);
    await expect(attempt).rejects.toThrow(message);
    expect(server.seen).toEqual([]);
  });
});

describe('batch URLs', () => {
  it.each([
    ['https://www.googleapis.com/calendar/v3', 'https://www.googleapis.com/batch/calendar/v3'],
    ['http://127.0.0.1:4011/calendar/v3', 'http://127.0.0.1:4011/batch/calendar/v3'],
    ['https://example.test', 'https://example.test/batch'],
  ])('%s batches to %s', (base, batch) => {
    expect(googleBatchUrl(base)).toBe(batch);
  });
});

describe('what a batch resolves to', () => {
  it.each<[string, (indexes: number[]) => number[]]>([
    ['in order', (ix) => ix],
    ['reversed', (ix) => [...ix].reverse()],
    ['shuffled', (ix) => [ix[3], ix[0], ix[4], ix[2], ix[1]].filter((i) => i !== undefined)],
  ])('results in call order when the parts come back %s', async (_name, order) => {
    const server = await serve((request) =>
      batchOf(
        order(request.parts.map((_, i) => i)).map((i) => {
          const part = request.parts[i] as BatchPartRequest;
          return answerTo(part, 200, { id: idOf(part) });
        }),
      ),
    );
    const { c } = client(server.base);
    const results = await c.batch((b) => ids(5).map((thingId) => b.things.get({ ownerId: 'o', thingId })));
    expect(results).toEqual(ids(5).map((id) => ({ ok: true, value: { id } })));
  });

  it('gives each call its own answer: a value, an error, NotModified, nothing for a 204, text', async () => {
    const server = await serve((request) =>
      batchOf([
        answerTo(request.parts[0] as BatchPartRequest, 200, { id: 'n' }),
        answerTo(request.parts[1] as BatchPartRequest, 404, envelope(404, 'notFound')),
        answerTo(request.parts[2] as BatchPartRequest, 304, undefined, { etag: '"e9"' }),
        answerTo(request.parts[3] as BatchPartRequest, 204),
        {
          status: 200,
          headers: { 'content-type': 'text/csv' },
          body: 'a,b\r\n1,2',
          contentId: `response-call-5`,
        },
      ]),
    );
    const { c } = client(server.base);
    const [inserted, missing, notModified, deleted, exported] = await c.batch((b) => [
      b.things.insert({ ownerId: 'o', name: 'n' }),
      b.things.get({ ownerId: 'o', thingId: 'gone' }),
      b.things.get({ ownerId: 'o', thingId: 't', ifNoneMatch: '"e9"' }),
      b.things.delete({ ownerId: 'o', thingId: 't' }),
      b.things.export({ ownerId: 'o' }),
    ]);
    expect(inserted).toEqual({ ok: true, value: { id: 'n' } });
    expect(missing.ok).toBe(false);
    const error = (missing as { error: GoogleApiError }).error;
    expect(error).toBeInstanceOf(GoogleApiError);
    expect([error.status, error.reason, error.operationId]).toEqual([404, 'notFound', 'things.get']);
    expect(notModified).toEqual({ ok: true, value: { notModified: true, etag: '"e9"' } });
    expect(deleted).toEqual({ ok: true, value: undefined });
    expect(exported).toEqual({ ok: true, value: 'a,b\r\n1,2' });
  });
});

describe('chunks', () => {
  it.each<[string, { calls: number; maxCalls?: number; sizes: number[] }]>([
    ['120 calls: 50, 50, 20', { calls: 120, sizes: [50, 50, 20] }],
    ['50 calls: one request', { calls: 50, sizes: [50] }],
    ['51 calls: 50, 1', { calls: 51, sizes: [50, 1] }],
    ['120 calls, maxCalls 40: 40, 40, 40', { calls: 120, maxCalls: 40, sizes: [40, 40, 40] }],
    ['7 calls, maxCalls 1: seven requests', { calls: 7, maxCalls: 1, sizes: [1, 1, 1, 1, 1, 1, 1] }],
  ])('%s', async (_name, { calls, maxCalls, sizes }) => {
    const server = await serve(echo);
    const { c } = client(server.base);
    const results = await c.batch(
      (b) => ids(calls).map((thingId) => b.things.get({ ownerId: 'o', thingId })),
      maxCalls === undefined ? {} : { maxCalls },
    );
    expect(server.batches().map((r) => r.parts.length)).toEqual(sizes);
    // Each request numbers its parts by the calls' places in the whole batch, in order.
    expect(server.batches().flatMap((r) => r.parts.map((p) => p.contentId))).toEqual(
      ids(calls).map((_, i) => `call-${i + 1}`),
    );
    expect(results).toEqual(ids(calls).map((id) => ({ ok: true, value: { id } })));
  });
});

describe('retries', () => {
  it('sends a part that failed with 503 again in a later request; the others keep their first answer', async () => {
    const server = await serve((request, n) =>
      batchOf(
        request.parts.map((part) =>
          n === 0 && part.contentId === 'call-2'
            ? answerTo(part, 503, envelope(503, 'backendError'))
            : answerTo(part, 200, { id: idOf(part), request: n }),
        ),
      ),
    );
    const { c, clock } = client(server.base);
    const results = await c.batch((b) => ids(3).map((thingId) => b.things.get({ ownerId: 'o', thingId })));
    expect(server.batches().map((r) => r.parts.map((p) => p.contentId))).toEqual([
      ['call-1', 'call-2', 'call-3'],
      ['call-2'],
    ]);
    expect(results).toEqual([
      { ok: true, value: { id: 't0', request: 0 } },
      { ok: true, value: { id: 't1', request: 1 } },
      { ok: true, value: { id: 't2', request: 0 } },
    ]);
    // The backoff of the first retry: half (random 0.5) of 500 ms.
    expect(clock.sleeps).toEqual([250]);
  });

  it('puts retried parts first in the next request, with the calls not sent yet, after their Retry-After', async () => {
    const server = await serve((request, n) =>
      batchOf(
        request.parts.map((part) =>
          n === 0 && part.contentId === 'call-50'
            ? answerTo(part, 429, envelope(429, 'rateLimitExceeded'), { 'retry-after': '3' })
            : answerTo(part, 200, { id: idOf(part) }),
        ),
      ),
    );
    const { c, clock } = client(server.base);
    const results = await c.batch((b) => ids(60).map((thingId) => b.things.get({ ownerId: 'o', thingId })));
    const second = server.batches()[1]?.parts.map((p) => p.contentId) ?? [];
    expect(second).toEqual(['call-50', ...ids(10).map((_, i) => `call-${51 + i}`)]);
    expect(clock.sleeps).toEqual([3000]);
    expect(results.every((r) => r.ok)).toBe(true);
  });

  it.each<[string, { status: number; reason: string; idempotent?: boolean; post?: boolean; sent: number }]>([
    ['a 503 of a GET, until the attempts run out', { status: 503, reason: 'backendError', sent: 5 }],
    ['403 rateLimitExceeded', { status: 403, reason: 'rateLimitExceeded', sent: 5 }],
    ['403 quotaExceeded: never', { status: 403, reason: 'quotaExceeded', sent: 1 }],
    ['a 503 of a POST: never', { status: 503, reason: 'backendError', post: true, sent: 1 }],
    [
      'a 503 of an idempotent POST',
      { status: 503, reason: 'backendError', post: true, idempotent: true, sent: 5 },
    ],
    ['400: never', { status: 400, reason: 'invalid', sent: 1 }],
  ])('retries a part that fails with %s', async (_name, { status, reason, idempotent, post, sent }) => {
    const server = await serve((request) =>
      batchOf(request.parts.map((part) => answerTo(part, status, envelope(status, reason)))),
    );
    const { c } = client(server.base);
    const [result] = await c.batch((b) => [
      post
        ? b.things.insert({ ownerId: 'o', name: 'n' }, idempotent ? { idempotent } : {})
        : b.things.get({ ownerId: 'o', thingId: 't' }),
    ]);
    expect(server.batches()).toHaveLength(sent);
    expect(result.ok).toBe(false);
    expect((result as { error: GoogleApiError }).error).toMatchObject({ status, reason });
  });

  it('stops retrying a call whose next wait would pass the budget', async () => {
    const server = await serve((request) =>
      batchOf(
        request.parts.map((part) =>
          answerTo(part, 503, envelope(503, 'backendError'), { 'retry-after': '40' }),
        ),
      ),
    );
    const { c, clock } = client(server.base);
    const [result] = await c.batch((b) => [b.things.get({ ownerId: 'o', thingId: 't' })]);
    // 40 s, then 40 s more would pass the 60 s budget.
    expect(clock.sleeps).toEqual([40_000]);
    expect(server.batches()).toHaveLength(2);
    expect(result.ok).toBe(false);
  });

  it('sends nothing again with retry: false', async () => {
    const server = await serve((request) =>
      batchOf(request.parts.map((part) => answerTo(part, 503, envelope(503, 'backendError')))),
    );
    const { c } = client(server.base);
    const [result] = await c.batch((b) => [b.things.get({ ownerId: 'o', thingId: 't' })], { retry: false });
    expect(server.batches()).toHaveLength(1);
    expect(result.ok).toBe(false);
  });

  it('sends the whole request again after an outer 503, like a single call', async () => {
    const server = await serve((request, n) =>
      n === 0
        ? {
            status: 503,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(envelope(503, 'backendError')),
          }
        : echo(request),
    );
    const { c, clock } = client(server.base);
    const results = await c.batch((b) => ids(3).map((thingId) => b.things.get({ ownerId: 'o', thingId })));
    expect(server.batches().map((r) => r.parts.length)).toEqual([3, 3]);
    expect(server.batches()[0]?.body.replace(/batch_[0-9a-f]+/g, '')).toBe(
      server.batches()[1]?.body.replace(/batch_[0-9a-f]+/g, ''),
    );
    expect(clock.sleeps).toEqual([250]);
    expect(results).toEqual(ids(3).map((id) => ({ ok: true, value: { id } })));
  });

  it('after an outer 503, fails the POST that may have taken effect and resends the rest', async () => {
    const server = await serve((request, n) =>
      n === 0 ? { status: 503, body: 'Service Unavailable' } : echo(request),
    );
    const { c } = client(server.base);
    const [inserted, read] = await c.batch((b) => [
      b.things.insert({ ownerId: 'o', name: 'n' }),
      b.things.get({ ownerId: 'o', thingId: 't' }),
    ]);
    expect(inserted.ok).toBe(false);
    expect((inserted as { error: GoogleApiError }).error).toMatchObject({
      status: 503,
      operationId: 'things.insert',
    });
    expect(read).toEqual({ ok: true, value: { id: 't' } });
    expect(server.batches().map((r) => r.parts.map((p) => p.method))).toEqual([['POST', 'GET'], ['GET']]);
  });

  it('sends the request again when the connection dropped without an answer', async () => {
    const server = await serve((request, n) => (n === 0 ? 'hang-up' : echo(request)));
    const { c } = client(server.base);
    const results = await c.batch((b) => [b.things.get({ ownerId: 'o', thingId: 't' })]);
    expect(results).toEqual([{ ok: true, value: { id: 't' } }]);
    expect(server.batches()).toHaveLength(2);
  });

  it('gives each call a NetworkError when no request got an answer', async () => {
    const server = await serve(() => 'hang-up');
    const { c } = client(server.base);
    const results = await c.batch((b) => [b.things.get({ ownerId: 'o', thingId: 't' }), b.colors.get()]);
    expect(server.batches()).toHaveLength(5);
    expect(results.map((r) => (r.ok ? undefined : [r.error.constructor, r.error.operationId]))).toEqual([
      [NetworkError, 'things.get'],
      [NetworkError, 'colors.get'],
    ]);
  });

  it('gives an outer 400 to every call as its error, without retrying', async () => {
    const server = await serve(() => ({
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        error: { code: 400, message: 'Too many calls in batch', errors: [{ reason: 'badRequest' }] },
      }),
    }));
    const { c } = client(server.base);
    const results = await c.batch((b) => [b.things.get({ ownerId: 'o', thingId: 't' }), b.colors.get()]);
    expect(server.batches()).toHaveLength(1);
    expect(results.map((r) => !r.ok && [r.error.operationId, r.error.message])).toEqual([
      ['things.get', 'things.get failed with 400 (badRequest): Too many calls in batch'],
      ['colors.get', 'colors.get failed with 400 (badRequest): Too many calls in batch'],
    ]);
  });
});

describe('an answer that is not a batch', () => {
  it.each<[string, Reply, RegExp]>([
    [
      'JSON instead of multipart/mixed',
      { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' },
      /not a batch of answers: a batch is multipart\/mixed, not "application\/json"/,
    ],
    [
      'a body cut short',
      {
        status: 200,
        headers: { 'content-type': 'multipart/mixed; boundary=b' },
        body: '--b\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 200 OK\r\n',
      },
      /before its closing line/,
    ],
    [
      'a Content-ID no call had',
      batchOf([{ status: 200, headers: {}, body: '{}', contentId: 'response-call-9' }]),
      /part 1 of the batch's answer has Content-ID <response-call-9>, which answers no call/,
    ],
    [
      'a part without Content-ID',
      batchOf([{ status: 200, headers: {}, body: '{}' }]),
      /part 1 of the batch's answer has no Content-ID/,
    ],
    [
      'two parts for one call',
      batchOf([
        { status: 200, headers: {}, body: '{}', contentId: 'response-call-1' },
        { status: 200, headers: {}, body: '{}', contentId: 'response-call-1' },
      ]),
      /two parts with Content-ID <response-call-1>/,
    ],
  ])(
    '%s: each call fails with a BatchResponseError that says so, not retried',
    async (_name, reply, message) => {
      const server = await serve(() => reply);
      const { c } = client(server.base);
      const results = await c.batch((b) => [b.things.get({ ownerId: 'o', thingId: 'a' }), b.colors.get()]);
      expect(server.batches()).toHaveLength(1);
      for (const result of results) {
        expect(result.ok).toBe(false);
        const { error } = result as { error: BatchResponseError };
        expect(error).toBeInstanceOf(BatchResponseError);
        expect(error.message).toMatch(message);
        expect(error.message).toMatch(/whether the call took effect is unknown$/);
      }
    },
  );

  it('fails only the call whose part is missing, and the one whose success body is not JSON', async () => {
    const server = await serve((request) =>
      batchOf([
        answerTo(request.parts[0] as BatchPartRequest, 200, { id: 'a' }),
        {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: '{"id":',
          contentId: 'response-call-3',
        },
      ]),
    );
    const { c } = client(server.base);
    const [first, second, third] = await c.batch((b) => [
      b.things.get({ ownerId: 'o', thingId: 'a' }),
      b.things.get({ ownerId: 'o', thingId: 'b' }),
      b.things.get({ ownerId: 'o', thingId: 'c' }),
    ]);
    expect(first).toEqual({ ok: true, value: { id: 'a' } });
    expect(!second.ok && second.error.message).toBe(
      "things.get: the batch's answer has no part for this call (Content-ID <response-call-2>); whether it took effect is unknown",
    );
    expect(!third.ok && third.error).toBeInstanceOf(BatchResponseError);
    expect(!third.ok && third.error.message).toMatch(/its answer in the batch \(200\) is not valid JSON/);
    expect(server.batches()).toHaveLength(1);
  });
});

describe('credentials', () => {
  /** A token provider that hands out token-1, then token-2 once asked to refresh. */
  function provider() {
    const asked: boolean[] = [];
    let current = 'token-1';
    const accessToken = ({ refresh }: { refresh: boolean }) => {
      asked.push(refresh);
      if (refresh) current = 'token-2';
      return current;
    };
    return { asked, accessToken };
  }

  it('renews them once after an outer 401 and sends the request again', async () => {
    const server = await serve((request) =>
      request.headers.authorization === 'Bearer token-2'
        ? echo(request)
        : {
            status: 401,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(envelope(401, 'authError')),
          },
    );
    const { asked, accessToken } = provider();
    const { c, clock } = client(server.base, { accessToken });
    const results = await c.batch((b) => [
      b.things.get({ ownerId: 'o', thingId: 't' }),
      b.things.insert({ ownerId: 'o' }),
    ]);
    expect(server.batches().map((r) => r.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-2',
    ]);
    expect(asked).toEqual([false, true]);
    expect(clock.sleeps).toEqual([]);
    expect(results.every((r) => r.ok)).toBe(true);
  });

  it('renews them once when parts answer 401, and resends only those parts', async () => {
    const server = await serve((request) =>
      batchOf(
        request.parts.map((part) =>
          request.headers.authorization === 'Bearer token-1' && part.contentId !== 'call-1'
            ? answerTo(part, 401, envelope(401, 'authError'))
            : answerTo(part, 200, { id: part.contentId }),
        ),
      ),
    );
    const { asked, accessToken } = provider();
    const { c } = client(server.base, { accessToken });
    const results = await c.batch((b) => [b.colors.get(), b.colors.get(), b.things.insert({ ownerId: 'o' })]);
    expect(server.batches().map((r) => [r.headers.authorization, r.parts.map((p) => p.contentId)])).toEqual([
      ['Bearer token-1', ['call-1', 'call-2', 'call-3']],
      ['Bearer token-2', ['call-2', 'call-3']],
    ]);
    expect(asked).toEqual([false, true]);
    expect(results).toEqual(['call-1', 'call-2', 'call-3'].map((id) => ({ ok: true, value: { id } })));
  });

  it('gives the 401 to the calls when the renewed credentials are refused too, and with the reason when renewal fails', async () => {
    const refuse = () => ({
      status: 401,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(envelope(401, 'authError')),
    });
    const server = await serve(refuse);
    const { c } = client(server.base, { accessToken: provider().accessToken });
    const [result] = await c.batch((b) => [b.colors.get()]);
    expect(server.batches()).toHaveLength(2);
    expect(!result.ok && result.error).toMatchObject({ status: 401, operationId: 'colors.get' });

    const failing = await serve(refuse);
    const broken = new Error('the token endpoint refused');
    const { c: other } = client(failing.base, {
      accessToken: ({ refresh }) => {
        if (refresh) throw broken;
        return 'token-1';
      },
    });
    const [refused] = await other.batch((b) => [b.colors.get()]);
    expect(failing.batches()).toHaveLength(1);
    expect(!refused.ok && refused.error).toBeInstanceOf(GoogleApiError);
    expect(!refused.ok && refused.error.cause).toBe(broken);
  });

  it('sends every header of an auth client on the batch request', async () => {
    const server = await serve(echo);
    const auth = {
      getRequestHeaders: async (url?: string) => {
        expect(url).toBe(`${server.origin}/batch/api/v1`);
        return new Headers({ authorization: 'Bearer from-auth', 'x-goog-user-project': 'quota-project' });
      },
    };
    const { c } = client(server.base, { accessToken: undefined, auth });
    await c.batch((b) => [b.colors.get()]);
    const [request] = server.batches();
    expect([request?.headers.authorization, request?.headers['x-goog-user-project']]).toEqual([
      'Bearer from-auth',
      'quota-project',
    ]);
  });
});

describe('abort', () => {
  it('rejects with the signal’s reason, also while waiting to retry', async () => {
    const server = await serve((request) =>
      batchOf(request.parts.map((part) => answerTo(part, 503, envelope(503, 'backendError')))),
    );
    const controller = new AbortController();
    const reason = new Error('stop');
    const clock = fakeClock();
    const sleep = clock.sleep;
    clock.sleep = async (ms, signal) => {
      controller.abort(reason);
      return sleep(ms, signal);
    };
    const c = batchingTestClient({ clock }, server.base);
    await expect(
      c.batch((b) => [b.things.get({ ownerId: 'o', thingId: 't' })], { signal: controller.signal }),
    ).rejects.toBe(reason);
    expect(server.batches()).toHaveLength(1);
    await expect(c.batch((b) => [b.colors.get()], { signal: controller.signal })).rejects.toBe(reason);
    expect(server.batches()).toHaveLength(1);
  });
});

describe('the table', () => {
  it('has a builder method for every operation', async () => {
    const server = await serve(echo);
    const { c } = client(server.base);
    const made: string[] = [];
    await c.batch((b) => {
      for (const [resource, methods] of Object.entries(b)) {
        for (const name of Object.keys(methods)) made.push(`${resource}.${name}`);
      }
      return [];
    });
    expect(made.sort()).toEqual(Object.keys(table).sort());
  });
});
