/**
 * events.list and events.instances: the filters of the query, the orders, paging and
 * incremental sync. With singleEvents=true recurring events are expanded into their instances
 * (exceptions in place of the instances they change); without it a recurring event is listed
 * once, when one of its instances falls in the time window.
 */

import { maxResults } from '../../core/context.js';
import { refusal, refuse } from '../../core/errors.js';
import { storedItems } from '../../core/json.js';
import { own } from '../../core/own.js';
import { isObject, type JsonObject } from '../../core/spec.js';
import { isoTime } from '../../core/state.js';
import type { Context } from './context.js';
import { creationOrder, type EventOrderIndex } from './event-index.js';
import {
  calendarSummary,
  calendarZone,
  eventTypeOf,
  eventView,
  instantOf,
  shapeAnswer,
} from './event-model.js';
import { EVENT_NOT_FOUND } from './events.js';
import type { CalendarContext, CalendarHandler } from './handler-types.js';
import type { EventRecord } from './records.js';
import { expand, isRecurring } from './recurrence.js';
import { refuseWithSync } from './sync.js';
import { isTimeZone } from './time.js';
import {
  compare,
  type InOrder,
  type Page,
  type PageRequest,
  paginate,
  paginateInOrder,
  readSyncToken,
  type SortKey,
} from './tokens.js';

/** An events.list window that ends where it starts, or before. */
export const LIST_TIME_RANGE_EMPTY = refusal({
  id: 'calendar.listTimeRangeEmpty',
  scope: 'calendar',
  operations: ['events.list'],
  status: 400,
  reason: 'timeRangeEmpty',
  domain: 'calendar',
  location: 'timeMax',
  when: '`timeMax` is not later than `timeMin`',
  evidence: ['fact:conventions:guides/errors/examples/timeRangeEmpty', 'decision:0055'],
});

/** orderBy=startTime of a list that is not of single events. */
export const ORDERING_NOT_AVAILABLE = refusal({
  id: 'calendar.orderingNotAvailable',
  scope: 'calendar',
  operations: ['events.list'],
  status: 400,
  reason: 'invalid',
  location: 'orderBy',
  when: '`orderBy=startTime` without `singleEvents=true`',
  evidence: ['decision:0055'],
});

/** Every text of an event that `q` searches, in lower case. */
function searchable(event: JsonObject): string {
  const parts: unknown[] = [event.summary, event.description, event.location];
  for (const person of [event.organizer, ...(Array.isArray(event.attendees) ? event.attendees : [])]) {
    if (isObject(person)) parts.push(person.email, person.displayName);
  }
  const working = event.workingLocationProperties;
  if (isObject(working)) parts.push(JSON.stringify(working));
  return parts
    .filter((part) => typeof part === 'string')
    .join(' ')
    .toLowerCase();
}

/**
 * The `name=value` filters of privateExtendedProperty or sharedExtendedProperty: the name is
 * what comes before the first `=`, the value the rest. A filter without `=` is a name with an
 * empty value (the service states no refusal for one; decision 0055).
 */
function propertyFilters(filters: string[] | undefined): [string, string][] {
  return (filters ?? []).map((filter) => {
    const at = filter.indexOf('=');
    return at < 0 ? [filter, ''] : [filter.slice(0, at), filter.slice(at + 1)];
  });
}

/** Whether an event's extendedProperties.private or .shared has every name=value of the filters. */
function matchesProperties(
  event: JsonObject,
  scope: 'private' | 'shared',
  filters: [string, string][],
): boolean {
  if (filters.length === 0) return true;
  const extended = isObject(event.extendedProperties) ? event.extendedProperties[scope] : undefined;
  return isObject(extended) && filters.every(([name, value]) => extended[name] === value);
}

interface Window {
  min: number | undefined;
  max: number | undefined;
}

/** The timeMin/timeMax window of a query (instants: the parameters carry their offset). */
function windowOf(context: Context<{ query: { timeMin?: string; timeMax?: string } }>): Window {
  const { timeMin, timeMax } = context.request.query;
  return { min: timeMin ? Date.parse(timeMin) : undefined, max: timeMax ? Date.parse(timeMax) : undefined };
}

/** A window that holds no instant: timeMax not after timeMin. */
const emptyWindow = ({ min, max }: Window): boolean => min !== undefined && max !== undefined && max <= min;

/**
 * The zone a list or read answers in: the request's `timeZone` when it is a zone, else the
 * calendar's. All-day dates are placed in it for the time filters too (decision 0055). An
 * unknown zone is ignored: the service's answer to one could not be established.
 */
export function answerZone(requested: string | undefined, calendarZone: string): string {
  return requested !== undefined && isTimeZone(requested) ? requested : calendarZone;
}

/** The instances of the recurring events among `events` (not cancelled) in the window, exceptions left to their own records. */
function expandAll(
  events: EventRecord[],
  stored: Record<string, EventRecord>,
  zone: string,
  min?: number,
  max?: number,
): EventRecord[] {
  const out: EventRecord[] = [];
  for (const record of events) {
    if (!isRecurring(record.resource) || record.resource.status === 'cancelled') {
      out.push(record);
      continue;
    }
    for (const one of expand(record.resource, zone, min, max))
      if (!own(stored, one.id))
        out.push({ id: one.id, seq: record.seq, revision: record.revision, resource: one.resource });
  }
  return out;
}

/**
 * The events of a calendar with recurring events expanded (singleEvents), in the default
 * order, from the order index: instances share their recurring event's seq, the first part of
 * the order's key, so the events of one seq are expanded and sorted together, and a page
 * expands only the recurring events it reaches instead of every one of the calendar.
 */
function expandedInOrder(
  index: EventOrderIndex,
  stored: Record<string, EventRecord>,
  zone: string,
): InOrder<EventRecord> {
  return (after, visit) => {
    let group: EventRecord[] = [];
    let seq: number | undefined;
    /** Visits the group's events after the cursor in order; false once `visit` says stop. */
    const visitGroup = (): boolean => {
      const keyed = group.map((record) => ({ record, key: creationOrder(record, index.zone) }));
      keyed.sort((a, b) => compare(a.key, b.key));
      for (const { record, key } of keyed) {
        if (after && compare(key, after) <= 0) continue;
        if (!visit(record)) return false;
      }
      return true;
    };
    let going = true;
    // From the start of the cursor's seq: its other instances may still follow it.
    index.each(after ? [after[0] as number] : undefined, (record) => {
      if (record.seq !== seq) {
        going = visitGroup();
        if (!going) return false;
        group = [];
        seq = record.seq;
      }
      for (const one of expandAll([record], stored, zone)) group.push(one);
      return true;
    });
    if (going) visitGroup();
  };
}

/** Whether an event matches the query's filters (all but paging and sync). */
export function eventFilter(
  context: CalendarContext<'events.list'>,
  syncing: boolean,
  zone: string,
  { min, max }: Window,
): (record: EventRecord) => boolean {
  const { query } = context.request;
  const { updatedMin, q, iCalUID: uid } = query;
  const terms = q ? q.toLowerCase().split(/\s+/).filter(Boolean) : [];
  const types: readonly string[] = query.eventTypes ?? [];
  const privateFilters = propertyFilters(query.privateExtendedProperty);
  const sharedFilters = propertyFilters(query.sharedExtendedProperty);
  const hideDeleted = !syncing && query.showDeleted !== true;
  const updatedAfter = updatedMin ? Date.parse(updatedMin) : undefined;
  return ({ resource: event }) => {
    if (hideDeleted && event.status === 'cancelled') return false;
    if (uid !== undefined && event.iCalUID !== uid) return false;
    if (types.length > 0 && !types.includes(eventTypeOf(event))) return false;
    if (isRecurring(event) && (min !== undefined || max !== undefined)) {
      // A recurring event (not expanded) is listed when one of its instances is in the window.
      if (expand(event, zone, min, max).length === 0) return false;
    } else {
      if (min !== undefined && (instantOf(event.end, zone) ?? Number.POSITIVE_INFINITY) <= min) return false;
      if (max !== undefined && (instantOf(event.start, zone) ?? Number.NEGATIVE_INFINITY) >= max)
        return false;
    }
    if (updatedAfter !== undefined && Date.parse(String(event.updated)) < updatedAfter) return false;
    if (terms.length > 0) {
      const haystack = searchable(event);
      if (!terms.every((term) => haystack.includes(term))) return false;
    }
    return (
      matchesProperties(event, 'private', privateFilters) && matchesProperties(event, 'shared', sharedFilters)
    );
  };
}

/** Two zones' clocks differ by 26 hours at most (Kiritimati and Baker Island); a window widened by this takes in any day. */
const ZONE_SLACK = 2 * 86_400_000;

export const eventsListHandler: CalendarHandler<'events.list'> = (context) => {
  const { store, request } = context;
  const calendar = store.calendar(context.user, request.path.calendarId);
  const role = store.roleOf(context.user.email, calendar);
  const { syncToken, orderBy, maxAttendees, timeZone } = request.query;
  const scope = `events:${calendar.id}`;
  if (syncToken !== undefined) refuseWithSync(context);
  const since = syncToken !== undefined ? readSyncToken(store.state, syncToken, scope) : undefined;
  if (orderBy === 'startTime' && request.query.singleEvents !== true)
    throw refuse(
      ORDERING_NOT_AVAILABLE,
      'The requested ordering is not available for the particular query.',
      {
        location: 'orderBy',
      },
    );
  const window = windowOf(context);
  if (emptyWindow(window))
    throw refuse(LIST_TIME_RANGE_EMPTY, 'The specified time range is empty.', { location: 'timeMax' });
  // The calendar's zone orders the events (the indexes are built in it); the answer's zone
  // places all-day dates for the window and writes the answer's times.
  const ownZone = calendarZone(calendar);
  const zone = answerZone(timeZone, ownZone);
  // Instances share their recurring event's seq; their start and id keep keys unique.
  const keyOf = (event: EventRecord): SortKey =>
    orderBy === 'startTime'
      ? [instantOf(event.resource.start, zone) ?? 0, event.seq, event.id]
      : orderBy === 'updated'
        ? [Date.parse(String(event.resource.updated)), event.seq, event.id]
        : creationOrder(event, ownZone);
  const stored = store.state.calendar.events[calendar.id] ?? {};
  const { min, max } = window;
  const singleEvents = request.query.singleEvents === true;
  const accepts = eventFilter(context, since !== undefined, zone, window);
  // One object, changed rather than spread per branch: a spread of it cost more than the page.
  const paging: PageRequest<EventRecord> = {
    items: [],
    state: store.state,
    scope,
    revisionOf: (event: EventRecord) => event.revision,
    keyOf,
    maxResults: maxResults(context),
    pageToken: request.query.pageToken,
    since,
  };
  let page: Page<EventRecord>;
  if (store.useIndexes && orderBy === undefined && min === undefined && max === undefined) {
    // The whole calendar in the default order (a full sync, say): read from the page's
    // position in the order index instead of sorting every event for every page.
    const index = store.orderIndex(stored, ownZone);
    // The index has the key of every event it holds (instances are not in it); the last of
    // the page needs it.
    paging.keyOf = (event) => index.keyFor(event.id) ?? creationOrder(event, ownZone);
    const each: InOrder<EventRecord> = singleEvents
      ? expandedInOrder(index, stored, zone)
      : (after, visit) => index.each(after, visit);
    page = paginateInOrder(paging, each, accepts);
  } else {
    // With a time window, only the events the time index places near it (a superset; the
    // filters decide), instead of every event of the calendar. The index places all-day
    // dates in the calendar's zone: for an answer in another zone the window is widened.
    const slack = zone === ownZone ? 0 : ZONE_SLACK;
    let all =
      store.useIndexes && (min !== undefined || max !== undefined)
        ? store
            .timeIndex(stored, ownZone)
            .candidates(
              min === undefined ? undefined : min - slack,
              max === undefined ? undefined : max + slack,
            )
            .map((id) => own(stored, id))
            .filter((record): record is EventRecord => record !== undefined)
        : Object.values(stored);
    if (singleEvents) all = expandAll(all, stored, zone, min, max);
    paging.items = all.filter(accepts);
    page = paginate(paging);
  }
  const shape = {
    caller: context.user.email,
    ...(maxAttendees !== undefined ? { maxAttendees } : {}),
    ...(zone !== ownZone || (timeZone !== undefined && isTimeZone(timeZone)) ? { zone } : {}),
  };
  const body: JsonObject = {
    kind: 'calendar#events',
    etag: `"${store.state.epoch}-${store.state.revision}"`,
    summary: calendarSummary(calendar),
    updated: isoTime(Math.max(store.state.lastTime, 0)),
    timeZone: zone,
    accessRole: role,
    defaultReminders: [],
    items: storedItems(page.items.map((event) => shapeAnswer(eventView(event.resource, role), shape))),
  };
  if (page.nextPageToken) body.nextPageToken = page.nextPageToken;
  if (page.nextSyncToken) body.nextSyncToken = page.nextSyncToken;
  return { body };
};

/** Whether an instance's original start is the one `originalStart` names (a date for all-day instances). */
function startsAt(record: EventRecord, originalStart: string, zone: string): boolean {
  const original = record.resource.originalStartTime;
  if (!isObject(original)) return false;
  if (/^\d{4}-\d{2}-\d{2}$/.test(originalStart)) return original.date === originalStart;
  return instantOf(original, zone) === instantOf({ dateTime: originalStart }, zone);
}

/**
 * events.instances: the instances of one recurring event, exceptions included, in time order.
 * A single event, or a deleted recurring event, has none: the answer is an empty list (the
 * service's answer for them could not be established; decision 0055); so has a window that
 * ends where it starts.
 */
export const eventsInstancesHandler: CalendarHandler<'events.instances'> = (context) => {
  const { store, request } = context;
  const calendar = store.calendar(context.user, request.path.calendarId);
  const role = store.roleOf(context.user.email, calendar);
  const stored = store.state.calendar.events[calendar.id] ?? {};
  const parent = own(stored, request.path.eventId);
  if (!parent) throw refuse(EVENT_NOT_FOUND, 'Not Found');
  const { originalStart, pageToken, maxAttendees, timeZone } = request.query;
  const ownZone = calendarZone(calendar);
  const zone = answerZone(timeZone, ownZone);
  const window = windowOf(context);
  const { min, max } = window;
  const live = parent.resource.status !== 'cancelled' && isRecurring(parent.resource) && !emptyWindow(window);
  const showDeleted = request.query.showDeleted === true;
  const generated = live
    ? expand(parent.resource, zone, min, max)
        .filter((one) => !own(stored, one.id))
        .map(
          (one): EventRecord => ({
            id: one.id,
            seq: parent.seq,
            revision: parent.revision,
            resource: one.resource,
          }),
        )
    : [];
  const exceptions = live
    ? Object.values(stored).filter((record) => {
        if (record.resource.recurringEventId !== parent.id) return false;
        if (record.resource.status === 'cancelled' && !showDeleted) return false;
        const start = instantOf(record.resource.start, zone) ?? 0;
        const end = instantOf(record.resource.end, zone) ?? start;
        return (min === undefined || end > min) && (max === undefined || start < max);
      })
    : [];
  const items = [...generated, ...exceptions].filter(
    (record) => originalStart === undefined || startsAt(record, originalStart, zone),
  );
  const page = paginate({
    state: store.state,
    scope: `instances:${calendar.id}:${parent.id}`,
    items,
    revisionOf: (record) => record.revision,
    keyOf: (record) => [instantOf(record.resource.originalStartTime, zone) ?? 0, record.id],
    maxResults: maxResults(context),
    ...(pageToken !== undefined ? { pageToken } : {}),
  });
  const shape = {
    caller: context.user.email,
    ...(maxAttendees !== undefined ? { maxAttendees } : {}),
    ...(timeZone !== undefined && isTimeZone(timeZone) ? { zone } : {}),
  };
  return {
    body: {
      kind: 'calendar#events',
      etag: `"${store.state.epoch}-${store.state.revision}"`,
      summary: calendarSummary(calendar),
      updated: isoTime(Math.max(store.state.lastTime, 0)),
      timeZone: zone,
      accessRole: role,
      defaultReminders: [],
      items: page.items.map((record) => shapeAnswer(eventView(record.resource, role), shape)),
      // Instances have no incremental sync: no nextSyncToken on the last page.
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    },
  };
};
