/**
 * The emulator's whole state, plain JSON so that it can be dumped and loaded as it is.
 *
 * Every write takes the next `revision` of the state. Revisions order all changes: an etag is
 * made from the revision of the last write of a resource, and a sync token remembers the
 * revision it was issued at, so "what changed since" is "revision greater than the token's".
 * `epoch` changes on reset, so tokens and etags of an earlier state are never mistaken for
 * current ones.
 */
import { randomBytes } from 'node:crypto';
import type { SearchAds360State } from '../apis/searchads360/records.js';
import type { JsonObject } from './spec.js';

export interface UserRecord {
  email: string;
  /** Setting id to value (settings.list / settings.get); read-only through the API. */
  settings: Record<string, string>;
  /** The revision at which the settings were last written (created), for etags and sync. */
  settingsRevision: number;
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

export interface State {
  version: 1;
  epoch: string;
  revision: number;
  /** The last timestamp handed out (ms since 1970): `updated` grows on every write. */
  lastTime: number;
  nextSeq: number;
  users: Record<string, UserRecord>;
  calendars: Record<string, CalendarRecord>;
  /** Calendar id to event id to event; deleted events stay, `status: cancelled`. */
  events: Record<string, Record<string, EventRecord>>;
  /** User email to calendar id to the user's entry. */
  calendarList: Record<string, Record<string, ListEntryRecord>>;
  /** Calendar id to rule id to sharing rule; the owner's own rule is among them. */
  acl: Record<string, Record<string, AclRecord>>;
  /**
   * Search Ads 360: entities, conversions and availabilities (src/apis/searchads360/state.ts).
   * Absent until the first write: the entities of the spec's examples are read meanwhile.
   */
  searchads360?: SearchAds360State;
}

/** What holds the state and may replace it (a reset, a load): the emulator's store. */
export interface StateHolder {
  state: State;
}

export function newEpoch(): string {
  return randomBytes(4).toString('hex');
}

export function emptyState(): State {
  return {
    version: 1,
    epoch: newEpoch(),
    revision: 0,
    lastTime: 0,
    nextSeq: 1,
    users: {},
    calendars: {},
    events: {},
    calendarList: {},
    acl: {},
  };
}

/** The next revision of the state; call once per written resource. */
export function nextRevision(state: State): number {
  state.revision += 1;
  return state.revision;
}

/** The last time formatted, and the whole second it is in (its text up to the seconds). */
let lastIso = { time: Number.NaN, text: '', second: Number.NaN, prefix: '' };

/**
 * A time (ms since 1970) as RFC 3339 with milliseconds, as Date#toISOString writes it. Every
 * write and every list formats one, mostly in the same second as the one before: the text of
 * that second is kept and only the milliseconds are written.
 */
export function isoTime(time: number): string {
  if (time === lastIso.time) return lastIso.text;
  const second = Math.floor(time / 1000);
  if (second !== lastIso.second || !Number.isInteger(time)) {
    const text = new Date(time).toISOString();
    lastIso = { time, text, second, prefix: text.slice(0, -4) };
    return text;
  }
  const text = `${lastIso.prefix}${String(time - second * 1000).padStart(3, '0')}Z`;
  lastIso.time = time;
  lastIso.text = text;
  return text;
}

/** Now as RFC 3339 with milliseconds, always later than the previous call. */
export function now(state: State): string {
  const time = Math.max(Date.now(), state.lastTime + 1);
  state.lastTime = time;
  return isoTime(time);
}

/** A quoted etag, unique across writes and across resets (the epoch is in it). */
export function etagFor(state: State, revision: number): string {
  return `"${parseInt(state.epoch, 16)}${String(revision).padStart(10, '0')}"`;
}
