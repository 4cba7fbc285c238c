/**
 * The HTTP layer the mock and the emulator share: the bearer token, a body over the limit
 * (refused so that the client reads the 413 even while still sending), JSON content types, the
 * CORS headers, and listening.
 */
import { createServer } from 'node:http';
import { statusBeforeTheBody } from '@gspec/scripts/raw-http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  corsHeaders,
  HttpRefusal,
  isJsonContentType,
  jsonNestingPastLimit,
  jsonNestingRefusal,
  listen,
  MISSING_CREDENTIAL,
  preflightHeaders,
  readBearer,
  readBody,
  unsupportedMediaType,
} from '../src/index.ts';

describe('readBearer', () => {
  it.each([
    ['Bearer t-1', null, { token: 't-1' }],
    ['bearer t-1', null, { token: 't-1' }],
    ['  BEARER   t-1  ', null, { token: 't-1' }],
    [undefined, 'from-query', { token: 'from-query' }],
    // The header wins over the query parameter, as at Google.
    ['Bearer header', 'query', { token: 'header' }],
    [undefined, null, { problem: MISSING_CREDENTIAL }],
    [undefined, '', { problem: MISSING_CREDENTIAL }],
    ['', null, { problem: 'The Authorization header is empty. Expected "Authorization: Bearer <token>".' }],
    ['Bearer', null, { problem: 'The bearer token is empty. Expected "Authorization: Bearer <token>".' }],
    [
      'abc',
      null,
      {
        problem:
          'The Authorization header has no scheme. Expected an OAuth 2 access token as "Authorization: Bearer <token>".',
      },
    ],
    [
      'Basic dXNlcjpwdw==',
      null,
      {
        problem:
          'The Authorization header uses the Basic scheme; this API takes only an OAuth 2 access token as "Authorization: Bearer <token>".',
      },
    ],
    // Two words of which the first is no scheme: maybe a credential, not repeated in the answer.
    [
      'SECRET-1 SECRET-2',
      null,
      {
        problem:
          'The Authorization header uses a scheme other than Bearer; this API takes only an OAuth 2 access token as "Authorization: Bearer <token>".',
      },
    ],
  ])('%j with access_token %j', (authorization, accessToken, expected) => {
    expect(readBearer(authorization, accessToken)).toEqual(expected);
  });
});

describe('jsonNestingPastLimit', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  it.each([
    ['100 arrays deep', nested(100), undefined],
    ['101 arrays deep', nested(101), 100],
    // The 101st opening bracket: the { of the 51st {"a":[ (6 characters each).
    ['objects and arrays, 102 deep', `${'{"a":['.repeat(51)}`, 300],
    ['brackets inside strings', `["${'['.repeat(500)}"]`, undefined],
    ['an escaped quote inside a string', `["\\"${'['.repeat(500)}"]`, undefined],
    ['200,000 deep', nested(200_000), 100],
    ['a flat body of 1 MB', `{"a":"${'x'.repeat(1_000_000)}"}`, undefined],
    ['not JSON at all', ']]]]'.repeat(100), undefined],
  ])('%s: %j', (_, text, at) => {
    expect(jsonNestingPastLimit(text)).toBe(at);
  });

  it('refuses a body nested too deep with 400 parseError saying where', () => {
    const refusal = jsonNestingRefusal(nested(101));
    expect(refusal?.status).toBe(400);
    expect(refusal?.message).toBe(
      'The request body is not valid JSON for this API: it nests objects and arrays more than 100 deep (at character 100)',
    );
    expect(jsonNestingRefusal(nested(100))).toBeUndefined();
  });
});

describe('content types', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=UTF-8', true],
    ['Application/JSON', true],
    ['application/merge-patch+json', true],
    ['text/plain', false],
    ['application/x-www-form-urlencoded', false],
    ['application/jsonp', false],
  ])('%s is JSON: %s', (type, json) => {
    expect(isJsonContentType(type)).toBe(json);
  });

  it('refuses another with 415 in the envelope, naming the header', () => {
    const refusal = unsupportedMediaType('text/plain');
    expect(refusal.status).toBe(415);
    expect(refusal.body).toEqual({
      error: {
        code: 415,
        message: 'The request body must be application/json, not text/plain',
        status: 'INVALID_ARGUMENT',
        errors: [
          {
            domain: 'global',
            reason: 'unsupportedMediaType',
            message: 'The request body must be application/json, not text/plain',
            location: 'Content-Type',
            locationType: 'header',
          },
        ],
      },
    });
  });
});

describe('readBody and listen, over HTTP', () => {
  const servers: ReturnType<typeof createServer>[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function echo(limit: number): Promise<string> {
    const server = createServer((request, response) => {
      readBody(request, limit).then(
        (bytes) => response.writeHead(200, corsHeaders(request)).end(`${bytes.length}`),
        (error: unknown) => {
          const refusal = error as HttpRefusal;
          response
            .writeHead(refusal.status, { 'content-type': 'application/json' })
            .end(JSON.stringify(refusal.body));
        },
      );
    });
    servers.push(server);
    return listen(server, 0);
  }

  it('listens on a free port and says where', async () => {
    expect(await echo(10)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('reads a body up to the limit whole', async () => {
    const origin = await echo(1024);
    const answer = await fetch(origin, { method: 'POST', body: 'x'.repeat(1024) });
    expect([answer.status, await answer.text()]).toEqual([200, '1024']);
    const empty = await fetch(origin, { method: 'POST' });
    expect(await empty.text()).toBe('0');
  });

  it('refuses a larger one with 413 while it is still sent, and the client reads the answer', async () => {
    const origin = await echo(1024);
    // 4 MB: far more than a socket buffers, so the client is still sending when the limit is passed.
    const answer = await fetch(origin, { method: 'POST', body: 'x'.repeat(4 * 1024 * 1024) });
    expect(answer.status).toBe(413);
    expect(await answer.json()).toEqual({
      error: {
        code: 413,
        message: 'The request body is larger than 1024 bytes',
        status: 'INVALID_ARGUMENT',
        errors: [
          {
            domain: 'global',
            reason: 'uploadTooLarge',
            message: 'The request body is larger than 1024 bytes',
          },
        ],
      },
    });
    // The connection is still good for the next request.
    expect((await fetch(origin, { method: 'POST', body: 'ok' })).status).toBe(200);
  });

  it.each([
    [
      'declared larger than the limit: refused before a byte of it',
      'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 400000000\r\n\r\n',
      '',
    ],
    [
      'chunked, past the limit: refused as it streams in, the end never sent',
      'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n',
      `800\r\n${'x'.repeat(0x800)}\r\n`,
    ],
  ])('%s', async (_, head, body) => {
    const origin = await echo(1024);
    expect(await statusBeforeTheBody(origin, head + body)).toBe('HTTP/1.1 413 Payload Too Large');
  });

  it('a refusal is an Error with the envelope and its headers', () => {
    const refusal = new HttpRefusal(
      401,
      { domain: 'global', reason: 'authError', message: 'no' },
      { a: 'b' },
    );
    expect(refusal).toBeInstanceOf(Error);
    expect([refusal.message, refusal.headers, refusal.body.error.status]).toEqual([
      'no',
      { a: 'b' },
      'UNAUTHENTICATED',
    ]);
  });
});

describe('CORS', () => {
  const request = (headers: Record<string, string>) => ({ headers }) as never;
  it('answers any origin and exposes every header', () => {
    expect(corsHeaders(request({ origin: 'http://localhost:5173' }))).toEqual({
      'access-control-allow-origin': 'http://localhost:5173',
      'access-control-expose-headers': '*',
      vary: 'Origin',
    });
    expect(corsHeaders(request({}))['access-control-allow-origin']).toBe('*');
  });

  it('a preflight allows the APIs methods and the headers asked for', () => {
    expect(
      preflightHeaders(request({ 'access-control-request-headers': 'authorization, content-type' })),
    ).toMatchObject({
      'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
      'access-control-allow-headers': 'authorization, content-type',
      'access-control-max-age': '600',
    });
  });
});
