/**
 * What a person reads when a call fails: every message of the clients' errors names what was
 * wrong, where (the method, the URL, the field, the option) and what to do. Each row sends one
 * call to a local node:http server that answers as Google does, or to a port where nothing
 * listens, and checks the message for each of those, and for secrets it must not hold.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createBatchClient,
  createResourceClient,
  type GoogleAuthLike,
  type ResourceClientOptions,
} from '../src/index.ts';
import { encodeBatchResponse } from '../src/multipart.ts';
import { table } from './support.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

let handler: Handler = (_request, response) => response.end();
let origin = '';
/** A port nothing listens on: a server's, once it closed. */
let closedPort = 0;
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => handler(request, response));
});

beforeAll(async () => {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closed = createServer();
  await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise((done) => closed.close(done));
});
afterAll(() => new Promise((done) => server.close(done)));

/** The API's default base URL in these tests; the base path a baseUrl should end with. */
const DEFAULT = 'https://example.test/calendar/v3';

/** Google's error envelope. */
const envelope = (status: number, message: string, errors: Record<string, string>[]) =>
  JSON.stringify({ error: { code: status, message, errors } });

const answers =
  (status: number, body: string): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'Content-Type': 'application/json; charset=UTF-8' });
    response.end(body);
  };

const twoProblems = envelope(400, '2 problems with the request; see errors', [
  {
    domain: 'global',
    reason: 'invalid',
    message: 'Missing time zone definition for start time.',
    location: 'start.timeZone',
    locationType: 'parameter',
  },
  {
    domain: 'global',
    reason: 'invalid',
    message: 'Missing time zone definition for end time.',
    location: 'end.timeZone',
    locationType: 'parameter',
  },
]);

interface Row {
  /** What the server answers; none: nothing listens. */
  answer?: Handler;
  /** The options of the client; `baseUrl` may use ORIGIN and PORT. */
  options?: ResourceClientOptions;
  /** The message holds each of these. */
  says: string[];
  /** And none of these. */
  never?: string[];
}

/** Replaces ORIGIN and CLOSED in a string of a row with the test servers' own. */
const fill = (text: string) =>
  text.replaceAll('ORIGIN', origin).replaceAll('CLOSED', `http://127.0.0.1:${closedPort}`);

async function failureOf(row: Row): Promise<Error> {
  handler = row.answer ?? handler;
  const options = { ...row.options, retry: row.options?.retry ?? false };
  if (options.baseUrl) options.baseUrl = fill(options.baseUrl);
  const client = createResourceClient<{
    things: { get(args: Record<string, unknown>): Promise<unknown> };
  }>(DEFAULT, table, options);
  return client.things.get({ ownerId: 'me', thingId: 't1' }).then(
    () => expect.unreachable('the call should fail') as never,
    (error: Error) => error,
  );
}

describe('the message of a failed call', () => {
  it.each<[string, Row]>([
    [
      'no server: the method, the URL without the key, the cause, the attempts, what to check',
      {
        options: {
          baseUrl: 'CLOSED/calendar/v3',
          apiKey: 'key-secret',
          retry: { maxAttempts: 2, initialDelayMs: 0 },
        },
        says: [
          'things.get',
          'CLOSED/calendar/v3/owners/me/things/t1?key=',
          'ECONNREFUSED',
          'after 2 attempts',
          'running at CLOSED',
        ],
        never: ['key-secret'],
      },
    ],
    [
      'a 404 to a baseUrl without the base path: the baseUrl given and the one meant',
      {
        answer: answers(404, envelope(404, 'Not Found', [{ reason: 'notFound', message: 'Not Found' }])),
        options: { baseUrl: 'ORIGIN/' },
        says: ['things.get failed with 404 (notFound)', 'baseUrl ORIGIN', 'did you mean ORIGIN/calendar/v3?'],
      },
    ],
    [
      'a 404 to a baseUrl that has the base path: no hint about it',
      {
        answer: answers(404, envelope(404, 'Not Found', [{ reason: 'notFound', message: 'Not Found' }])),
        options: { baseUrl: 'ORIGIN/calendar/v3' },
        says: ['things.get failed with 404 (notFound): Not Found'],
        never: ['did you mean'],
      },
    ],
    [
      'a 400 with two problems: each field and what is wrong with it',
      {
        answer: answers(400, twoProblems),
        options: { baseUrl: 'ORIGIN/calendar/v3' },
        says: [
          'things.get failed with 400 (invalid, invalid)',
          'start.timeZone: Missing time zone definition for start time.',
          'end.timeZone: Missing time zone definition for end time.',
        ],
      },
    ],
    [
      'a 401: which credentials to check',
      {
        answer: answers(
          401,
          envelope(401, 'Invalid Credentials', [
            { reason: 'authError', message: 'Invalid Credentials', location: 'Authorization' },
          ]),
        ),
        options: { baseUrl: 'ORIGIN/calendar/v3', accessToken: 'token-secret' },
        says: ['things.get failed with 401 (authError)', 'Authorization', 'accessToken or auth'],
        never: ['token-secret'],
      },
    ],
    [
      'a 403 that is no limit: the permission to check',
      {
        answer: answers(
          403,
          envelope(403, 'Insufficient Permission', [
            { reason: 'insufficientPermissions', message: 'Insufficient Permission' },
          ]),
        ),
        options: { baseUrl: 'ORIGIN/calendar/v3' },
        says: ['things.get failed with 403 (insufficientPermissions)', 'scopes'],
      },
    ],
    [
      'a 403 rate limit: to slow down',
      {
        answer: answers(
          403,
          envelope(403, 'Rate Limit Exceeded', [
            { reason: 'rateLimitExceeded', message: 'Rate Limit Exceeded' },
          ]),
        ),
        options: { baseUrl: 'ORIGIN/calendar/v3' },
        says: ['things.get failed with 403 (rateLimitExceeded)', 'too many requests', 'retry option'],
      },
    ],
    [
      'a 429: to slow down',
      {
        answer: answers(429, envelope(429, 'Too Many Requests', [])),
        options: { baseUrl: 'ORIGIN/calendar/v3' },
        says: ['things.get failed with 429', 'too many requests', 'retry option'],
      },
    ],
    [
      'a 403 quota: that retrying will not help',
      {
        answer: answers(
          403,
          envelope(403, 'Daily Limit Exceeded', [
            { reason: 'dailyLimitExceeded', message: 'Daily Limit Exceeded' },
          ]),
        ),
        options: { baseUrl: 'ORIGIN/calendar/v3' },
        says: ['things.get failed with 403 (dailyLimitExceeded)', 'quota used up', 'will not help'],
      },
    ],
  ])('%s', async (_title, row) => {
    const { message } = await failureOf(row);
    for (const text of row.says) expect(message).toContain(fill(text));
    for (const text of row.never ?? []) expect(message).not.toContain(fill(text));
  });
});

describe('the message of a failed call in a batch', () => {
  it('names the call, the field and what is wrong, as a single call does', async () => {
    handler = (_request, response) => {
      const { contentType, body } = encodeBatchResponse([
        {
          status: 400,
          headers: { 'content-type': 'application/json' },
          body: twoProblems,
          contentId: 'response-call-1',
        },
      ]);
      response.writeHead(200, { 'Content-Type': contentType });
      response.end(body);
    };
    const batch = createBatchClient<{ things: { get(args: object): never } }>(
      DEFAULT,
      table,
      { limit: 50 },
      { baseUrl: `${origin}/calendar/v3`, retry: false },
    );
    const [result] = await batch((b) => [b.things.get({ ownerId: 'me', thingId: 't1' })]);
    expect(result?.ok).toBe(false);
    const { message } = (result as { error: Error }).error;
    expect(message).toContain('things.get failed with 400 (invalid, invalid)');
    expect(message).toContain('start.timeZone: Missing time zone definition for start time.');
  });

  it('names a whole batch request that got no answer, with its URL and what to check', async () => {
    const batch = createBatchClient<{ things: { get(args: object): never } }>(
      DEFAULT,
      table,
      { limit: 50 },
      { baseUrl: `http://127.0.0.1:${closedPort}/calendar/v3`, retry: false },
    );
    const [result] = await batch((b) => [b.things.get({ ownerId: 'me', thingId: 't1' })]);
    const { message } = (result as { error: Error }).error;
    for (const text of [
      'things.get',
      `http://127.0.0.1:${closedPort}/batch/calendar/v3`,
      'ECONNREFUSED',
      'after 1 attempt',
      `running at http://127.0.0.1:${closedPort}`,
    ])
      expect(message).toContain(text);
  });
});

describe('the message of bad options', () => {
  const auth: GoogleAuthLike = { getRequestHeaders: async () => ({}) };
  it.each<[string, ResourceClientOptions, string[]]>([
    [
      'a baseUrl without a scheme',
      { baseUrl: '127.0.0.1:4011/calendar/v3' },
      ['baseUrl', 'http://127.0.0.1:4011/calendar/v3'],
    ],
    ['a baseUrl with a query', { baseUrl: 'http://127.0.0.1:4011/calendar/v3?x=1' }, ['baseUrl', 'query']],
    [
      'both auth and accessToken',
      { auth, accessToken: 'token-secret' },
      ['auth and accessToken', 'pick one'],
    ],
    ['an empty apiKey', { apiKey: '' }, ['apiKey', 'leave it out']],
    ['a timeout of zero', { timeoutMs: 0 }, ['timeoutMs', 'positive']],
  ])('%s: the option, what is wrong, what to do', (_title, options, says) => {
    let message = '';
    try {
      createResourceClient(DEFAULT, table, options);
    } catch (error) {
      message = (error as Error).message;
    }
    for (const text of says) expect(message).toContain(text);
    expect(message).not.toContain('token-secret');
  });
});
