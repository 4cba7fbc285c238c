/**
 * Recurring events, expanded with the rrule library. The rules step through wall-clock times
 * of the event's zone (`start.timeZone`), so a 09:00 meeting stays at 09:00 across a DST
 * change; each occurrence is then turned into its instant. RRULE, EXRULE, RDATE and EXDATE
 * lines are understood (RDATE/EXDATE as UTC `...Z`, with `TZID=`, floating, or `VALUE=DATE`).
 *
 * An instance's id is Google's: `<eventId>_<start in basic UTC>` (`abc_20261201T143000Z`),
 * or `<eventId>_<date>` for all-day events. A changed or cancelled instance (an exception) is
 * stored as an event of its own under that id, with `recurringEventId` and
 * `originalStartTime`; the expansion leaves out the occurrence it replaces.
 *
 * Every expansion is bounded: by the window asked for, by MAX_INSTANCES per event and by
 * HORIZON_YEARS past the window's start, so that an endless rule listed without `timeMax`
 * (or excluded by an endless EXRULE) still terminates quickly.
 */
import * as rruleModule from 'rrule';
import { refusal, refuse } from '../../core/errors.js';
import { isObject, type JsonObject } from '../../core/spec.js';
import type { EventRecord } from './records.js';
import {
  basicDate,
  basicUtc,
  dateOfWall,
  formatInZone,
  instantOfEventTime,
  isTimeZone,
  localDateTimeOfWall,
  utcToWall,
  wallOfDate,
} from './time.js';

/** The writes that store a recurrence. */
const RECURRING_WRITES = ['events.insert', 'events.import', 'events.update', 'events.patch'];

/** A recurrence line the emulator cannot read or expand. */
export const INVALID_RECURRENCE = refusal({
  id: 'calendar.invalidRecurrence',
  scope: 'calendar',
  operations: RECURRING_WRITES,
  status: 400,
  reason: 'invalid',
  location: 'recurrence',
  when: 'a `recurrence` line that is not an RRULE, EXRULE, RDATE or EXDATE line of RFC 5545, or does not parse (an RRULE without FREQ, a date that is none)',
  evidence: ['decision:0055'],
});

/** A timed recurring event whose start names no zone to repeat in. */
export const RECURRENCE_WITHOUT_ZONE = refusal({
  id: 'calendar.recurrenceWithoutTimeZone',
  scope: 'calendar',
  operations: RECURRING_WRITES,
  status: 400,
  reason: 'required',
  location: 'start.timeZone',
  when: 'a timed event with a `recurrence` has no `start.timeZone`',
  evidence: ['fact:conventions:calendarTimes/recurringEventsRequireTimeZone', 'decision:0055'],
});

// rrule ships CommonJS for Node and ESM for bundlers; take its exports from either.
const { RRule, RRuleSet } = ((rruleModule as unknown as { default?: typeof rruleModule }).default ??
  rruleModule) as typeof rruleModule;

/** The most instances one expansion of one event yields. */
export const MAX_INSTANCES = 1000;
const DAY = 86_400_000;
/** How far past the window's start an expansion looks at most (EXRULEs are iterated to the end). */
export const HORIZON_YEARS = 100;
const HORIZON = HORIZON_YEARS * 365.25 * DAY;

export const isRecurring = (event: JsonObject): boolean =>
  Array.isArray(event.recurrence) && event.recurrence.length > 0 && event.recurringEventId === undefined;

interface Timing {
  allDay: boolean;
  zone: string;
  /** The first start, as a wall time of `zone`. */
  startWall: number;
  /** The length of each instance in ms (whole days for all-day events). */
  duration: number;
}

function timing(event: JsonObject, calendarZone: string): Timing {
  const start = isObject(event.start) ? event.start : {};
  const end = isObject(event.end) ? event.end : {};
  if (typeof start.date === 'string') {
    // Dates step as dates (wall midnights); each is placed in the calendar's zone later.
    const first = wallOfDate(start.date);
    const last = typeof end.date === 'string' ? wallOfDate(end.date) : first + DAY;
    return { allDay: true, zone: calendarZone, startWall: first, duration: Math.max(last - first, 0) };
  }
  const zone =
    typeof start.timeZone === 'string' && isTimeZone(start.timeZone) ? start.timeZone : calendarZone;
  const startUtc = instantOfEventTime(start, zone);
  const endUtc = instantOfEventTime(end, zone);
  return {
    allDay: false,
    zone,
    startWall: utcToWall(startUtc, zone),
    duration: Number.isNaN(endUtc) ? 0 : Math.max(endUtc - startUtc, 0),
  };
}

const invalid = (line: string, why: string) =>
  refuse(INVALID_RECURRENCE, `Invalid recurrence rule ${JSON.stringify(line)}: ${why}`, {
    location: 'recurrence',
  });

/** An RDATE or EXDATE value as a wall time of the event's zone. */
function dateValue(text: string, params: Record<string, string>, at: Timing, line: string): number {
  const match = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/.exec(text.trim());
  if (!match) throw invalid(line, `${text} is not a date or date-time`);
  const [, y, mo, d, h, mi, s, z] = match;
  const day = wallOfDate(`${y}-${mo}-${d}`);
  if (Number.isNaN(day)) throw invalid(line, `${text} is not a date or date-time`);
  if (h === undefined) return at.allDay ? day : day + (at.startWall - Math.floor(at.startWall / DAY) * DAY);
  const wall = day + (Number(h) * 3600 + Number(mi) * 60 + Number(s)) * 1000;
  if (at.allDay) return Math.floor(wall / DAY) * DAY;
  if (z) return utcToWall(wall, at.zone);
  const zone = params.TZID;
  if (zone && zone !== at.zone) {
    if (!isTimeZone(zone)) throw invalid(line, `unknown time zone ${zone}`);
    const instant = instantOfEventTime({ dateTime: localDateTimeOfWall(wall), timeZone: zone }, zone);
    return utcToWall(instant, at.zone);
  }
  return wall;
}

function ruleOf(value: string, at: Timing, line: string) {
  let options: ReturnType<typeof RRule.parseString>;
  try {
    options = RRule.parseString(value);
  } catch (error) {
    throw invalid(line, (error as Error).message);
  }
  if (options.freq === undefined || options.freq === null) throw invalid(line, 'FREQ is required');
  delete options.tzid;
  delete options.dtstart;
  // UNTIL in UTC (`...Z`) is an instant; make it a wall time like everything else.
  if (options.until && /UNTIL=\d{8}T\d{6}Z/i.test(value) && !at.allDay)
    options.until = new Date(utcToWall(options.until.getTime(), at.zone));
  try {
    return new RRule({ ...options, dtstart: new Date(at.startWall) });
  } catch (error) {
    throw invalid(line, (error as Error).message);
  }
}

function ruleSet(event: JsonObject, at: Timing) {
  const set = new RRuleSet();
  set.rdate(new Date(at.startWall));
  for (const raw of Array.isArray(event.recurrence) ? event.recurrence : []) {
    const line = typeof raw === 'string' ? raw : JSON.stringify(raw);
    const colon = line.indexOf(':');
    if (colon < 0) throw invalid(line, 'expected NAME:VALUE');
    const [name = '', ...rest] = line.slice(0, colon).split(';');
    const params: Record<string, string> = {};
    for (const param of rest) {
      const [key, val] = param.split('=');
      if (key && val) params[key.toUpperCase()] = val;
    }
    const value = line.slice(colon + 1);
    switch (name.toUpperCase()) {
      case 'RRULE':
        set.rrule(ruleOf(value, at, line));
        break;
      case 'EXRULE':
        set.exrule(ruleOf(value, at, line));
        break;
      case 'RDATE':
        for (const text of value.split(',')) set.rdate(new Date(dateValue(text, params, at, line)));
        break;
      case 'EXDATE':
        for (const text of value.split(',')) set.exdate(new Date(dateValue(text, params, at, line)));
        break;
      default:
        throw invalid(line, 'only RRULE, EXRULE, RDATE and EXDATE lines are allowed');
    }
  }
  return set;
}

/** Refuses a recurrence that cannot be expanded, as the service refuses it on write. */
export function checkRecurrence(event: JsonObject, calendarZone: string): void {
  if (!Array.isArray(event.recurrence) || event.recurrence.length === 0) return;
  const start = isObject(event.start) ? event.start : {};
  if (typeof start.dateTime === 'string' && typeof start.timeZone !== 'string')
    throw refuse(RECURRENCE_WITHOUT_ZONE, 'Missing time zone definition for start time.', {
      location: 'start.timeZone',
    });
  ruleSet(event, timing(event, calendarZone));
}

export interface Occurrence {
  /** The instant the occurrence starts at, by the recurrence. */
  start: number;
  end: number;
  /** The instance id, `<eventId>_<...>`. */
  id: string;
  /** The instance as the service answers it (without exceptions applied). */
  resource: JsonObject;
}

function occurrence(parent: JsonObject, at: Timing, wall: number, calendarZone: string): Occurrence {
  const { recurrence: _recurrence, ...rest } = parent;
  const parentId = typeof parent.id === 'string' ? parent.id : '';
  const parentStart = isObject(parent.start) ? parent.start : {};
  const parentEnd = isObject(parent.end) ? parent.end : {};
  let start: JsonObject;
  let end: JsonObject;
  let id: string;
  let from: number;
  let to: number;
  if (at.allDay) {
    const date = dateOfWall(wall);
    start = { date };
    end = { date: dateOfWall(wall + at.duration) };
    id = `${parentId}_${basicDate(date)}`;
    from = instantOfEventTime(start, calendarZone);
    to = instantOfEventTime(end, calendarZone);
  } else {
    from = instantOfEventTime({ dateTime: localDateTimeOfWall(wall), timeZone: at.zone }, at.zone);
    to = from + at.duration;
    const endZone =
      typeof parentEnd.timeZone === 'string' && isTimeZone(parentEnd.timeZone) ? parentEnd.timeZone : at.zone;
    start = {
      dateTime: formatInZone(from, at.zone),
      ...(parentStart.timeZone ? { timeZone: parentStart.timeZone } : {}),
    };
    end = {
      dateTime: formatInZone(from + at.duration, endZone),
      ...(parentEnd.timeZone ? { timeZone: parentEnd.timeZone } : {}),
    };
    id = `${parentId}_${basicUtc(from)}`;
  }
  return {
    start: from,
    end: to,
    id,
    resource: {
      ...rest,
      id,
      start,
      end,
      recurringEventId: parentId,
      originalStartTime: { ...start },
    },
  };
}

/**
 * The occurrences of a recurring event that overlap [min, max) (instants; either may be
 * left open), at most MAX_INSTANCES, in order.
 */
export function expand(parent: JsonObject, calendarZone: string, min?: number, max?: number): Occurrence[] {
  const at = timing(parent, calendarZone);
  let set: ReturnType<typeof ruleSet>;
  try {
    set = ruleSet(parent, at);
  } catch {
    return [];
  }
  // Wall times differ from instants by at most a day; widen the window by that and the
  // instance length, then filter exactly.
  const after = new Date(Math.max(min === undefined ? at.startWall : min - at.duration - DAY, at.startWall));
  const before = new Date(
    Math.min(max === undefined ? Number.POSITIVE_INFINITY : max + DAY, after.getTime() + HORIZON),
  );
  if (after > before) return [];
  const walls = set.between(after, before, true, (_date, index) => index < MAX_INSTANCES + 2);
  const out: Occurrence[] = [];
  for (const wall of walls) {
    const one = occurrence(parent, at, wall.getTime(), calendarZone);
    const overlaps =
      (min === undefined || one.end > min || (one.end === one.start && one.start >= min)) &&
      (max === undefined || one.start < max);
    if (overlaps) out.push(one);
    if (out.length >= MAX_INSTANCES) break;
  }
  return out;
}

/** `<eventId>_<basic time or date>`: the parent id and when the instance originally starts. */
export function parseInstanceId(id: string): { parentId: string; when: string } | undefined {
  const match = /^(.+)_(\d{8}(?:T\d{6}Z)?)$/.exec(id);
  return match ? { parentId: match[1] as string, when: match[2] as string } : undefined;
}

/** The instance of a recurring event with this id, if the recurrence has it. */
export function findInstance(parent: JsonObject, calendarZone: string, id: string): Occurrence | undefined {
  const parsed = parseInstanceId(id);
  if (!parsed) return undefined;
  const w = parsed.when;
  const day = wallOfDate(`${w.slice(0, 4)}-${w.slice(4, 6)}-${w.slice(6, 8)}`);
  if (Number.isNaN(day)) return undefined;
  const around =
    w.length > 8
      ? day + (Number(w.slice(9, 11)) * 3600 + Number(w.slice(11, 13)) * 60 + Number(w.slice(13, 15))) * 1000
      : day;
  return expand(parent, calendarZone, around - 2 * DAY, around + 2 * DAY).find((one) => one.id === id);
}

/** The span of a single event (or an exception) as instants; all-day dates in the calendar's zone. */
export function eventSpan(event: JsonObject, calendarZone: string): [number, number] | undefined {
  const start = isObject(event.start) ? instantOfEventTime(event.start, calendarZone) : Number.NaN;
  const end = isObject(event.end) ? instantOfEventTime(event.end, calendarZone) : Number.NaN;
  return Number.isNaN(start) || Number.isNaN(end) ? undefined : [start, end];
}

/**
 * When an event makes its calendar busy within [min, max): never if cancelled or
 * transparent; a recurring event at each occurrence not replaced by an exception.
 */
export function busySpans(
  events: Record<string, EventRecord>,
  record: EventRecord,
  calendarZone: string,
  min: number,
  max: number,
): [number, number][] {
  const event = record.resource;
  if (event.status === 'cancelled' || event.transparency === 'transparent') return [];
  if (!isRecurring(event)) {
    const span = eventSpan(event, calendarZone);
    return span ? [span] : [];
  }
  return expand(event, calendarZone, min, max)
    .filter((one) => !events[one.id])
    .map((one): [number, number] => [one.start, one.end]);
}
