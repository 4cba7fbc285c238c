/**
 * Days in an advertiser's time zone. Search Ads 360 dates a Floodlight conversion in the
 * advertiser's time zone (decision 0057), so the reads' `startDate` and `endDate` are days of
 * that zone, and so is the day the inspector shows. A day is written as Google writes it in the
 * reads, an integer `yyyymmdd`.
 *
 * The live service gives every advertiser a time zone when it is made and publishes no default;
 * the emulator's, for advertisers no seed gives one (created on first use, the spec examples',
 * states dumped before the field existed), is UTC (decision 0057).
 */
import type { AdvertiserRecord } from './records.js';

/** The time zone of an advertiser that has none of its own. */
export const DEFAULT_TIME_ZONE = 'UTC';

/** The canonical IANA name of `name` (`asia/tokyo` is `Asia/Tokyo`); undefined when Node does not know it. */
export function canonicalTimeZone(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The advertiser's time zone, or the default. */
export const timeZoneOf = (advertiser: Pick<AdvertiserRecord, 'timeZone'>): string =>
  advertiser.timeZone ?? DEFAULT_TIME_ZONE;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let found = formatters.get(timeZone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, found);
  }
  return found;
}

/** The day (`yyyymmdd`) of the instant `ms` in `timeZone`; undefined for an instant outside Date's range. */
export function dayOf(ms: number, timeZone: string): number | undefined {
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return undefined;
  let year = 0;
  let month = 0;
  let day = 0;
  for (const part of formatter(timeZone).formatToParts(date)) {
    if (part.type === 'year') year = Number(part.value);
    else if (part.type === 'month') month = Number(part.value);
    else if (part.type === 'day') day = Number(part.value);
  }
  // Years before 1 are written without a sign; the reads' days start in 2009.
  return year * 10000 + month * 100 + day;
}

/** `yyyymmdd` as `yyyy-mm-dd`, for people. */
export const dayText = (day: number): string => {
  const text = `${day}`.padStart(8, '0');
  return `${text.slice(0, -4)}-${text.slice(-4, -2)}-${text.slice(-2)}`;
};

/** Whether `yyyymmdd` is a day of the calendar (20251131 is not). */
export function isDay(value: number): boolean {
  const year = Math.floor(value / 10000);
  const month = Math.floor(value / 100) % 100;
  const day = value % 100;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The day after `yyyymmdd`. */
export function nextDay(value: number): number {
  const date = new Date(
    Date.UTC(Math.floor(value / 10000), (Math.floor(value / 100) % 100) - 1, (value % 100) + 1),
  );
  return date.getUTCFullYear() * 10000 + (date.getUTCMonth() + 1) * 100 + date.getUTCDate();
}

const HOUR = 60 * 60 * 1000;

/**
 * The first millisecond of the day `yyyymmdd` in `timeZone`: the earliest instant whose day
 * there is that day or later (a day whose midnight a clock change skips starts when the clock
 * resumes). Offsets lie within -12 h and +14 h of UTC, so the instant is searched there.
 */
export function dayStart(value: number, timeZone: string): number {
  const naive = Date.UTC(Math.floor(value / 10000), (Math.floor(value / 100) % 100) - 1, value % 100);
  let low = naive - 15 * HOUR;
  let high = naive + 13 * HOUR;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if ((dayOf(middle, timeZone) ?? 0) >= value) high = middle;
    else low = middle + 1;
  }
  return low;
}
