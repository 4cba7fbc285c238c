/**
 * Calendar's part of a dumped state, for loading it (core/state-file.ts): the shape of its
 * keys, with every stored calendar, entry, event and rule against the spec's own schema; then
 * the links the shape cannot say (keys equal to ids, owners and calendars that exist, a
 * primary calendar for every user).
 */
import type { ApiStateShape } from '../../core/api-module.js';
import { specSchema } from '../../core/state-file.js';
import { calendarState, emptyCalendarParts } from './records.js';

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

export const calendarStateShape: ApiStateShape = {
  properties: {
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
    // Optional: states dumped before sharing rules existed load with the owners' rules added.
    acl: kept('id', 'AclRule'),
  },
  required: ['calendars', 'events', 'calendarList'],
  user: {
    properties: { settings: record({ type: 'string' }), settingsRevision: count },
    required: ['settings', 'settingsRevision'],
  },
  empty: emptyCalendarParts,
  check(loaded, fail) {
    // The schema above has just held the document to CalendarState's shape.
    const state = calendarState(loaded);
    state.acl ??= {};
    for (const [id, calendar] of Object.entries(state.calendars)) {
      if (calendar.id !== id) fail(`/calendars/${id}/id: must be the key, ${id}`);
      if (!state.users[calendar.owner]) fail(`/calendars/${id}/owner: no user ${calendar.owner}`);
      const rules = state.acl[id] ?? {};
      state.acl[id] = rules;
      rules[`user:${calendar.owner}`] ??= {
        id: `user:${calendar.owner}`,
        revision: 0,
        deleted: false,
        resource: { role: 'owner', scope: { type: 'user', value: calendar.owner } },
      };
    }
    for (const calendarId of Object.keys(state.acl)) {
      if (!state.calendars[calendarId]) fail(`/acl/${calendarId}: no such calendar`);
    }
    for (const calendarId of Object.keys(state.events)) {
      if (!state.calendars[calendarId]) fail(`/events/${calendarId}: no such calendar`);
    }
    for (const email of Object.keys(state.users)) {
      if (!state.calendars[email]?.primary) fail(`/users/${email}: no primary calendar ${email}`);
    }
  },
};
