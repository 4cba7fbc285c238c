/**
 * calendarList.*: the user's own view of the calendars they use (colors, hidden, selected,
 * reminders, notifications). Summary, time zone and location come from the calendar itself.
 * Two refusals, each with the live service's evidence (decision 0056): a calendar already on
 * the list is not inserted again, and the user's own primary calendar is not taken off it.
 */

import { maxResults } from '../../core/context.js';
import { refusal, refuse } from '../../core/errors.js';
import { own } from '../../core/own.js';
import type { JsonObject } from '../../core/spec.js';
import { nextRevision } from '../../core/state.js';
import type { Context } from './context.js';
import type { CalendarHandlers } from './handler-types.js';
import { applyPatch } from './patch.js';
import type { ListEntryRecord } from './records.js';
import { roleRank, type Store } from './store.js';
import { refuseWithSync } from './sync.js';
import { fingerprint, paginate, readSyncToken } from './tokens.js';

/** calendarList.insert of a calendar the list holds. */
export const ALREADY_LISTED = refusal({
  id: 'calendar.calendarAlreadyListed',
  scope: 'calendar',
  operations: ['calendarList.insert'],
  status: 409,
  reason: 'duplicate',
  when: 'the calendar is on the caller’s calendar list already (not removed)',
  evidence: ['fact:conventions:errors/reasons/duplicate', 'decision:0056'],
});

/** calendarList.delete of the caller's own primary calendar. */
export const PRIMARY_STAYS_LISTED = refusal({
  id: 'calendar.cannotChangeOwnPrimarySubscription',
  scope: 'calendar',
  operations: ['calendarList.delete'],
  status: 400,
  reason: 'cannotChangeOwnPrimarySubscription',
  location: 'calendarId',
  when: 'the calendar is the caller’s own primary calendar',
  evidence: ['decision:0056'],
});

const ENTRY = '#/components/schemas/CalendarListEntry';

/** The parameters of calendarList.list that leave entries out. */
export interface ListQuery {
  showDeleted?: boolean;
  showHidden?: boolean;
  minAccessRole?: string;
}

/**
 * Whether calendarList.list shows an entry of `email`'s list with these parameters (without a
 * sync token): removed entries only with showDeleted, hidden ones only with showHidden, and
 * only calendars the user has at least `minAccessRole` on. Watch channels read it too.
 */
export function entryFilter(
  store: Store,
  email: string,
  query: ListQuery,
): (entry: ListEntryRecord) => boolean {
  return (entry) => {
    if (entry.deleted && query.showDeleted !== true) return false;
    if (entry.resource.hidden === true && query.showHidden !== true) return false;
    if (query.minAccessRole) {
      const role = store.listEntryResource(email, entry).accessRole;
      if (roleRank(role) < roleRank(query.minAccessRole)) return false;
    }
    return true;
  };
}

/**
 * The user's settings from a body. RGB colors count only with colorRgbFormat=true, as on the
 * service; a colorId sets them from the palette.
 */
function settingsFrom(context: Context<{ query: { colorRgbFormat?: boolean }; body: object }>): JsonObject {
  const body = context.tools.writable(context.request.body, ENTRY);
  delete body.id;
  if (context.request.query.colorRgbFormat !== true) {
    delete body.backgroundColor;
    delete body.foregroundColor;
  } else if (body.backgroundColor !== undefined || body.foregroundColor !== undefined) {
    delete body.colorId;
  }
  return body;
}

function save(context: Context<unknown>, entry: ListEntryRecord, resource: JsonObject): JsonObject {
  entry.resource = resource;
  entry.revision = nextRevision(context.store.state);
  context.store.withColors(entry);
  context.store.touch(`calendarList:${context.user.email}`);
  return context.store.listEntryResource(context.user.email, entry);
}

export const calendarListHandlers: CalendarHandlers = {
  'calendarList.list'(context) {
    const { store, user, request, op } = context;
    const { syncToken, pageToken } = request.query;
    const scope = `calendarList:${user.email}`;
    if (syncToken !== undefined) refuseWithSync(context);
    const since = syncToken !== undefined ? readSyncToken(store.state, syncToken, scope) : undefined;
    const shows = entryFilter(store, user.email, request.query);
    const entries = Object.values(store.state.calendar.calendarList[user.email] ?? {}).filter(
      (entry) => since !== undefined || shows(entry),
    );
    const page = paginate({
      state: store.state,
      scope,
      items: entries,
      revisionOf: (entry) => store.entryRevision(entry),
      keyOf: (entry) => [entry.calendarId],
      maxResults: maxResults(context),
      ...(pageToken !== undefined ? { pageToken } : {}),
      ...(since !== undefined ? { since } : {}),
      fingerprint: fingerprint(request.query, op.sync ? [op.sync.syncTokenParameter] : []),
    });
    return {
      body: {
        kind: 'calendar#calendarList',
        etag: `"${store.state.epoch}-${store.state.revision}"`,
        items: page.items.map((entry) => store.listEntryResource(user.email, entry)),
        ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
        ...(page.nextSyncToken ? { nextSyncToken: page.nextSyncToken } : {}),
      },
    };
  },

  'calendarList.get'(context) {
    const entry = context.store.listEntry(context.user, context.request.path.calendarId);
    return { body: context.store.listEntryResource(context.user.email, entry) };
  },

  'calendarList.insert'(context) {
    const { store, user } = context;
    const { id } = context.request.body;
    // Any calendar the user can see (their own, or shared with them); others are 404 as on Google.
    store.calendar(user, id, 'freeBusyReader');
    const existing = own(store.state.calendar.calendarList[user.email], id);
    if (existing && !existing.deleted)
      throw refuse(ALREADY_LISTED, `The calendar ${id} is already in the calendar list`);
    const entry = store.addToList(user.email, id, settingsFrom(context));
    return { body: store.listEntryResource(user.email, entry) };
  },

  'calendarList.update'(context) {
    const entry = context.store.listEntry(context.user, context.request.path.calendarId);
    return { body: save(context, entry, { hidden: false, selected: true, ...settingsFrom(context) }) };
  },

  'calendarList.patch'(context) {
    const entry = context.store.listEntry(context.user, context.request.path.calendarId);
    return { body: save(context, entry, applyPatch(entry.resource, settingsFrom(context))) };
  },

  'calendarList.delete'(context) {
    const { store, user } = context;
    const entry = store.listEntry(user, context.request.path.calendarId);
    if (entry.calendarId === user.email)
      throw refuse(
        PRIMARY_STAYS_LISTED,
        'The primary calendar cannot be removed from its own calendar list',
        {
          location: 'calendarId',
        },
      );
    entry.deleted = true;
    entry.revision = nextRevision(store.state);
    store.touch(`calendarList:${user.email}`);
    return {};
  },
};
