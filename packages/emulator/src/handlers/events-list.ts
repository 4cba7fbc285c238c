/**
 * events.list: the filters of the query, the orders, paging and incremental sync. Recurring
 * events are listed as their one stored event (no expansion yet, see README).
 */
import { badRequest } from '../errors.js';
import { isObject, type JsonObject } from '../spec.js';
import type { EventRecord } from '../state.js';
import { fingerprint, paginate, readSyncToken, type SortKey } from '../tokens.js';
import { type Context, flag, type Handler, maxResults, strings, text } from './context.js';
import { instant } from './event-model.js';
import { refuseWithSync } from './sync.js';

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

/** `name=value` filters on extendedProperties.private or .shared. */
function matchesProperties(event: JsonObject, scope: 'private' | 'shared', filters: string[]): boolean {
  const extended = isObject(event.extendedProperties) ? event.extendedProperties[scope] : undefined;
  return filters.every((filter) => {
    const at = filter.indexOf('=');
    if (at < 1)
      throw badRequest(
        'invalid',
        `expected name=value, found ${JSON.stringify(filter)}`,
        `${scope}ExtendedProperty`,
      );
    return isObject(extended) && extended[filter.slice(0, at)] === filter.slice(at + 1);
  });
}

function filterEvents(context: Context, events: EventRecord[], syncing: boolean): EventRecord[] {
  const { query } = context.request;
  const timeMin = text(query, 'timeMin');
  const timeMax = text(query, 'timeMax');
  const min = timeMin ? Date.parse(timeMin) : undefined;
  const max = timeMax ? Date.parse(timeMax) : undefined;
  if (min !== undefined && max !== undefined && max <= min)
    throw badRequest('invalid', 'timeMax must be later than timeMin', 'timeMax');
  const updatedMin = text(query, 'updatedMin');
  const terms = (text(query, 'q') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const uid = text(query, 'iCalUID');
  const types = strings(query, 'eventTypes');
  const privateFilters = strings(query, 'privateExtendedProperty');
  const sharedFilters = strings(query, 'sharedExtendedProperty');
  return events.filter(({ resource: event }) => {
    if (event.status === 'cancelled' && !syncing && !flag(query, 'showDeleted')) return false;
    if (uid !== undefined && event.iCalUID !== uid) return false;
    if (types.length > 0 && !types.includes(String(event.eventType ?? 'default'))) return false;
    if (min !== undefined && (instant(event.end) ?? Number.POSITIVE_INFINITY) <= min) return false;
    if (max !== undefined && (instant(event.start) ?? Number.NEGATIVE_INFINITY) >= max) return false;
    if (updatedMin && Date.parse(String(event.updated)) < Date.parse(updatedMin)) return false;
    if (terms.length > 0) {
      const haystack = searchable(event);
      if (!terms.every((term) => haystack.includes(term))) return false;
    }
    return (
      matchesProperties(event, 'private', privateFilters) && matchesProperties(event, 'shared', sharedFilters)
    );
  });
}

export const eventsListHandler: Handler = (context) => {
  const { store, request, op } = context;
  const calendar = store.calendar(context.user, request.path.calendarId as string);
  const syncToken = text(request.query, 'syncToken');
  const scope = `events:${calendar.id}`;
  if (syncToken !== undefined) refuseWithSync(context);
  const since = syncToken !== undefined ? readSyncToken(store.state, syncToken, scope) : undefined;
  const orderBy = text(request.query, 'orderBy');
  if (orderBy === 'startTime' && !flag(request.query, 'singleEvents'))
    throw badRequest('invalid', 'orderBy=startTime needs singleEvents=true', 'orderBy');
  const keyOf = (event: EventRecord): SortKey =>
    orderBy === 'startTime'
      ? [instant(event.resource.start) ?? 0, event.seq]
      : orderBy === 'updated'
        ? [Date.parse(String(event.resource.updated)), event.seq]
        : [event.seq];
  const events = filterEvents(
    context,
    Object.values(store.state.events[calendar.id] ?? {}),
    since !== undefined,
  );
  const pageToken = text(request.query, 'pageToken');
  const page = paginate({
    state: store.state,
    scope,
    items: events,
    revisionOf: (event) => event.revision,
    keyOf,
    maxResults: maxResults(context),
    ...(pageToken !== undefined ? { pageToken } : {}),
    ...(since !== undefined ? { since } : {}),
    fingerprint: fingerprint(request.query, op.sync ? [op.sync.syncTokenParameter] : []),
  });
  const latest = Math.max(store.state.lastTime, 0);
  return {
    body: {
      kind: 'calendar#events',
      etag: `"${store.state.epoch}-${store.state.revision}"`,
      summary: String(calendar.resource.summary ?? calendar.id),
      updated: new Date(latest).toISOString(),
      timeZone: String(calendar.resource.timeZone ?? 'UTC'),
      accessRole: 'owner',
      defaultReminders: [],
      items: page.items.map((event) => event.resource),
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
      ...(page.nextSyncToken ? { nextSyncToken: page.nextSyncToken } : {}),
    },
  };
};
