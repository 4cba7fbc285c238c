/**
 * freebusy.query: when each requested calendar is busy between timeMin and timeMax, computed
 * from its events. Cancelled and transparent events do not count; all-day events are busy
 * from midnight to midnight in the calendar's time zone; the answer's times are in the
 * request's `timeZone`. A calendar the caller cannot see (at least as freeBusyReader) gets an
 * `errors` entry instead of failing the request.
 */

import { ApiError, badRequest } from '../../core/errors.js';
import { own, setOwn } from '../../core/own.js';
import type { JsonObject } from '../../core/spec.js';
import type { Context } from './context.js';
import { calendarZone } from './event-model.js';
import type { CalendarHandlers } from './handler-types.js';
import type { CalendarRecord, EventRecord } from './records.js';
import { busySpans } from './recurrence.js';
import { formatInZone, isTimeZone } from './time.js';

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

const DAY = 24 * 60 * 60 * 1000;

/** The events that may be busy in [min, max): near it by the time index, or every one without it. */
function candidates(
  context: Context<unknown>,
  events: Record<string, EventRecord>,
  min: number,
  max: number,
) {
  const { store } = context;
  if (!store.useIndexes) return Object.values(events);
  // The index places an all-day date at midnight UTC, and here it is busy from midnight in the
  // calendar's zone (up to 14 hours away): a day more on each side takes those in too.
  return store
    .timeIndex(events)
    .candidates(min - DAY, max + DAY)
    .map((id) => own(events, id))
    .filter((record): record is EventRecord => record !== undefined);
}

function busyOf(context: Context<unknown>, calendar: CalendarRecord, min: number, max: number): Span[] {
  const zone = calendarZone(calendar);
  const events = context.store.state.events[calendar.id] ?? {};
  const spans: Span[] = [];
  for (const record of candidates(context, events, min, max)) {
    for (const [start, end] of busySpans(events, record, zone, min, max)) {
      if (start < max && end > min && end > start) spans.push([Math.max(start, min), Math.min(end, max)]);
    }
  }
  return mergeSpans(spans);
}

export const freebusyHandlers: CalendarHandlers = {
  'freebusy.query'(context) {
    const { body } = context.request;
    const min = Date.parse(body.timeMin);
    const max = Date.parse(body.timeMax);
    if (!(max > min))
      throw new ApiError(400, [
        {
          domain: 'calendar',
          reason: 'timeRangeEmpty',
          message: 'The specified time range is empty.',
          location: 'timeMax',
          locationType: 'parameter',
        },
      ]);
    const zone = body.timeZone ?? 'UTC';
    if (!isTimeZone(zone)) throw badRequest('invalid', `Invalid time zone: ${zone}`, 'timeZone');
    const cap = body.calendarExpansionMax ?? 50;
    const calendars: JsonObject = {};
    body.items.forEach(({ id }, index) => {
      if (index >= cap) {
        setOwn(calendars, id, {
          busy: [],
          errors: [{ domain: 'global', reason: 'tooManyCalendarsRequested' }],
        });
        return;
      }
      let calendar: CalendarRecord;
      try {
        calendar = context.store.calendar(context.user, id, 'freeBusyReader');
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        setOwn(calendars, id, { busy: [], errors: [{ domain: 'global', reason: 'notFound' }] });
        return;
      }
      setOwn(calendars, id, {
        busy: busyOf(context, calendar, min, max).map(([start, end]) => ({
          start: formatInZone(start, zone),
          end: formatInZone(end, zone),
        })),
      });
    });
    return {
      body: {
        kind: 'calendar#freeBusy',
        timeMin: formatInZone(min, zone),
        timeMax: formatInZone(max, zone),
        calendars,
      },
    };
  },
};
