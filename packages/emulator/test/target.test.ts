/**
 * Request targets: the quick split at `?` gives the same path segments and query as the
 * WHATWG URL parser (which the server used before, and still uses for unusual targets).
 */
import { describe, expect, it } from 'vitest';
import { parseTarget } from '../src/core/target.ts';

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

  it('parses the query once, on first use', () => {
    const target = parseTarget('/calendar/v3/colors?a=1');
    expect(target.query()).toBe(target.query());
    expect(target.query().get('a')).toBe('1');
  });
});
