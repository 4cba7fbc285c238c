/**
 * The validating proxy (`createProxy`, `gspec-mock --proxy`) in front of upstreams made here:
 * one that answers deliberately wrong things, one that never answers, none at all, and one that
 * speaks plain HTTP where TLS is expected. Each wrong answer is reported at its place, and the
 * caller gets the upstream's answer byte for byte. (In front of the emulator, with Google's client
 * and the contract suite, it finds nothing: packages/emulator/test/googleapis-through-proxy.test.ts
 * and the contract tests' emulator run.)
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { startProcess, stopAll } from '@gspec/scripts/child-process';
import { HarWriter, parseHar } from '@gspec/server-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy, loadApis, type MockApi, type ValidatingProxy, ViolationReport } from '../src/index.ts';

interface Canned {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Canned => ({
  status,
  headers: { 'content-type': 'application/json; charset=UTF-8', ...headers },
  body: JSON.stringify(body),
});

const PALETTE = { background: '#ac725e', foreground: '#1d1d1d' };

/** What the wrong upstream answers, by method and path (the query is ignored). */
const CANNED: Record<string, Canned> = {
  // A wrong type: `calendar` is a map of definitions, not a string.
  'GET /calendar/v3/colors': json(200, {
    kind: 'calendar#colors',
    calendar: 'none',
    event: { '1': PALETTE },
  }),
  // An undocumented status.
  'GET /calendar/v3/users/me/calendarList': json(418, { error: { code: 418, message: 'teapot' } }),
  // A missing required property (ColorDefinition.foreground), and an extra undocumented header.
  'GET /calendar/v3/users/me/settings': json(
    200,
    {
      kind: 'calendar#settings',
      items: [{ kind: 'calendar#setting', id: 'locale', value: 'en', etag: '"1"' }],
    },
    { 'x-undocumented': 'fine' },
  ),
  'GET /calendar/v3/users/me/settings/locale': {
    status: 200,
    headers: { 'content-type': 'text/plain' },
    body: 'locale=en',
  },
  // JSON promised, something else sent.
  'GET /calendar/v3/calendars/primary': {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: '<html>oops</html>',
  },
  // A property the spec does not declare.
  'GET /calendar/v3/calendars/primary/acl/user:a@example.com': json(200, {
    kind: 'calendar#aclRule',
    id: 'user:a@example.com',
    role: 'reader',
    scope: { type: 'user', value: 'a@example.com' },
    surprise: true,
  }),
  // A valid answer, gzip-encoded as Google sends it.
  'GET /calendar/v3/calendars/primary/events/abc': {
    status: 200,
    headers: { 'content-type': 'application/json; charset=UTF-8', 'content-encoding': 'gzip' },
    body: gzipSync(JSON.stringify({ kind: 'calendar#event', id: 'abc', summary: 'Gzipped' })),
  },
  // An event whose reminder lacks its required `minutes`: wrong whole, fine trimmed by `fields`.
  'GET /calendar/v3/calendars/primary/events/trimmed': json(200, {
    reminders: { useDefault: false, overrides: [{ method: 'popup' }] },
  }),
  // Accepts anything: a request the specs call invalid gets a 200 here.
  'GET /calendar/v3/calendars/primary/events': json(200, { kind: 'calendar#events', items: [] }),
  // Refuses: the request the specs call invalid is refused here too.
  'POST /calendar/v3/calendars/primary/events': json(400, {
    error: {
      code: 400,
      message: 'Missing end time.',
      errors: [{ reason: 'required', message: 'Missing end time.' }],
    },
  }),
  'POST /token': json(200, { access_token: 'ya29.secret', refresh_token: '1//secret', token_type: 'Bearer' }),
};

const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];

function listenOn(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

let apis: MockApi[];
let wrong: Server;
let wrongOrigin: string;
let silent: Server;
let silentOrigin: string;
let proxy: ValidatingProxy;
let origin: string;
let report: ViolationReport;
const logged: string[] = [];
const folder = mkdtempSync(path.join(tmpdir(), 'gspec-proxy-'));
const harFile = path.join(folder, 'session.har');
let recorder: HarWriter;

beforeAll(async () => {
  apis = await loadApis();
  wrong = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const canned = CANNED[`${request.method} ${(request.url ?? '').split('?')[0]}`];
      if (!canned) {
        response
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"code":404,"message":"none"}}');
        return;
      }
      response.writeHead(canned.status, canned.headers).end(canned.body);
    });
  });
  wrongOrigin = await listenOn(wrong);
  // Takes requests and never answers them.
  silent = createServer(() => undefined);
  silentOrigin = await listenOn(silent);
  report = new ViolationReport(wrongOrigin, (line) => logged.push(line));
  recorder = new HarWriter(harFile, { name: 'gspec-mock', version: 'test' });
  proxy = createProxy({ apis, upstream: wrongOrigin, report, record: recorder });
  origin = await proxy.listen(0);
});

afterAll(async () => {
  await proxy.close();
  wrong.closeAllConnections();
  silent.closeAllConnections();
  await new Promise((resolve) => wrong.close(resolve));
  await new Promise((resolve) => silent.close(resolve));
});

const auth = { authorization: 'Bearer ya29.the-callers-token' };

async function through(pathAndQuery: string, init: RequestInit = {}) {
  const response = await fetch(`${origin}${pathAndQuery}`, {
    ...init,
    headers: { ...auth, ...init.headers },
  });
  return {
    status: response.status,
    headers: response.headers,
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

const kindsOf = (operation: string) =>
  report
    .report()
    .violations.filter((v) => v.operation === operation)
    .map((v) => [v.side, v.kind, v.pointer]);

describe('answers that break the specs', () => {
  it.each([
    ['a wrong type', '/calendar/v3/colors', 'colors.get', [['answer', 'schema', '/calendar']]],
    [
      'an undocumented status',
      '/calendar/v3/users/me/calendarList',
      'calendarList.list',
      [['answer', 'undocumentedStatus', '']],
    ],
    [
      'a wrong content type',
      '/calendar/v3/users/me/settings/locale',
      'settings.get',
      [['answer', 'contentType', '/headers/content-type']],
    ],
    [
      'a body that is not JSON',
      '/calendar/v3/calendars/primary',
      'calendars.get',
      [['answer', 'notJson', '']],
    ],
    [
      'an undeclared property',
      '/calendar/v3/calendars/primary/acl/user:a@example.com',
      'acl.get',
      [['answer', 'schema', '/surprise']],
    ],
  ])(
    '%s is reported at its place, and the answer passes unchanged',
    async (_name, target, operation, kinds) => {
      const answer = await through(target);
      const canned = CANNED[`GET ${target}`] as Canned;
      expect(answer.status).toBe(canned.status);
      expect(answer.bytes.equals(Buffer.from(canned.body))).toBe(true);
      expect(answer.headers.get('content-type')).toBe(canned.headers['content-type']);
      expect(kindsOf(operation)).toEqual(kinds);
    },
  );

  it('an extra undocumented header is fine, and a valid answer has no violation', async () => {
    const answer = await through('/calendar/v3/users/me/settings');
    expect(answer.headers.get('x-undocumented')).toBe('fine');
    expect(kindsOf('settings.list')).toEqual([]);
  });

  it('reads a gzip answer to check it, and passes the compressed bytes on as they came', async () => {
    const response = await fetch(`${origin}/calendar/v3/calendars/primary/events/abc`, {
      headers: { ...auth, 'accept-encoding': 'gzip' },
    });
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(await response.json()).toMatchObject({ summary: 'Gzipped' });
    expect(kindsOf('events.get')).toEqual([]);
  });

  it('lets an answer trimmed by fields leave out required properties, and only then', async () => {
    await through('/calendar/v3/calendars/primary/events/trimmed?fields=reminders');
    expect(kindsOf('events.get')).toEqual([]);
    await through('/calendar/v3/calendars/primary/events/trimmed');
    expect(kindsOf('events.get')).toEqual([['answer', 'schema', '/reminders/overrides/0/minutes']]);
  });

  it('logs one line per kind, however often it comes', async () => {
    await through('/calendar/v3/colors');
    await through('/calendar/v3/colors');
    const lines = logged.filter((line) =>
      line.startsWith('violation: colors.get answer schema at /calendar'),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/expected .*object.*; got "none"/);
    expect(report.report().violations.find((v) => v.operation === 'colors.get')?.count).toBe(3);
  });
});

describe('requests the specs call invalid', () => {
  it('one the service accepted is a violation, with the status it got', async () => {
    const answer = await through('/calendar/v3/calendars/primary/events?maxResults=many');
    expect(answer.status).toBe(200);
    const found = report.report().violations.find((v) => v.operation === 'events.list');
    expect(found).toMatchObject({
      side: 'request',
      kind: 'query',
      pointer: '/query/maxResults',
      got: '"many"',
      status: 200,
    });
  });

  it('one the service refused too is no violation, but a refusal as expected', async () => {
    const answer = await through('/calendar/v3/calendars/primary/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ summary: 'No times', start: 'tomorrow' }),
    });
    expect(answer.status).toBe(400);
    expect(kindsOf('events.insert')).toEqual([]);
    expect(report.report().refusedAsExpected['events.insert']).toBe(1);
  });

  it('forwards the request as sent: method, target, credentials and body', async () => {
    const body = JSON.stringify({ summary: 'As sent', start: 'tomorrow' });
    await through('/calendar/v3/calendars/primary/events?sendUpdates=none&access_token=q-secret', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-client': 'gl-node/22' },
      body,
    });
    const last = seen.at(-1);
    expect(last?.url).toBe('/calendar/v3/calendars/primary/events?sendUpdates=none&access_token=q-secret');
    expect(last?.headers.authorization).toBe(auth.authorization);
    expect(last?.headers['x-goog-api-client']).toBe('gl-node/22');
    expect(last?.body).toBe(body);
  });
});

describe('what the proxy relays', () => {
  it('answers a path of no API itself with 404, without forwarding it', async () => {
    const before = seen.length;
    const answer = await through('/admin/secrets');
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.bytes.toString()).error.message).toMatch(/relays only .*\/calendar\/v3/);
    expect(seen.length).toBe(before);
  });

  it('refuses a Host that names no host of the proxy (a page rebinding its name)', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const port = new URL(origin).port;
      request(
        { host: '127.0.0.1', port, path: '/calendar/v3/colors', headers: { host: 'evil.example' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(status).toBe(403);
  });
});

describe('bad upstreams', () => {
  it.each([
    ['unreachable', () => 'http://127.0.0.1:1', 502, 'unreachable'],
    ['no answer within the timeout', () => silentOrigin, 504, 'timeout'],
    ['plain HTTP where TLS is expected', () => wrongOrigin.replace('http:', 'https:'), 502, 'tls'],
  ])(
    '%s: answered in Google envelope with its status, and reported',
    async (_name, upstream, status, kind) => {
      const own = new ViolationReport(upstream(), () => undefined);
      const other = createProxy({ apis, upstream: upstream(), report: own, timeoutMs: 300 });
      const at = await other.listen(0);
      try {
        const response = await fetch(`${at}/calendar/v3/colors`, { headers: auth });
        expect(response.status).toBe(status);
        const body = await response.json();
        expect(body.error).toMatchObject({ code: status, errors: [{ reason: 'backendError' }] });
        expect(own.report().violations).toMatchObject([{ operation: 'colors.get', side: 'upstream', kind }]);
      } finally {
        await other.close();
      }
    },
  );
});

describe('the report and the recording', () => {
  it('writes the JSON report and the Markdown summary by operation and kind', () => {
    const files = report.write(path.join(folder, 'report.json'));
    const written = JSON.parse(readFileSync(files.json, 'utf8'));
    expect(written.upstream).toBe(wrongOrigin);
    expect(written.violations.map((v: { operation: string }) => v.operation)).toContain('colors.get');
    const markdown = readFileSync(files.markdown, 'utf8');
    expect(markdown).toMatch(/\| colors\.get \| \d+ \| 1 \| 0 \|/);
    expect(markdown).toContain('## acl.get');
    expect(markdown).toContain('`/surprise`');
  });

  it('records every exchange as HAR with no credential in it', async () => {
    await through('/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=1%2Fsecret&client_secret=shh',
    });
    recorder.close();
    const text = readFileSync(harFile, 'utf8');
    for (const secret of ['ya29', '1//secret', '1%2Fsecret', 'shh', 'q-secret', 'the-callers-token'])
      expect(text, secret).not.toContain(secret);
    const entries = parseHar(text, harFile);
    const token = entries.find((e) => e.request.url.endsWith('/token'));
    expect(token?.response.content.text).toContain('"access_token":"[redacted]"');
    const colors = entries.find((e) => e.request.url.endsWith('/calendar/v3/colors'));
    expect(colors?.request.headers).toContainEqual({ name: 'authorization', value: '[redacted]' });
    expect(colors?.response.content.text).toBe(CANNED['GET /calendar/v3/colors']?.body);
    // The gzip answer is kept decoded, as HAR keeps content.
    const gzipped = entries.find((e) => e.request.url.endsWith('/events/abc'));
    expect(JSON.parse(gzipped?.response.content.text ?? '{}')).toMatchObject({ summary: 'Gzipped' });
  });
});

describe('gspec-mock --proxy (the built CLI)', () => {
  const cli = path.resolve(import.meta.dirname, '../dist/cli.js');
  const start = (args: string[]) => startProcess(`gspec-mock ${args.join(' ')}`, [cli, ...args]);
  afterAll(() => stopAll());

  it('checks, records and reports, and with --fail-on-violation exits 1 on stop', async () => {
    const record = path.join(folder, 'cli.har');
    const reportFile = path.join(folder, 'cli-report.json');
    const run = start([
      '--proxy',
      wrongOrigin,
      '--port',
      '0',
      '--record',
      record,
      '--report',
      reportFile,
      '--fail-on-violation',
    ]);
    const at = await run.ready;
    expect(run.output().out).toContain(`/calendar/v3 -> ${wrongOrigin}/calendar/v3`);
    const answer = await fetch(`${at}/calendar/v3/colors`, { headers: auth });
    expect(await answer.json()).toMatchObject({ calendar: 'none' });
    expect(await run.stop('SIGTERM')).toBe(1);
    expect(run.output().err).toMatch(/violation: colors\.get answer schema at \/calendar/);
    expect(run.output().err).toMatch(/1 exchange\(s\) checked, 1 kind\(s\) of violation; 1 recorded/);
    expect(JSON.parse(readFileSync(reportFile, 'utf8')).violations).toHaveLength(1);
    expect(readFileSync(reportFile.replace(/\.json$/, '.md'), 'utf8')).toContain('## colors.get');
    expect(parseHar(readFileSync(record, 'utf8'), record)).toHaveLength(1);
  });

  it('exits 0 on stop when nothing broke the specs, and --proxy alone names the live hosts', async () => {
    const run = start(['--proxy', '--port', '0', '--fail-on-violation']);
    await run.ready;
    expect(run.output().out).toContain('/calendar/v3 -> https://www.googleapis.com/calendar/v3');
    expect(run.output().out).toContain(
      '/doubleclicksearch/v2 -> https://doubleclicksearch.googleapis.com/doubleclicksearch/v2',
    );
    expect(run.output().out).toContain('/token -> https://oauth2.googleapis.com/token');
    expect(await run.stop('SIGINT')).toBe(0);
  });

  it.each([
    [['--record', 'x.har'], /--record needs --proxy/],
    [['--proxy', 'ftp://example.com'], /expected an http\(s\) base URL/],
    [['--proxy', 'http://127.0.0.1:9', '--faults', 'f.json'], /--proxy and --faults cannot be used together/],
    [['--proxy', 'http://127.0.0.1:9', '--record', harFile], /exists already; record to a new file/],
    [['--proxy', 'http://127.0.0.1:9', '--report', harFile], /is no report of the proxy/],
  ])('refuses %j with one line', async (args, message) => {
    const run = start([...args, '--port', '0']);
    expect(await run.exited).toBe(1);
    expect(run.output().err).toMatch(message);
    expect(run.output().err.trim().split('\n')).toHaveLength(1);
  });
});
