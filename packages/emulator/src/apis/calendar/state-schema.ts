/**
 * Calendar's part of a dumped state, `calendar`, for loading it (core/state-file.ts): its
 * shape, with every stored calendar, entry, event and rule against the spec's own schema; then
 * the links the shape cannot say (keys equal to ids, owners and calendars that exist, a
 * primary calendar and settings for every user). A version-1 document had its keys at the
 * top level and its users' settings in the user records: `fromVersion1` takes them from there.
 */
import type { ApiStateShape } from '../../core/api-module.js';
import { specSchema, version1Users } from '../../core/state-file.js';
import { GROUPS_USER_SCHEMA } from './groups.js';
import { calendarState, emptyCalendarPart } from './records.js';

const record = (value: object) => ({ type: 'object', additionalProperties: value });
const count = { type: 'integer', minimum: 0 };
const resource = (name: string) => specSchema('calendar', name);
/** Records kept after their deletion (for sync), by owner then key: list entries, sharing rules. */
const kept = (key: string, schema: string) =>
  record(
    record({
      type: 'object',
      required: [key, 'revision', 'deleted', 'resource'],
      properties: {
        [key]: { type: 'string' },
        revision: count,
        deleted: { type: 'boolean' },
        resource: resource(schema),
      },
    }),
  );

/** Calendar's keys, which version 1 had at the top level of the document. */
const KEYS = ['calendars', 'events', 'calendarList', 'acl'] as const;
/** What Calendar kept in version 1's user records besides the email. */
const USER_FIELDS = ['settings', 'settingsRevision', 'groups'] as const;

export const calendarStateShape: ApiStateShape = {
  schema: {
    type: 'object',
    // `acl` is optional: states dumped before sharing rules existed load with the owners' rules added.
    required: ['users', 'calendars', 'events', 'calendarList'],
    additionalProperties: false,
    properties: {
      users: record({
        type: 'object',
        required: ['settings', 'settingsRevision'],
        additionalProperties: false,
        properties: {
          settings: record({ type: 'string' }),
          settingsRevision: count,
          groups: GROUPS_USER_SCHEMA,
        },
      }),
      calendars: record({
        type: 'object',
        required: ['id', 'owner', 'primary', 'revision', 'resource'],
        properties: {
          id: { type: 'string' },
          owner: { type: 'string' },
          primary: { type: 'boolean' },
          revision: count,
          resource: resource('Calendar'),
        },
      }),
      events: record(
        record({
          type: 'object',
          required: ['id', 'seq', 'revision', 'resource'],
          properties: { id: { type: 'string' }, seq: count, revision: count, resource: resource('Event') },
        }),
      ),
      calendarList: kept('calendarId', 'CalendarListEntry'),
      acl: kept('id', 'AclRule'),
    },
  },
  empty: emptyCalendarPart,
  fromVersion1(document) {
    const part: Record<string, unknown> = {};
    for (const key of KEYS) {
      if (key in document) part[key] = document[key];
      delete document[key];
    }
    const users: Record<string, Record<string, unknown>> = {};
    for (const [email, user] of version1Users(document)) {
      users[email] = {};
      for (const field of USER_FIELDS) {
        if (field in user) users[email][field] = user[field];
        delete user[field];
      }
    }
    part.users = users;
    return part;
  },
  check(loaded, fail) {
    // The schema above has just held the document to CalendarState's shape.
    const state = calendarState(loaded);
    state.calendar.acl ??= {};
    for (const [id, calendar] of Object.entries(state.calendar.calendars)) {
      if (calendar.id !== id) fail(`/calendar/calendars/${id}/id: must be the key, ${id}`);
      if (!state.users[calendar.owner]) fail(`/calendar/calendars/${id}/owner: no user ${calendar.owner}`);
      const rules = state.calendar.acl[id] ?? {};
      state.calendar.acl[id] = rules;
      rules[`user:${calendar.owner}`] ??= {
        id: `user:${calendar.owner}`,
        revision: 0,
        deleted: false,
        resource: { role: 'owner', scope: { type: 'user', value: calendar.owner } },
      };
    }
    for (const calendarId of Object.keys(state.calendar.acl)) {
      if (!state.calendar.calendars[calendarId]) fail(`/calendar/acl/${calendarId}: no such calendar`);
    }
    for (const calendarId of Object.keys(state.calendar.events)) {
      if (!state.calendar.calendars[calendarId]) fail(`/calendar/events/${calendarId}: no such calendar`);
    }
    for (const email of Object.keys(state.users)) {
      if (!state.calendar.calendars[email]?.primary) fail(`/users/${email}: no primary calendar ${email}`);
      if (!state.calendar.users[email]) fail(`/calendar/users: no settings of user ${email}`);
    }
    for (const email of Object.keys(state.calendar.users)) {
      if (!state.users[email]) fail(`/calendar/users/${email}: no user ${email}`);
    }
  },
};
