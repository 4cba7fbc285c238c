/**
 * freebusy.query: when each requested calendar is busy between timeMin and timeMax, computed
 * from its events. Cancelled and transparent events do not count; all-day events are busy
 * from midnight to midnight in the calendar's time zone; the answer's times are in the
 * request's `timeZone`.
 *
 * An item is a calendar, or a group (groups.ts) answered under `groups` with its members'
 * calendar ids, each member answered under `calendars`. What cannot be answered for one item
 * is said in its own `errors`, as Google does, not by refusing the request (decision 0056): a
 * calendar the caller cannot see (at least as freeBusyReader) or an id that is neither a
 * calendar nor a group (`notFound`), a group with more members than `groupExpansionMax`
 * (`groupTooBig`, default and most 100), and the calendars past the first
 * `calendarExpansionMax` (`tooManyCalendarsRequested`, default and most 50; the spec refuses a
 * larger value). The request itself is refused for an empty range, a range longer than the
 * service's (90 days), and a time zone Intl does not know.
 */

import { ApiError, refusal, refuse } from '../../core/errors.js';
import { own, setOwn } from '../../core/own.js';
import type { JsonObject } from '../../core/spec.js';
import type { Context } from './context.js';
import { calendarZone } from './event-model.js';
import { membersOf } from './groups.js';
import type { CalendarHandlers } from './handler-types.js';
import type { CalendarRecord, EventRecord } from './records.js';
import { busySpans } from './recurrence.js';
import { formatInZone, isTimeZone } from './time.js';

/** timeMax not after timeMin. */
export const TIME_RANGE_EMPTY = refusal({
  id: 'calendar.freeBusyTimeRangeEmpty',
  scope: 'calendar',
  operations: ['freebusy.query'],
  status: 400,
  reason: 'timeRangeEmpty',
  domain: 'calendar',
  location: 'timeMax',
  when: '`timeMax` is not after `timeMin`',
  evidence: [
    'fact:conventions:errors/reasons/timeRangeEmpty',
    'fact:conventions:guides/errors/examples/timeRangeEmpty',
    'decision:0056',
  ],
});

/** A range longer than the service answers for. */
export const TIME_RANGE_TOO_LONG = refusal({
  id: 'calendar.freeBusyTimeRangeTooLong',
  scope: 'calendar',
  operations: ['freebusy.query'],
  status: 400,
  reason: 'timeRangeTooLong',
  domain: 'calendar',
  location: 'timeMax',
  when: '`timeMax` is more than 90 days after `timeMin`',
  evidence: ['decision:0056'],
});

/** A time zone of the answer that is none. */
export const UNKNOWN_TIME_ZONE = refusal({
  id: 'calendar.freeBusyUnknownTimeZone',
  scope: 'calendar',
  operations: ['freebusy.query'],
  status: 400,
  reason: 'invalid',
  location: 'timeZone',
  when: '`timeZone` is not an IANA time zone (`Europe/Zurich`, `UTC`)',
  evidence: ['fact:conventions:errors/reasons/invalid', 'decision:0056'],
});

/** The longest range one query may ask for (observed; Google does not publish it). */
export const MAX_RANGE_MS = 90 * 24 * 3600 * 1000;
/** The most calendars one query answers for, and the most members a group is expanded to (the reference's maxima). */
export const CALENDAR_EXPANSION_MAX = 50;
export const GROUP_EXPANSION_MAX = 100;

type Span = [number, number];

/** The spans in order, overlapping and touching ones joined. */
export function mergeSpans(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Span[] = [];
  for (const [start, end] of sorted) {
    const last = out[out.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

/**
 * The events that may be busy in [min, max): near it by the time index, or every one without
 * it. The index is built in the calendar's zone, where free/busy places all-day dates too:
 * every start and end goes through time.ts's `instantOfEventTime` (`busySpans`, the index).
 */
function candidates(
  context: Context<unknown>,
  events: Record<string, EventRecord>,
  zone: string,
  min: number,
  max: number,
) {
  const { store } = context;
  if (!store.useIndexes) return Object.values(events);
  return store
    .timeIndex(events, zone)
    .candidates(min, max)
    .map((id) => own(events, id))
    .filter((record): record is EventRecord => record !== undefined);
}

function busyOf(context: Context<unknown>, calendar: CalendarRecord, min: number, max: number): Span[] {
  const zone = calendarZone(calendar);
  const events = context.store.state.calendar.events[calendar.id] ?? {};
  const spans: Span[] = [];
  for (const record of candidates(context, events, zone, min, max)) {
    for (const [start, end] of busySpans(events, record, zone, min, max)) {
      if (start < max && end > min && end > start) spans.push([Math.max(start, min), Math.min(end, max)]);
    }
  }
  return mergeSpans(spans);
}

/** An item's error, as the answer carries it (not a refusal: the query is answered). */
const itemError = (reason: string) => ({ domain: 'global', reason });

/** The calendar of an id the caller may see free/busy of, or undefined. */
function visible(context: Context<unknown>, id: string): CalendarRecord | undefined {
  try {
    return context.store.calendar(context.user, id, 'freeBusyReader');
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

/** Whether an id names a calendar, one the caller may see or not: such an id is never read as a group. */
const isCalendar = (context: Context<unknown>, id: string): boolean =>
  own(context.store.state.calendar.calendars, id === 'primary' ? context.user.email : id) !== undefined;

export const freebusyHandlers: CalendarHandlers = {
  'freebusy.query'(context) {
    const { body } = context.request;
    const min = Date.parse(body.timeMin);
    const max = Date.parse(body.timeMax);
    if (!(max > min))
      throw refuse(TIME_RANGE_EMPTY, 'The specified time range is empty.', { location: 'timeMax' });
    if (max - min > MAX_RANGE_MS)
      throw refuse(TIME_RANGE_TOO_LONG, 'The requested time range is too long.', { location: 'timeMax' });
    const zone = body.timeZone ?? 'UTC';
    if (!isTimeZone(zone))
      throw refuse(UNKNOWN_TIME_ZONE, `Invalid time zone: ${zone}`, { location: 'timeZone' });
    const calendarCap = body.calendarExpansionMax ?? CALENDAR_EXPANSION_MAX;
    const groupCap = body.groupExpansionMax ?? GROUP_EXPANSION_MAX;
    const calendars: JsonObject = {};
    const groups: JsonObject = {};
    let answered = 0;

    /** Answers one calendar id (once): its busy periods, or why there are none. */
    const answer = (id: string) => {
      if (own(calendars, id)) return;
      answered += 1;
      if (answered > calendarCap) {
        setOwn(calendars, id, { busy: [], errors: [itemError('tooManyCalendarsRequested')] });
        return;
      }
      const calendar = visible(context, id);
      setOwn(
        calendars,
        id,
        calendar
          ? {
              busy: busyOf(context, calendar, min, max).map(([start, end]) => ({
                start: formatInZone(start, zone),
                end: formatInZone(end, zone),
              })),
            }
          : { busy: [], errors: [itemError('notFound')] },
      );
    };

    for (const { id } of body.items) {
      // A calendar id is a calendar (seen or not); any other is a group when it has members.
      const members = isCalendar(context, id) ? undefined : membersOf(context.store, id);
      if (!members) answer(id);
      else if (members.length > groupCap)
        setOwn(groups, id, { calendars: [], errors: [itemError('groupTooBig')] });
      else {
        setOwn(groups, id, { calendars: members });
        for (const member of members) answer(member);
      }
    }
    return {
      body: {
        kind: 'calendar#freeBusy',
        timeMin: formatInZone(min, zone),
        timeMax: formatInZone(max, zone),
        ...(Object.keys(groups).length > 0 ? { groups } : {}),
        calendars,
      },
    };
  },
};
