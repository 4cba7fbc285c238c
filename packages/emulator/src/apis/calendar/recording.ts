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
import {
  type CalendarModel,
  EMAIL,
  ENTRY,
  EVENT,
  EVENT_ID,
  isPrimaryId,
  type Model,
  replay,
  SKIPPED,
  skip,
  TAKEN,
  text,
  UNKNOWN_OWNER,
  usersOf,
} from './recording-replay.js';
import { findInstance, parseInstanceId } from './recurrence.js';
import type { CalendarSeed, CalendarSeedUser, SeedCalendar, SeedListing } from './seed.js';
import { roleRank } from './store.js';
import { instantOfEventTime, wallOfDate } from './time.js';

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
