/**
 * The watch operations and channels.stop. A watch opens a channel (see notifier.ts) on the
 * collection the matching list operation reads: a calendar's events (events.watch, needs to
 * see the calendar) or sharing rules (acl.watch, needs owner access), the user's calendar list
 * or settings. The answer is Google's: the channel's id and token, the granted expiration, and
 * the watched collection's `resourceId` and `resourceUri`.
 *
 * A watch takes the query parameters of its list, and a channel is told only of the changes
 * that list would show (decision 0056): an event or list entry that its list shows after the
 * change, or showed before it (its disappearance is a change of the list). Each filtered
 * channel keeps, as the data of its filter, the parameters, the ids its list shows and the
 * revision it has looked at; after each request that changed its collection, the records
 * written since that revision are read against the list's own filter (events-list.ts's
 * `eventFilter`, calendar-list.ts's `entryFilter`). The list parameters that filter nothing
 * (paging, order, sync, the time zone of the answer) are not kept. Sharing rules and settings
 * have no parameter that hides a change (a deleted rule is the disappearance of a shown one),
 * so their channels are told every change.
 *
 * Refusals, each with the evidence that the live service makes it (decision 0056): an address
 * that is not a URL, or not an HTTPS one (plain HTTP is taken here, for receivers on the local
 * machine); an address the emulator's delivery policy will not deliver to (decision 0053); a
 * channel id already open; the emulator's cap on the channels one user may have open (decision
 * 0053); and channels.stop of a channel that is not open. A `params.ttl` that is not a number
 * of seconds is not read (the default lifetime applies), and an `expiration` already past is
 * granted as asked: the channel is over before it starts and sends nothing.
 */

import { refusal, refuse } from '../../core/errors.js';
import type { ChannelFilter, ChannelPredicate } from '../../core/notifier.js';
import { own } from '../../core/own.js';
import { isObject, type JsonObject } from '../../core/spec.js';
import { entryFilter, type ListQuery } from './calendar-list.js';
import type { Context, Handler } from './context.js';
import { calendarZone } from './event-model.js';
import { eventFilter } from './events-list.js';
import type { ChannelInput } from './generated/types.js';
import type { CalendarContext, CalendarHandlers, OnCalendar, RequestOf } from './handler-types.js';
import type { CalendarRecord, EventRecord, ListEntryRecord } from './records.js';
import type { Store } from './store.js';

const WATCHES = ['events.watch', 'acl.watch', 'calendarList.watch', 'settings.watch'];

/** An address that does not parse as a URL. */
export const ADDRESS_NOT_URL = refusal({
  id: 'calendar.watchAddressNotUrl',
  scope: 'calendar',
  operations: WATCHES,
  status: 400,
  reason: 'push.webhookUrlNoHostOrAddress',
  location: 'address',
  when: 'the channel’s `address` is not a URL',
  evidence: ['decision:0056'],
});

/** An address of a scheme no receiver is reached by. */
export const ADDRESS_NOT_HTTPS = refusal({
  id: 'calendar.watchAddressNotHttps',
  scope: 'calendar',
  operations: WATCHES,
  status: 400,
  reason: 'push.webhookUrlNotHttps',
  location: 'address',
  when: 'the channel’s `address` is a URL of another scheme than `https` (or `http`, which the emulator takes for receivers on the local machine)',
  evidence: ['decision:0056'],
});

/** An address the delivery policy will not deliver to (decision 0053). */
export const ADDRESS_UNAUTHORIZED = refusal({
  id: 'calendar.watchAddressUnauthorized',
  scope: 'calendar',
  operations: WATCHES,
  status: 400,
  reason: 'push.webhookUrlUnauthorized',
  location: 'address',
  when: 'the emulator’s delivery policy will not deliver to the `address` (link-local, metadata service, outside `--notify-allow` in a shared sandbox)',
  evidence: ['decision:0053', 'decision:0056'],
});

/** A channel id that an open channel has. */
export const CHANNEL_ID_TAKEN = refusal({
  id: 'calendar.channelIdNotUnique',
  scope: 'calendar',
  operations: WATCHES,
  status: 400,
  reason: 'channelIdNotUnique',
  domain: 'push',
  location: 'id',
  when: 'a channel with the body’s `id` is open',
  evidence: ['decision:0056'],
});

/** The emulator's own cap on the channels one user may have open (decision 0053). */
export const CHANNEL_CAP = refusal({
  id: 'calendar.watchChannelCap',
  scope: 'calendar',
  operations: WATCHES,
  status: 403,
  reason: 'quotaExceeded',
  domain: 'usageLimits',
  when: 'the user has as many channels open as `--notify-max-channels` lets one user open (100 unless set)',
  evidence: ['decision:0053', 'fact:conventions:errors/reasons/quotaExceeded'],
});

/** channels.stop of a channel the caller does not have open. */
export const CHANNEL_NOT_FOUND = refusal({
  id: 'calendar.channelNotFound',
  scope: 'calendar',
  operations: ['channels.stop'],
  status: 404,
  reason: 'notFound',
  when: 'no channel of the caller is open with the body’s `id` and `resourceId`',
  evidence: ['fact:conventions:errors/reasons/notFound', 'decision:0056'],
});

/** The body of a watch: a channel with its id and address. */
type WatchBody = ChannelInput & { id: string; address: string };

/** The lifetime of a channel that asks for none, and the longest granted. */
export const DEFAULT_CHANNEL_TTL_MS = 7 * 24 * 3600 * 1000;
export const MAX_CHANNEL_TTL_MS = 30 * 24 * 3600 * 1000;

function expirationOf(body: ChannelInput): number {
  const now = Date.now();
  let requested = now + DEFAULT_CHANNEL_TTL_MS;
  const ttl = body.params?.ttl;
  const asked = body.expiration !== undefined ? Number(body.expiration) : Number.NaN;
  if (Number.isFinite(asked)) requested = asked;
  else if (ttl !== undefined && /^\d+$/.test(ttl)) requested = now + Number(ttl) * 1000;
  return Math.min(requested, now + MAX_CHANNEL_TTL_MS);
}

function addressOf(context: Context<{ body: WatchBody }>): string {
  const { address } = context.request.body;
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw refuse(ADDRESS_NOT_URL, `The channel's address is not a URL: ${address}`, { location: 'address' });
  }
  // Google takes only HTTPS; locally plain HTTP is taken too, for receivers on this machine.
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw refuse(ADDRESS_NOT_HTTPS, `WebHook callback must be HTTPS: ${address}`, { location: 'address' });
  const refused = context.notifier.refusal(url.href);
  if (refused)
    throw refuse(ADDRESS_UNAUTHORIZED, `Unauthorized WebHook callback channel: ${address}: ${refused}`, {
      location: 'address',
    });
  return url.href;
}

/** Refuses a channel its user has no room for (the emulator's cap; Google publishes none). */
function checkRoom(context: Context<{ body: WatchBody }>): void {
  const { notifier, user } = context;
  const cap = notifier.limits.channelsPerUser;
  const open = notifier.openOf(user.email);
  if (open < cap) return;
  throw refuse(
    CHANNEL_CAP,
    `${user.email} has ${open} watch channels open, the most the emulator lets one user open (${cap}); stop one with channels.stop or let it expire, or raise the cap with --notify-max-channels N (createEmulator({ notifications: { maxChannelsPerUser } }))`,
  );
}

function watch(
  context: Context<{ body: WatchBody }>,
  key: string,
  path: string,
  filter?: () => ChannelFilter | undefined,
): JsonObject {
  const { body } = context.request;
  const { id } = body;
  if (context.notifier.active(id))
    throw refuse(CHANNEL_ID_TAKEN, `Channel id ${id} not unique`, { location: 'id' });
  const address = addressOf(context);
  checkRoom(context);
  const made = filter?.();
  const channel = context.notifier.open({
    id,
    address,
    ...(body.token !== undefined ? { token: body.token } : {}),
    expiration: expirationOf(body),
    key,
    resourceUri: `${context.origin}${context.spec.basePath}${path}?alt=json`,
    owner: context.user.email,
    ...(made ? { filter: made } : {}),
  });
  return {
    kind: 'api#channel',
    id: channel.id,
    resourceId: channel.resourceId,
    resourceUri: channel.resourceUri,
    ...(channel.token !== undefined ? { token: channel.token } : {}),
    expiration: String(channel.expiration),
  };
}

// ---------------------------------------------------------------------------------------
// The filters of the channels: what each channel's list shows, and what it has looked at

const EVENTS_KIND = 'calendar.events';
const LIST_KIND = 'calendar.calendarList';

type EventsQuery = RequestOf<'events.list'>['query'];
type EventType = NonNullable<EventsQuery['eventTypes']>[number];
const EVENT_TYPES: readonly EventType[] = [
  'birthday',
  'default',
  'focusTime',
  'fromGmail',
  'outOfOffice',
  'workingLocation',
];
const isEventType = (value: unknown): value is EventType => EVENT_TYPES.some((type) => type === value);

/** The parameters of events.list that leave changes out; a watch with none of them is told every change. */
const EVENT_FILTERS = [
  'eventTypes',
  'iCalUID',
  'q',
  'privateExtendedProperty',
  'sharedExtendedProperty',
  'timeMin',
  'timeMax',
  'updatedMin',
] as const;

/** What a filtered channel keeps: its list's parameters, the ids the list shows, the revision looked at. */
interface View<Query> {
  /** The calendar (events) or the user (calendar list) whose collection is watched. */
  of: string;
  query: Query;
  shown: string[];
  seen: number;
}

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const flag = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined);

/** The filtering parameters of an events.list query (those given), as kept with a channel. */
function eventsQuery(from: Record<string, unknown>): EventsQuery {
  const out: EventsQuery = {};
  const types = strings(from.eventTypes)?.filter(isEventType);
  if (types) out.eventTypes = types;
  for (const name of ['iCalUID', 'q', 'timeMin', 'timeMax', 'updatedMin'] as const) {
    const value = text(from[name]);
    if (value !== undefined) out[name] = value;
  }
  for (const name of ['privateExtendedProperty', 'sharedExtendedProperty'] as const) {
    const value = strings(from[name]);
    if (value) out[name] = value;
  }
  for (const name of ['showDeleted', 'singleEvents'] as const) {
    const value = flag(from[name]);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** The filtering parameters of a calendarList.list query (those given), as kept with a channel. */
function listQuery(from: Record<string, unknown>): ListQuery {
  const out: ListQuery = {};
  const role = text(from.minAccessRole);
  if (role !== undefined) out.minAccessRole = role;
  for (const name of ['showDeleted', 'showHidden'] as const) {
    const value = flag(from[name]);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** A view kept as a filter's data, read back (undefined when it is not one). */
function viewOf<Query>(
  data: unknown,
  query: (from: Record<string, unknown>) => Query,
): View<Query> | undefined {
  if (!isObject(data) || typeof data.of !== 'string' || typeof data.seen !== 'number') return undefined;
  const shown = strings(data.shown);
  if (!shown) return undefined;
  return { of: data.of, query: query(isObject(data.query) ? data.query : {}), shown, seen: data.seen };
}

/** A context of no particular request: what a filter is evaluated with, after the request that opened it. */
type Template = Context<unknown>;

/** The list's own filter of events.list for a query on a calendar (its refusals, for a malformed filter, included). */
function eventsShown(template: Template, calendar: CalendarRecord, query: EventsQuery) {
  const min = query.timeMin !== undefined ? Date.parse(query.timeMin) : undefined;
  const max = query.timeMax !== undefined ? Date.parse(query.timeMax) : undefined;
  const list: CalendarContext<'events.list'> = {
    ...template,
    request: { path: { calendarId: calendar.id }, query, headers: {}, body: undefined },
  };
  return eventFilter(list, false, calendarZone(calendar), { min, max });
}

/**
 * Reads the records of a collection written since the view's revision against its list's
 * filter: whether any is shown now or was shown before (a change the list shows). The view
 * moves on to the state's revision. `parentOf` names a record that belongs to another one (an
 * exception of a recurring event): a change of it is a change of that one's instances.
 */
function looked<Item>(
  store: Store,
  view: View<unknown>,
  records: Iterable<Item>,
  idOf: (record: Item) => string,
  revisionOf: (record: Item) => number,
  shows: (record: Item) => boolean,
  parentOf: (record: Item) => string | undefined = () => undefined,
): { told: boolean; shown: string[]; seen: number } {
  const shown = new Set(view.shown);
  let told = false;
  for (const record of records) {
    if (revisionOf(record) <= view.seen) continue;
    const id = idOf(record);
    const parent = parentOf(record);
    const now = shows(record);
    if (now || shown.has(id) || (parent !== undefined && shown.has(parent))) told = true;
    if (now) shown.add(id);
    else shown.delete(id);
  }
  return { told, shown: [...shown], seen: store.state.revision };
}

const parentOf = (record: EventRecord): string | undefined => text(record.resource.recurringEventId);

/** The predicate of the filters of events channels, on the emulator of `template`. */
function eventsPredicate(template: Template): ChannelPredicate {
  const { store } = template;
  return (filter) => {
    const view = viewOf(filter.data, eventsQuery);
    const calendar = view && own(store.state.calendar.calendars, view.of);
    if (!view || !calendar) return true;
    const shows = eventsShown(template, calendar, view.query);
    const events = Object.values(store.state.calendar.events[calendar.id] ?? {});
    const { told, shown, seen } = looked(
      store,
      view,
      events,
      (record) => record.id,
      (record) => record.revision,
      shows,
      parentOf,
    );
    filter.data = { ...view, shown, seen };
    return told;
  };
}

/** The predicate of the filters of calendar-list channels, on the emulator of `template`. */
function listPredicate(template: Template): ChannelPredicate {
  const { store } = template;
  return (filter) => {
    const view = viewOf(filter.data, listQuery);
    if (!view) return true;
    const entries: ListEntryRecord[] = Object.values(store.state.calendar.calendarList[view.of] ?? {});
    const { told, shown, seen } = looked(
      store,
      view,
      entries,
      (entry) => entry.calendarId,
      (entry) => store.entryRevision(entry),
      entryFilter(store, view.of, view.query),
    );
    filter.data = { ...view, shown, seen };
    return told;
  };
}

/**
 * Gives the emulator's notifier the predicates of Calendar's channel filters, once. Every
 * Calendar request does (`withChannelFilters`): a process of a shared store tells channels
 * other processes opened, and has them from the first Calendar request it serves.
 */
export function channelFilters(context: Template): void {
  const { notifier } = context;
  if (notifier.filters(EVENTS_KIND)) return;
  const template: Template = { ...context, request: undefined };
  notifier.filterWith(EVENTS_KIND, eventsPredicate(template));
  notifier.filterWith(LIST_KIND, listPredicate(template));
}

/** The handlers, each first making sure the notifier has Calendar's channel filters. */
export function withChannelFilters(handlers: Readonly<Record<string, Handler>>): Record<string, Handler> {
  return Object.fromEntries(
    Object.entries(handlers).map(([id, handler]): [string, Handler] => [
      id,
      (context) => {
        channelFilters(context);
        return handler(context);
      },
    ]),
  );
}

/** The filter of an events channel: none when the watch names no parameter that leaves a change out. */
function eventsFilter(
  context: CalendarContext<'events.watch'>,
  calendar: CalendarRecord,
): ChannelFilter | undefined {
  const { query } = context.request;
  if (!EVENT_FILTERS.some((name) => query[name] !== undefined)) return undefined;
  const kept = eventsQuery(query);
  // Built now, so that a filter the list refuses (a property filter without `=`) is refused here too.
  const shows = eventsShown({ ...context, request: undefined }, calendar, kept);
  const { store } = context;
  const shown = Object.values(store.state.calendar.events[calendar.id] ?? {})
    .filter(shows)
    .map((record) => record.id);
  const view: View<EventsQuery> = { of: calendar.id, query: kept, shown, seen: store.state.revision };
  return { kind: EVENTS_KIND, data: view };
}

/** The filter of a calendar-list channel: its list hides hidden and deleted entries unless asked, and weaker roles. */
function listFilter(context: CalendarContext<'calendarList.watch'>): ChannelFilter {
  const { store, user } = context;
  const kept = listQuery(context.request.query);
  const shows = entryFilter(store, user.email, kept);
  const shown = Object.values(store.state.calendar.calendarList[user.email] ?? {})
    .filter(shows)
    .map((entry) => entry.calendarId);
  const view: View<ListQuery> = { of: user.email, query: kept, shown, seen: store.state.revision };
  return { kind: LIST_KIND, data: view };
}

const calendarPath = (context: OnCalendar) =>
  `/calendars/${encodeURIComponent(context.request.path.calendarId)}`;

export const watchHandlers: CalendarHandlers = {
  'events.watch'(context) {
    const calendar = context.store.calendar(context.user, context.request.path.calendarId, 'freeBusyReader');
    return {
      body: watch(context, `events:${calendar.id}`, `${calendarPath(context)}/events`, () =>
        eventsFilter(context, calendar),
      ),
    };
  },

  'acl.watch'(context) {
    const calendar = context.store.calendar(context.user, context.request.path.calendarId, 'owner');
    return { body: watch(context, `acl:${calendar.id}`, `${calendarPath(context)}/acl`) };
  },

  'calendarList.watch'(context) {
    return {
      body: watch(context, `calendarList:${context.user.email}`, '/users/me/calendarList', () =>
        listFilter(context),
      ),
    };
  },

  'settings.watch'(context) {
    return { body: watch(context, `settings:${context.user.email}`, '/users/me/settings') };
  },

  'channels.stop'(context) {
    const { id, resourceId } = context.request.body;
    if (!context.notifier.stop(id, resourceId, context.user.email))
      throw refuse(CHANNEL_NOT_FOUND, `Channel '${id}' not found for project`);
    return {};
  },
};
