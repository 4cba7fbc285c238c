/**
 * `gspec-mock --replay FILE.har`: requests matched against a recording (method, path, query,
 * body; credentials and headers left out), repeats answered in order, misses answered with a
 * 404 that names the nearest recorded request, the server's hygiene, the CLI from its built
 * file, and a session recorded through googleapis against the mock and replayed without it.
 * Offline: every server here listens on 127.0.0.1.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ChildRun, startProcess, stopAll } from '@gspec/scripts/child-process';
import { sendExact, statusBeforeTheBody } from '@gspec/scripts/raw-http';
import { type Exchange, type HarEntry, harEntry, listen, readBody, readHarFile } from '@gspec/server-kit';
import { google } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, loadApis } from '../src/index.ts';
import { createReplay, createReplayIndex, type Replay, type ReplayRequest } from '../src/replay.ts';

const GOOGLE = 'https://www.googleapis.com';
const EVENTS = '/calendar/v3/calendars/primary/events';

/** One recorded exchange, built as the recorder builds it (credentials redacted by harEntry). */
function recorded(
  method: string,
  url: string,
  options: {
    requestBody?: string;
    requestType?: string;
    requestHeaders?: Record<string, string>;
    status?: number;
    body?: unknown;
    responseHeaders?: Record<string, string>;
  } = {},
): HarEntry {
  const text =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  const exchange: Exchange = {
    method,
    url: url.startsWith('/') ? `${GOOGLE}${url}` : url,
    requestHeaders: {
      authorization: 'Bearer recorded-token',
      ...(options.requestType ? { 'content-type': options.requestType } : {}),
      ...options.requestHeaders,
    },
    requestBody: options.requestBody,
    status: options.status ?? 200,
    responseHeaders: {
      ...(text !== undefined && typeof options.body !== 'string'
        ? { 'content-type': 'application/json; charset=UTF-8' }
        : {}),
      ...options.responseHeaders,
    },
    responseBody: text,
    started: new Date('2027-01-01T00:00:00Z'),
    timeMs: 12,
  };
  return harEntry(exchange);
}

/** A HAR file of `entries` in a new temporary folder; returns its path. */
function harFile(entries: unknown, name = 'session.har'): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'gspec-replay-')), name);
  writeFileSync(
    file,
    typeof entries === 'string'
      ? entries
      : JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }),
  );
  return file;
}

const servers: Replay[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await stopAll();
});

/** A replay server of `entries` on a free port, closed after the file. */
async function replayOf(
  entries: HarEntry[],
  options: { verbose?: boolean; log?: (line: string) => void; docsDir?: string } = {},
): Promise<string> {
  const replay = createReplay({ entries, source: 'session.har', ...options });
  servers.push(replay);
  return replay.listen(0);
}

const bearer = { authorization: 'Bearer another-token' };

describe('matching', () => {
  const batchBody = (boundary: string, id: string, target: string) =>
    [
      `--${boundary}`,
      'Content-Type: application/http',
      `Content-ID: <${id}>`,
      '',
      `GET ${target} HTTP/1.1`,
      `Authorization: Bearer ${id}`,
      '',
      '',
      `--${boundary}--`,
      '',
    ].join('\r\n');
  const form = 'application/x-www-form-urlencoded';
  const json = 'application/json';

  // [what, whether it matches, recorded request, sent request]
  it.each<[string, boolean, HarEntry, ReplayRequest]>([
    [
      'the same request',
      true,
      recorded('GET', `${EVENTS}?maxResults=5`),
      { method: 'GET', target: `${EVENTS}?maxResults=5` },
    ],
    ['the method in lower case', true, recorded('GET', EVENTS), { method: 'get', target: EVENTS }],
    ['another method', false, recorded('GET', EVENTS), { method: 'DELETE', target: EVENTS }],
    [
      'another path',
      false,
      recorded('GET', EVENTS),
      { method: 'GET', target: '/calendar/v3/calendars/work/events' },
    ],
    ['a trailing slash', false, recorded('GET', EVENTS), { method: 'GET', target: `${EVENTS}/` }],
    [
      'the query in another order',
      true,
      recorded('GET', `${EVENTS}?maxResults=5&orderBy=startTime&singleEvents=true`),
      { method: 'GET', target: `${EVENTS}?singleEvents=true&maxResults=5&orderBy=startTime` },
    ],
    [
      'a repeated parameter in another order',
      true,
      recorded('GET', `${EVENTS}?q=a&q=b`),
      { method: 'GET', target: `${EVENTS}?q=b&q=a` },
    ],
    [
      'a repeated parameter sent once',
      false,
      recorded('GET', `${EVENTS}?q=a&q=a`),
      { method: 'GET', target: `${EVENTS}?q=a` },
    ],
    [
      'another value',
      false,
      recorded('GET', `${EVENTS}?maxResults=10`),
      { method: 'GET', target: `${EVENTS}?maxResults=5` },
    ],
    [
      'a parameter not recorded',
      false,
      recorded('GET', EVENTS),
      { method: 'GET', target: `${EVENTS}?maxResults=5` },
    ],
    [
      'credential parameters, recorded or not',
      true,
      recorded('GET', `${EVENTS}?access_token=old&maxResults=5`),
      { method: 'GET', target: `${EVENTS}?maxResults=5&key=api-key&oauth_token=new` },
    ],
    [
      "the mock's own __ parameters",
      true,
      recorded('GET', `${EVENTS}?__code=410`),
      { method: 'GET', target: `${EVENTS}?__example=x` },
    ],
    [
      'the path percent-encoded or not',
      true,
      recorded('GET', '/calendar/v3/calendars/a%40example.com/acl/user%3Aa%40example.com'),
      { method: 'GET', target: '/calendar/v3/calendars/a@example.com/acl/user:a@example.com' },
    ],
    [
      'an absolute target (a client that takes the replay for a proxy)',
      true,
      recorded('GET', EVENTS),
      { method: 'GET', target: `http://calendar.test${EVENTS}` },
    ],
    [
      'a recorded [redacted] query value against any value',
      true,
      recorded('GET', `${EVENTS}?pageToken=%5Bredacted%5D`),
      { method: 'GET', target: `${EVENTS}?pageToken=abc` },
    ],
    [
      'JSON bodies with their keys in another order and other spacing',
      true,
      recorded('POST', EVENTS, {
        requestType: json,
        requestBody: '{"summary":"A","start":{"date":"2027-01-01"},"n":1}',
      }),
      {
        method: 'POST',
        target: EVENTS,
        contentType: json,
        body: '{ "n": 1.0, "start": { "date": "2027-01-01" }, "summary": "A" }',
      },
    ],
    [
      'JSON bodies with another value',
      false,
      recorded('POST', EVENTS, { requestType: json, requestBody: '{"summary":"A"}' }),
      { method: 'POST', target: EVENTS, contentType: json, body: '{"summary":"B"}' },
    ],
    [
      'JSON arrays in another order',
      false,
      recorded('POST', EVENTS, { requestType: json, requestBody: '{"a":[1,2]}' }),
      { method: 'POST', target: EVENTS, contentType: json, body: '{"a":[2,1]}' },
    ],
    [
      'a JSON credential the recorder redacted (a watch channel token)',
      true,
      recorded('POST', `${EVENTS}/watch`, {
        requestType: json,
        requestBody: '{"id":"c1","token":"old-secret"}',
      }),
      {
        method: 'POST',
        target: `${EVENTS}/watch`,
        contentType: json,
        body: '{"token":"new-secret","id":"c1"}',
      },
    ],
    [
      'no body against an empty body',
      true,
      recorded('POST', `${EVENTS}/quickAdd?text=x`),
      { method: 'POST', target: `${EVENTS}/quickAdd?text=x`, body: Buffer.alloc(0) },
    ],
    [
      'no body against a body',
      false,
      recorded('POST', EVENTS),
      { method: 'POST', target: EVENTS, contentType: json, body: '{}' },
    ],
    [
      'the same text',
      true,
      recorded('POST', '/upload', { requestType: 'text/plain', requestBody: 'hello' }),
      { method: 'POST', target: '/upload', contentType: 'text/plain', body: 'hello' },
    ],
    [
      'text with a credential in it, as the recorder redacted it',
      true,
      recorded('POST', '/upload', { requestType: 'text/plain', requestBody: 'Authorization: Bearer old' }),
      { method: 'POST', target: '/upload', contentType: 'text/plain', body: 'Authorization: Bearer new' },
    ],
    [
      'another text',
      false,
      recorded('POST', '/upload', { requestType: 'text/plain', requestBody: 'hello' }),
      { method: 'POST', target: '/upload', contentType: 'text/plain', body: 'hullo' },
    ],
    [
      "the token endpoint's form, its secrets and field order aside",
      true,
      recorded('POST', 'https://oauth2.googleapis.com/token', {
        requestType: form,
        requestBody: 'grant_type=refresh_token&client_id=app&client_secret=s1&refresh_token=r1',
      }),
      {
        method: 'POST',
        target: '/token',
        contentType: form,
        body: 'refresh_token=r2&client_secret=s2&grant_type=refresh_token&client_id=app',
      },
    ],
    [
      'a form with another field value',
      false,
      recorded('POST', 'https://oauth2.googleapis.com/token', {
        requestType: form,
        requestBody: 'client_id=app',
      }),
      { method: 'POST', target: '/token', contentType: form, body: 'client_id=other' },
    ],
    [
      'batches with other boundaries, Content-IDs and part headers',
      true,
      recorded('POST', '/batch/calendar/v3', {
        requestType: 'multipart/mixed; boundary=one',
        requestBody: batchBody('one', '1', '/calendar/v3/colors'),
      }),
      {
        method: 'POST',
        target: '/batch/calendar/v3',
        contentType: 'multipart/mixed; boundary=two',
        body: batchBody('two', '9', '/calendar/v3/colors'),
      },
    ],
    [
      'batches with another call',
      false,
      recorded('POST', '/batch/calendar/v3', {
        requestType: 'multipart/mixed; boundary=one',
        requestBody: batchBody('one', '1', '/calendar/v3/colors'),
      }),
      {
        method: 'POST',
        target: '/batch/calendar/v3',
        contentType: 'multipart/mixed; boundary=two',
        body: batchBody('two', '1', '/calendar/v3/settings'),
      },
    ],
  ])('%s: matches %s', (_what, matched, entry, request) => {
    const found = createReplayIndex([entry]).match(request);
    expect(found.entry !== undefined, found.entry ? '' : found.message).toBe(matched);
  });

  it('compares only the entries of the same method and path, and skips answers under 200', () => {
    const index = createReplayIndex([
      recorded('GET', '/ws', { status: 101 }),
      recorded('GET', EVENTS, { body: { n: 1 } }),
    ]);
    expect(index.match({ method: 'GET', target: EVENTS })).toMatchObject({ index: 1 });
    expect(index.match({ method: 'GET', target: '/ws' }).entry).toBeUndefined();
  });
});

describe('misses', () => {
  const entries = [
    recorded('GET', `${EVENTS}?maxResults=10`),
    recorded('GET', `${EVENTS}?maxResults=10&orderBy=startTime`),
    recorded('POST', EVENTS, {
      requestType: 'application/json',
      requestBody:
        '{"summary":"Lunch","start":{"dateTime":"2027-01-01T12:00:00Z"},"attendees":[{"email":"a@x"}]}',
    }),
    recorded('GET', '/calendar/v3/users/me/calendarList'),
    recorded('DELETE', '/calendar/v3/calendars/primary/events/e1'),
  ];
  const index = createReplayIndex(entries);
  const message = (request: ReplayRequest) => {
    const found = index.match(request);
    if (found.entry) throw new Error(`expected a miss, got entry #${found.index}`);
    return found.message;
  };

  it.each<[string, ReplayRequest, string]>([
    [
      'another query value: the same method and path, fewest differences',
      { method: 'GET', target: `${EVENTS}?maxResults=5` },
      `No recorded answer for GET ${EVENTS}?maxResults=5. Nearest recorded: GET ${EVENTS}?maxResults=10 (query maxResults: recorded "10", sent "5")`,
    ],
    [
      'a parameter not sent, and one not recorded',
      { method: 'GET', target: `${EVENTS}?orderBy=startTime&q=x` },
      `No recorded answer for GET ${EVENTS}?orderBy=startTime&q=x. Nearest recorded: GET ${EVENTS}?maxResults=10&orderBy=startTime (query maxResults: recorded "10", not sent; query q: not recorded, sent "x")`,
    ],
    [
      'another JSON body: the places that differ',
      {
        method: 'POST',
        target: EVENTS,
        contentType: 'application/json',
        body: '{"summary":"Dinner","start":{"dateTime":"2027-01-01T12:00:00Z"},"attendees":[{"email":"b@x"}],"colorId":"2"}',
      },
      `No recorded answer for POST ${EVENTS}. Nearest recorded: POST ${EVENTS} (body at summary: recorded "Lunch", sent "Dinner"; body at attendees[0].email: recorded "a@x", sent "b@x"; body at colorId: not recorded, sent "2")`,
    ],
    [
      'a credential sent in a JSON body the recording does not have is not repeated',
      {
        method: 'POST',
        target: EVENTS,
        contentType: 'application/json',
        body: '{"summary":"Lunch","start":{"dateTime":"2027-01-01T12:00:00Z"},"attendees":[{"email":"a@x"}],"password":"hunter2"}',
      },
      `No recorded answer for POST ${EVENTS}. Nearest recorded: POST ${EVENTS} (body at password: not recorded, sent "[redacted]")`,
    ],
    [
      'another method on a recorded path',
      { method: 'PUT', target: '/calendar/v3/users/me/calendarList' },
      'No recorded answer for PUT /calendar/v3/users/me/calendarList. Nearest recorded: GET /calendar/v3/users/me/calendarList (method: recorded GET, sent PUT)',
    ],
    [
      'a path not recorded: the closest by segments',
      { method: 'DELETE', target: '/calendar/v3/calendars/primary/events/e2' },
      'No recorded answer for DELETE /calendar/v3/calendars/primary/events/e2. Nearest recorded: DELETE /calendar/v3/calendars/primary/events/e1 (path: recorded /calendar/v3/calendars/primary/events/e1, sent /calendar/v3/calendars/primary/events/e2)',
    ],
    [
      'a credential in the sent query is redacted in the message',
      { method: 'GET', target: `${EVENTS}?maxResults=7&access_token=secret` },
      `No recorded answer for GET ${EVENTS}?maxResults=7&access_token=%5Bredacted%5D. Nearest recorded: GET ${EVENTS}?maxResults=10 (query maxResults: recorded "10", sent "7")`,
    ],
  ])('%s', (_what, request, expected) => {
    expect(message(request)).toBe(expected);
  });

  it('nor one inside a sent object or query value', () => {
    const text = message({
      method: 'POST',
      target: `${EVENTS}?next=${encodeURIComponent('https://x.test/?access_token=abc')}`,
      contentType: 'application/json',
      body: '{"summary":"Lunch","start":{"dateTime":"2027-01-01T12:00:00Z"},"attendees":[{"email":"a@x"}],"auth":{"password":"hunter2"}}',
    });
    expect(text).toContain(
      `Nearest recorded: POST ${EVENTS} (query next: not recorded, sent "https://x.test/?access_token=%5Bredacted%5D"; body at auth: not recorded, sent {"password":"[redacted]"})`,
    );
    expect(text).not.toContain('hunter2');
  });

  it('says so when the recording is empty', () => {
    expect(createReplayIndex([]).match({ method: 'GET', target: '/x' })).toEqual({
      message: 'No recorded answer for GET /x. The recording holds no exchange.',
    });
  });

  it('counts the differences it does not name', () => {
    const found = createReplayIndex([recorded('GET', '/a?p1=1&p2=2&p3=3&p4=4&p5=5')]).match({
      method: 'GET',
      target: '/a',
    });
    expect(found.message).toMatch(/query p3: recorded "3", not sent; and 2 more difference\(s\)\)$/);
  });
});

describe('the replay server', () => {
  it('answers a match with the recorded status, headers and body, decoded and with its true length', async () => {
    const body = { kind: 'calendar#events', items: [{ id: 'e1', summary: 'Zoë' }] };
    const origin = await replayOf([
      recorded('GET', `${EVENTS}?maxResults=5&access_token=recorded`, {
        body,
        responseHeaders: {
          etag: '"p1"',
          'x-custom': 'kept',
          'content-encoding': 'gzip',
          'content-length': '9999',
          'transfer-encoding': 'chunked',
          connection: 'close',
          'keep-alive': 'timeout=5',
          'set-cookie': 'session=abc',
        },
      }),
    ]);
    const reply = await sendExact(origin, 'GET', `${EVENTS}?access_token=now&maxResults=5`, {
      host: new URL(origin).host,
    });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual(body);
    expect(reply.headers).toMatchObject({
      etag: '"p1"',
      'x-custom': 'kept',
      'content-type': 'application/json; charset=UTF-8',
      'content-length': String(Buffer.byteLength(JSON.stringify(body))),
    });
    // Framing, encoding and connection headers are the replay's own; a redacted cookie is left out.
    expect(reply.headers['content-encoding']).toBeUndefined();
    expect(reply.headers['transfer-encoding']).toBeUndefined();
    expect(reply.headers['set-cookie']).toBeUndefined();
    expect(reply.headers.connection).not.toBe('close');
  });

  it('replays a recording of another host at its own origin, base paths and token endpoint alike', async () => {
    const origin = await replayOf([
      recorded('GET', 'https://www.googleapis.com/doubleclicksearch/v2/agency/1/advertiser/2/idmapping', {
        body: 'row,1\n',
        responseHeaders: { 'content-type': 'text/csv' },
      }),
      recorded('POST', 'https://oauth2.googleapis.com/token', {
        requestType: 'application/x-www-form-urlencoded',
        requestBody: 'grant_type=refresh_token&refresh_token=r1&client_id=app',
        body: { access_token: 'ya29.secret', expires_in: 3599, token_type: 'Bearer' },
      }),
    ]);
    const csv = await fetch(`${origin}/doubleclicksearch/v2/agency/1/advertiser/2/idmapping`, {
      headers: bearer,
    });
    expect([csv.status, csv.headers.get('content-type'), await csv.text()]).toEqual([
      200,
      'text/csv',
      'row,1\n',
    ]);
    const token = await fetch(`${origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'client_id=app&grant_type=refresh_token&refresh_token=r2',
    });
    expect(token.status).toBe(200);
    // The recorder redacted the token it was given: the replay hands out that stand-in.
    expect(await token.json()).toEqual({
      access_token: '[redacted]',
      expires_in: 3599,
      token_type: 'Bearer',
    });
  });

  it('answers repeats in their recorded order, then the last again, until POST /__mock/reset', async () => {
    const poll = (n: number, status = 200) =>
      recorded('GET', '/calendar/v3/calendars/primary/events/e1', { status, body: { sequence: n } });
    const origin = await replayOf([
      poll(1, 202),
      recorded('GET', '/calendar/v3/colors', { body: {} }),
      poll(2),
      poll(3),
    ]);
    const get = async () => {
      const response = await fetch(`${origin}/calendar/v3/calendars/primary/events/e1`, { headers: bearer });
      return [response.status, ((await response.json()) as { sequence: number }).sequence];
    };
    const seen = [];
    for (let i = 0; i < 5; i++) seen.push(await get());
    expect(seen).toEqual([
      [202, 1],
      [200, 2],
      [200, 3],
      [200, 3],
      [200, 3],
    ]);
    const reset = await fetch(`${origin}/__mock/reset`, { method: 'POST' });
    expect(reset.status).toBe(204);
    expect(await get()).toEqual([202, 1]);
  });

  it('answers a miss with 404 in Google’s envelope, naming the nearest request and the difference', async () => {
    const origin = await replayOf([recorded('GET', `${EVENTS}?maxResults=10`, { body: { items: [] } })]);
    const response = await fetch(`${origin}${EVENTS}?maxResults=5`, { headers: bearer });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const message = `No recorded answer for GET ${EVENTS}?maxResults=5. Nearest recorded: GET ${EVENTS}?maxResults=10 (query maxResults: recorded "10", sent "5")`;
    expect(await response.json()).toEqual({
      error: {
        code: 404,
        message,
        status: 'NOT_FOUND',
        errors: [{ domain: 'global', reason: 'notFound', message }],
      },
    });
  });

  it('logs one redacted line per request with --verbose, saying which entry answered', async () => {
    const lines: string[] = [];
    const origin = await replayOf([recorded('GET', '/calendar/v3/colors', { body: {} })], {
      verbose: true,
      log: (line) => lines.push(line),
    });
    await (await fetch(`${origin}/calendar/v3/colors?access_token=secret`)).text();
    await (await fetch(`${origin}/calendar/v3/settings`)).text();
    await (await fetch(`${origin}/healthz`)).text();
    // A line is written once its answer is sent: wait for the last one (the test's limit guards a hang).
    while (lines.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(lines).toEqual([
      'GET /calendar/v3/colors?access_token=%5Bredacted%5D -> 200 (replayed entry #0)',
      'GET /calendar/v3/settings -> 404 (unmatched)',
      'GET /healthz -> 200',
    ]);
  });

  describe('hygiene, as the gateway', () => {
    const docs = mkdtempSync(path.join(tmpdir(), 'gspec-replay-docs-'));
    writeFileSync(path.join(docs, 'index.html'), '<h1>reference</h1>');
    let origin: string;
    beforeAll(async () => {
      origin = await replayOf(
        [recorded('GET', '/calendar/v3/colors', { body: { kind: 'calendar#colors' } })],
        {
          docsDir: docs,
        },
      );
    });

    it('answers /healthz with the file and its number of exchanges', async () => {
      expect(await (await fetch(`${origin}/healthz`)).json()).toEqual({
        status: 'ok',
        replay: 'session.har',
        entries: 1,
      });
    });

    it('refuses a Host that names no host of its own', async () => {
      const reply = await sendExact(origin, 'GET', '/calendar/v3/colors', { host: 'rebound.example:80' });
      expect(reply.status).toBe(403);
      expect(JSON.parse(reply.body).error.errors[0].reason).toBe('hostNotAllowed');
    });

    it('answers a CORS preflight, and a page of any origin with CORS headers', async () => {
      const host = new URL(origin).host;
      const preflight = await sendExact(origin, 'OPTIONS', '/calendar/v3/colors', {
        host,
        origin: 'http://localhost:5173',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers).toMatchObject({
        'access-control-allow-origin': 'http://localhost:5173',
        'access-control-allow-headers': 'authorization',
      });
      const reply = await sendExact(origin, 'GET', '/calendar/v3/colors', {
        host,
        origin: 'http://localhost:5173',
      });
      expect(reply.status).toBe(200);
      expect(reply.headers).toMatchObject({
        'access-control-allow-origin': 'http://localhost:5173',
        vary: 'Origin',
      });
    });

    it('refuses a body over the limit before reading it', async () => {
      const status = await statusBeforeTheBody(
        origin,
        `POST /calendar/v3/calendars HTTP/1.1\r\nHost: ${new URL(origin).host}\r\nContent-Type: application/json\r\nContent-Length: ${11 * 1024 * 1024}\r\n\r\n`,
      );
      expect(status).toMatch(/^HTTP\/1\.1 413/);
    });

    it('serves the reference of --docs where the recording has nothing', async () => {
      const page = await fetch(`${origin}/`);
      expect([page.status, await page.text()]).toEqual([200, '<h1>reference</h1>']);
    });
  });
});

describe('gspec-mock --replay (the built CLI)', () => {
  const cli = path.resolve(import.meta.dirname, '../dist/cli.js');
  const start = (args: string[]): ChildRun => {
    const env = { ...process.env };
    delete env.PORT;
    return startProcess(`gspec-mock ${args.join(' ')}`, [cli, ...args], {
      env,
    });
  };

  it('answers from a good file and says what it replays', async () => {
    const file = harFile([
      recorded('GET', '/calendar/v3/colors', { body: { kind: 'calendar#colors' } }),
      recorded('GET', '/calendar/v3/colors', { body: { kind: 'calendar#colors', n: 2 } }),
    ]);
    const mock = start(['--replay', file, '--port', '0', '--verbose']);
    const origin = await mock.ready;
    expect(mock.output().out).toContain(
      `gspec mock listening on ${origin}\nReplaying ${file} (2 exchanges) with no upstream\n`,
    );
    const response = await fetch(`${origin}/calendar/v3/colors`, { headers: bearer });
    expect([response.status, await response.json()]).toEqual([200, { kind: 'calendar#colors' }]);
    expect(await mock.stop('SIGTERM')).toBe(0);
    expect(mock.output().err).toContain('GET /calendar/v3/colors -> 200 (replayed entry #0)');
  });

  const entry = recorded('GET', '/calendar/v3/colors');
  it.each<[string, () => string[], (file: string) => string]>([
    [
      'a missing file',
      () => ['/no/such/session.har'],
      () => 'cannot replay /no/such/session.har: no such file',
    ],
    ['a file that is not JSON', () => [harFile('{"log": ')], (file) => `cannot replay ${file}:1:9: `],
    [
      'an entry without an absolute URL',
      () => [harFile([{ ...entry, request: { ...entry.request, url: 'colors' } }])],
      (file) => `cannot replay ${file}: log.entries[0].request.url: expected an absolute URL, found "colors"`,
    ],
    [
      'an answer without a status',
      () => [harFile([{ ...entry, response: { ...entry.response, status: 'ok' } }])],
      (file) => `cannot replay ${file}: log.entries[0].response.status: expected an HTTP status, found "ok"`,
    ],
    [
      '--faults with it',
      () => [harFile([entry]), '--faults', 'faults.json'],
      () => '--replay and --faults cannot be used together: a replay answers from the recording alone',
    ],
  ])(
    'refuses %s with one line (the file and the place, for a bad file) and status 1',
    async (_what, args, expected) => {
      const [file, ...rest] = args();
      const mock = start(['--port', '0', '--replay', file as string, ...rest]);
      expect(await mock.exited).toBe(1);
      const err = mock.output().err;
      expect(err.startsWith(`gspec-mock: ${expected(file as string)}`), err).toBe(true);
      expect(err.split('\n')).toHaveLength(2);
      expect(err).not.toMatch(/\n\s+at /);
    },
  );
});

describe('a session recorded through googleapis against the mock, replayed without it', () => {
  /** Both clients as a user builds them, signed with a token they already hold. */
  function clientsFor(origin: string, token: string) {
    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: token, expiry_date: Date.now() + 3_600_000 });
    const options = { auth, rootUrl: `${origin}/`, retryConfig: { retry: 0 } };
    return {
      calendar: google.calendar({ version: 'v3', ...options }),
      ads: google.doubleclicksearch({ version: 'v2', ...options }),
    };
  }

  /** The calls of the session, each reduced to what a client reads: status and data, or the error's. */
  async function session(origin: string, token: string): Promise<[string, number, unknown][]> {
    const { calendar, ads } = clientsFor(origin, token);
    const calls: [string, () => Promise<{ status: number; data: unknown }>][] = [
      ['events.list maxResults=5', () => calendar.events.list({ calendarId: 'primary', maxResults: 5 })],
      ['events.list maxResults=10', () => calendar.events.list({ calendarId: 'primary', maxResults: 10 })],
      [
        'events.insert',
        () =>
          calendar.events.insert({
            calendarId: 'primary',
            requestBody: {
              summary: 'Replayed',
              start: { dateTime: '2027-03-01T10:00:00Z' },
              end: { dateTime: '2027-03-01T11:00:00Z' },
            },
          }),
      ],
      ['acl.get', () => calendar.acl.get({ calendarId: 'a@example.com', ruleId: 'user:a@example.com' })],
      ['events.delete', () => calendar.events.delete({ calendarId: 'primary', eventId: 'e1' })],
      ['reports.getIdMappingFile', () => ads.reports.getIdMappingFile({ agencyId: '1', advertiserId: '2' })],
      [
        'events.list maxResults=0 (refused)',
        () => calendar.events.list({ calendarId: 'primary', maxResults: 0 }),
      ],
    ];
    const results: [string, number, unknown][] = [];
    for (const [name, call] of calls) {
      try {
        const { status, data } = await call();
        results.push([name, status, data]);
      } catch (error) {
        const { status, response } = error as { status?: number; response?: { data: unknown } };
        results.push([name, status ?? 0, response?.data]);
      }
    }
    return results;
  }

  /** A forwarder to `upstream` that records every exchange with harEntry, as the mock's proxy would. */
  function recorder(upstream: string, entries: HarEntry[]): Server {
    return createServer((request: IncomingMessage, response: ServerResponse) => {
      void (async () => {
        const started = new Date();
        const begin = performance.now();
        const body = await readBody(request);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(request.headers))
          if (value !== undefined && !/^(host|connection|content-length|accept-encoding)$/.test(name))
            headers[name] = Array.isArray(value) ? value.join(', ') : value;
        const answer = await fetch(`${upstream}${request.url}`, {
          method: request.method ?? 'GET',
          headers,
          ...(body.length > 0 ? { body: new Uint8Array(body) } : {}),
        });
        const answerBody = Buffer.from(await answer.arrayBuffer());
        const answerHeaders = Object.fromEntries(answer.headers);
        entries.push(
          harEntry({
            method: request.method ?? 'GET',
            url: `${upstream}${request.url}`,
            requestHeaders: request.headers,
            requestBody: body,
            status: answer.status,
            statusText: answer.statusText,
            responseHeaders: answerHeaders,
            responseBody: answerBody,
            started,
            timeMs: performance.now() - begin,
          }),
        );
        for (const [name, value] of Object.entries(answerHeaders))
          if (!/^(content-length|content-encoding|transfer-encoding|connection|keep-alive)$/.test(name))
            response.setHeader(name, value);
        response.statusCode = answer.status;
        response.end(answerBody);
      })().catch((error: unknown) => {
        response.statusCode = 502;
        response.end(String(error));
      });
    });
  }

  it('gives the same client calls the same answers', async () => {
    const gateway = createGateway({ apis: await loadApis() });
    const upstream = await gateway.listen(0);
    const entries: HarEntry[] = [];
    const forwarder = recorder(upstream, entries);
    const recording = await session(await listen(forwarder, 0), 'token-of-the-recording');
    await new Promise((resolve) => forwarder.close(resolve));
    await gateway.close();

    // The recording holds no credential, and reads back as written.
    const file = harFile(entries);
    expect(JSON.stringify(entries)).not.toContain('token-of-the-recording');
    expect(readHarFile(file)).toHaveLength(recording.length);
    // The session is what the mock answers: a success of each kind and the refusal.
    expect(recording.map(([name, status]) => [name, status])).toEqual([
      ['events.list maxResults=5', 200],
      ['events.list maxResults=10', 200],
      ['events.insert', 200],
      ['acl.get', 200],
      ['events.delete', 204],
      ['reports.getIdMappingFile', 200],
      ['events.list maxResults=0 (refused)', 400],
    ]);

    // No upstream now: the mock is closed, and only the recording answers.
    const origin = await replayOf(readHarFile(file));
    expect(await session(origin, 'another-token')).toEqual(recording);

    const { calendar } = clientsFor(origin, 'another-token');
    const miss = (await calendar.events
      .list({ calendarId: 'primary', maxResults: 7 })
      .catch((error: unknown) => error)) as { status: number; message: string };
    expect(miss.status).toBe(404);
    expect(miss.message).toContain('query maxResults: recorded "5", sent "7"');
  });
});
