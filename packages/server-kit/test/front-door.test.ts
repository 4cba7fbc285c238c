import { describe, expect, it } from 'vitest';
import {
  curlExample,
  landingHtml,
  landingJson,
  notFoundHint,
  pathUnderApi,
  type ServedApi,
  wantsHtml,
} from '../src/front-door.ts';
import { createPathRouter } from '../src/http.ts';

const APIS: ServedApi[] = [
  {
    name: 'calendar',
    title: 'Google Calendar API v3',
    basePath: '/calendar/v3',
    router: createPathRouter([
      { path: '/users/me/calendarList', method: 'get' },
      { path: '/calendars/{calendarId}/events', method: 'post' },
    ]),
  },
  {
    name: 'searchads360',
    title: 'Search Ads 360 API v2',
    basePath: '/doubleclicksearch/v2',
    router: createPathRouter([{ path: '/reports/generate', method: 'post' }]),
  },
];
const ORIGIN = 'http://127.0.0.1:4011';

describe('notFoundHint', () => {
  it.each([
    // A client given the server's root, or a base URL short of its API's base path.
    [
      '/users/me/calendarList',
      "; /calendar/v3/users/me/calendarList is an operation's path of the Google Calendar API v3: give the client the base URL http://127.0.0.1:4011/calendar/v3",
    ],
    [
      '/calendar/users/me/calendarList',
      "; /calendar/v3/users/me/calendarList is an operation's path of the Google Calendar API v3: give the client the base URL http://127.0.0.1:4011/calendar/v3",
    ],
    [
      '/calendar/v2/calendars/primary/events',
      "; /calendar/v3/calendars/primary/events is an operation's path of the Google Calendar API v3: give the client the base URL http://127.0.0.1:4011/calendar/v3",
    ],
    [
      '/v2/reports/generate',
      "; /doubleclicksearch/v2/reports/generate is an operation's path of the Search Ads 360 API v2: give the client the base URL http://127.0.0.1:4011/doubleclicksearch/v2",
    ],
    // Batches.
    ['/calendar/v3/batch', '; a batch of the Google Calendar API v3 is sent to /batch/calendar/v3'],
    [
      '/batch/calendar',
      '; the batch endpoints are /batch/calendar/v3, /batch/doubleclicksearch/v2 and /batch',
    ],
    // Under a base path: an operation that does not exist, nothing to add.
    ['/calendar/v3/nothing', ''],
    // A path of no API: the base paths served.
    ['/', '; the APIs here are under /calendar/v3 and /doubleclicksearch/v2'],
    ['/a/b/c/users/me/calendarList', '; the APIs here are under /calendar/v3 and /doubleclicksearch/v2'],
    ['/users//calendarList', '; the APIs here are under /calendar/v3 and /doubleclicksearch/v2'],
  ])('%s', (pathname, hint) => {
    expect(notFoundHint(pathname, APIS, ORIGIN)).toBe(hint);
  });

  it('without the origin, names the end of the base URL', () => {
    expect(notFoundHint('/users/me/calendarList', APIS)).toMatch(
      /: give the client a base URL ending in \/calendar\/v3$/,
    );
  });

  it('stays fast on a long path', () => {
    const long = `/${'a/'.repeat(4000)}users/me/calendarList`;
    const started = performance.now();
    expect(pathUnderApi(long, APIS)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('the landing page', () => {
  const info = {
    name: 'gspec emulator',
    description: 'Emulates <both> APIs.',
    origin: ORIGIN,
    apis: APIS,
    links: { health: { path: '/__emulator/health', text: 'Health' } },
    example: `curl -H 'Authorization: Bearer t' ${ORIGIN}/calendar/v3/users/me/calendarList`,
  };

  it.each([
    ['text/html,application/xhtml+xml,*/*;q=0.8', true],
    ['application/json', false],
    ['*/*', false],
    [undefined, false],
    ['text/htmlx', false],
  ])('Accept %j asks for a page: %s', (accept, page) => {
    expect(wantsHtml(accept)).toBe(page);
  });

  it('names each base URL, link and the example, escaped', () => {
    const html = landingHtml(info);
    expect(html).toContain('<code>http://127.0.0.1:4011/calendar/v3</code>');
    expect(html).toContain('<code>http://127.0.0.1:4011/doubleclicksearch/v2</code>');
    expect(html).toContain('<a href="/__emulator/health">Health</a>');
    expect(html).toContain('Emulates &#60;both&#62; APIs.');
    expect(html).toContain('curl -H &#39;Authorization: Bearer t&#39;');
    expect(html).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.svg">');
    expect(html).not.toMatch(/<script|<style|style=/);
  });

  it('tells the same in JSON', () => {
    expect(landingJson(info)).toEqual({
      name: 'gspec emulator',
      description: 'Emulates <both> APIs.',
      apis: [
        {
          name: 'calendar',
          title: 'Google Calendar API v3',
          basePath: '/calendar/v3',
          baseUrl: 'http://127.0.0.1:4011/calendar/v3',
          batch: 'http://127.0.0.1:4011/batch/calendar/v3',
        },
        {
          name: 'searchads360',
          title: 'Search Ads 360 API v2',
          basePath: '/doubleclicksearch/v2',
          baseUrl: 'http://127.0.0.1:4011/doubleclicksearch/v2',
          batch: 'http://127.0.0.1:4011/batch/doubleclicksearch/v2',
        },
      ],
      links: { health: 'http://127.0.0.1:4011/__emulator/health' },
      example: info.example,
    });
  });
});

describe('curlExample', () => {
  it.each([
    [
      'any token',
      undefined,
      "curl -H 'Authorization: Bearer any-token' http://127.0.0.1:4011/calendar/v3/colors",
    ],
    [
      'a token of its own',
      't1',
      "curl -H 'Authorization: Bearer t1' http://127.0.0.1:4011/calendar/v3/colors",
    ],
    [
      'a shell variable, quoted so that the shell expands it',
      '$TOKEN',
      'curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:4011/calendar/v3/colors',
    ],
  ])('calls with %s', (_what, bearer, expected) => {
    expect(curlExample('http://127.0.0.1:4011/calendar/v3/colors', bearer)).toBe(expected);
  });
});
