import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, loadApis, readPreferences } from '../src/index.ts';

const auth = { authorization: 'Bearer test-token' };
let gateway: Gateway;
let origin: string;
const docsDir = mkdtempSync(path.join(tmpdir(), 'gspec-docs-'));

beforeAll(async () => {
  writeFileSync(path.join(docsDir, 'index.html'), '<!doctype html><title>reference</title>');
  gateway = createGateway({ apis: await loadApis(), docsDir });
  origin = await gateway.listen(0);
});
afterAll(() => gateway.close());

interface Want {
  status: number;
  contentType?: RegExp;
  reason?: string;
  location?: string;
  locationType?: string;
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
    'answers a wrong method with 405',
    { path: '/calendar/v3/colors', init: { method: 'PUT', headers: auth } },
    { status: 405 },
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

  it('answers a CORS preflight so a browser page can call it', async () => {
    const response = await fetch(`${origin}/calendar/v3/colors`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:3000',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(response.headers.get('access-control-allow-headers')).toBe('authorization');
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
