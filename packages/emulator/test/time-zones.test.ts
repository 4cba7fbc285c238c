/**
 * Zone offsets: offsetAt (kept per quarter of an hour) answers what Intl answers for the
 * instant, around DST transitions, in zones with half-hour and 45-minute offsets, where a zone
 * changed its offset for good, and around old transitions that fall inside a quarter of an hour.
 */
import { describe, expect, it } from 'vitest';
import { exactOffsetAt, formatInZone, offsetAt, wallToUtc } from '../src/apis/calendar/time.ts';

const MINUTE = 60_000;

/** Every minute (and the millisecond before and after it) of a span around `at`. */
function instantsAround(at: string, hours = 3): number[] {
  const middle = Date.parse(at);
  const out: number[] = [];
  for (let t = middle - hours * 60 * MINUTE; t <= middle + hours * 60 * MINUTE; t += MINUTE)
    out.push(t - 1, t, t + 1, t + 29_999);
  return out;
}

describe('offsetAt', () => {
  it.each([
    ['Europe/Zurich', '2026-03-29T01:00:00Z'], // spring forward
    ['Europe/Zurich', '2026-10-25T01:00:00Z'], // fall back
    ['America/New_York', '2026-03-08T07:00:00Z'],
    ['America/New_York', '2026-11-01T06:00:00Z'],
    ['Australia/Lord_Howe', '2026-04-05T15:00:00Z'], // a half-hour DST shift
    ['Asia/Kathmandu', '1986-01-01T00:00:00Z'], // +05:30 to +05:45
    ['Asia/Kolkata', '2026-06-01T00:00:00Z'],
    ['Pacific/Apia', '2011-12-30T10:00:00Z'], // skipped a whole day
    ['UTC', '2026-06-01T00:00:00Z'],
    // Transitions inside a quarter of an hour, off whole minutes.
    ['America/St_Johns', '1917-04-08T05:30:52Z'],
    ['Africa/Monrovia', '1972-01-07T00:44:30Z'],
  ])('in %s around %s, as Intl says', (zone, at) => {
    // Twice: the first pass fills the quarters, the second reads them.
    for (let pass = 0; pass < 2; pass++)
      for (const utc of instantsAround(at)) expect(offsetAt(zone, utc)).toBe(exactOffsetAt(zone, utc));
  });

  it('keeps wall times and formatting as they were', () => {
    expect(formatInZone(Date.parse('2026-03-29T01:30:00Z'), 'Europe/Zurich')).toBe(
      '2026-03-29T03:30:00+02:00',
    );
    expect(formatInZone(Date.parse('2026-03-29T00:30:00Z'), 'Europe/Zurich')).toBe(
      '2026-03-29T01:30:00+01:00',
    );
    expect(wallToUtc(Date.parse('2026-10-25T09:00:00Z'), 'Europe/Zurich')).toBe(
      Date.parse('2026-10-25T08:00:00Z'),
    );
  });

  it('refuses a zone Intl does not know, and keeps nothing of it', () => {
    expect(() => offsetAt('Mars/Olympus_Mons', 0)).toThrow(RangeError);
    expect(() => offsetAt('Mars/Olympus_Mons', 0)).toThrow(RangeError);
  });
});
