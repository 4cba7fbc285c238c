/**
 * The state with the lookups and resource shapes the handlers share: users and their primary
 * calendars, access to a calendar by its sharing rules, the Calendar, CalendarListEntry and
 * AclRule answers, and the changes of a request (for push notifications).
 */

import { randomBytes } from 'node:crypto';
import { refusal, refuse } from '../../core/errors.js';
import type { ChangeState } from '../../core/notifier.js';
import { own } from '../../core/own.js';
import type { JsonObject } from '../../core/spec.js';
import { etagFor, nextRevision, type UserRecord } from '../../core/state.js';
import type { Store as CoreStore } from '../../core/store.js';
import type { Defaults } from './defaults.js';
import { EventOrderIndex, EventTimeIndex } from './event-index.js';
import {
  type AclRecord,
  type CalendarRecord,
  type CalendarState,
  type CalendarUser,
  calendarState,
  type EventRecord,
  type ListEntryRecord,
} from './records.js';

/** The operations that name a calendar (by path, or `destination` of move) and read it through `Store.calendar`. */
const ON_A_CALENDAR = [
  'calendars.get',
  'calendars.update',
  'calendars.patch',
  'calendars.delete',
  'calendars.clear',
  'acl.list',
  'acl.insert',
  'acl.watch',
  'acl.get',
  'acl.update',
  'acl.patch',
  'acl.delete',
  'events.list',
  'events.insert',
  'events.import',
  'events.quickAdd',
  'events.watch',
  'events.get',
  'events.update',
  'events.patch',
  'events.delete',
  'events.instances',
  'events.move',
  'calendarList.insert',
];

/** A calendar id that names no calendar. */
export const CALENDAR_NOT_FOUND = refusal({
  id: 'calendar.calendarNotFound',
  scope: 'calendar',
  operations: ON_A_CALENDAR,
  status: 404,
  reason: 'notFound',
  when: 'the calendar id names no calendar',
  evidence: ['fact:conventions:errors/reasons/notFound', 'decision:0055'],
});

/** A calendar that exists, which the caller may not see at all. */
export const CALENDAR_NOT_SHARED = refusal({
  id: 'calendar.calendarNotShared',
  scope: 'calendar',
  operations: ON_A_CALENDAR,
  status: 404,
  reason: 'notFound',
  when: 'the calendar exists but no sharing rule gives the caller any role on it (Google hides it: 404, not 403)',
  evidence: ['fact:conventions:errors/reasons/notFound', 'decision:0055'],
});

/** A calendar the caller sees, with too weak a role for the operation. */
export const ROLE_TOO_WEAK = refusal({
  id: 'calendar.requiredAccessLevel',
  scope: 'calendar',
  operations: ON_A_CALENDAR,
  status: 403,
  reason: 'requiredAccessLevel',
  domain: 'calendar',
  when: 'the caller’s role on the calendar is weaker than the operation needs (writer to write events, owner for sharing)',
  evidence: ['fact:conventions:errors/reasons/forbidden', 'decision:0055'],
});

/** A calendar that is not on the caller's calendar list. */
export const NOT_ON_LIST = refusal({
  id: 'calendar.calendarNotOnList',
  scope: 'calendar',
  operations: ['calendarList.get', 'calendarList.update', 'calendarList.patch', 'calendarList.delete'],
  status: 404,
  reason: 'notFound',
  when: 'the calendar is not on the caller’s calendar list (never added, or removed)',
  evidence: ['fact:conventions:errors/reasons/notFound', 'decision:0055'],
});

/** The access roles of AclRule, weakest first. */
export const ROLES = [
  'none',
  'freeBusyReader',
  'reader',
  'writerWithoutPrivateAccess',
  'writer',
  'owner',
] as const;
export type Role = (typeof ROLES)[number];

export const roleRank = (role: unknown): number => ROLES.indexOf(role as Role);

/**
 * Calendar's store, on the core's: the state read as Calendar's (`state`), the lookups and
 * answers its handlers share, and the indexes of each calendar's events.
 */
export class Store {
  /**
   * The time index of each calendar's events, keyed by the events object itself: an object
   * replaced (reset, loaded state, deleted calendar) leaves its index unused and collected.
   */
  private readonly timeIndexes = new WeakMap<Record<string, EventRecord>, EventTimeIndex>();

  /** The order index of each calendar's events, kept like the time indexes. */
  private readonly orderIndexes = new WeakMap<Record<string, EventRecord>, EventOrderIndex>();

  /** Off, events.list sorts every event of the calendar for every page and scans them all for a time window (the benchmark's and the tests' comparison). */
  useIndexes = true;

  constructor(
    readonly core: CoreStore,
    readonly defaults: Defaults,
  ) {}

  /** The state, read as Calendar's (records.ts). */
  get state(): CalendarState {
    return calendarState(this.core.state);
  }

  /** Records that a watched resource changed (or is gone) in this request. */
  touch(key: string, change?: ChangeState): void {
    this.core.touch(key, change);
  }

  /** The user of an email, created on first sight with a primary calendar and settings. */
  user(email: string): CalendarUser {
    return own(this.state.calendar.users, email) ?? this.created(email);
  }

  private created(email: string): CalendarUser {
    this.core.user(email);
    const user = this.state.calendar.users[email];
    if (!user) throw new Error(`the user ${email} was not created`);
    return user;
  }

  /** Calendar's part of a new user: the settings of the spec's example and a primary calendar. */
  startUser(record: UserRecord): void {
    const state = this.state;
    const email = record.email;
    const user: CalendarUser = {
      settings: { ...this.defaults.settings },
      settingsRevision: nextRevision(state),
    };
    state.calendar.users[email] = user;
    const timeZone = user.settings.timezone ?? 'UTC';
    state.calendar.calendars[email] = {
      id: email,
      owner: email,
      primary: true,
      revision: nextRevision(state),
      resource: { summary: email, timeZone },
    };
    state.calendar.events[email] = {};
    state.calendar.calendarList[email] = {};
    this.addOwnerRule(email, email);
    this.addToList(email, email, {});
  }

  /**
   * The time index of a calendar's events, built on first use and again when `zone` (the
   * calendar's time zone, where its all-day dates are placed) is not the one it was built in.
   * Without `zone`, that of the calendar whose events they are.
   */
  timeIndex(events: Record<string, EventRecord>, zone = this.zoneOfEvents(events)): EventTimeIndex {
    let index = this.timeIndexes.get(events);
    if (!index || index.zone !== zone) {
      index = new EventTimeIndex(events, zone);
      this.timeIndexes.set(events, index);
    }
    return index;
  }

  /** The order index of a calendar's events (events.list without a time window), kept like the time index. */
  orderIndex(events: Record<string, EventRecord>, zone = this.zoneOfEvents(events)): EventOrderIndex {
    let index = this.orderIndexes.get(events);
    if (!index || index.zone !== zone) {
      index = new EventOrderIndex(events, zone);
      this.orderIndexes.set(events, index);
    }
    return index;
  }

  /** The time zone of the calendar whose events object this is (UTC when none is). */
  private zoneOfEvents(events: Record<string, EventRecord>): string {
    const { state } = this;
    for (const [id, held] of Object.entries(state.calendar.events))
      if (held === events) {
        const calendar = own(state.calendar.calendars, id);
        const zone = calendar?.resource.timeZone;
        return typeof zone === 'string' ? zone : 'UTC';
      }
    return 'UTC';
  }

  /**
   * Calendar id to the ids of the events written since the database last committed them, when
   * the state is kept in one (apis/calendar/storage.ts).
   */
  eventWrites: Map<string, Set<string>> | undefined;

  /**
   * Tells the indexes (those built) and the database that an event was written; every event
   * write calls it.
   */
  eventWritten(calendarId: string, events: Record<string, EventRecord>, record: EventRecord): void {
    this.timeIndexes.get(events)?.update(record.id, record.resource);
    this.orderIndexes.get(events)?.update(record.id, record);
    if (this.eventWrites) {
      const ids = this.eventWrites.get(calendarId);
      if (ids) ids.add(record.id);
      else this.eventWrites.set(calendarId, new Set([record.id]));
    }
  }

  /** The owner's own rule, present on every calendar from its creation. */
  addOwnerRule(calendarId: string, owner: string): void {
    const rules = this.state.calendar.acl[calendarId] ?? {};
    this.state.calendar.acl[calendarId] = rules;
    rules[`user:${owner}`] = {
      id: `user:${owner}`,
      revision: nextRevision(this.state),
      deleted: false,
      resource: { role: 'owner', scope: { type: 'user', value: owner } },
    };
  }

  /**
   * The user's role on a calendar: owner for its owner, else the strongest of the rules that
   * name the user, the user's domain or everyone (`default`); `none` without one.
   */
  roleOf(email: string, calendar: CalendarRecord): Role {
    if (calendar.owner === email) return 'owner';
    const rules = this.state.calendar.acl[calendar.id] ?? {};
    const domain = email.slice(email.lastIndexOf('@') + 1);
    let best = 0;
    for (const id of [`user:${email}`, `domain:${domain}`, 'default']) {
      const rule = rules[id];
      if (rule && !rule.deleted) best = Math.max(best, roleRank(rule.resource.role));
    }
    return ROLES[best] ?? 'none';
  }

  /**
   * A calendar the user may use with at least the role `need`, `primary` meaning theirs.
   * A calendar the user cannot see at all is 404 (Google hides it, never 403); one they see
   * with too weak a role is Google's 403 `requiredAccessLevel`.
   */
  calendar(user: UserRecord, calendarId: string, need: Role = 'freeBusyReader'): CalendarRecord {
    const id = calendarId === 'primary' ? user.email : calendarId;
    const calendar = own(this.state.calendar.calendars, id);
    if (!calendar) throw refuse(CALENDAR_NOT_FOUND, 'Not Found');
    const role = this.roleOf(user.email, calendar);
    if (role === 'none') throw refuse(CALENDAR_NOT_SHARED, 'Not Found');
    if (roleRank(role) < roleRank(need))
      throw refuse(
        ROLE_TOO_WEAK,
        `You need to have ${need === 'writerWithoutPrivateAccess' ? 'writer' : need} access to this calendar.`,
      );
    return calendar;
  }

  aclResource(rule: AclRecord): JsonObject {
    return {
      kind: 'calendar#aclRule',
      etag: etagFor(this.state, rule.revision),
      id: rule.id,
      ...rule.resource,
      ...(rule.deleted ? { role: 'none' } : {}),
    };
  }

  /**
   * After a sharing change: the entries of other users who list the calendar answer with the
   * new access role (their revision moves, for sync), and leave the list when no access is left.
   */
  sharingChanged(calendar: CalendarRecord): void {
    for (const [email, list] of Object.entries(this.state.calendar.calendarList)) {
      const entry = list[calendar.id];
      if (!entry || entry.deleted || email === calendar.owner) continue;
      entry.revision = nextRevision(this.state);
      if (this.roleOf(email, calendar) === 'none') entry.deleted = true;
      this.touch(`calendarList:${email}`);
    }
  }

  newSecondaryId(): string {
    return `c_${randomBytes(12).toString('hex')}@group.calendar.google.com`;
  }

  calendarResource(calendar: CalendarRecord): JsonObject {
    return {
      kind: 'calendar#calendar',
      etag: etagFor(this.state, calendar.revision),
      id: calendar.id,
      ...calendar.resource,
      dataOwner: calendar.owner,
    };
  }

  /** Puts a calendar on a user's list (again), with a palette color picked by position. */
  addToList(email: string, calendarId: string, settings: JsonObject): ListEntryRecord {
    const list = this.state.calendar.calendarList[email] ?? {};
    this.state.calendar.calendarList[email] = list;
    const palette = Object.keys((this.defaults.colors.calendar as JsonObject | undefined) ?? {});
    const colorId = palette[Object.keys(list).length % Math.max(palette.length, 1)];
    const entry: ListEntryRecord = {
      calendarId,
      revision: nextRevision(this.state),
      deleted: false,
      resource: { ...(colorId ? { colorId } : {}), hidden: false, selected: true, ...settings },
    };
    list[calendarId] = this.withColors(entry);
    this.touch(`calendarList:${email}`);
    return entry;
  }

  /** Sets the RGB colors of an entry from its colorId, as the service does. */
  withColors(entry: ListEntryRecord): ListEntryRecord {
    const colorId = entry.resource.colorId;
    const palette = this.defaults.colors.calendar as Record<
      string,
      { background?: string; foreground?: string }
    >;
    const color = typeof colorId === 'string' ? palette?.[colorId] : undefined;
    if (color?.background && color.foreground) {
      entry.resource.backgroundColor = color.background;
      entry.resource.foregroundColor = color.foreground;
    }
    return entry;
  }

  /** The revision an entry's answer depends on: its own, or its calendar's if later. */
  entryRevision(entry: ListEntryRecord): number {
    return Math.max(entry.revision, this.state.calendar.calendars[entry.calendarId]?.revision ?? 0);
  }

  listEntryResource(email: string, entry: ListEntryRecord): JsonObject {
    const calendar = this.state.calendar.calendars[entry.calendarId];
    const base: JsonObject = {
      kind: 'calendar#calendarListEntry',
      etag: etagFor(this.state, this.entryRevision(entry)),
      id: entry.calendarId,
    };
    const role = calendar ? this.roleOf(email, calendar) : 'none';
    if (entry.deleted || !calendar || role === 'none') return { ...base, deleted: true };
    const { summary, timeZone, location } = calendar.resource;
    return {
      ...base,
      ...(summary !== undefined ? { summary } : {}),
      ...(timeZone !== undefined ? { timeZone } : {}),
      ...(location !== undefined ? { location } : {}),
      ...entry.resource,
      accessRole: role,
      ...(calendar.primary && calendar.owner === email ? { primary: true } : {}),
      defaultReminders: Array.isArray(entry.resource.defaultReminders) ? entry.resource.defaultReminders : [],
    };
  }

  /** A user's entry for a calendar that is on their list (not removed). */
  listEntry(user: UserRecord, calendarId: string): ListEntryRecord {
    const id = calendarId === 'primary' ? user.email : calendarId;
    const entry = own(this.state.calendar.calendarList[user.email], id);
    if (!entry || entry.deleted) throw refuse(NOT_ON_LIST, 'Not Found');
    return entry;
  }
}
