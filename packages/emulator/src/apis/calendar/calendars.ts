/**
 * calendars.*: secondary calendars are created and deleted; the primary calendar (id = the
 * user's email) is refused for delete and emptied by clear, and clear refuses a secondary
 * calendar, as the live service does (decision 0056).
 */

import { refusal, refuse } from '../../core/errors.js';
import type { JsonObject } from '../../core/spec.js';
import { etagFor, nextRevision, now } from '../../core/state.js';
import type { Context } from './context.js';
import type { CalendarHandlers, OnCalendar } from './handler-types.js';
import { applyPatch } from './patch.js';
import type { CalendarRecord } from './records.js';
import type { Role } from './store.js';

const CALENDAR = '#/components/schemas/Calendar';

/** calendars.delete of a primary calendar. */
export const CANNOT_DELETE_PRIMARY = refusal({
  id: 'calendar.cannotDeletePrimaryCalendar',
  scope: 'calendar',
  operations: ['calendars.delete'],
  status: 400,
  reason: 'cannotDeletePrimaryCalendar',
  location: 'calendarId',
  when: 'the calendar is a user’s primary calendar (by its id; `primary` itself the spec refuses)',
  evidence: ['decision:0056'],
});

/** calendars.clear of a secondary calendar. */
export const CLEAR_ONLY_PRIMARY = refusal({
  id: 'calendar.clearSecondaryCalendar',
  scope: 'calendar',
  operations: ['calendars.clear'],
  status: 400,
  reason: 'invalid',
  location: 'calendarId',
  when: 'the calendar is a secondary calendar (clear empties a primary calendar only)',
  evidence: ['decision:0056'],
});

function write(context: Context<unknown>, calendar: CalendarRecord, resource: JsonObject): JsonObject {
  calendar.resource = resource;
  calendar.revision = nextRevision(context.store.state);
  // Summary, time zone and location show in every list entry of the calendar.
  for (const [email, list] of Object.entries(context.store.state.calendar.calendarList))
    if (list[calendar.id] && !list[calendar.id]?.deleted) context.store.touch(`calendarList:${email}`);
  return context.store.calendarResource(calendar);
}

/** The calendar of the path, for a caller who needs at least `need`. */
function calendarOf(context: OnCalendar, need: Role) {
  return context.store.calendar(context.user, context.request.path.calendarId, need);
}

export const calendarHandlers: CalendarHandlers = {
  'calendars.insert'(context) {
    const { store, user } = context;
    const body = context.tools.writable(context.request.body, CALENDAR);
    const id = store.newSecondaryId();
    const calendar: CalendarRecord = {
      id,
      owner: user.email,
      primary: false,
      revision: nextRevision(store.state),
      resource: { timeZone: store.user(user.email).settings.timezone ?? 'UTC', ...body },
    };
    store.state.calendar.calendars[id] = calendar;
    store.state.calendar.events[id] = {};
    store.addOwnerRule(id, user.email);
    store.addToList(user.email, id, {});
    return { body: store.calendarResource(calendar) };
  },

  'calendars.get'(context) {
    const calendar = calendarOf(context, 'freeBusyReader');
    return { body: context.store.calendarResource(calendar) };
  },

  'calendars.update'(context) {
    const calendar = calendarOf(context, 'owner');
    const body = context.tools.writable(context.request.body, CALENDAR);
    // update replaces the whole calendar, but a calendar always has a time zone.
    return { body: write(context, calendar, { timeZone: calendar.resource.timeZone ?? 'UTC', ...body }) };
  },

  'calendars.patch'(context) {
    const calendar = calendarOf(context, 'owner');
    const body = context.tools.writable(context.request.body, CALENDAR);
    return { body: write(context, calendar, applyPatch(calendar.resource, body)) };
  },

  'calendars.delete'(context) {
    const { store } = context;
    const calendar = calendarOf(context, 'owner');
    if (calendar.primary)
      throw refuse(
        CANNOT_DELETE_PRIMARY,
        'A primary calendar cannot be deleted; empty it with calendars.clear',
        {
          location: 'calendarId',
        },
      );
    delete store.state.calendar.calendars[calendar.id];
    delete store.state.calendar.events[calendar.id];
    delete store.state.calendar.acl[calendar.id];
    store.touch(`events:${calendar.id}`, 'not_exists');
    store.touch(`acl:${calendar.id}`, 'not_exists');
    // The calendar leaves every list it was on; the entries stay as deleted for sync.
    for (const [email, list] of Object.entries(store.state.calendar.calendarList)) {
      const entry = list[calendar.id];
      if (entry && !entry.deleted) {
        entry.deleted = true;
        entry.revision = nextRevision(store.state);
        store.touch(`calendarList:${email}`);
      }
    }
    return {};
  },

  'calendars.clear'(context) {
    const { store } = context;
    const calendar = calendarOf(context, 'owner');
    if (!calendar.primary)
      throw refuse(
        CLEAR_ONLY_PRIMARY,
        'Cannot clear primary calendar. (calendars.clear empties only a primary calendar; delete a secondary calendar with calendars.delete, or its events one by one)',
        { location: 'calendarId' },
      );
    const events = store.state.calendar.events[calendar.id] ?? {};
    for (const event of Object.values(events)) {
      if (event.resource.status === 'cancelled') continue;
      event.revision = nextRevision(store.state);
      event.resource = {
        ...event.resource,
        status: 'cancelled',
        etag: etagFor(store.state, event.revision),
        updated: now(store.state),
      };
      store.eventWritten(calendar.id, events, event);
      store.touch(`events:${calendar.id}`);
    }
    return {};
  },
};
