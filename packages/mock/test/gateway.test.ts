import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGateway,
  type Gateway,
  loadApis,
  type MockApi,
  parseFaults,
  readPreferences,
} from '../src/index.ts';

const auth = { authorization: 'Bearer test-token' };
let gateway: Gateway;
let origin: string;
const docsDir = mkdtempSync(path.join(tmpdir(), 'gspec-docs-'));

let apis: MockApi[];

beforeAll(async () => {
  writeFileSync(path.join(docsDir, 'index.html'), '<!doctype html><title>reference</title>');
  apis = await loadApis();
  gateway = createGateway({ apis, docsDir });
  origin = await gateway.listen(0);
});
afterAll(() => gateway.close());

interface Want {
  status: number;
  contentType?: RegExp;
  reason?: string;
  location?: string;
  locationType?: string;
  header?: [name: string, value: string];
  body?: (text: string) => void;
}

const cases: [string, { path: string; init?: RequestInit }, Want][] = [
  [
    'serves a Calendar operation under its live base path',
    { path: '/calendar/v3/colors', init: { headers: auth } },
    {
      status: 200,
      contentType: /^application\/json/,
      body: (text) => expect(JSON.parse(text).kind).toBe('calendar#colors'),
    },
  ],
  [
    'serves a Search Ads 360 operation under its live base path',
    {
      path: '/doubleclicksearch/v2/conversion',
      init: {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          conversion: [{ agencyId: '1', advertiserId: '2', conversionId: 'c', conversionTimestamp: '1' }],
        }),
      },
    },
    { status: 200, body: (text) => expect(JSON.parse(text).kind).toBe('doubleclicksearch#conversionList') },
  ],
  [
    'answers a delete with 204 and no body',
    {
      path: '/calendar/v3/calendars/primary/events/abc123',
      init: { method: 'DELETE', headers: auth },
    },
    { status: 204, body: (text) => expect(text).toBe('') },
  ],
  [
    'sends the ID mapping file as CSV',
    {
      path: '/doubleclicksearch/v2/agency/1/advertiser/2/idmapping?alt=media',
      init: { headers: { ...auth, accept: '*/*' } },
    },
    {
      status: 200,
      contentType: /^text\/csv/,
      body: (text) => expect(text.split('\n')[0]).toMatch(/^Entity type,/),
    },
  ],
  [
    'refuses a request without a token with 401 authError',
    { path: '/calendar/v3/colors' },
    {
      status: 401,
      reason: 'authError',
      location: 'Authorization',
      locationType: 'header',
    },
  ],
  [
    'takes the bearer scheme in any case, as Google does',
    { path: '/calendar/v3/colors', init: { headers: { authorization: 'bearer test-token' } } },
    { status: 200 },
  ],
  [
    'takes a token in the access_token query parameter, as Google does',
    { path: '/calendar/v3/colors?access_token=test-token' },
    { status: 200 },
  ],
  [
    'names the parameter below its minimum',
    { path: '/calendar/v3/calendars/primary/events?maxResults=0', init: { headers: auth } },
    {
      status: 400,
      reason: 'invalid',
      location: 'maxResults',
      locationType: 'parameter',
    },
  ],
  [
    'takes maxResults above the page cap, as the live service does (it serves the cap)',
    { path: '/calendar/v3/calendars/primary/events?maxResults=5000', init: { headers: auth } },
    { status: 200 },
  ],
  [
    'names an event id that is not base32hex',
    {
      path: '/calendar/v3/calendars/primary/events',
      init: {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          id: 'Kick-off',
          start: { dateTime: '2026-12-01T14:00:00Z' },
          end: { dateTime: '2026-12-01T15:00:00Z' },
        }),
      },
    },
    { status: 400, reason: 'invalid', location: 'id' },
  ],
  [
    'names the parameter outside its enum',
    { path: '/calendar/v3/calendars/primary/events?orderBy=title', init: { headers: auth } },
    {
      status: 400,
      reason: 'invalid',
      location: 'orderBy',
    },
  ],
  [
    'names the body field of the wrong type',
    {
      path: '/doubleclicksearch/v2/conversion',
      init: {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ conversion: [{ agencyId: 5 }] }),
      },
    },
    { status: 400, reason: 'invalid', location: 'conversion[0].agencyId' },
  ],
  [
    'refuses malformed JSON with parseError',
    {
      path: '/doubleclicksearch/v2/conversion',
      init: {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: '{"conversion": [',
      },
    },
    { status: 400, reason: 'parseError' },
  ],
  [
    'answers an unknown path under a base path with 404 notFound',
    { path: '/calendar/v3/nothing/here', init: { headers: auth } },
    {
      status: 404,
      reason: 'notFound',
    },
  ],
  [
    'answers an unknown path outside the base paths with 404 notFound',
    { path: '/calendar/v4/colors', init: { headers: auth } },
    {
      status: 404,
      reason: 'notFound',
    },
  ],
  [
    'answers a wrong method with 405 and the methods allowed',
    { path: '/calendar/v3/colors', init: { method: 'PUT', headers: auth } },
    { status: 405, reason: 'httpMethodNotAllowed', header: ['allow', 'GET'] },
  ],
  [
    'answers a dynamic example when asked, from the schema',
    { path: '/calendar/v3/colors', init: { headers: { ...auth, prefer: 'dynamic=true' } } },
    { status: 200, body: (text) => expect(JSON.parse(text)).toBeTypeOf('object') },
  ],
  [
    'answers the example and status asked for with Prefer',
    {
      path: '/calendar/v3/calendars/primary/events',
      init: { headers: { ...auth, prefer: 'code=410, example=fullSyncRequired' } },
    },
    { status: 410, reason: 'fullSyncRequired' },
  ],
  [
    'answers a partly refused conversion batch with Prefer (best effort: the rows not named were stored)',
    {
      path: '/doubleclicksearch/v2/conversion',
      init: {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', prefer: 'code=400, example=partlyStored' },
        body: JSON.stringify({
          conversion: [{ agencyId: '1', advertiserId: '2', conversionId: 'c', conversionTimestamp: '1' }],
        }),
      },
    },
    {
      status: 400,
      reason: 'notFound',
      location: 'conversion[1].clickId',
      body: (text) =>
        expect(JSON.parse(text).error.message).toBe(
          'Refused 1 of 3 conversions, named in errors; stored the other 2.',
        ),
    },
  ],
  [
    'answers the example and status asked for with query parameters',
    {
      path: '/calendar/v3/calendars/primary/events?__code=410&__example=updatedMinTooLongAgo',
      init: { headers: auth },
    },
    { status: 410, reason: 'updatedMinTooLongAgo' },
  ],
  [
    'refuses a malformed preference',
    { path: '/calendar/v3/colors', init: { headers: { ...auth, prefer: 'code=abc' } } },
    {
      status: 400,
      reason: 'invalid',
      location: 'Prefer',
      locationType: 'header',
    },
  ],
  [
    'reports its health',
    { path: '/healthz' },
    {
      status: 200,
      body: (text) =>
        expect(
          JSON.parse(text)
            .apis.map((a: { basePath: string }) => a.basePath)
            .sort(),
        ).toEqual(['/calendar/v3', '/doubleclicksearch/v2']),
    },
  ],
  [
    'serves the reference at /',
    { path: '/' },
    { status: 200, contentType: /^text\/html/, body: (text) => expect(text).toContain('reference') },
  ],
  [
    'serves its icon at /favicon.ico, even with --docs',
    { path: '/favicon.ico' },
    { status: 200, contentType: /^image\/x-icon$/, header: ['cache-control', 'public, max-age=604800'] },
  ],
  [
    'names the base URL a client without the base path needs',
    { path: '/users/me/calendarList', init: { headers: auth } },
    {
      status: 404,
      reason: 'notFound',
      body: (text) =>
        expect(JSON.parse(text).error.message).toBe(
          `Not Found: no operation at /users/me/calendarList; /calendar/v3/users/me/calendarList is an operation's path of the Google Calendar API: give the client the base URL ${origin}/calendar/v3`,
        ),
    },
  ],
  [
    'names the batch endpoint of a batch sent under the base path',
    { path: '/calendar/v3/batch', init: { method: 'POST', headers: auth } },
    {
      status: 404,
      reason: 'notFound',
      body: (text) => expect(JSON.parse(text).error.message).toMatch(/is sent to \/batch\/calendar\/v3$/),
    },
  ],
  [
    'names the base paths served for a path of no API',
    { path: '/nothing', init: { headers: auth } },
    {
      status: 404,
      reason: 'notFound',
      body: (text) =>
        expect(JSON.parse(text).error.message).toBe(
          'Not Found: no operation at /nothing; the APIs here are under /calendar/v3 and /doubleclicksearch/v2',
        ),
    },
  ],
  [
    'does not serve files outside the reference folder',
    { path: '/..%2f..%2fetc%2fpasswd' },
    { status: 404, reason: 'notFound' },
  ],
];

describe('the gateway', () => {
  it.each(cases)('%s', async (_title, { path: requestPath, init }, want) => {
    const response = await fetch(`${origin}${requestPath}`, init);
    const text = await response.text();
    expect(response.status, text).toBe(want.status);
    if (want.contentType) expect(response.headers.get('content-type')).toMatch(want.contentType);
    if (want.header) expect(response.headers.get(want.header[0])).toBe(want.header[1]);
    if (want.reason) {
      const body = JSON.parse(text);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(body.error.code).toBe(want.status);
      expect(body.error.errors[0].reason).toBe(want.reason);
      if (want.location) expect(body.error.errors[0].location).toBe(want.location);
      if (want.locationType) expect(body.error.errors[0].locationType).toBe(want.locationType);
    }
    want.body?.(text);
  });
});

describe('the root without --docs', () => {
  let bare: Gateway;
  let bareOrigin: string;
  beforeAll(async () => {
    bare = createGateway({ apis });
    bareOrigin = await bare.listen(0);
  });
  afterAll(() => bare.close());

  it('answers JSON with the base URL of each API', async () => {
    const response = await fetch(`${bareOrigin}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { name: string; apis: { baseUrl: string }[]; example: string };
    expect(body.name).toBe('gspec mock');
    expect(body.apis.map((api) => api.baseUrl)).toEqual([
      `${bareOrigin}/calendar/v3`,
      `${bareOrigin}/doubleclicksearch/v2`,
    ]);
    expect(body.example).toMatch(
      new RegExp(`^curl -H 'Authorization: Bearer any-token' ${bareOrigin}/calendar/v3/`),
    );
  });

  it('answers a browser with a page under a strict policy', async () => {
    const response = await fetch(`${bareOrigin}/`, { headers: { accept: 'text/html,*/*;q=0.8' } });
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    expect(html).toContain(`<code>${bareOrigin}/calendar/v3</code>`);
    expect(html).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.svg">');
    expect(html).toContain('--docs DIR');
  });
});

describe('content negotiation, request after request', () => {
  it("answers each request by its own Accept, not by the first request's", async () => {
    // A gateway of its own: what a first request leaves behind is the point.
    const fresh = createGateway({ apis });
    const base = `${await fresh.listen(0)}/doubleclicksearch/v2/agency/1/advertiser/2`;
    try {
      const asked: [string, string][] = [
        ['/savedcolumns', 'application/json'],
        ['/idmapping', 'text/csv'],
        ['/savedcolumns', 'application/json'],
        ['/idmapping', 'text/csv'],
      ];
      const answered = [];
      for (const [where, accept] of asked) {
        const response = await fetch(`${base}${where}`, { headers: { ...auth, accept } });
        await response.text();
        answered.push([response.status, response.headers.get('content-type')?.split(';')[0]]);
      }
      expect(answered).toEqual(asked.map(([, accept]) => [200, accept]));
    } finally {
      await fresh.close();
    }
  });
});

describe('readPreferences', () => {
  it.each([
    ['a Prefer header', 'code=404, example=notFound', '', { code: 404, exampleKey: 'notFound' }],
    [
      'query parameters',
      undefined,
      '__code=503&__example=backendError',
      { code: 503, exampleKey: 'backendError' },
    ],
    ['the Prefer header over query parameters', 'code=201', '__code=500', { code: 201 }],
    ['nothing', undefined, '', {}],
  ])('reads %s', (_title, prefer, query, want) => {
    expect(readPreferences(prefer, new URLSearchParams(query))).toEqual(want);
  });

  it('refuses a code that is not an HTTP status', () => {
    expect(() => readPreferences('code=99999', new URLSearchParams())).toThrow(/expected an HTTP status/);
  });
});

describe('the gateway with fault rules', () => {
  let faulty: Gateway;
  let base: string;
  beforeAll(async () => {
    faulty = createGateway({
      apis,
      faults: parseFaults(
        {
          seed: 1,
          operations: {
            'events.list': {
              sequence: [
                { status: 503, retryAfter: 2 },
                { status: 403, reason: 'rateLimitExceeded' },
                'pass',
              ],
            },
            'events.get': { sequence: [{ status: 404, example: 'notFound' }] },
            'calendarList.list': { respond: { status: 410, example: 'fullSyncRequired' } },
            'colors.get': { latencyMs: 150 },
            'settings.list': { errorRate: 1, error: { status: 429, retryAfter: 1 } },
          },
        },
        apis,
      ),
    });
    base = `${await faulty.listen(0)}/calendar/v3`;
  });
  afterAll(() => faulty.close());

  const get = (path: string, headers: Record<string, string> = auth) => fetch(`${base}${path}`, { headers });

  it('plays the scripted answers in order, as Google envelopes with Retry-After, then answers normally', async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) {
      const response = await get('/calendars/primary/events');
      const body = await response.json();
      answers.push([
        response.status,
        response.headers.get('retry-after'),
        body.error?.errors[0].reason ?? body.kind,
      ]);
      if (response.status >= 400) {
        expect(body.error.code).toBe(response.status);
        expect(body.error.message).toBeTypeOf('string');
      }
    }
    expect(answers).toEqual([
      [503, '2', 'backendError'],
      [403, null, 'rateLimitExceeded'],
      [200, null, 'calendar#events'],
      [200, null, 'calendar#events'],
    ]);
  });

  it('counts only valid calls: an invalid request gets its 400 and leaves the script where it was', async () => {
    await fetch(`${base.replace('/calendar/v3', '')}/__mock/reset`, { method: 'POST' });
    expect((await get('/calendars/primary/events?maxResults=0')).status).toBe(400);
    expect((await get('/calendars/primary/events', {})).status).toBe(401);
    expect((await get('/calendars/primary/events')).status).toBe(503);
  });

  it('starts the scripts over on POST /__mock/reset and reports the calls at GET /__mock/faults', async () => {
    const control = base.replace('/calendar/v3', '/__mock');
    await fetch(`${control}/reset`, { method: 'POST' });
    expect((await get('/calendars/primary/events')).status).toBe(503);
    const state = await (await fetch(`${control}/faults`)).json();
    expect(state).toMatchObject({ source: 'faults', seed: 1, calls: { 'events.list': 1, 'events.get': 0 } });
  });

  it('answers a scripted spec example', async () => {
    const response = await get('/calendars/primary/events/abc');
    expect(response.status).toBe(404);
    expect((await response.json()).error.errors[0].reason).toBe('notFound');
  });

  it('answers the default example of the rule file when the request names none', async () => {
    const response = await get('/users/me/calendarList');
    expect(response.status).toBe(410);
    expect((await response.json()).error.errors[0].reason).toBe('fullSyncRequired');
  });

  it('lets a request’s own Prefer win over the default of the rule file', async () => {
    const response = await get('/users/me/calendarList', { ...auth, prefer: 'code=200' });
    expect(response.status).toBe(200);
  });

  it('injects errors at the configured rate', async () => {
    const response = await get('/users/me/settings');
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect((await response.json()).error.errors[0]).toEqual(
      expect.objectContaining({ domain: 'usageLimits', reason: 'rateLimitExceeded' }),
    );
  });

  it('holds the answer back by the configured latency', async () => {
    const started = performance.now();
    const response = await get('/colors');
    // A lower bound only: a timer never fires early, so this cannot be flaky on a slow machine.
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(response.status).toBe(200);
  });

  it('lists its rule file in the health document', async () => {
    const health = await (await fetch(`${base.replace('/calendar/v3', '')}/healthz`)).json();
    expect(health.faults).toBe('faults');
  });
});

describe('the gateway and the network', () => {
  let hooks: Server;
  let hookCalls = 0;
  beforeAll(async () => {
    hooks = createServer((_request, response) => {
      hookCalls++;
      response.end();
    });
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => hooks.close(() => resolve())));

  it('never calls the webhook of a watch request, as Prism would', async () => {
    const { port } = hooks.address() as { port: number };
    const response = await fetch(`${origin}/calendar/v3/calendars/primary/events/watch`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'channel-1', type: 'web_hook', address: `http://127.0.0.1:${port}/hook` }),
    });
    expect(response.status).toBe(200);
    // Prism fires callbacks right after answering; give it ample time to show itself.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hookCalls).toBe(0);
  });
});

describe('error locations', () => {
  it.each([
    [
      'an array parameter by its name, not its item',
      '/calendar/v3/calendars/primary/events?eventTypes=notInTheEnum',
      undefined,
      'eventTypes',
    ],
    ['a system parameter by its name', '/calendar/v3/colors?prettyPrint=maybe', undefined, 'prettyPrint'],
    [
      'a missing body as the body',
      '/calendar/v3/calendars',
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      'body',
    ],
  ] as const)('names %s', async (_title, requestPath, init, location) => {
    const response = await fetch(`${origin}${requestPath}`, {
      ...init,
      headers: { ...auth, ...(init?.headers ?? {}) },
    });
    const body = await response.json();
    expect(response.status).toBe(400);
    expect(body.error.errors[0].location).toBe(location);
    expect(body.error.message).not.toContain('undefined');
  });
});

describe('event times and nulls (decisions 0036, 0037)', () => {
  const send = async (method: string, requestPath: string, body: unknown) => {
    const response = await fetch(`${origin}/calendar/v3${requestPath}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  const zurich = (dateTime: string) => ({ dateTime, timeZone: 'Europe/Zurich' });
  const event = '/calendars/primary/events/abc123';

  it.each([
    [
      'POST',
      '/calendars/primary/events',
      { start: zurich('2027-03-01T10:00:00'), end: zurich('2027-03-01T11:00:00') },
    ],
    ['PUT', event, { start: zurich('2027-03-01T10:00:00'), end: zurich('2027-03-01T11:00:00') }],
    ['PATCH', event, { start: zurich('2027-03-01T10:00:00') }],
    ['PATCH', event, { location: null, description: null }],
    ['PATCH', event, { start: { date: null, ...zurich('2027-03-01T10:00:00') } }],
    ['PATCH', '/calendars/primary', { description: null }],
    ['PATCH', '/users/me/calendarList/primary', { summaryOverride: null }],
  ])('takes %s %s %j', async (method, requestPath, body) => {
    expect((await send(method, requestPath, body)).status).toBe(200);
  });

  it.each([
    [
      'a local time without timeZone, once, saying the offset is missing',
      'POST',
      '/calendars/primary/events',
      { start: { dateTime: '2027-03-01T10:00:00' }, end: zurich('2027-03-01T11:00:00') },
      'start.dateTime',
      /UTC offset/,
    ],
    ['null for start in a patch', 'PATCH', event, { start: null }, 'start', /must be object/],
    [
      'null in an update',
      'PUT',
      event,
      { start: zurich('2027-03-01T10:00:00'), end: zurich('2027-03-01T11:00:00'), location: null },
      'location',
      /must be string/,
    ],
  ])('refuses %s', async (_title, method, requestPath, body, location, message) => {
    const answer = await send(method, requestPath, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.errors).toEqual([
      expect.objectContaining({ reason: 'invalid', location, message: expect.stringMatching(message) }),
    ]);
  });
});
