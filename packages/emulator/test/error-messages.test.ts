/**
 * The errors a person meets first, as the emulator answers them: each message names what was
 * wrong, where (the path, parameter, field, header or part) and what to do about it. Where the
 * emulator answers with Google's own words on purpose (the missing credential), the test holds
 * those words instead. The envelope stays Google's: same status and reason as before.
 */
import { MISSING_CREDENTIAL } from '@gspec/server-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';

let emulator: Emulator;
let origin: string;
beforeAll(async () => {
  emulator = createEmulator({ rateLimit: { units: 5 } });
  origin = await emulator.listen(0);
});
afterAll(() => emulator.close());

interface Case {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Requests sent first, as they are (to spend a rate limit). Each case has a user of its own. */
  before?: number;
  status: number;
  reason: string;
  /** Google's exact words, where the emulator copies them. */
  google?: string;
  /** Else: what the message must name, each a part of it (the origin written `ORIGIN`). */
  names?: string[];
  location?: string;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const json = (token: string) => ({ ...bearer(token), 'content-type': 'application/json' });
const multipart = (token: string, contentType: string) => ({ ...bearer(token), 'content-type': contentType });

const CASES: [string, Case][] = [
  [
    'a client given the server’s root as its base URL',
    {
      path: '/users/me/calendarList',
      headers: bearer('user-1'),
      status: 404,
      reason: 'notFound',
      names: [
        'no operation at /users/me/calendarList',
        '/calendar/v3/users/me/calendarList',
        'Calendar API',
        'give the client the base URL ORIGIN/calendar/v3',
      ],
    },
  ],
  [
    'a base URL without the version',
    {
      path: '/doubleclicksearch/conversion/updateAvailability',
      method: 'POST',
      headers: json('user-2'),
      body: '{}',
      status: 404,
      reason: 'notFound',
      names: [
        'no operation at /doubleclicksearch/conversion/updateAvailability',
        '/doubleclicksearch/v2/conversion/updateAvailability',
        'Search Ads 360 API',
        'give the client the base URL ORIGIN/doubleclicksearch/v2',
      ],
    },
  ],
  [
    'a path of no API',
    {
      path: '/nothing/here',
      headers: bearer('user-3'),
      status: 404,
      reason: 'notFound',
      names: [
        'no operation at /nothing/here',
        'the APIs here are under /calendar/v3 and /doubleclicksearch/v2',
      ],
    },
  ],
  [
    'a batch sent under the API’s base path',
    {
      path: '/calendar/v3/batch',
      method: 'POST',
      headers: multipart('user-4', 'multipart/mixed; boundary=b'),
      body: '--b--',
      status: 404,
      reason: 'notFound',
      names: ['no operation at /calendar/v3/batch', 'is sent to /batch/calendar/v3'],
    },
  ],
  [
    'a batch endpoint of an API not served',
    {
      path: '/batch/gmail/v1',
      method: 'POST',
      headers: multipart('user-5', 'multipart/mixed; boundary=b'),
      body: '--b--',
      status: 404,
      reason: 'notFound',
      names: ['no operation at /batch/gmail/v1', 'the batch endpoints are /batch/calendar/v3'],
    },
  ],
  [
    'a method the path does not take',
    {
      method: 'DELETE',
      path: '/calendar/v3/users/me/calendarList',
      headers: bearer('user-6'),
      status: 405,
      reason: 'httpMethodNotAllowed',
      names: ['Method DELETE is not allowed on /calendar/v3/users/me/calendarList'],
    },
  ],
  [
    'no credential',
    {
      path: '/calendar/v3/users/me/calendarList',
      status: 401,
      reason: 'authError',
      google: MISSING_CREDENTIAL,
      location: 'Authorization',
    },
  ],
  [
    'a credential of another scheme',
    {
      path: '/calendar/v3/users/me/calendarList',
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
      status: 401,
      reason: 'authError',
      names: ['Authorization header uses the Basic scheme', '"Authorization: Bearer <token>"'],
      location: 'Authorization',
    },
  ],
  [
    'a query parameter of the wrong type',
    {
      path: '/calendar/v3/calendars/primary/events?maxResults=many',
      headers: bearer('user-7'),
      status: 400,
      reason: 'invalid',
      names: ['maxResults', 'must be integer'],
      location: 'maxResults',
    },
  ],
  [
    'a body that is not JSON',
    {
      method: 'POST',
      path: '/calendar/v3/calendars/primary/events',
      headers: json('user-8'),
      body: '{"summary": ',
      status: 400,
      reason: 'parseError',
      names: ['The request body is not valid JSON'],
    },
  ],
  [
    'over the rate limit',
    {
      path: '/calendar/v3/colors',
      headers: bearer('rate-limited'),
      before: 5,
      status: 403,
      reason: 'rateLimitExceeded',
      names: ['Rate Limit Exceeded', 'rate limit is 5 quota units per user', 'Retry in'],
    },
  ],
  [
    'a batch that is not multipart/mixed',
    {
      method: 'POST',
      path: '/batch/calendar/v3',
      headers: json('user-9'),
      body: '{}',
      status: 400,
      reason: 'badRequest',
      names: ['The batch request is malformed', 'multipart/mixed, not "application/json"'],
      location: 'Content-Type',
    },
  ],
  [
    'a batch part that is no HTTP request',
    {
      method: 'POST',
      path: '/batch/calendar/v3',
      headers: multipart('user-10', 'multipart/mixed; boundary=b'),
      body: '--b\r\nContent-Type: application/http\r\n\r\nnot a request\r\n--b--',
      status: 400,
      reason: 'badRequest',
      names: [
        'part 1',
        'expected a request line such as "GET /calendar/v3/colors HTTP/1.1"',
        '"not a request"',
      ],
    },
  ],
];

describe('the errors a person meets first', () => {
  it.each(CASES)('%s', async (_title, c) => {
    const send = () =>
      fetch(`${origin}${c.path}`, {
        method: c.method ?? 'GET',
        ...(c.headers ? { headers: c.headers } : {}),
        ...(c.body !== undefined ? { body: c.body } : {}),
      });
    for (let i = 0; i < (c.before ?? 0); i++) expect((await send()).status).toBe(200);
    const response = await send();
    const body = (await response.json()) as {
      error: {
        code: number;
        message: string;
        errors: { reason: string; message: string; location?: string }[];
      };
    };
    expect(response.status, body.error.message).toBe(c.status);
    expect(body.error.code).toBe(c.status);
    expect(body.error.errors[0]?.reason).toBe(c.reason);
    const message = body.error.errors[0]?.message ?? '';
    if (c.google !== undefined) expect(message).toBe(c.google);
    for (const part of c.names ?? []) expect(message).toContain(part.replace('ORIGIN', origin));
    if (c.location !== undefined) expect(body.error.errors[0]?.location).toBe(c.location);
  });
});
