/**
 * Time zones without a library: IANA zones through Intl. A "wall" time is the clock reading
 * in a zone, held as milliseconds as if that reading were UTC; it is what recurrence rules
 * step through (a 09:00 meeting stays at 09:00 across a DST change).
 *
 * Every placement of an event's time in absolute time goes through `instantOfEventTime`: an
 * all-day date is its midnight in the calendar's zone (as free/busy, the time filters of the
 * lists, the time index and recurrence all count it; decision 0055), a local date-time is read
 * on the clock of its own zone. No other module places a date or a local time itself
 * (test/event-time-placement.test.ts scans for it).
 */
const formats = new Map<string, Intl.DateTimeFormat>();

function format(zone: string): Intl.DateTimeFormat {
  let out = formats.get(zone);
  if (!out) {
    out = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, out);
  }
  return out;
}

export function isTimeZone(zone: string): boolean {
  try {
    format(zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * Offsets by zone and quarter of an hour (of UTC): the offset there when it is the same at the
 * quarter's first and last millisecond, NaN when a transition falls inside it. Intl is asked
 * twice per quarter instead of once per instant; recurrence expansion and free/busy read many
 * instants of the same few quarters. A quarter with a transition inside (most fall on one of
 * its ends; old ones such as St. John's in 1917, at 05:30:52 UTC, do not) asks Intl for each instant. What no
 * zone has is two transitions within a quarter of an hour that end where they began.
 */
const QUARTER = 15 * 60 * 1000;
const offsets = new Map<string, Map<number, number>>();
/** More quarters than that are forgotten at once (about ten years of one zone). */
const MAX_QUARTERS = 350_000;
let quarters = 0;

/** The zone's offset from UTC at an instant, in milliseconds. */
export function offsetAt(zone: string, utc: number): number {
  const quarter = Math.floor(utc / QUARTER);
  let offset = offsets.get(zone)?.get(quarter);
  if (offset === undefined) {
    // Asked first, so that a zone Intl does not know throws before anything is kept.
    const first = exactOffsetAt(zone, quarter * QUARTER);
    offset = first === exactOffsetAt(zone, quarter * QUARTER + QUARTER - 1) ? first : Number.NaN;
    if (quarters >= MAX_QUARTERS) {
      offsets.clear();
      quarters = 0;
    }
    let known = offsets.get(zone);
    if (!known) {
      known = new Map();
      offsets.set(zone, known);
    }
    known.set(quarter, offset);
    quarters += 1;
  }
  return Number.isNaN(offset) ? exactOffsetAt(zone, utc) : offset;
}

/** The zone's offset from UTC at an instant, in milliseconds, from Intl. */
export function exactOffsetAt(zone: string, utc: number): number {
  const parts: Record<string, number> = {};
  for (const part of format(zone).formatToParts(new Date(utc)))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const wall = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return wall - (utc - (((utc % 1000) + 1000) % 1000));
}

export const utcToWall = (utc: number, zone: string): number => utc + offsetAt(zone, utc);

/** The instant of a wall time (two passes, so that the offset is the one at that instant). */
export function wallToUtc(wall: number, zone: string): number {
  const guess = wall - offsetAt(zone, wall);
  return wall - offsetAt(zone, guess);
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** RFC 3339 in a zone: `2026-03-02T10:00:00+01:00`, and `Z` where the offset is zero. */
export function formatInZone(utc: number, zone: string): string {
  const offset = offsetAt(zone, utc);
  const wall = new Date(utc + offset).toISOString().slice(0, 19);
  if (offset === 0) return `${wall}Z`;
  const minutes = Math.round(Math.abs(offset) / 60000);
  return `${wall}${offset < 0 ? '-' : '+'}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** An RFC 3339 date-time without an offset (`2027-03-01T10:00:00`, fractions allowed). */
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?$/;

export const isLocalDateTime = (text: string): boolean => LOCAL.test(text);

/**
 * A local date-time as a wall time (milliseconds as if the reading were UTC), or undefined
 * when it is not one or names no real day or time (`2027-02-30`, `24:00`, a leap second).
 */
export function parseLocalDateTime(text: string): number | undefined {
  const match = LOCAL.exec(text);
  if (!match) return undefined;
  const [y, mo, d, h, mi, s] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = match[7] ? Math.floor(Number(match[7]) * 1000) : 0;
  const wall = Date.UTC(y, mo - 1, d, h, mi, s, fraction);
  const back = new Date(wall);
  const same =
    back.getUTCFullYear() === y &&
    back.getUTCMonth() === mo - 1 &&
    back.getUTCDate() === d &&
    back.getUTCHours() === h &&
    back.getUTCMinutes() === mi &&
    back.getUTCSeconds() === s;
  return same ? wall : undefined;
}

/** `20261201T143000Z`: the basic UTC form Google puts in instance ids. */
export const basicUtc = (utc: number): string =>
  new Date(utc).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');

/** `20261201`: the basic date form, for all-day instances. */
export const basicDate = (date: string): string => date.replace(/-/g, '');

/**
 * An event's start, end or original start as the Event resource has it (`date`, `dateTime`,
 * `timeZone`: strings; anything else is read as absent), so that a stored JSON object is one.
 */
export interface EventTime {
  readonly date?: unknown;
  readonly dateTime?: unknown;
  readonly timeZone?: unknown;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** A date-time whose seconds are a leap second (`23:59:60Z`): RFC 3339 allows it, Date.parse does not. */
const LEAP_SECOND = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:)60(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** A date (`2026-03-02`) as the wall time of its midnight, or NaN when it names no real day. */
export function wallOfDate(date: string): number {
  const match = DATE.exec(date);
  if (!match) return Number.NaN;
  const y = Number(match[1]);
  const m = Number(match[2]);
  const d = Number(match[3]);
  const wall = Date.UTC(y, m - 1, d);
  const back = new Date(wall);
  return back.getUTCFullYear() === y && back.getUTCMonth() === m - 1 && back.getUTCDate() === d
    ? wall
    : Number.NaN;
}

/** The date (`2026-03-02`) of a wall time. */
export const dateOfWall = (wall: number): string => new Date(wall).toISOString().slice(0, 10);

/** The date `days` after (or before) a date, on the calendar alone (no zone involved). */
export const addDays = (date: string, days: number): string =>
  dateOfWall(wallOfDate(date) + days * 86_400_000);

/** A wall time as a local date-time without an offset (`2026-03-02T09:00:00`), as events write them. */
export const localDateTimeOfWall = (wall: number): string => new Date(wall).toISOString().slice(0, 19);

/** The date an instant falls on in a zone. */
export const dateInZone = (utc: number, zone: string): string => dateOfWall(utcToWall(utc, zone));

/** The instant of an RFC 3339 date-time with an offset; a leap second is the instant after `:59`. */
function instantOfOffsetTime(text: string): number {
  const at = Date.parse(text);
  if (!Number.isNaN(at)) return at;
  const leap = LEAP_SECOND.exec(text);
  return leap ? Date.parse(`${leap[1]}59${leap[2] ?? ''}${leap[3]}`) + 1000 : Number.NaN;
}

/**
 * The instant (milliseconds) an event time names, the one rule every placement follows:
 *
 * - a `date` (an all-day event) starts at midnight of that day in `calendarZone`, the zone of
 *   the calendar the event is on (or the zone a request names for its answer);
 * - a `dateTime` with an offset names its own instant, whatever `timeZone` says;
 * - a `dateTime` without an offset is read on the clock of `timeZone` (else `calendarZone`): a
 *   reading the clock skips (a spring-forward gap) moves forward by the gap, one it shows twice
 *   is the later instant.
 *
 * NaN when the value names no instant (neither field, no real day, an unknown zone).
 */
export function instantOfEventTime(value: EventTime, calendarZone: string): number {
  const { dateTime, date } = value;
  if (typeof dateTime === 'string') {
    if (!isLocalDateTime(dateTime)) return instantOfOffsetTime(dateTime);
    const zone = typeof value.timeZone === 'string' ? value.timeZone : calendarZone;
    const wall = parseLocalDateTime(dateTime);
    if (wall === undefined || !isTimeZone(zone)) return Number.NaN;
    return wallToUtc(wall, zone);
  }
  if (typeof date === 'string') {
    const wall = wallOfDate(date);
    if (Number.isNaN(wall) || !isTimeZone(calendarZone)) return Number.NaN;
    return wallToUtc(wall, calendarZone);
  }
  return Number.NaN;
}
