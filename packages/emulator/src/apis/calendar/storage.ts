/**
 * Calendar's tables in the emulator's databases (core/slice.ts): one row per user, calendar,
 * calendar-list entry, sharing rule and event, each the record as the state holds it, in JSON.
 *
 * What changed since the last commit is found without looking at every event: every change of
 * a user, calendar, list entry or rule takes the state's next revision (core/state.ts), so those
 * rows are the ones with a revision past the last commit's (users, calendars, lists and rules
 * are few next to events); events are many, and every event write tells the store
 * (`Store.eventWritten`), which keeps their ids here. A deleted calendar takes its rows along.
 */

import { type Rows, type StorageSlice, slot, type TableSpec, tableChanges } from '../../core/slice.js';
import {
  type AclRecord,
  type CalendarRecord,
  type CalendarState,
  type CalendarUser,
  calendarState,
  type EventRecord,
  emptyCalendarPart,
  type ListEntryRecord,
} from './records.js';
import type { Store } from './store.js';

// Tables are declared once (core/slice.ts); each database makes them in its own SQL (core/sql.ts).
const USERS = 'calendar_users';
const CALENDARS = 'calendar_calendars';
const LIST = 'calendar_list';
const ACL = 'calendar_acl';
const EVENTS = 'calendar_events';

/** Its schema: version 1, the five tables, each row a record as JSON under its key. */
const SCHEMA: readonly (readonly TableSpec[])[] = [
  [
    { name: USERS, key: ['email'] },
    { name: CALENDARS, key: ['id'] },
    { name: LIST, key: ['email', 'calendar_id'] },
    { name: ACL, key: ['calendar_id', 'rule_id'] },
    { name: EVENTS, key: ['calendar_id', 'event_id'] },
  ],
];

export function calendarStorage(store: Store): StorageSlice {
  /** The calendars whose rows the database holds (a calendar gone from the state takes its rows along). */
  let stored = new Set<string>();
  let pending: Set<string> | undefined;
  /** Calendar id to the ids of its events written since the last commit. */
  const written = new Map<string, Set<string>>();
  store.eventWrites = written;

  function putUser(rows: Rows, email: string, user: CalendarUser) {
    rows.put(USERS, [email], JSON.stringify({ email, ...user }));
  }
  function putCalendar(rows: Rows, calendar: CalendarRecord) {
    rows.put(CALENDARS, [calendar.id], JSON.stringify(calendar));
  }
  function putEntry(rows: Rows, email: string, entry: ListEntryRecord) {
    rows.put(LIST, [email, entry.calendarId], JSON.stringify(entry));
  }
  function putRule(rows: Rows, calendarId: string, rule: AclRecord) {
    rows.put(ACL, [calendarId, rule.id], JSON.stringify(rule));
  }
  function putEvent(rows: Rows, calendarId: string, event: EventRecord) {
    rows.put(EVENTS, [calendarId, event.id], JSON.stringify(event));
  }

  /** A user's row: the core's record (the email) and Calendar's, both made from it. */
  function userLoaded(state: CalendarState, email: string, row: CalendarUser & { email?: string }) {
    delete row.email;
    state.users[email] = { email };
    state.calendar.users[email] = row;
  }

  /** An event another process wrote, put in memory with the calendar's indexes told, not written again. */
  function eventLoaded(state: CalendarState, calendarId: string, record: EventRecord) {
    const events = slot(state.calendar.events, calendarId);
    events[record.id] = record;
    store.eventWritten(calendarId, events, record);
    const ids = written.get(calendarId);
    ids?.delete(record.id);
    if (ids?.size === 0) written.delete(calendarId);
  }

  return {
    name: 'calendar',
    schema: SCHEMA,

    load(rows, loading, parse) {
      const state = calendarState(loading);
      state.users = {};
      state.calendar = emptyCalendarPart();
      for (const [email = '', body] of rows.scan(USERS)) userLoaded(state, email, parse(body, USERS, email));
      for (const [id = '', body] of rows.scan(CALENDARS)) {
        state.calendar.calendars[id] = parse(body, CALENDARS, id);
        state.calendar.events[id] = {};
        state.calendar.acl[id] = {};
      }
      for (const [email = '', calendarId = '', body] of rows.scan(LIST))
        slot(state.calendar.calendarList, email)[calendarId] = parse(body, LIST, `${email} ${calendarId}`);
      for (const [calendarId = '', ruleId = '', body] of rows.scan(ACL))
        slot(state.calendar.acl, calendarId)[ruleId] = parse(body, ACL, `${calendarId} ${ruleId}`);
      for (const [calendarId = '', eventId = '', body] of rows.scan(EVENTS))
        slot(state.calendar.events, calendarId)[eventId] = parse(body, EVENTS, `${calendarId} ${eventId}`);
      for (const email of Object.keys(state.users)) state.calendar.calendarList[email] ??= {};
      pending = new Set(Object.keys(state.calendar.calendars));
    },

    writeAll(rows, written) {
      const state = calendarState(written);
      for (const [email, user] of Object.entries(state.calendar.users)) putUser(rows, email, user);
      for (const calendar of Object.values(state.calendar.calendars)) putCalendar(rows, calendar);
      for (const [email, list] of Object.entries(state.calendar.calendarList))
        for (const entry of Object.values(list)) putEntry(rows, email, entry);
      for (const [calendarId, rules] of Object.entries(state.calendar.acl))
        for (const rule of Object.values(rules)) putRule(rows, calendarId, rule);
      for (const [calendarId, events] of Object.entries(state.calendar.events))
        for (const event of Object.values(events)) putEvent(rows, calendarId, event);
      pending = new Set(Object.keys(state.calendar.calendars));
    },

    writeChanges(rows, changed, since) {
      const state = calendarState(changed);
      for (const [email, user] of Object.entries(state.calendar.users))
        if (user.settingsRevision > since) putUser(rows, email, user);
      const now = new Set<string>();
      for (const calendar of Object.values(state.calendar.calendars)) {
        now.add(calendar.id);
        if (calendar.revision > since) putCalendar(rows, calendar);
      }
      for (const id of stored) {
        if (now.has(id)) continue;
        rows.remove(CALENDARS, [id]);
        rows.remove(ACL, [id]);
        rows.remove(EVENTS, [id]);
      }
      for (const [email, list] of Object.entries(state.calendar.calendarList))
        for (const entry of Object.values(list)) if (entry.revision > since) putEntry(rows, email, entry);
      for (const [calendarId, rules] of Object.entries(state.calendar.acl))
        for (const rule of Object.values(rules)) if (rule.revision > since) putRule(rows, calendarId, rule);
      for (const [calendarId, ids] of written) {
        const events = state.calendar.events[calendarId];
        if (!events) continue;
        for (const id of ids) {
          const event = events[id];
          if (event) putEvent(rows, calendarId, event);
        }
      }
      pending = now;
    },

    // A commit is synchronous: no event is written between writeChanges and this.
    committed() {
      if (pending) stored = pending;
      pending = undefined;
      written.clear();
    },

    // A shared store's catch-up (core/postgres.ts): deletions first, then the rows as the
    // database holds them, table by table in this order. A row changed in place keeps its key's
    // place in memory, a new one goes last, as a full load (ORDER BY rowid) would put them.
    changes: {
      calendar_users: tableChanges<'email'>({
        put(changed, row, parse) {
          const state = calendarState(changed);
          const email = row.email;
          userLoaded(state, email, parse(row.body, 'calendar_users', email));
          state.calendar.calendarList[email] ??= {};
        },
        remove(changed, key) {
          const state = calendarState(changed);
          delete state.users[key.email];
          delete state.calendar.users[key.email];
        },
      }),
      calendar_calendars: tableChanges<'id'>({
        put(changed, row, parse) {
          const state = calendarState(changed);
          const id = row.id;
          state.calendar.calendars[id] = parse(row.body, 'calendar_calendars', id);
          state.calendar.events[id] ??= {};
          state.calendar.acl[id] ??= {};
          stored.add(id);
        },
        // Its events and rules go with it (their own deletions follow, and find nothing).
        remove(changed, key) {
          const state = calendarState(changed);
          const id = key.id;
          delete state.calendar.calendars[id];
          delete state.calendar.events[id];
          delete state.calendar.acl[id];
          stored.delete(id);
        },
      }),
      calendar_list: tableChanges<'email' | 'calendar_id'>({
        put(changed, row, parse) {
          const email = row.email;
          const calendarId = row.calendar_id;
          slot(calendarState(changed).calendar.calendarList, email)[calendarId] = parse(
            row.body,
            'calendar_list',
            `${email} ${calendarId}`,
          );
        },
        remove(changed, key) {
          delete calendarState(changed).calendar.calendarList[key.email]?.[key.calendar_id];
        },
      }),
      calendar_acl: tableChanges<'calendar_id' | 'rule_id'>({
        put(changed, row, parse) {
          const calendarId = row.calendar_id;
          const ruleId = row.rule_id;
          slot(calendarState(changed).calendar.acl, calendarId)[ruleId] = parse(
            row.body,
            'calendar_acl',
            `${calendarId} ${ruleId}`,
          );
        },
        remove(changed, key) {
          delete calendarState(changed).calendar.acl[key.calendar_id]?.[key.rule_id];
        },
      }),
      calendar_events: tableChanges<'calendar_id' | 'event_id'>({
        put(changed, row, parse) {
          const calendarId = row.calendar_id;
          const eventId = row.event_id;
          const record = parse<EventRecord>(row.body, 'calendar_events', `${calendarId} ${eventId}`);
          eventLoaded(calendarState(changed), calendarId, record);
        },
        // Events leave the state only with their calendar; one gone from a calendar that stays
        // gives the calendar a new events object, whose indexes are built again when used.
        remove(changed, key) {
          const state = calendarState(changed);
          const calendarId = key.calendar_id;
          const events = state.calendar.events[calendarId];
          const eventId = key.event_id;
          if (!events || !Object.hasOwn(events, eventId)) return;
          const { [eventId]: _gone, ...rest } = events;
          state.calendar.events[calendarId] = rest;
        },
      }),
    },
  };
}
