/**
 * The state with the lookups and resource shapes the handlers share: users and their primary
 * calendars, access to a calendar, and the Calendar and CalendarListEntry answers.
 */
import { randomBytes } from 'node:crypto';
import type { Defaults } from './defaults.js';
import { notFound } from './errors.js';
import type { JsonObject } from './spec.js';
import {
  type CalendarRecord,
  emptyState,
  etagFor,
  type ListEntryRecord,
  nextRevision,
  type State,
  type UserRecord,
} from './state.js';

export class Store {
  state: State = emptyState();

  constructor(readonly defaults: Defaults) {}

  /** The user of an email, created on first sight with a primary calendar and settings. */
  user(email: string): UserRecord {
    const existing = this.state.users[email];
    if (existing) return existing;
    const state = this.state;
    const user: UserRecord = {
      email,
      settings: { ...this.defaults.settings },
      settingsRevision: nextRevision(state),
    };
    state.users[email] = user;
    const timeZone = user.settings.timezone ?? 'UTC';
    state.calendars[email] = {
      id: email,
      owner: email,
      primary: true,
      revision: nextRevision(state),
      resource: { summary: email, timeZone },
    };
    state.events[email] = {};
    state.calendarList[email] = {};
    this.addToList(email, email, {});
    return user;
  }

  /** A calendar the user may use, `primary` meaning theirs; others' calendars are 404. */
  calendar(user: UserRecord, calendarId: string): CalendarRecord {
    const id = calendarId === 'primary' ? user.email : calendarId;
    const calendar = this.state.calendars[id];
    // Until ACL rules exist, only the owner reaches a calendar; Google answers 404, not 403,
    // for a calendar the caller cannot see.
    if (!calendar || calendar.owner !== user.email) throw notFound();
    return calendar;
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
    const list = this.state.calendarList[email] ?? {};
    this.state.calendarList[email] = list;
    const palette = Object.keys((this.defaults.colors.calendar as JsonObject | undefined) ?? {});
    const colorId = palette[Object.keys(list).length % Math.max(palette.length, 1)];
    const entry: ListEntryRecord = {
      calendarId,
      revision: nextRevision(this.state),
      deleted: false,
      resource: { ...(colorId ? { colorId } : {}), hidden: false, selected: true, ...settings },
    };
    list[calendarId] = this.withColors(entry);
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
    return Math.max(entry.revision, this.state.calendars[entry.calendarId]?.revision ?? 0);
  }

  listEntryResource(email: string, entry: ListEntryRecord): JsonObject {
    const calendar = this.state.calendars[entry.calendarId];
    const base: JsonObject = {
      kind: 'calendar#calendarListEntry',
      etag: etagFor(this.state, this.entryRevision(entry)),
      id: entry.calendarId,
    };
    if (entry.deleted || !calendar) return { ...base, deleted: true };
    const { summary, timeZone, location } = calendar.resource;
    return {
      ...base,
      ...(summary !== undefined ? { summary } : {}),
      ...(timeZone !== undefined ? { timeZone } : {}),
      ...(location !== undefined ? { location } : {}),
      ...entry.resource,
      accessRole: calendar.owner === email ? 'owner' : 'reader',
      ...(calendar.primary && calendar.owner === email ? { primary: true } : {}),
      defaultReminders: Array.isArray(entry.resource.defaultReminders) ? entry.resource.defaultReminders : [],
    };
  }

  /** A user's entry for a calendar that is on their list (not removed). */
  listEntry(user: UserRecord, calendarId: string): ListEntryRecord {
    const id = calendarId === 'primary' ? user.email : calendarId;
    const entry = this.state.calendarList[user.email]?.[id];
    if (!entry || entry.deleted) throw notFound();
    return entry;
  }
}
