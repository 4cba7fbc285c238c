/**
 * nodeFetch against a real node:http server on 127.0.0.1. Every request is bounded: the
 * server answers at once, or the test aborts the request itself.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GoogleApiError, TimeoutError } from '../src/index.ts';
import { type NodeFetchInit, nodeFetch } from '../src/node.ts';
import { leanTestClient } from './fixture.ts';

const JSON_BODY = { kind: 'calendar#events', items: [{ id: 'e1', summary: 'Zürich ☕' }] };
const encoded = {
  gzip: gzipSync(JSON.stringify(JSON_BODY)),
  deflate: deflateSync(JSON.stringify(JSON_BODY)),
  br: brotliCompressSync(JSON.stringify(JSON_BODY)),
};

const routes: Record<string, (request: IncomingMessage, body: string, response: ServerResponse) => void> = {
  '/echo': (request, body, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify({ method: request.method, url: request.url, headers: request.headers, body }),
    );
  },
  '/json': (_request, _body, response) => {
    response.writeHead(200, [
      ['Content-Type', 'application/json; charset=UTF-8'],
      ['X-Multi', 'a'],
      ['X-Multi', 'b'],
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
    ]);
    response.end(`\uFEFF${JSON.stringify(JSON_BODY)}`);
  },
  '/gzip': (_q, _b, response) => response.writeHead(200, { 'content-encoding': 'gzip' }).end(encoded.gzip),
  '/deflate': (_q, _b, response) =>
    response.writeHead(200, { 'content-encoding': 'deflate' }).end(encoded.deflate),
  '/br': (_q, _b, response) => response.writeHead(200, { 'content-encoding': 'br' }).end(encoded.br),
  '/empty': (_q, _b, response) => response.writeHead(204).end(),
  '/redirect': (_q, _b, response) => response.writeHead(302, { location: '/echo' }).end(),
  '/rate-limited': (_q, _b, response) =>
    response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' }).end(
      JSON.stringify({
        error: { code: 429, message: 'slow down', errors: [{ reason: 'rateLimitExceeded' }] },
      }),
    ),
  '/owners': (_q, _b, response) => response.end(JSON.stringify({ items: [{ id: 't1' }] })),
  // Answers nothing: the test aborts.
  '/hang-head': () => {},
  // Sends the head and part of the body, then nothing: the test aborts.
  '/hang-body': (_q, _b, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('part of it');
  },
};

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // Routed by the first segment, so that a client's base URL can pick the route.
      const route = routes[`/${new URL(request.url ?? '/', 'http://x').pathname.split('/')[1]}`];
      if (route) route(request, Buffer.concat(chunks).toString(), response);
      else response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('nodeFetch sends', () => {
  it.each<[string, { init: NodeFetchInit; want: Record<string, unknown> }]>([
    ['a GET by default', { init: {}, want: { method: 'GET', body: '' } }],
    [
      'headers as given',
      {
        init: { headers: { Authorization: 'Bearer t', 'If-Match': '"e1"' } },
        want: { headers: expect.objectContaining({ authorization: 'Bearer t', 'if-match': '"e1"' }) },
      },
    ],
    [
      'a string body with its length in bytes',
      {
        init: {
          method: 'POST',
          body: '{"summary":"Zürich"}',
          headers: { 'Content-Type': 'application/json' },
        },
        want: {
          method: 'POST',
          body: '{"summary":"Zürich"}',
          headers: expect.objectContaining({ 'content-length': '21', 'content-type': 'application/json' }),
        },
      },
    ],
    [
      'a bytes body',
      {
        init: { method: 'PUT', body: new TextEncoder().encode('abc') },
        want: { method: 'PUT', body: 'abc', headers: expect.objectContaining({ 'content-length': '3' }) },
      },
    ],
    ['PATCH and DELETE', { init: { method: 'PATCH', body: '{}' }, want: { method: 'PATCH', body: '{}' } }],
  ])('%s', async (_title, { init, want }) => {
    const response = await nodeFetch(`${origin}/echo?q=a%20b&n=1`, init);
    expect(await response.json()).toMatchObject({ url: '/echo?q=a%20b&n=1', ...want });
  });

  it('takes a URL object', async () => {
    const response = await nodeFetch(new URL('/echo?x=1', origin));
    expect(await response.json()).toMatchObject({ url: '/echo?x=1' });
  });
});

describe('nodeFetch answers as fetch does', () => {
  it.each<[string, { path: string; want: Record<string, unknown> }]>([
    [
      'status, headers and a JSON body (byte order mark dropped)',
      {
        path: '/json',
        want: {
          status: 200,
          ok: true,
          statusText: 'OK',
          contentType: 'application/json; charset=UTF-8',
          multi: 'a, b',
          cookies: 'a=1, b=2',
          hasMissing: false,
          text: JSON.stringify(JSON_BODY),
        },
      },
    ],
    ['a gzip body, decompressed', { path: '/gzip', want: { status: 200, text: JSON.stringify(JSON_BODY) } }],
    ['a deflate body, decompressed', { path: '/deflate', want: { text: JSON.stringify(JSON_BODY) } }],
    ['a brotli body, decompressed', { path: '/br', want: { text: JSON.stringify(JSON_BODY) } }],
    ['204 without a body', { path: '/empty', want: { status: 204, ok: true, text: '' } }],
    [
      'a redirect as the answer, not followed',
      { path: '/redirect', want: { status: 302, ok: false, text: '' } },
    ],
    ['an error status', { path: '/rate-limited', want: { status: 429, ok: false, retryAfter: '7' } }],
  ])('%s', async (_title, { path, want }) => {
    const response = await nodeFetch(`${origin}${path}`);
    const seen = {
      status: response.status,
      ok: response.ok,
      statusText: response.statusText,
      contentType: response.headers.get('CONTENT-TYPE'),
      multi: response.headers.get('x-multi'),
      cookies: response.headers.get('set-cookie'),
      hasMissing: response.headers.has('x-missing'),
      retryAfter: response.headers.get('Retry-After'),
      text: await response.text(),
    };
    expect(seen).toMatchObject(want);
    expect(response.url).toBe(`${origin}${path}`);
  });

  it('gives the same text when the body is read again', async () => {
    const response = await nodeFetch(`${origin}/json`);
    expect(await response.json()).toEqual(JSON_BODY);
    expect(await response.text()).toBe(JSON.stringify(JSON_BODY));
  });
});

describe('nodeFetch fails as fetch does', () => {
  it.each<[string, { path: string; when: 'before' | 'waiting' | 'reading' }]>([
    ['aborted before it is sent', { path: '/echo', when: 'before' }],
    ['aborted while waiting for the answer', { path: '/hang-head', when: 'waiting' }],
    ['aborted while reading the body', { path: '/hang-body', when: 'reading' }],
  ])('rejects with the signal’s reason when %s', async (_title, { path, when }) => {
    const controller = new AbortController();
    const reason = new Error('stop');
    if (when === 'before') controller.abort(reason);
    if (when === 'waiting') setImmediate(() => controller.abort(reason));
    const answer = nodeFetch(`${origin}${path}`, { signal: controller.signal });
    if (when !== 'reading') return expect(answer).rejects.toBe(reason);
    const text = (await answer).text();
    controller.abort(reason);
    await expect(text).rejects.toBe(reason);
  });

  it.each([['http'], ['https']])(
    'rejects with TypeError("fetch failed") and the cause when nobody listens on an %s URL',
    async (scheme) => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const failure = await nodeFetch(`${scheme}://127.0.0.1:${port}/`).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TypeError);
      expect(failure).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
    },
  );

  it.each([['ftp://127.0.0.1/x'], ['file:///etc/hosts'], ['not a url']])('refuses %s', async (url) => {
    await expect(nodeFetch(url)).rejects.toBeInstanceOf(TypeError);
  });
});

describe('the resource methods over nodeFetch', () => {
  const client = (options = {}) =>
    leanTestClient({ baseUrl: origin, accessToken: 't', fetch: nodeFetch, ...options });

  it('answers a call', async () => {
    await expect(client().things.list({ ownerId: 'o' })).resolves.toEqual({ items: [{ id: 't1' }] });
  });

  it('throws a GoogleApiError with Retry-After', async () => {
    const failure = await leanTestClient({
      baseUrl: `${origin}/rate-limited`,
      fetch: nodeFetch,
      retry: false,
    })
      .colors.get()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GoogleApiError);
    expect(failure).toMatchObject({ status: 429, reasons: ['rateLimitExceeded'], retryAfterMs: 7000 });
  });

  it('times an attempt out', async () => {
    const failure = await leanTestClient({
      baseUrl: `${origin}/hang-head`,
      fetch: nodeFetch,
      retry: false,
      timeoutMs: 20,
    })
      .colors.get()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TimeoutError);
  });

  it('stops a call on its signal', async () => {
    const controller = new AbortController();
    const call = leanTestClient({ baseUrl: `${origin}/hang-head`, fetch: nodeFetch }).colors.get(
      {},
      { signal: controller.signal },
    );
    setImmediate(() => controller.abort(new Error('user stop')));
    await expect(call).rejects.toThrow('user stop');
  });
});
