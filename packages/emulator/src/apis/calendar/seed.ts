/**
 * Calendar's part of a seed file: users' `settings`, and `calendars` with their sharing rules,
 * the users who list them and their events. Everything but the settings is written through
 * the operation a client would call (calendars.insert/patch, acl.insert, calendarList.insert
 * or patch, events.insert, events.import for an event organized elsewhere, events.update or
 * delete of an instance for an exception of a recurring event), so it is checked as a
 * client's request would be.
 */
import type { ApiSeedShape, SeedDocument, SeedTarget, SeedUser } from '../../core/api-module.js';
import { own } from '../../core/own.js';
import { nearestNames, SEED_EMAIL, SeedError } from '../../core/seed.js';
import { seedFieldsOf } from '../../core/seed-fields.js';
import { isObject, type JsonObject } from '../../core/spec.js';
import { nextRevision } from '../../core/state.js';
import { parseInstanceId } from './recurrence.js';
import type { Store } from './store.js';

/** A user who lists a calendar, with their own settings of its entry (as calendarList.insert takes them). */
export interface SeedListing {
  email: string;
  /** `colorId`, `hidden`, `selected`, `summaryOverride`, `defaultReminders`, `notificationSettings`. */
  entry?: JsonObject;
}

export interface SeedCalendar {
  /** `primary` (or the owner's email) for the owner's primary calendar; else a new secondary calendar, with this id if given. */
  id?: string;
  owner: string;
  summary?: string;
  description?: string;
  location?: string;
  timeZone?: string;
  conferenceProperties?: JsonObject;
  autoAcceptInvitations?: boolean;
  /** Sharing rules, as acl.insert takes them: `{role, scope: {type, value}}`. */
  acl?: JsonObject[];
  /**
   * Users who have the calendar on their calendar list, by email or with their entry's
   * settings; the owner lists it anyway, and is named only to give their entry settings.
   */
  listedBy?: (string | SeedListing)[];
  /**
   * Event bodies, as events.insert takes them; one with `recurringEventId` is an exception of
   * that recurring event (listed before it): its instance changed, or deleted with
   * `status: "cancelled"`.
   */
  events?: JsonObject[];
}

/** What Calendar reads of a seed user. */
export interface CalendarSeedUser extends SeedUser {
  /** Setting id to value, over the defaults (`timezone` also sets the primary calendar's zone). */
  settings?: Record<string, string>;
}

/** A seed as Calendar reads it. */
export interface CalendarSeed extends SeedDocument {
  users?: CalendarSeedUser[];
  calendars?: SeedCalendar[];
}

const CALENDAR_SEED_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    required: ['owner'],
    additionalProperties: false,
    properties: {
      // `__proto__` cannot be a key of the state's plain objects (see own.ts).
      id: { type: 'string', pattern: '^[^\\s/?#]+$', not: { const: '__proto__' } },
      owner: SEED_EMAIL,
      summary: { type: 'string' },
      description: { type: 'string' },
      location: { type: 'string' },
      timeZone: { type: 'string' },
      conferenceProperties: seedFieldsOf('calendar', 'ConferenceProperties'),
      autoAcceptInvitations: { type: 'boolean' },
      acl: { type: 'array', items: seedFieldsOf('calendar', 'AclRule') },
      listedBy: {
        type: 'array',
        // An email, or the email with the user's settings of the entry.
        items: {
          if: { type: 'string' },
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else (one error for the branch that applies), not a promise.
          then: SEED_EMAIL,
          else: {
            type: 'object',
            required: ['email'],
            additionalProperties: false,
            properties: { email: SEED_EMAIL, entry: seedFieldsOf('calendar', 'CalendarListEntry') },
          },
        },
      },
      events: { type: 'array', items: seedFieldsOf('calendar', 'Event') },
    },
  },
};

/** Gives a just-created secondary calendar the id the seed asks for. */
function renameCalendar(store: Store, from: string, to: string, owner: string): void {
  const { state } = store;
  const calendar = state.calendar.calendars[from];
  if (!calendar) return;
  delete state.calendar.calendars[from];
  state.calendar.calendars[to] = { ...calendar, id: to };
  state.calendar.events[to] = state.calendar.events[from] ?? {};
  delete state.calendar.events[from];
  state.calendar.acl[to] = state.calendar.acl[from] ?? {};
  delete state.calendar.acl[from];
  const list = state.calendar.calendarList[owner] ?? {};
  const entry = list[from];
  if (entry) {
    delete list[from];
    list[to] = { ...entry, calendarId: to };
  }
}

/** The Calendar fields a seed calendar may give (applied by calendars.insert or patch). */
const CALENDAR_FIELDS = [
  'summary',
  'description',
  'location',
  'timeZone',
  'conferenceProperties',
  'autoAcceptInvitations',
] as const;

type Invoke = SeedTarget<Store>['invoke'];

/**
 * Writes one event of a seed calendar: an exception (`recurringEventId`) through its instance
 * (events.update, or events.delete when cancelled), an event another calendar organizes
 * through events.import (which keeps the organizer), any other through events.insert.
 */
function writeEvent(invoke: Invoke, owner: string, calendarId: string, event: JsonObject): void {
  const { recurringEventId, ...body } = event;
  if (recurringEventId !== undefined) {
    const instance = typeof event.id === 'string' ? parseInstanceId(event.id) : undefined;
    if (typeof recurringEventId !== 'string' || instance?.parentId !== recurringEventId)
      throw new SeedError(
        `id: an exception of ${JSON.stringify(recurringEventId)} has the id <recurringEventId>_<its original start> (such as abc123_20260302T090000Z, or abc123_20260302 all day)`,
      );
    const path = { calendarId, eventId: `${event.id}` };
    if (event.status === 'cancelled') invoke(owner, 'events.delete', { path });
    else invoke(owner, 'events.update', { path, body });
    return;
  }
  const organizer = isObject(event.organizer) ? event.organizer.email : undefined;
  const elsewhere = typeof organizer === 'string' && organizer.toLowerCase() !== calendarId.toLowerCase();
  invoke(owner, elsewhere ? 'events.import' : 'events.insert', { path: { calendarId }, body });
}

export const calendarSeedShape: ApiSeedShape<Store, CalendarSeed> = {
  properties: { calendars: CALENDAR_SEED_SCHEMA },
  user: { settings: { type: 'object', additionalProperties: { type: 'string' } } },

  check(seed, fail) {
    const ids = new Map<string, number>();
    (seed.calendars ?? []).forEach((calendar, i) => {
      if (calendar.id === undefined) return;
      const id = calendar.id === 'primary' ? calendar.owner.toLowerCase() : calendar.id.toLowerCase();
      const first = ids.get(id);
      if (first !== undefined) fail(`calendars[${i}].id: ${calendar.id} is already calendars[${first}]`);
      ids.set(id, i);
    });
  },

  apply({ store, invoke }, seed, at) {
    const known = Object.keys(store.defaults.settings);
    (seed.users ?? []).forEach((entry, i) => {
      if (!entry.settings) return;
      const email = entry.email.toLowerCase();
      const user = store.user(email);
      for (const [id, value] of Object.entries(entry.settings)) {
        if (!known.includes(id)) {
          at(`users[${i}].settings`);
          throw new SeedError(
            `unknown setting ${JSON.stringify(id)} (at /users/${i}/settings/${id.replace(/~/g, '~0').replace(/\//g, '~1')})${
              nearestNames(id, known) || `; the settings are ${known.join(', ')}`
            }`,
          );
        }
        at(`users[${i}].settings.${id}`);
        user.settings[id] = value;
      }
      user.settingsRevision = nextRevision(store.state);
      const timeZone = entry.settings.timezone;
      if (timeZone && store.state.calendar.calendars[email]) {
        at(`users[${i}].settings.timezone`);
        invoke(email, 'calendars.patch', { path: { calendarId: email }, body: { timeZone } });
      }
    });
    (seed.calendars ?? []).forEach((entry, i) => {
      at(`calendars[${i}]`);
      const owner = entry.owner.toLowerCase();
      store.user(owner);
      const fields: JsonObject = {};
      for (const key of CALENDAR_FIELDS) if (entry[key] !== undefined) fields[key] = entry[key];
      const wanted = entry.id === 'primary' ? owner : entry.id;
      let id: string;
      if (wanted?.toLowerCase() === owner) {
        id = owner;
        if (Object.keys(fields).length > 0)
          invoke(owner, 'calendars.patch', { path: { calendarId: id }, body: fields });
      } else {
        if (wanted !== undefined && own(store.state.calendar.calendars, wanted))
          throw new SeedError(`id: a calendar ${wanted} exists already`);
        if (wanted?.includes('@') && !wanted.endsWith('.calendar.google.com'))
          throw new SeedError(
            `id: ${wanted} looks like a user's email; use "primary" for a primary calendar`,
          );
        if (fields.summary === undefined)
          throw new SeedError('summary: a secondary calendar needs a summary');
        const made = invoke(owner, 'calendars.insert', { body: fields }).body?.id;
        if (typeof made !== 'string') throw new SeedError('calendars.insert answered without an id');
        id = made;
        if (wanted !== undefined) {
          renameCalendar(store, id, wanted, owner);
          id = wanted;
        }
      }
      (entry.acl ?? []).forEach((rule, j) => {
        at(`calendars[${i}].acl[${j}]`);
        invoke(owner, 'acl.insert', { path: { calendarId: id }, body: rule });
      });
      (entry.listedBy ?? []).forEach((listing, j) => {
        at(`calendars[${i}].listedBy[${j}]`);
        const email = (typeof listing === 'string' ? listing : listing.email).toLowerCase();
        const settings = typeof listing === 'string' ? undefined : listing.entry;
        if (email !== owner) invoke(email, 'calendarList.insert', { body: { ...settings, id } });
        else if (settings) invoke(owner, 'calendarList.patch', { path: { calendarId: id }, body: settings });
      });
      (entry.events ?? []).forEach((event, j) => {
        const summary = typeof event.summary === 'string' ? ` (${JSON.stringify(event.summary)})` : '';
        at(`calendars[${i}].events[${j}]${summary}`);
        writeEvent(invoke, owner, id, event);
      });
    });
  },
};
