/**
 * The answers of a recording replayed in order onto a small model of what they show
 * (recording.ts): a later answer wins, a successful delete removes, a cancelled event in a list
 * is a deletion; whose account each exchange is, from what the answers show.
 */
import type { RecordedExchange } from '../../core/api-module.js';
import type { SchemaTools } from '../../core/schemas.js';
import { isObject, type Json, type JsonObject } from '../../core/spec.js';
import { parseInstanceId } from './recurrence.js';

export const EVENT = '#/components/schemas/Event';
const CALENDAR = '#/components/schemas/Calendar';
export const ENTRY = '#/components/schemas/CalendarListEntry';

/** The owner of a secondary calendar whose owner no answer shows. */
export const UNKNOWN_OWNER = 'unknown-owner@calendar.invalid';

/** What the report says it left out. */
export const SKIPPED = {
  noUser: "exchanges that need the user's email, which no answer shows",
  noBody: 'answers without the resource they answer',
  noMaster: 'instances of recurring events the recording does not show',
  outsideRule: "exceptions outside their recurring event's rule",
  badCalendarId: 'calendars whose id a seed cannot hold (with #: holidays, contacts)',
  badEventId: 'events whose id the emulator does not take (not base32hex)',
  unknownSetting: 'settings the emulator does not know',
  noOwner: `calendars whose owner no answer shows (owned by ${UNKNOWN_OWNER})`,
  noSummary: 'secondary calendars without a summary (their id stands in)',
} as const;

/** What the report says it took, in this order. */
export const TAKEN = [
  'users',
  'settings',
  'calendars',
  'sharing rules',
  'calendar list entries',
  'events',
  'changed occurrences of recurring events',
  'deleted occurrences of recurring events',
] as const;

/** The operations whose answers hold nothing a seed keeps. */
const NOTHING_TO_SEED = new Set([
  'colors.get',
  'freebusy.query',
  'channels.stop',
  'acl.watch',
  'events.watch',
  'calendarList.watch',
  'settings.watch',
]);

export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const EVENT_ID = /^[a-v0-9]{5,1024}$/;

/** Whether a calendar id is a user's email, so the id of that user's primary calendar. */
export const isPrimaryId = (id: string): boolean => EMAIL.test(id) && !/calendar\.google\.com$/i.test(id);

export const text = (value: Json | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;

/** The JSON objects of an answer's list (`items`). */
const itemsOf = (body: unknown): JsonObject[] =>
  isObject(body) && Array.isArray(body.items) ? body.items.filter(isObject) : [];

export interface CalendarModel {
  id: string;
  /** The Calendar's writable fields, as the latest answers give them. */
  fields: JsonObject;
  dataOwner?: string;
  /** Recorded user to the role they were answered (`accessRole`). */
  roles: Map<string, string>;
  /** Single and recurring events by id, in the order first seen. */
  events: Map<string, JsonObject>;
  /** Instances of recurring events by instance id: answered ones, and cancelled ones. */
  instances: Map<string, JsonObject>;
  /** Sharing rules by rule id. */
  rules: Map<string, JsonObject>;
}

export interface Model {
  calendars: Map<string, CalendarModel>;
  /** Recorded user to calendar id to their list entry as answered. */
  lists: Map<string, Map<string, JsonObject>>;
  /** Recorded user to setting id to value. */
  settings: Map<string, Map<string, string>>;
  skipped: Record<string, number>;
}

export const skip = (model: Model, kind: string, n = 1): void => {
  model.skipped[kind] = (model.skipped[kind] ?? 0) + n;
};

function calendarIn(model: Model, id: string): CalendarModel {
  let calendar = model.calendars.get(id);
  if (!calendar) {
    calendar = {
      id,
      fields: {},
      roles: new Map(),
      events: new Map(),
      instances: new Map(),
      rules: new Map(),
    };
    model.calendars.set(id, calendar);
  }
  return calendar;
}

function listOf(model: Model, user: string): Map<string, JsonObject> {
  let list = model.lists.get(user);
  if (!list) {
    list = new Map();
    model.lists.set(user, list);
  }
  return list;
}

/** The email of a `self` person (organizer, creator, attendee) of an event, if any. */
function selfEmail(event: JsonObject): string | undefined {
  const people = [event.organizer, event.creator, ...(Array.isArray(event.attendees) ? event.attendees : [])];
  for (const person of people)
    if (isObject(person) && person.self === true && typeof person.email === 'string') return person.email;
  return undefined;
}

/** The user an answer shows as the caller (see the file's comment), in lower case. */
function shownUser(exchange: RecordedExchange): string | undefined {
  const { body, operationId, path } = exchange;
  let found: string | undefined;
  if (operationId === 'calendarList.list') found = text(itemsOf(body).find((e) => e.primary === true)?.id);
  else if (operationId.startsWith('calendarList.') && isObject(body) && body.primary === true)
    found = text(body.id);
  else if (
    /^calendars\.(get|update|patch)$/.test(operationId) &&
    path.calendarId === 'primary' &&
    isObject(body)
  )
    found = text(body.id);
  else if (operationId.startsWith('events.') && path.calendarId === 'primary') {
    const events = isObject(body) && Array.isArray(body.items) ? itemsOf(body) : isObject(body) ? [body] : [];
    for (const event of events) found ??= selfEmail(event);
  }
  return found !== undefined && EMAIL.test(found) ? found.toLowerCase() : undefined;
}

/** Each exchange's user: the last one shown at or before it, the first one shown before any. */
export function usersOf(exchanges: readonly RecordedExchange[]): (string | undefined)[] {
  const shown = exchanges.map(shownUser);
  const first = shown.find((user) => user !== undefined);
  let current = first;
  return shown.map((user) => {
    current = user ?? current;
    return current;
  });
}

/** An event as answered, into its calendar: an instance, a deletion, or a single or recurring event. */
function putEvent(calendar: CalendarModel, event: JsonObject): void {
  const id = text(event.id);
  if (id === undefined) return;
  if (typeof event.recurringEventId === 'string') {
    calendar.instances.set(id, event);
    return;
  }
  if (event.status === 'cancelled') {
    removeEvent(calendar, id);
    return;
  }
  calendar.events.set(id, event);
}

/** A deleted event: gone with its instances; a deleted instance is a cancelled exception. */
function removeEvent(calendar: CalendarModel, id: string): void {
  const instance = parseInstanceId(id);
  if (!calendar.events.has(id) && instance) {
    const before = calendar.instances.get(id);
    calendar.instances.set(id, {
      id,
      recurringEventId: instance.parentId,
      status: 'cancelled',
      ...(before && isObject(before.originalStartTime)
        ? { originalStartTime: before.originalStartTime }
        : {}),
    });
    return;
  }
  calendar.events.delete(id);
  for (const [key, other] of calendar.instances)
    if (other.recurringEventId === id) calendar.instances.delete(key);
}

/** What a calendar list entry (or events.list answer) shows of its calendar, onto the calendar. */
function calendarFacts(
  calendar: CalendarModel,
  answer: JsonObject,
  user: string | undefined,
  zone: boolean,
): void {
  for (const key of ['summary', 'description', 'location'] as const) {
    const value = answer[key];
    if (typeof value === 'string') calendar.fields[key] = value;
  }
  if (zone && typeof answer.timeZone === 'string') calendar.fields.timeZone = answer.timeZone;
  if (user !== undefined && typeof answer.accessRole === 'string')
    calendar.roles.set(user, answer.accessRole);
}

function putEntry(model: Model, user: string, entry: JsonObject): void {
  const id = text(entry.id);
  if (id === undefined) return;
  const list = listOf(model, user);
  if (entry.deleted === true) {
    list.delete(id);
    return;
  }
  list.set(id, entry);
  calendarFacts(calendarIn(model, id), entry, user, true);
}

function putRule(calendar: CalendarModel, rule: JsonObject): void {
  const scope = isObject(rule.scope) ? rule.scope : undefined;
  const type = text(scope?.type);
  const value = text(scope?.value);
  const id =
    text(rule.id) ?? (type === 'default' ? 'default' : type && value ? `${type}:${value}` : undefined);
  if (id === undefined || !scope || type === undefined) return;
  if (rule.role === 'none') calendar.rules.delete(id);
  // The scope's fields alone: a seed refuses a field the spec does not know.
  else if (typeof rule.role === 'string')
    calendar.rules.set(id, { role: rule.role, scope: value === undefined ? { type } : { type, value } });
}

/** Replays one exchange onto the model. */
export function replay(
  model: Model,
  exchange: RecordedExchange,
  user: string | undefined,
  tools: SchemaTools,
): void {
  const { operationId: op, body, path, query } = exchange;
  if (NOTHING_TO_SEED.has(op)) {
    skip(model, `${op} (nothing a seed keeps)`);
    return;
  }
  // `primary` and the calendar list are the user's: they need to know who that is.
  const calendarId = path.calendarId === 'primary' ? user : path.calendarId;
  const needsUser =
    path.calendarId === 'primary' || op.startsWith('calendarList.') || op.startsWith('settings.');
  if (needsUser && user === undefined) {
    skip(model, SKIPPED.noUser);
    return;
  }
  const answer = isObject(body) ? body : undefined;
  const deletes = /\.(delete|clear)$/.test(op);
  if (!answer && !deletes) {
    skip(model, SKIPPED.noBody);
    return;
  }

  switch (op) {
    case 'calendars.get':
    case 'calendars.insert':
    case 'calendars.update':
    case 'calendars.patch': {
      const id = text(answer?.id) ?? calendarId;
      if (id === undefined || !answer) {
        skip(model, SKIPPED.noBody);
        return;
      }
      const calendar = calendarIn(model, id);
      calendar.fields = tools.writable(answer, CALENDAR);
      if (typeof answer.dataOwner === 'string') calendar.dataOwner = answer.dataOwner.toLowerCase();
      return;
    }
    case 'calendars.delete':
      if (calendarId === undefined) return;
      model.calendars.delete(calendarId);
      for (const list of model.lists.values()) list.delete(calendarId);
      return;
    case 'calendars.clear': {
      const cleared = calendarId === undefined ? undefined : model.calendars.get(calendarId);
      cleared?.events.clear();
      cleared?.instances.clear();
      return;
    }
    case 'calendarList.list':
      for (const entry of itemsOf(answer)) if (user !== undefined) putEntry(model, user, entry);
      return;
    case 'calendarList.get':
    case 'calendarList.insert':
    case 'calendarList.update':
    case 'calendarList.patch':
      if (answer && user !== undefined) putEntry(model, user, answer);
      return;
    case 'calendarList.delete':
      if (user !== undefined && calendarId !== undefined) listOf(model, user).delete(calendarId);
      return;
    case 'settings.list':
    case 'settings.get': {
      if (user === undefined) return;
      let settings = model.settings.get(user);
      if (!settings) {
        settings = new Map();
        model.settings.set(user, settings);
      }
      const items = op === 'settings.list' ? itemsOf(answer) : answer ? [answer] : [];
      for (const item of items)
        if (typeof item.id === 'string' && typeof item.value === 'string') settings.set(item.id, item.value);
      return;
    }
  }
  if (calendarId === undefined) {
    skip(model, SKIPPED.noBody);
    return;
  }
  // A delete of what no answer showed changes nothing (and shows no calendar).
  const calendar = deletes ? model.calendars.get(calendarId) : calendarIn(model, calendarId);
  if (!calendar) return;
  switch (op) {
    case 'acl.list':
      for (const rule of itemsOf(answer)) putRule(calendar, rule);
      return;
    case 'acl.get':
    case 'acl.insert':
    case 'acl.update':
    case 'acl.patch':
      if (answer) putRule(calendar, answer);
      return;
    case 'acl.delete':
      if (path.ruleId !== undefined) calendar.rules.delete(path.ruleId);
      return;
    case 'events.list':
    case 'events.instances':
      // The list's own time zone is the request's `timeZone` when it gives one.
      if (answer) calendarFacts(calendar, answer, user, !query.has('timeZone'));
      for (const event of itemsOf(answer)) putEvent(calendar, event);
      return;
    case 'events.delete':
      if (path.eventId !== undefined) removeEvent(calendar, path.eventId);
      return;
    case 'events.move': {
      const destination = query.get('destination');
      const id = text(answer?.id) ?? path.eventId;
      if (id !== undefined && calendar.events.has(id)) removeEvent(calendar, id);
      if (destination && answer)
        putEvent(calendarIn(model, destination === 'primary' && user ? user : destination), answer);
      return;
    }
    default:
      // events.get, insert, import, quickAdd, update, patch: the event as it is now.
      if (op.startsWith('events.') && answer) {
        putEvent(calendar, answer);
        return;
      }
      skip(model, `${op} (nothing a seed keeps)`);
  }
}
