/**
 * Request targets: the quick split at `?` gives the same path segments and query as the
 * WHATWG URL parser (which the server used before, and still uses for unusual targets); a
 * target the URL parser refuses is split at its `?` rather than thrown at (the target is read
 * before any credential, and a throw was a 500). Last, generated targets (fast-check, seeded
 * as test/fuzz.test.ts: `FUZZ_SEED`, `FUZZ_SCALE`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTarget } from '../src/core/target.ts';
import { envNumber } from './support/fuzz-requests.ts';

/** What routing reads of a target: the decoded path segments and the query pairs. */
function readOf(pathname: string, query: URLSearchParams) {
  const segments = pathname.split('/').map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return undefined;
    }
  });
  return { segments, query: [...query] };
}

describe('parseTarget', () => {
  it.each([
    '/calendar/v3/calendars/primary/events',
    '/calendar/v3/calendars/primary/events?maxResults=20&pageToken=abc',
    '/calendar/v3/calendars/user%40example.com/events?q=a+b%20c',
    '/calendar/v3/calendars/c_1%40group.calendar.google.com/acl/user%3Aa%40example.com',
    '/calendar/v3/calendars/primary/events?privateExtendedProperty=a%3Db&privateExtendedProperty=c%3Dd',
    '/calendar/v3/users/me/settings?',
    '/calendar/v3/calendars/"quoted"/events?q="x"',
    '/calendar/v3/calendars/a%ZZ/events',
    // Unusual targets, which go through the URL parser.
    '/calendar/v3/calendars/../v3/calendars/primary',
    '/calendar/v3/calendars/%2e%2e/x',
    '/calendar/v3/calendars/prim ary/events',
    '/calendar/v3/calendars/primary/events#fragment',
    '/calendar/v3/calendars\\primary',
    '//host/calendar/v3/calendars/primary',
    'http://example.com/calendar/v3/colors?x=1',
    '/calendar/v3/calendars/ünïcode/events',
  ])('reads %s as the URL parser does', (raw) => {
    const url = new URL(raw, 'http://emulator.invalid');
    const target = parseTarget(raw);
    expect(readOf(target.pathname, target.query())).toEqual(readOf(url.pathname, url.searchParams));
  });

  it.each([
    ['//', '//', []],
    ['//[', '//[', []],
    [
      '//[?a=1&&b',
      '//[',
      [
        ['a', '1'],
        ['b', ''],
      ],
    ],
    ['//a:b@[x]/calendar/v3/colors', '//a:b@[x]/calendar/v3/colors', []],
    ['https://', 'https://', []],
    ['http://[::1/x?y', 'http://[::1/x', [['y', '']]],
  ])('reads %s, which the URL parser refuses, as its path and query', (raw, pathname, query) => {
    expect(() => new URL(raw, 'http://emulator.invalid')).toThrow(TypeError);
    const target = parseTarget(raw);
    expect(target.pathname).toBe(pathname);
    expect([...target.query()]).toEqual(query);
  });

  it.each([
    ['1,000,000 &', `/calendar/v3/colors?${'&'.repeat(1_000_000)}`, 0],
    ['100,000 a=1&', `/calendar/v3/colors?${'a=1&'.repeat(100_000)}`, 100_000],
    ['100,000 = and &', `/calendar/v3/colors?${'=&'.repeat(100_000)}`, 100_000],
  ])('reads a query of %s', (_name, raw, count) => {
    const target = parseTarget(raw);
    expect(target.pathname).toBe('/calendar/v3/colors');
    expect([...target.query()]).toHaveLength(count);
  });

  it('reads any target without throwing, as the URL parser does when it takes it', () => {
    const unit = fc.oneof(
      fc.constantFrom(
        '/',
        '//',
        '?',
        '&',
        '=',
        '#',
        '%',
        '%2e',
        '%2E',
        '.',
        '..',
        '\\',
        '[',
        ']',
        ':',
        '@',
        'a',
        'é',
        ' ',
      ),
      fc.string({ maxLength: 2 }),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 20 }), (units) => {
        const raw = units.join('');
        const target = parseTarget(raw);
        const query = target.query();
        let url: URL | undefined;
        try {
          url = new URL(raw, 'http://emulator.invalid');
        } catch {
          // Refused by the URL parser: split at `?`, checked above.
        }
        if (url) expect(readOf(target.pathname, query)).toEqual(readOf(url.pathname, url.searchParams));
      }),
      { seed: envNumber('FUZZ_SEED', 20_261_128), numRuns: 500 * Math.max(1, envNumber('FUZZ_SCALE', 1)) },
    );
  });

  it('parses the query once, on first use', () => {
    const target = parseTarget('/calendar/v3/colors?a=1');
    expect(target.query()).toBe(target.query());
    expect(target.query().get('a')).toBe('1');
  });
});
