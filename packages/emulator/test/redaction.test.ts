/**
 * No credential a request carries is kept or printed (issue 33): for each place a credential
 * travels in (a header, a query parameter, a form field, a JSON key, a batch part's header,
 * query or body) and each place a request is kept or printed (the journal's list, its entries,
 * the inspector's live stream, the `--verbose` log line, the error messages answered and kept),
 * requests carry a recognisable secret and the place must show none of it, while what is no
 * credential (paths, other parameters and fields, other headers) stays readable there.
 *
 * Each carrier's requests include one that is refused, so that every carrier has an error
 * message to check: some refusals used to quote the request (a body that is not JSON, a batch
 * part that is malformed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';

const ADMIN = 'redaction-test-admin-credential';
const admin = { 'x-emulator-admin-token': ADMIN };
/** A bearer token for the carriers that are not the Authorization header; redacted too, but no marker. */
const bearer = { authorization: 'Bearer plain-user-token' };
const json = { 'content-type': 'application/json' };
const form = { 'content-type': 'application/x-www-form-urlencoded' };
/** The seeded OAuth client's secret and refresh token: real credentials, so that /token succeeds. */
const CLIENT_SECRET = 'SECRET-client-90';
const REFRESH_TOKEN = 'SECRET-refresh-91';

interface Sent {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Row {
  carrier: string;
  /** What must appear nowhere. */
  secrets: string[];
  requests: Sent[];
  /** Readable in the journal's list, its entries, the stream and the log (paths and queries as shown). */
  shown: string[];
  /** Readable in the journal's entries (headers and bodies that are no credential). */
  detail: string[];
  /** Readable in the error messages. */
  error: string;
}

const BOUNDARY = 'redaction_boundary';

/** A batch body written by hand, each part a request line, its header lines and its body. */
function batchBody(parts: { line: string; headers?: string[]; body?: string }[]): string {
  let text = '';
  for (const part of parts) {
    text += `--${BOUNDARY}\r\nContent-Type: application/http\r\n\r\n${part.line}\r\n`;
    for (const header of part.headers ?? []) text += `${header}\r\n`;
    text += `\r\n${part.body ?? ''}\r\n`;
  }
  return `${text}--${BOUNDARY}--\r\n`;
}

const batch = (parts: Parameters<typeof batchBody>[0]): Sent => ({
  method: 'POST',
  path: '/batch/calendar/v3',
  headers: { ...bearer, 'content-type': `multipart/mixed; boundary=${BOUNDARY}` },
  body: batchBody(parts),
});

const LIST = '/calendar/v3/users/me/calendarList';

/** A credential header on a read that is answered and on one that is refused. */
const headerRow = (name: string, value: string, secret: string): Row => ({
  carrier: `header ${name}`,
  secrets: [secret],
  requests: [
    {
      method: 'GET',
      path: `${LIST}?maxResults=5`,
      headers: { ...bearer, [name]: value, 'x-trace': 'visible-trace' },
    },
    { method: 'GET', path: `${LIST}?maxResults=abc`, headers: { ...bearer, [name]: value } },
  ],
  shown: [`${LIST}?maxResults=5`, `${LIST}?maxResults=abc`],
  detail: ['"x-trace":"visible-trace"', `"${name.toLowerCase()}":"[redacted]"`],
  error: 'maxResults',
});

const ROWS: Row[] = [
  headerRow('Authorization', 'Bearer SECRET-1', 'SECRET-1'),
  headerRow('Proxy-Authorization', 'Basic SECRET-2', 'SECRET-2'),
  headerRow('Cookie', 'session=SECRET-3', 'SECRET-3'),
  headerRow('X-Goog-Api-Key', 'SECRET-4', 'SECRET-4'),
  headerRow('X-Goog-Channel-Token', 'SECRET-5', 'SECRET-5'),
  headerRow('X-Emulator-Admin-Token', 'SECRET-6', 'SECRET-6'),
  {
    carrier: 'query access_token',
    secrets: ['SECRET-10'],
    requests: [
      { method: 'GET', path: `${LIST}?access_token=SECRET-10&maxResults=5` },
      { method: 'GET', path: `${LIST}?maxResults=abc&access_token=SECRET-10` },
      { method: 'GET', path: '/calendar/v3/nowhere?access_token=SECRET-10' },
    ],
    shown: [
      `${LIST}?access_token=%5Bredacted%5D&maxResults=5`,
      '/calendar/v3/nowhere?access_token=%5Bredacted%5D',
    ],
    detail: ['maxResults=abc&access_token=%5Bredacted%5D'],
    error: '/calendar/v3/nowhere',
  },
  {
    carrier: 'query key',
    secrets: ['SECRET-11'],
    requests: [
      { method: 'GET', path: `${LIST}?key=SECRET-11&maxResults=5`, headers: bearer },
      { method: 'GET', path: `${LIST}?key=SECRET-11&maxResults=abc`, headers: bearer },
    ],
    shown: [`${LIST}?key=%5Bredacted%5D&maxResults=5`],
    detail: [`${LIST}?key=%5Bredacted%5D&maxResults=abc`],
    error: 'maxResults',
  },
  {
    carrier: 'query of the token endpoint',
    secrets: [CLIENT_SECRET, REFRESH_TOKEN, 'SECRET-12', 'SECRET-13', 'SECRET-14'],
    requests: [
      {
        method: 'POST',
        path: `/token?grant_type=refresh_token&client_id=app&client_secret=${CLIENT_SECRET}&refresh_token=${REFRESH_TOKEN}`,
      },
      {
        method: 'POST',
        path: `/token?grant_type=refresh_token&client_id=app&client_secret=SECRET-12&refresh_token=${REFRESH_TOKEN}`,
      },
      { method: 'POST', path: '/revoke?token=SECRET-13' },
      { method: 'GET', path: '/tokeninfo?access_token=SECRET-14' },
    ],
    shown: [
      '/token?grant_type=refresh_token&client_id=app&client_secret=%5Bredacted%5D&refresh_token=%5Bredacted%5D',
      '/revoke?token=%5Bredacted%5D',
      '/tokeninfo?access_token=%5Bredacted%5D',
    ],
    detail: ["the token endpoint's bodies hold credentials"],
    error: 'Token expired or revoked',
  },
  {
    carrier: 'form field',
    secrets: ['SECRET-20', 'SECRET-21', CLIENT_SECRET, REFRESH_TOKEN],
    requests: [
      {
        method: 'POST',
        path: '/calendar/v3/calendars',
        headers: { ...bearer, ...form },
        body: 'summary=Team&client_secret=SECRET-20&password=SECRET-21',
      },
      {
        method: 'POST',
        path: '/token',
        headers: form,
        body: `grant_type=refresh_token&client_id=app&client_secret=${CLIENT_SECRET}&refresh_token=${REFRESH_TOKEN}`,
      },
    ],
    shown: ['/calendar/v3/calendars', '/token'],
    detail: ['summary=Team&client_secret=%5Bredacted%5D&password=%5Bredacted%5D'],
    error: 'application/x-www-form-urlencoded',
  },
  {
    carrier: 'JSON key',
    secrets: ['SECRET-30', 'SECRET-31', 'SECRET-32'],
    requests: [
      {
        method: 'POST',
        path: '/calendar/v3/calendars/primary/events',
        headers: { ...bearer, ...json },
        body: JSON.stringify({
          summary: 'Team meeting',
          start: { dateTime: '2031-03-01T10:00:00Z' },
          end: { dateTime: '2031-03-01T11:00:00Z' },
          extendedProperties: { private: { password: 'SECRET-30' } },
        }),
      },
      {
        method: 'POST',
        path: '/calendar/v3/calendars/primary/events/watch',
        headers: { ...bearer, ...json },
        body: JSON.stringify({
          id: 'channel-visible',
          type: 'web_hook',
          address: 'http://127.0.0.1:9/hook',
          token: 'SECRET-31',
        }),
      },
      {
        method: 'POST',
        path: '/calendar/v3/calendars',
        headers: { ...bearer, ...json },
        body: '{"summary": "Team", "refresh_token": SECRET-32}',
      },
    ],
    shown: ['/calendar/v3/calendars/primary/events', '/calendar/v3/calendars/primary/events/watch'],
    detail: ['Team meeting', 'channel-visible', '\\"summary\\": \\"Team\\"'],
    error: 'not valid JSON',
  },
  {
    carrier: 'batch part header',
    secrets: ['SECRET-40', 'SECRET-41', 'SECRET-42', 'SECRET-43'],
    requests: [
      batch([
        {
          line: `GET ${LIST}?maxResults=5 HTTP/1.1`,
          headers: ['Authorization: Bearer SECRET-40', 'X-Trace: visible-part-trace'],
        },
        { line: 'GET /calendar/v3/nowhere HTTP/1.1', headers: ['X-Goog-Api-Key: SECRET-41'] },
        {
          line: 'POST /calendar/v3/calendars HTTP/1.1',
          headers: ['Content-Type: application/json', 'Cookie: a=SECRET-42'],
          body: '{"summary":"Part team"}',
        },
      ]),
      // A header line without its colon: the whole batch is refused, and its message quotes the line.
      batch([{ line: `GET ${LIST} HTTP/1.1`, headers: ['Authorization Bearer SECRET-43'] }]),
    ],
    shown: ['/batch/calendar/v3', `${LIST}?maxResults=5`, '/calendar/v3/nowhere'],
    detail: ['X-Trace: visible-part-trace', '"x-trace":"visible-part-trace"', 'Part team'],
    error: 'malformed',
  },
  {
    carrier: 'batch part query',
    secrets: ['SECRET-50', 'SECRET-51', 'SECRET-52'],
    requests: [
      batch([
        { line: `GET ${LIST}?access_token=SECRET-50&maxResults=5 HTTP/1.1` },
        { line: 'GET /calendar/v3/nowhere?key=SECRET-51 HTTP/1.1' },
      ]),
      // A request line that is none: the whole batch is refused, and its message quotes the line.
      batch([{ line: `GET ${LIST}?access_token=SECRET-52 HTTP/1.1 trailing` }]),
    ],
    shown: [`${LIST}?access_token=%5Bredacted%5D&maxResults=5`, '/calendar/v3/nowhere?key=%5Bredacted%5D'],
    detail: [`GET ${LIST}?access_token=%5Bredacted%5D&maxResults=5 HTTP/1.1`],
    error: 'malformed',
  },
  {
    carrier: 'batch part body',
    secrets: ['SECRET-60'],
    requests: [
      batch([
        {
          line: 'POST /calendar/v3/calendars HTTP/1.1',
          headers: ['Content-Type: application/json'],
          body: '{"summary":"Body team","password":"SECRET-60"}',
        },
        {
          line: 'POST /calendar/v3/calendars HTTP/1.1',
          headers: ['Content-Type: application/json'],
          body: '{"summary": "Body team", "password": SECRET-60}',
        },
      ]),
    ],
    shown: ['/batch/calendar/v3', '/calendar/v3/calendars'],
    detail: ['Body team'],
    error: 'not valid JSON',
  },
];

const PLACES = [
  'journal list',
  'journal entry',
  'stream event',
  'verbose log line',
  'error message',
] as const;
type Place = (typeof PLACES)[number];

let emulator: Emulator;
let origin: string;
const logLines: string[] = [];
let streamText = '';
const stopStream = new AbortController();
/** What each row left in each place. */
const seen = new Map<Row, Record<Place, string>>();

/** Waits, turn after turn of the event loop, until `done` holds (no clock involved). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

async function control(path: string): Promise<unknown> {
  const response = await fetch(`${origin}/__emulator${path}`, { headers: admin });
  expect(response.status, path).toBe(200);
  return response.json();
}

/** The messages of an answer's errors: Google's envelope, the token endpoint's, each batch part's. */
function errorMessages(text: string): string[] {
  return [...text.matchAll(/"(?:message|error_description)":("(?:[^"\\]|\\.)*")/g)].map(
    (match) => JSON.parse(match[1] as string) as string,
  );
}

async function run(row: Row): Promise<Record<Place, string>> {
  const { entries: before } = (await control('/journal')) as { entries: { id: number }[] };
  const after = before.at(-1)?.id ?? 0;
  const logFrom = logLines.length;
  const streamFrom = streamText.length;
  const messages: string[] = [];
  for (const request of row.requests) {
    const response = await fetch(`${origin}${request.path}`, {
      method: request.method,
      headers: request.headers ?? {},
      ...(request.body !== undefined ? { body: request.body } : {}),
    });
    messages.push(...errorMessages(await response.text()));
  }
  const list = (await control(`/journal?after=${after}`)) as {
    entries: { id: number; error?: { message?: string } }[];
  };
  const last = list.entries.at(-1)?.id;
  expect(last).toBeDefined();
  await until(() => streamText.includes(`"id":${last},`));
  const entries = await Promise.all(list.entries.map((entry) => control(`/journal/${entry.id}`)));
  for (const entry of list.entries) if (entry.error?.message) messages.push(entry.error.message);
  return {
    'journal list': JSON.stringify(list),
    'journal entry': entries.map((entry) => JSON.stringify(entry)).join('\n'),
    'stream event': streamText.slice(streamFrom),
    'verbose log line': logLines.slice(logFrom).join('\n'),
    'error message': messages.join('\n'),
  };
}

beforeAll(async () => {
  emulator = createEmulator({
    admin: { token: ADMIN },
    oauth: {
      clients: [{ clientId: 'app', clientSecret: CLIENT_SECRET }],
      refreshTokens: [
        { token: REFRESH_TOKEN, email: 'ana@example.com', clientId: 'app', scopes: ['calendar'] },
      ],
    },
    log: (line) => logLines.push(line),
  });
  origin = await emulator.listen(0);
  const stream = await fetch(`${origin}/__emulator/stream`, { headers: admin, signal: stopStream.signal });
  expect(stream.status).toBe(200);
  const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  (async () => {
    for (let read = await reader.read(); !read.done; read = await reader.read())
      streamText += decoder.decode(read.value, { stream: true });
  })().catch(() => {});
  for (const row of ROWS) seen.set(row, await run(row));
});

afterAll(async () => {
  stopStream.abort();
  await emulator.close();
});

describe.each(ROWS)('a credential in a $carrier', (row) => {
  it.each(PLACES)('appears nowhere in the %s, which stays readable', (place) => {
    const text = (seen.get(row) as Record<Place, string>)[place];
    for (const secret of row.secrets) expect(text, `${place}: ${text}`).not.toContain(secret);
    const readable =
      place === 'error message'
        ? [row.error]
        : place === 'journal entry'
          ? [...row.shown, ...row.detail]
          : row.shown;
    for (const part of readable) expect(text, `${place} shows ${part}`).toContain(part);
  });
});

it('answers the token endpoint from its query, as Google does, while the journal shows none of it', () => {
  const row = ROWS.find((r) => r.carrier === 'query of the token endpoint') as Row;
  const log = (seen.get(row) as Record<Place, string>)['verbose log line'];
  // The first /token request had the real client secret and refresh token: it was answered 200.
  expect(log).toContain(
    'POST /token?grant_type=refresh_token&client_id=app&client_secret=%5Bredacted%5D&refresh_token=%5Bredacted%5D 200',
  );
});
