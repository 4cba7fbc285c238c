import { createFinalURL, createQuerySerializer, defaultPathSerializer } from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import { buildUrl, serializeQuery } from '../src/url.ts';

const BASE = 'https://example.test/api/v1';

/** What openapi-fetch's raw methods send for the same parameters. */
function openapiFetchUrl(template: string, path: Record<string, unknown>, query: Record<string, unknown>) {
  return createFinalURL(template, {
    baseUrl: BASE,
    params: { path, query },
    querySerializer: createQuerySerializer(),
    pathSerializer: defaultPathSerializer,
  });
}

describe('resource methods encode URLs as openapi-fetch does', () => {
  it.each<[string, { template: string; path: Record<string, unknown>; query: Record<string, unknown> }]>([
    ['no parameters', { template: '/colors', path: {}, query: {} }],
    [
      'an e-mail address as a path parameter',
      { template: '/calendars/{calendarId}', path: { calendarId: 'team@example.com' }, query: {} },
    ],
    [
      'reserved characters in path parameters',
      {
        template: '/calendars/{calendarId}/events/{eventId}',
        path: { calendarId: 'a/b?c#d', eventId: 'x y+z%' },
        query: {},
      },
    ],
    [
      'non-ASCII in a path parameter',
      { template: '/users/me/settings/{setting}', path: { setting: 'Zürich 東京' }, query: {} },
    ],
    [
      'strings, numbers and booleans in the query',
      {
        template: '/calendars/{calendarId}/events',
        path: { calendarId: 'primary' },
        query: { q: 'a b&c=d', maxResults: 10, singleEvents: true, showDeleted: false },
      },
    ],
    [
      'a timestamp with a time zone offset',
      { template: '/events', path: {}, query: { timeMin: '2026-12-01T10:00:00+01:00' } },
    ],
    [
      'arrays repeated, empty arrays left out',
      {
        template: '/events',
        path: {},
        query: {
          privateExtendedProperty: ['a=1', 'b=2'],
          eventTypes: ['default'],
          sharedExtendedProperty: [],
        },
      },
    ],
    [
      'undefined and null left out',
      { template: '/events', path: {}, query: { q: undefined, pageToken: null, maxResults: 1 } },
    ],
    ['an object as a deepObject', { template: '/events', path: {}, query: { filter: { a: '1', b: 'x y' } } }],
    [
      'the API key after the other parameters',
      { template: '/colors', path: {}, query: { fields: 'kind,calendar', key: 'k/1+2' } },
    ],
  ])('%s', (_title, { template, path, query }) => {
    expect(buildUrl('op.id', BASE, template, path, serializeQuery(query))).toBe(
      openapiFetchUrl(template, path, query),
    );
  });

  it.each<[string, unknown]>([
    ['undefined', undefined],
    ['null', null],
    ['empty', ''],
  ])('refuses a path parameter that is %s', (_title, value) => {
    expect(() => buildUrl('events.get', BASE, '/calendars/{calendarId}', { calendarId: value }, '')).toThrow(
      'events.get: the path parameter "calendarId" is required',
    );
  });
});
