/**
 * The shapes of Calendar's part of the state (store.ts has what works on them), the state
 * document's `calendar`: its users' settings and groups (`users`), `calendars`, `events`,
 * `calendarList` and `acl`. Plain JSON, dumped and loaded as it is.
 */
import type { JsonObject } from '../../core/spec.js';
import type { State } from '../../core/state.js';

/** What Calendar keeps for a user (the core's user record has the email). */
export interface CalendarUser {
  /** Setting id to value (settings.list / settings.get); read-only through the API. */
  settings: Record<string, string>;
  /** The revision at which the settings were last written (created), for etags and sync. */
  settingsRevision: number;
  /** The groups the user is a member of (groups.ts); absent when none. */
  groups?: string[];
}

export interface CalendarRecord {
  id: string;
  owner: string;
  primary: boolean;
  revision: number;
  /** The Calendar resource without the server-assigned kind, etag and id. */
  resource: JsonObject;
}

export interface ListEntryRecord {
  calendarId: string;
  revision: number;
  /** Removed from the user's list (calendarList.delete, calendars.delete): kept for sync. */
  deleted: boolean;
  /** The user's own settings for the calendar: colorId, colors, hidden, selected, ... */
  resource: JsonObject;
}

export interface EventRecord {
  id: string;
  /** Creation order in its calendar: the stable default order of events.list. */
  seq: number;
  revision: number;
  /** The full Event resource as answered, etag included. */
  resource: JsonObject;
}

export interface AclRecord {
  /** `user:<email>`, `group:<email>`, `domain:<name>` or `default`, made from the scope. */
  id: string;
  revision: number;
  /** Deleted rules stay for sync and showDeleted, answered with role `none`. */
  deleted: boolean;
  /** The AclRule without the server-assigned kind, etag and id: `role` and `scope`. */
  resource: JsonObject;
}

/** Calendar's part of the state, under the state's `calendar`. */
export interface CalendarPart {
  /** User email to what Calendar keeps for the user; every user of the state has one. */
  users: Record<string, CalendarUser>;
  calendars: Record<string, CalendarRecord>;
  /** Calendar id to event id to event; deleted events stay, `status: cancelled`. */
  events: Record<string, Record<string, EventRecord>>;
  /** User email to calendar id to the user's entry. */
  calendarList: Record<string, Record<string, ListEntryRecord>>;
  /** Calendar id to rule id to sharing rule; the owner's own rule is among them. */
  acl: Record<string, Record<string, AclRecord>>;
}

/** The state as Calendar reads it: the core's fields and Calendar's part. */
export interface CalendarState extends State {
  calendar: CalendarPart;
}

/**
 * A state read as Calendar's. Every state the emulator holds has Calendar's parts: an empty
 * one gets them from `emptyCalendarPart`, a loaded one was checked against Calendar's schema
 * (state-schema.ts) or read from Calendar's tables (storage.ts). This is the one place that
 * says so to the type checker.
 */
export const calendarState = (state: State): CalendarState => state as CalendarState;

/** Calendar's part of an empty state. */
export const emptyCalendarPart = (): CalendarPart => ({
  users: {},
  calendars: {},
  events: {},
  calendarList: {},
  acl: {},
});
