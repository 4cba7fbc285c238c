/**
 * Calendar's part of a seed made from a recording (`--seed-from FILE.har`): the answers are
 * replayed in order onto a small model of what they show (a later answer wins, a successful
 * delete removes, a cancelled event in a list is a deletion), and the model is written as the
 * seed's `users` (with their settings) and `calendars` (with their sharing rules, the users
 * who list them, and their events).
 *
 * - **The user.** A recording holds no credential, so whose account it is comes from the
 *   answers: the calendar list entry with `primary: true`, or what `calendars.get` of
 *   `primary` answers as its id, or a `self` person of an event of `primary`. A recording
 *   may show several users one after the other: each exchange is the last shown user's (the
 *   first's, before any is shown). What needs the user (`primary`, the calendar list,
 *   settings) is skipped when none is shown.
 * - **Recurring events.** The instances a read answers collapse onto their recurring event:
 *   one that says what the rule says is dropped, one that differs is an exception (a
 *   `recurringEventId` entry), a cancelled one an exception that deletes its occurrence.
 *   Instances of a recurring event the recording never answers are skipped.
 * - **Owners.** A user's primary calendar has the user's email as its id; a secondary one is
 *   its `dataOwner`'s, else that of an owner rule, else of a recorded user whose role is
 *   owner, else of `unknown-owner@calendar.invalid`. A recorded user who sees a calendar they
 *   do not own gets a sharing rule with the role they were answered, unless a recorded rule
 *   gives it already.
 *
 * What the seed format leaves to the emulator (etags, `htmlLink`, `created`, `updated`,
 * `creator`) is not written; ids, `iCalUID` and `sequence` are.
 */
import type { RecordedExchange, RecordingInput, RecordingPart } from '../../core/api-module.js';
import type { SchemaTools } from '../../core/schemas.js';
import { isObject, type Json, type JsonObject } from '../../core/spec.js';
import { readDefaults } from './defaults.js';
import { findInstance, parseInstanceId } from './recurrence.js';
import type { CalendarSeed, CalendarSeedUser, SeedCalendar, SeedListing } from './seed.js';
import { roleRank } from './store.js';
import { instantOfEventTime, wallOfDate } from './time.js';

const EVENT = '#/components/schemas/Event';
const CALENDAR = '#/components/schemas/Calendar';
const ENTRY = '#/components/schemas/CalendarListEntry';

/** The owner of a secondary calendar whose owner no answer shows. */
export const UNKNOWN_OWNER = 'unknown-owner@calendar.invalid';

/** What the report says it left out. */
const SKIPPED = {
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
const TAKEN = [
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

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const EVENT_ID = /^[a-v0-9]{5,1024}$/;

/** Whether a calendar id is a user's email, so the id of that user's primary calendar. */
const isPrimaryId = (id: string): boolean => EMAIL.test(id) && !/calendar\.google\.com$/i.test(id);

const text = (value: Json | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** The JSON objects of an answer's list (`items`). */
const itemsOf = (body: unknown): JsonObject[] =>
  isObject(body) && Array.isArray(body.items) ? body.items.filter(isObject) : [];

interface CalendarModel {
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

interface Model {
  calendars: Map<string, CalendarModel>;
  /** Recorded user to calendar id to their list entry as answered. */
  lists: Map<string, Map<string, JsonObject>>;
  /** Recorded user to setting id to value. */
  settings: Map<string, Map<string, string>>;
  skipped: Record<string, number>;
}

const skip = (model: Model, kind: string, n = 1): void => {
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
function usersOf(exchanges: readonly RecordedExchange[]): (string | undefined)[] {
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
function replay(
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

/** A start, end or original start: an instant when timed, the day's wall time when all day. */
function pointOf(value: Json | undefined, zone: string): number {
  if (!isObject(value)) return Number.NaN;
  if (typeof value.date === 'string') return wallOfDate(value.date);
  return instantOfEventTime(value, zone);
}

/** What an instance says besides its place in the rule, in a stable text (keys sorted). */
function content(value: Json | undefined): string {
  if (Array.isArray(value)) return `[${value.map(content).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value ?? null);
  return `{${Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${content(value[key])}`)
    .join(',')}}`;
}

/** The fields an instance has of its own, whatever the rule says. */
const OWN_FIELDS = new Set([
  'kind',
  'etag',
  'id',
  'htmlLink',
  'start',
  'end',
  'originalStartTime',
  'recurringEventId',
  'recurrence',
  'created',
  'updated',
  'sequence',
  'iCalUID',
]);

const shared = (event: JsonObject): JsonObject =>
  Object.fromEntries(Object.entries(event).filter(([key]) => !OWN_FIELDS.has(key)));

/** Whether an answered instance differs from what its recurring event says of it. */
function isException(master: JsonObject, instance: JsonObject, zone: string): boolean {
  if (content(shared(master)) !== content(shared(instance))) return true;
  const start = pointOf(instance.start, zone);
  if (start !== pointOf(instance.originalStartTime, zone)) return true;
  const length = pointOf(master.end, zone) - pointOf(master.start, zone);
  return pointOf(instance.end, zone) - start !== length;
}

/** An answered event as a seed writes it: its writable fields, the organizer only when it is another calendar. */
function seedEvent(event: JsonObject, calendarId: string, tools: SchemaTools): JsonObject {
  const body = tools.writable(event, EVENT);
  delete body.attendeesOmitted;
  const organizer = isObject(body.organizer) ? text(body.organizer.email) : undefined;
  // events.import keeps an organizer, and it needs the iCalUID.
  if (organizer === undefined || organizer.toLowerCase() === calendarId.toLowerCase() || !body.iCalUID)
    delete body.organizer;
  return body;
}

/** The sharing rule that gives `email` their role, unless the rules give at least that already. */
function accessRule(rules: Map<string, JsonObject>, email: string, role: string): JsonObject | undefined {
  const domain = email.slice(email.lastIndexOf('@') + 1);
  let best = 0;
  for (const id of [`user:${email}`, `domain:${domain}`, 'default']) {
    const rule = rules.get(id);
    if (rule) best = Math.max(best, roleRank(rule.role));
  }
  return best >= roleRank(role) ? undefined : { role, scope: { type: 'user', value: email } };
}

function ownerOf(calendar: CalendarModel, users: readonly string[], model: Model): string {
  if (isPrimaryId(calendar.id)) return calendar.id.toLowerCase();
  if (calendar.dataOwner && EMAIL.test(calendar.dataOwner)) return calendar.dataOwner;
  const owners = [...calendar.rules.values()]
    .filter((rule) => rule.role === 'owner' && isObject(rule.scope) && rule.scope.type === 'user')
    .map((rule) => (isObject(rule.scope) ? text(rule.scope.value) : undefined))
    .filter((email): email is string => email !== undefined && EMAIL.test(email))
    .map((email) => email.toLowerCase());
  const owner =
    owners.find((email) => users.includes(email)) ??
    owners[0] ??
    users.find((user) => calendar.roles.get(user) === 'owner');
  if (owner !== undefined) return owner;
  skip(model, SKIPPED.noOwner);
  return UNKNOWN_OWNER;
}

/** Whether the rule of a recurring event (as answered: it may be anything) has this instance. */
function inRule(master: JsonObject, zone: string, id: string): boolean {
  try {
    return findInstance(master, zone, id) !== undefined;
  } catch {
    return false;
  }
}

/** The events of a calendar as seed entries: single and recurring ones, then the exceptions. */
function seedEvents(
  calendar: CalendarModel,
  model: Model,
  tools: SchemaTools,
  count: (kind: (typeof TAKEN)[number]) => void,
) {
  const zone = typeof calendar.fields.timeZone === 'string' ? calendar.fields.timeZone : 'UTC';
  const out: JsonObject[] = [];
  for (const [id, event] of calendar.events) {
    if (!EVENT_ID.test(id)) {
      skip(model, SKIPPED.badEventId);
      continue;
    }
    out.push(seedEvent(event, calendar.id, tools));
    count('events');
  }
  for (const [id, instance] of calendar.instances) {
    const masterId = text(instance.recurringEventId) ?? '';
    const master = calendar.events.get(masterId);
    if (!master || !Array.isArray(master.recurrence) || !EVENT_ID.test(masterId)) {
      skip(model, SKIPPED.noMaster);
      continue;
    }
    if (parseInstanceId(id)?.parentId !== masterId || !inRule(master, zone, id)) {
      skip(model, SKIPPED.outsideRule);
      continue;
    }
    if (instance.status === 'cancelled') {
      out.push({ id, recurringEventId: masterId, status: 'cancelled' });
      count('deleted occurrences of recurring events');
    } else if (isException(master, instance, zone)) {
      const { recurrence: _rule, ...body } = seedEvent(instance, calendar.id, tools);
      out.push({ ...body, id, recurringEventId: masterId });
      count('changed occurrences of recurring events');
    }
  }
  return out;
}

/** An entry's own settings as calendarList.insert takes them (its colorId sets its colors). */
function entrySettings(entry: JsonObject, tools: SchemaTools): JsonObject | undefined {
  const settings = tools.writable(entry, ENTRY);
  for (const key of ['id', 'backgroundColor', 'foregroundColor']) delete settings[key];
  return Object.keys(settings).length > 0 ? settings : undefined;
}

/** Calendar's part of a seed made from a recording (see the file's comment). */
export function calendarSeedFromRecording(
  exchanges: readonly RecordedExchange[],
  { spec, tools }: RecordingInput,
): RecordingPart {
  const model: Model = { calendars: new Map(), lists: new Map(), settings: new Map(), skipped: {} };
  const users = usersOf(exchanges);
  exchanges.forEach((exchange, i) => {
    replay(model, exchange, users[i], tools);
  });
  const recorded = [...new Set(users.filter((user): user is string => user !== undefined))];
  // In the order the report tells them; the kinds left at 0 are not told.
  const taken: Record<string, number> = Object.fromEntries(TAKEN.map((kind) => [kind, 0]));
  const count = (kind: (typeof TAKEN)[number], n = 1) => {
    taken[kind] = (taken[kind] ?? 0) + n;
  };

  const known = new Set(Object.keys(readDefaults(spec).settings));
  const seedUsers: CalendarSeedUser[] = recorded.map((email) => {
    const settings: Record<string, string> = {};
    for (const [id, value] of model.settings.get(email) ?? []) {
      if (known.has(id)) settings[id] = value;
      else skip(model, SKIPPED.unknownSetting);
    }
    count('settings', Object.keys(settings).length);
    return Object.keys(settings).length > 0 ? { email, settings } : { email };
  });
  count('users', seedUsers.length);

  const calendars: SeedCalendar[] = [];
  for (const calendar of model.calendars.values()) {
    if (calendar.id.includes('#')) {
      skip(model, SKIPPED.badCalendarId);
      continue;
    }
    const owner = ownerOf(calendar, recorded, model);
    const primary = isPrimaryId(calendar.id);
    const entry: SeedCalendar = { id: primary ? owner : calendar.id, owner };
    const fields = calendar.fields;
    for (const key of ['summary', 'description', 'location', 'timeZone'] as const) {
      const value = fields[key];
      if (typeof value === 'string') entry[key] = value;
    }
    if (isObject(fields.conferenceProperties)) entry.conferenceProperties = fields.conferenceProperties;
    if (typeof fields.autoAcceptInvitations === 'boolean')
      entry.autoAcceptInvitations = fields.autoAcceptInvitations;
    if (!primary && entry.summary === undefined) {
      entry.summary = calendar.id;
      skip(model, SKIPPED.noSummary);
    }
    const rules = new Map([...calendar.rules].filter(([id]) => id !== `user:${owner}`));
    const listedBy: (string | SeedListing)[] = [];
    for (const user of recorded) {
      const role = calendar.roles.get(user);
      const listed = model.lists.get(user)?.get(calendar.id);
      if (user !== owner && (role !== undefined || listed)) {
        const rule = accessRule(rules, user, role ?? 'freeBusyReader');
        if (rule) rules.set(`user:${user}`, rule);
      }
      if (!listed) continue;
      const settings = entrySettings(listed, tools);
      count('calendar list entries');
      if (settings) listedBy.push({ email: user, entry: settings });
      else if (user !== owner) listedBy.push(user);
    }
    const acl = [...rules.values()];
    if (acl.length > 0) entry.acl = acl;
    count('sharing rules', acl.length);
    if (listedBy.length > 0) entry.listedBy = listedBy;
    const events = seedEvents(calendar, model, tools, count);
    if (events.length > 0) entry.events = events;
    calendars.push(entry);
    count('calendars');
  }

  const seed: CalendarSeed = {};
  if (seedUsers.length > 0) seed.users = seedUsers;
  if (calendars.length > 0) seed.calendars = calendars;
  return { seed, taken, skipped: model.skipped };
}
