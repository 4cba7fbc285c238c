/**
 * events.list and events.instances: the filters of the query, the orders, paging and
 * incremental sync. With singleEvents=true recurring events are expanded into their instances
 * (exceptions in place of the instances they change); without it a recurring event is listed
 * once, when one of its instances falls in the time window.
 */

import { maxResults } from '../../core/context.js';
import { alreadyDeleted, badRequest, notFound } from '../../core/errors.js';
import { storedItems } from '../../core/json.js';
import { own } from '../../core/own.js';
import { isObject, type JsonObject } from '../../core/spec.js';
import { isoTime } from '../../core/state.js';
import type { Context } from './context.js';
import { creationOrder, type EventOrderIndex } from './event-index.js';
import { calendarSummary, calendarZone, eventTypeOf, eventView, instant } from './event-model.js';
import type { CalendarContext, CalendarHandler } from './handler-types.js';
import type { EventRecord } from './records.js';
import { expand, isRecurring } from './recurrence.js';
import { refuseWithSync } from './sync.js';
import {
  compare,
  fingerprint,
  type InOrder,
  type Page,
  type PageRequest,
  paginate,
  paginateInOrder,
  readSyncToken,
  type SortKey,
} from './tokens.js';

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

/** The `name=value` filters of privateExtendedProperty or sharedExtendedProperty, checked. */
function propertyFilters(filters: string[] | undefined, scope: 'private' | 'shared'): [string, string][] {
  return (filters ?? []).map((filter) => {
    const at = filter.indexOf('=');
    if (at < 1)
      throw badRequest(
        'invalid',
        `expected name=value, found ${JSON.stringify(filter)}`,
        `${scope}ExtendedProperty`,
      );
    return [filter.slice(0, at), filter.slice(at + 1)];
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

/** The timeMin/timeMax window of a query, checked. */
function windowOf(context: Context<{ query: { timeMin?: string; timeMax?: string } }>): Window {
  const { timeMin, timeMax } = context.request.query;
  const min = timeMin ? Date.parse(timeMin) : undefined;
  const max = timeMax ? Date.parse(timeMax) : undefined;
  if (min !== undefined && max !== undefined && max <= min)
    throw badRequest('invalid', 'timeMax must be later than timeMin', 'timeMax');
  return { min, max };
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
      const keyed = group.map((record) => ({ record, key: creationOrder(record) }));
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
function eventFilter(
  context: CalendarContext<'events.list'>,
  syncing: boolean,
  zone: string,
  { min, max }: Window,
): (record: EventRecord) => boolean {
  const { query } = context.request;
  const { updatedMin, q, iCalUID: uid } = query;
  const terms = q ? q.toLowerCase().split(/\s+/).filter(Boolean) : [];
  const types: readonly string[] = query.eventTypes ?? [];
  const privateFilters = propertyFilters(query.privateExtendedProperty, 'private');
  const sharedFilters = propertyFilters(query.sharedExtendedProperty, 'shared');
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
      if (min !== undefined && (instant(event.end) ?? Number.POSITIVE_INFINITY) <= min) return false;
      if (max !== undefined && (instant(event.start) ?? Number.NEGATIVE_INFINITY) >= max) return false;
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

export const eventsListHandler: CalendarHandler<'events.list'> = (context) => {
  const { store, request, op } = context;
  const calendar = store.calendar(context.user, request.path.calendarId);
  const role = store.roleOf(context.user.email, calendar);
  const { syncToken, orderBy } = request.query;
  const scope = `events:${calendar.id}`;
  if (syncToken !== undefined) refuseWithSync(context);
  const since = syncToken !== undefined ? readSyncToken(store.state, syncToken, scope) : undefined;
  if (orderBy === 'startTime' && request.query.singleEvents !== true)
    throw badRequest('invalid', 'orderBy=startTime needs singleEvents=true', 'orderBy');
  // Instances share their recurring event's seq; their start and id keep keys unique.
  const keyOf = (event: EventRecord): SortKey =>
    orderBy === 'startTime'
      ? [instant(event.resource.start) ?? 0, event.seq, event.id]
      : orderBy === 'updated'
        ? [Date.parse(String(event.resource.updated)), event.seq, event.id]
        : creationOrder(event);
  const zone = calendarZone(calendar);
  const stored = store.state.events[calendar.id] ?? {};
  const window = windowOf(context);
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
    fingerprint: fingerprint(request.query, op.sync ? [op.sync.syncTokenParameter] : []),
  };
  let page: Page<EventRecord>;
  if (store.useIndexes && orderBy === undefined && min === undefined && max === undefined) {
    // The whole calendar in the default order (a full sync, say): read from the page's
    // position in the order index instead of sorting every event for every page.
    const index = store.orderIndex(stored);
    // The index has the key of every event it holds (instances are not in it); the last of
    // the page needs it.
    paging.keyOf = (event) => index.keyFor(event.id) ?? creationOrder(event);
    const each: InOrder<EventRecord> = singleEvents
      ? expandedInOrder(index, stored, zone)
      : (after, visit) => index.each(after, visit);
    page = paginateInOrder(paging, each, accepts);
  } else {
    // With a time window, only the events the time index places near it (a superset; the
    // filters decide), instead of every event of the calendar.
    let all =
      store.useIndexes && (min !== undefined || max !== undefined)
        ? store
            .timeIndex(stored)
            .candidates(min, max)
            .map((id) => own(stored, id))
            .filter((record): record is EventRecord => record !== undefined)
        : Object.values(stored);
    if (singleEvents) all = expandAll(all, stored, zone, min, max);
    paging.items = all.filter(accepts);
    page = paginate(paging);
  }
  const body: JsonObject = {
    kind: 'calendar#events',
    etag: `"${store.state.epoch}-${store.state.revision}"`,
    summary: calendarSummary(calendar),
    updated: isoTime(Math.max(store.state.lastTime, 0)),
    timeZone: zone,
    accessRole: role,
    defaultReminders: [],
    items: storedItems(page.items.map((event) => eventView(event.resource, role))),
  };
  if (page.nextPageToken) body.nextPageToken = page.nextPageToken;
  if (page.nextSyncToken) body.nextSyncToken = page.nextSyncToken;
  return { body };
};

/** events.instances: the instances of one recurring event, exceptions included, in time order. */
export const eventsInstancesHandler: CalendarHandler<'events.instances'> = (context) => {
  const { store, request } = context;
  const calendar = store.calendar(context.user, request.path.calendarId);
  const role = store.roleOf(context.user.email, calendar);
  const stored = store.state.events[calendar.id] ?? {};
  const parent = own(stored, request.path.eventId);
  if (!parent) throw notFound();
  if (parent.resource.status === 'cancelled') throw alreadyDeleted();
  if (!isRecurring(parent.resource))
    throw badRequest('invalid', `${parent.id} is not a recurring event; it has no instances`, 'eventId');
  const zone = calendarZone(calendar);
  const { min, max } = windowOf(context);
  const { originalStart, pageToken } = request.query;
  const showDeleted = request.query.showDeleted === true;
  const generated = expand(parent.resource, zone, min, max)
    .filter((one) => !own(stored, one.id))
    .map(
      (one): EventRecord => ({
        id: one.id,
        seq: parent.seq,
        revision: parent.revision,
        resource: one.resource,
      }),
    );
  const exceptions = Object.values(stored).filter((record) => {
    if (record.resource.recurringEventId !== parent.id) return false;
    if (record.resource.status === 'cancelled' && !showDeleted) return false;
    const start = instant(record.resource.start) ?? 0;
    const end = instant(record.resource.end) ?? start;
    return (min === undefined || end > min) && (max === undefined || start < max);
  });
  const items = [...generated, ...exceptions].filter(
    (record) =>
      originalStart === undefined || instant(record.resource.originalStartTime) === Date.parse(originalStart),
  );
  const page = paginate({
    state: store.state,
    scope: `instances:${calendar.id}:${parent.id}`,
    items,
    revisionOf: (record) => record.revision,
    keyOf: (record) => [instant(record.resource.originalStartTime) ?? 0, record.id],
    maxResults: maxResults(context),
    ...(pageToken !== undefined ? { pageToken } : {}),
    fingerprint: fingerprint(request.query, []),
  });
  return {
    body: {
      kind: 'calendar#events',
      etag: `"${store.state.epoch}-${store.state.revision}"`,
      summary: calendarSummary(calendar),
      updated: isoTime(Math.max(store.state.lastTime, 0)),
      timeZone: request.query.timeZone ?? zone,
      accessRole: role,
      defaultReminders: [],
      items: page.items.map((record) => eventView(record.resource, role)),
      // Instances have no incremental sync: no nextSyncToken on the last page.
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    },
  };
};
