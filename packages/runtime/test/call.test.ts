import { describe, expect, it } from 'vitest';
import {
  type CallOptions,
  GoogleApiError,
  type GoogleClientOptions,
  NetworkError,
  TimeoutError,
} from '../src/index.ts';
import { testClient } from './fixture.ts';
import { type Answer, fakeClock, googleError, hangingFetch, scriptedFetch } from './support.ts';

type Client = ReturnType<typeof testClient>;

describe('a resource method sends the flat argument object as the spec says', () => {
  it.each<
    [
      string,
      {
        given: (c: Client) => Promise<unknown>;
        want: { method: string; url: string; body?: unknown; headers?: Record<string, string> };
      },
    ]
  >([
    [
      'path and query parameters of a GET, arrays repeated',
      {
        given: (c) => c.things.list({ ownerId: 'team@example.com', q: 'a b', maxResults: 5 }),
        want: {
          method: 'GET',
          url: 'https://example.test/api/v1/owners/team%40example.com/things?q=a%20b&maxResults=5',
        },
      },
    ],
    [
      'query parameters apart from the body fields of a POST',
      {
        given: (c) =>
          c.things.insert({ ownerId: 'o', sendUpdates: 'all', name: 'Standup', tags: ['x', 'y'] }),
        want: {
          method: 'POST',
          url: 'https://example.test/api/v1/owners/o/things?sendUpdates=all',
          body: { name: 'Standup', tags: ['x', 'y'] },
          headers: { 'content-type': 'application/json' },
        },
      },
    ],
    [
      'a header parameter under its camelCase name',
      {
        given: (c) => c.things.update({ ownerId: 'o', thingId: 't', ifMatch: '"e1"', name: 'n' }),
        want: {
          method: 'PUT',
          url: 'https://example.test/api/v1/owners/o/things/t',
          body: { name: 'n' },
          headers: { 'if-match': '"e1"' },
        },
      },
    ],
    [
      'an operation without arguments',
      { given: (c) => c.colors.get(), want: { method: 'GET', url: 'https://example.test/api/v1/colors' } },
    ],
    [
      'undefined arguments left out',
      {
        given: (c) => c.colors.get({ fields: undefined }),
        want: { method: 'GET', url: 'https://example.test/api/v1/colors' },
      },
    ],
  ])('%s', async (_title, { given, want }) => {
    const { fetch, requests } = scriptedFetch(Response.json({}));
    await given(testClient({ accessToken: 'tok', fetch }));
    const sent = requests[0];
    expect({ method: sent?.method, url: sent?.url, ...(want.body ? { body: sent?.body } : {}) }).toEqual({
      method: want.method,
      url: want.url,
      ...(want.body ? { body: want.body } : {}),
    });
    expect(sent?.headers).toMatchObject({ authorization: 'Bearer tok', ...want.headers });
  });

  it('refuses a missing path parameter before sending, naming it', async () => {
    const { fetch, requests } = scriptedFetch(Response.json({}));
    const client = testClient({ fetch });
    await expect(client.things.get({ ownerId: 'o' } as never)).rejects.toThrow(
      'things.get: the path parameter "thingId" is required',
    );
    expect(requests).toHaveLength(0);
  });
});

describe('a resource method answers', () => {
  it.each<[string, { given: Answer; call: (c: Client) => Promise<unknown>; want: unknown }]>([
    [
      'the parsed JSON body',
      {
        given: Response.json({ id: 't1' }),
        call: (c) => c.things.get({ ownerId: 'o', thingId: 't1' }),
        want: { id: 't1' },
      },
    ],
    [
      'undefined for 204',
      {
        given: new Response(null, { status: 204 }),
        call: (c) => c.things.delete({ ownerId: 'o', thingId: 't' }),
        want: undefined,
      },
    ],
    [
      'text for a text operation',
      {
        given: new Response('a,b\n1,2\n', { headers: { 'content-type': 'text/csv' } }),
        call: (c) => c.things.export({ ownerId: 'o' }),
        want: 'a,b\n1,2\n',
      },
    ],
  ])('%s', async (_title, { given, call, want }) => {
    const { fetch } = scriptedFetch(given);
    expect(await call(testClient({ fetch }))).toEqual(want);
  });

  it('throws a GoogleApiError with status, reasons, message, operation and raw body', async () => {
    const { fetch } = scriptedFetch(googleError(404, ['notFound']));
    const error = await testClient({ fetch })
      .things.get({ ownerId: 'o', thingId: 'gone' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GoogleApiError);
    expect(error).toMatchObject({
      status: 404,
      reasons: ['notFound'],
      reason: 'notFound',
      operationId: 'things.get',
      message: 'things.get failed with 404 (notFound): problem 404 (notFound)',
      body: { error: { code: 404, message: 'problem 404' } },
    });
  });

  it('keeps a body that is not JSON as text', async () => {
    const { fetch } = scriptedFetch(new Response('<html>bad gateway</html>', { status: 400 }));
    await expect(testClient({ fetch }).colors.get()).rejects.toMatchObject({
      status: 400,
      body: '<html>bad gateway</html>',
      reasons: [],
    });
  });
});

const rateLimited403 = () => googleError(403, ['rateLimitExceeded']);
const ok = () => Response.json({ id: 'done' });

describe('retries', () => {
  it.each<
    [
      string,
      {
        given: Answer[];
        call?: (c: Client, o: CallOptions) => Promise<unknown>;
        options?: CallOptions;
        want: { attempts: number; outcome: 'ok' | number | string };
      },
    ]
  >([
    [
      '429, then success',
      { given: [googleError(429, ['rateLimitExceeded']), ok()], want: { attempts: 2, outcome: 'ok' } },
    ],
    [
      '500, 502, 503, 504, then success',
      {
        given: [googleError(500), googleError(502), googleError(503), googleError(504), ok()],
        want: { attempts: 5, outcome: 'ok' },
      },
    ],
    ['403 rateLimitExceeded', { given: [rateLimited403(), ok()], want: { attempts: 2, outcome: 'ok' } }],
    [
      '403 userRateLimitExceeded',
      { given: [googleError(403, ['userRateLimitExceeded']), ok()], want: { attempts: 2, outcome: 'ok' } },
    ],
    [
      'never 403 quotaExceeded',
      { given: [googleError(403, ['quotaExceeded']), ok()], want: { attempts: 1, outcome: 403 } },
    ],
    [
      'never 403 dailyLimitExceeded',
      { given: [googleError(403, ['dailyLimitExceeded']), ok()], want: { attempts: 1, outcome: 403 } },
    ],
    [
      'never 429 quotaExceeded',
      { given: [googleError(429, ['quotaExceeded']), ok()], want: { attempts: 1, outcome: 429 } },
    ],
    [
      'never a plain 403 forbidden',
      { given: [googleError(403, ['forbidden']), ok()], want: { attempts: 1, outcome: 403 } },
    ],
    [
      'never 400, 404 or 412',
      { given: [googleError(412, ['conditionNotMet']), ok()], want: { attempts: 1, outcome: 412 } },
    ],
    [
      'a network error on a GET',
      { given: [new TypeError('fetch failed'), ok()], want: { attempts: 2, outcome: 'ok' } },
    ],
    ['at most maxAttempts times', { given: [googleError(503)], want: { attempts: 5, outcome: 503 } }],
    [
      'not at all with retry: false',
      { given: [googleError(503), ok()], options: { retry: false }, want: { attempts: 1, outcome: 503 } },
    ],
    [
      'never a POST that is not declared idempotent',
      {
        given: [googleError(503), ok()],
        call: (c, o) => c.things.insert({ ownerId: 'o', name: 'n' }, o),
        want: { attempts: 1, outcome: 503 },
      },
    ],
    [
      'never a POST after a network error',
      {
        given: [new TypeError('reset'), ok()],
        call: (c, o) => c.things.insert({ ownerId: 'o' }, o),
        want: { attempts: 1, outcome: 'NetworkError' },
      },
    ],
    [
      'a POST declared idempotent',
      {
        given: [googleError(503), ok()],
        options: { idempotent: true },
        call: (c, o) => c.things.insert({ ownerId: 'o' }, o),
        want: { attempts: 2, outcome: 'ok' },
      },
    ],
    [
      'never a PATCH that is not declared idempotent',
      {
        given: [googleError(500), ok()],
        call: (c, o) => c.things.patch({ ownerId: 'o', thingId: 't' }, o),
        want: { attempts: 1, outcome: 500 },
      },
    ],
    [
      'a PUT, which is idempotent',
      {
        given: [googleError(500), ok()],
        call: (c, o) => c.things.update({ ownerId: 'o', thingId: 't' }, o),
        want: { attempts: 2, outcome: 'ok' },
      },
    ],
  ])('%s', async (_title, { given, call, options = {}, want }) => {
    const { fetch, requests } = scriptedFetch(...given);
    const client = testClient({ fetch, clock: fakeClock() });
    const run = call ?? ((c: Client, o: CallOptions) => c.things.get({ ownerId: 'o', thingId: 't' }, o));
    const outcome = await run(client, options).then(
      () => 'ok',
      (e: unknown) => (e instanceof GoogleApiError ? e.status : (e as Error).name),
    );
    expect({ attempts: requests.length, outcome }).toEqual(want);
  });

  it.each<
    [
      string,
      {
        given: { random: number; answers: Answer[]; retry?: GoogleClientOptions['retry']; now?: number };
        want: number[];
      },
    ]
  >([
    [
      'waits a full-jitter share of 500, 1000, 2000 ms',
      {
        given: { random: 0.5, answers: [googleError(503), googleError(503), googleError(503), ok()] },
        want: [250, 500, 1000],
      },
    ],
    [
      'caps the bound at maxDelayMs',
      {
        given: {
          random: 0.999,
          answers: [googleError(503), googleError(503), googleError(503), ok()],
          retry: { maxDelayMs: 800 },
        },
        want: [499, 799, 799],
      },
    ],
    [
      'honours Retry-After in seconds',
      { given: { random: 0.5, answers: [googleError(429, [], { 'retry-after': '7' }), ok()] }, want: [7000] },
    ],
    [
      'honours Retry-After as an HTTP date',
      {
        given: {
          random: 0.5,
          now: Date.parse('2026-01-01T00:00:00Z'),
          answers: [googleError(503, [], { 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), ok()],
        },
        want: [3000],
      },
    ],
    [
      'ignores an invalid Retry-After',
      {
        given: { random: 0.5, answers: [googleError(503, [], { 'retry-after': 'soon' }), ok()] },
        want: [250],
      },
    ],
  ])('%s', async (_title, { given, want }) => {
    const { fetch } = scriptedFetch(...given.answers);
    const clock = fakeClock(given.random);
    clock.time = given.now ?? 0;
    await testClient({ fetch, clock, ...(given.retry ? { retry: given.retry } : {}) }).things.get({
      ownerId: 'o',
      thingId: 't',
    });
    expect(clock.sleeps).toEqual(want);
  });

  it('stops when the next wait would pass the total budget, and throws the last failure', async () => {
    const { fetch, requests } = scriptedFetch(googleError(503, [], { 'retry-after': '30' }));
    const clock = fakeClock();
    const error = await testClient({ fetch, clock, retry: { budgetMs: 45_000 } })
      .things.get({ ownerId: 'o', thingId: 't' })
      .catch((e: unknown) => e);
    expect(requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([30_000]);
    expect(error).toMatchObject({ status: 503, retryAfterMs: 30_000 });
  });
});

describe('authentication', () => {
  it('asks the token provider again once after a 401, with refresh: true, and repeats the call', async () => {
    const asked: boolean[] = [];
    const { fetch, requests } = scriptedFetch(googleError(401, ['authError']), ok());
    const client = testClient({
      fetch,
      clock: fakeClock(),
      accessToken: ({ refresh }) => {
        asked.push(refresh);
        return refresh ? 'fresh' : 'stale';
      },
    });
    await client.things.insert({ ownerId: 'o' });
    expect(asked).toEqual([false, true]);
    expect(requests.map((r) => r.headers.authorization)).toEqual(['Bearer stale', 'Bearer fresh']);
  });

  it.each<[string, { given: GoogleClientOptions['accessToken']; want: number }]>([
    ['a provider refused twice', { given: () => 'tok', want: 2 }],
    ['a static token', { given: 'tok', want: 1 }],
  ])('gives up on 401 after %s', async (_title, { given, want }) => {
    const { fetch, requests } = scriptedFetch(googleError(401, ['authError']));
    const client = testClient({ fetch, clock: fakeClock(), ...(given ? { accessToken: given } : {}) });
    await expect(client.colors.get()).rejects.toMatchObject({ status: 401 });
    expect(requests).toHaveLength(want);
  });

  it('sends an API key as the key query parameter, on resource and raw calls alike', async () => {
    const { fetch, requests } = scriptedFetch(Response.json({}));
    const client = testClient({ fetch, apiKey: 'AIza-key' });
    await client.colors.get();
    await client.request('get', '/colors' as never, {} as never);
    expect(requests.map((r) => r.url)).toEqual([
      'https://example.test/api/v1/colors?key=AIza-key',
      'https://example.test/api/v1/colors?key=AIza-key',
    ]);
    expect(requests[0]?.headers.authorization).toBeUndefined();
  });

  it.each<[string, GoogleClientOptions['accessToken'], Answer]>([
    ['an error answer', 'secret-token-1', googleError(500)],
    ['a network error', 'secret-token-1', new TypeError('fetch failed')],
    ['a provider', () => 'secret-token-1', googleError(403, ['forbidden'])],
  ])('never puts the token into the error of %s', async (_title, accessToken, answer) => {
    const { fetch } = scriptedFetch(answer);
    const error = await testClient({ fetch, accessToken, clock: fakeClock(), retry: false })
      .colors.get()
      .catch((e: unknown) => e);
    expect(JSON.stringify(error)).not.toContain('secret-token-1');
    expect(String(error)).not.toContain('secret-token-1');
    expect((error as Error).stack).not.toContain('secret-token-1');
  });
});

describe('timeouts and cancellation', () => {
  it('fails a stalled attempt with TimeoutError after timeoutMs, and retries it on a GET', async () => {
    const clock = fakeClock();
    let attempts = 0;
    const fetch: typeof hangingFetch = (input, init) => {
      attempts++;
      return hangingFetch(input, init);
    };
    const error = await testClient({ fetch, clock, retry: { maxAttempts: 2 } })
      .things.get({ ownerId: 'o', thingId: 't' }, { timeoutMs: 1500 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({
      operationId: 'things.get',
      timeoutMs: 1500,
      message: 'things.get: no answer within 1500 ms',
    });
    expect(attempts).toBe(2);
  });

  it.each<[string, { abortAt: 'before' | 'during' }]>([
    ['before the call', { abortAt: 'before' }],
    ['while it waits for the answer', { abortAt: 'during' }],
  ])('rejects with the reason of a signal aborted %s, without retrying', async (_title, { abortAt }) => {
    const controller = new AbortController();
    const reason = new Error('user left');
    if (abortAt === 'before') controller.abort(reason);
    let attempts = 0;
    const fetch: typeof hangingFetch = (input, init) => {
      attempts++;
      queueMicrotask(() => controller.abort(reason));
      return hangingFetch(input, init);
    };
    await expect(
      testClient({ fetch, clock: fakeClock() }).things.get(
        { ownerId: 'o', thingId: 't' },
        { signal: controller.signal },
      ),
    ).rejects.toBe(reason);
    expect(attempts).toBe(abortAt === 'before' ? 0 : 1);
  });

  it('wraps a failed fetch in NetworkError naming the operation', async () => {
    const { fetch } = scriptedFetch(new TypeError('getaddrinfo ENOTFOUND'));
    const error = await testClient({ fetch, retry: false })
      .colors.get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toBe(
      'colors.get: no answer from https://example.test/api/v1/colors after 1 attempt (getaddrinfo ENOTFOUND); is a server running at https://example.test?',
    );
  });
});
