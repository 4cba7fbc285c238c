/**
 * events.* writes and reads of one event. The type rules come from the spec: x-event-types
 * says which event types an operation takes, and x-deprecated-behavior
 * `nonDefaultEventTypeFallback` turns a refusal into the conversion to `default`.
 */

import { type ApiError, refusal, refuse } from '../../core/errors.js';
import { storedResource } from '../../core/json.js';
import { own } from '../../core/own.js';
import { isObject, type Json, type JsonObject } from '../../core/spec.js';
import type { Context } from './context.js';
import {
  calendarOrganizer,
  calendarZone,
  cancelEvent,
  checkEventId,
  checkIfMatch,
  checkTimes,
  EVENT,
  eventTypeOf,
  eventView,
  newEventId,
  shapeAnswer,
  storeEvent,
  typeSpecificProperties,
} from './event-model.js';
import type { CalendarHandlers, Conditional, OnCalendar, OnEvent } from './handler-types.js';
import { applyPatch, withoutNullMembers } from './patch.js';
import { parseQuickAdd } from './quick-add.js';
import type { EventRecord } from './records.js';
import { findInstance, isRecurring, parseInstanceId } from './recurrence.js';
import type { Role } from './store.js';
import { isTimeZone } from './time.js';

const FALLBACK = 'nonDefaultEventTypeFallback';
/** The response header naming a deprecated behaviour the emulator applied to the request. */
export const DEPRECATED_BEHAVIOR_HEADER = 'x-emulator-deprecated-behavior';

/** An event id the calendar does not have. */
export const EVENT_NOT_FOUND = refusal({
  id: 'calendar.eventNotFound',
  scope: 'calendar',
  operations: [
    'events.get',
    'events.update',
    'events.patch',
    'events.delete',
    'events.move',
    'events.instances',
  ],
  status: 404,
  reason: 'notFound',
  when: 'the eventId is no event of the calendar, nor an instance of one of its recurring events that are not deleted',
  evidence: ['fact:conventions:errors/reasons/notFound', 'decision:0055'],
});

/** An id that is taken where the event would be stored. */
export const EVENT_ID_TAKEN = refusal({
  id: 'calendar.eventIdTaken',
  scope: 'calendar',
  operations: ['events.insert', 'events.import', 'events.move'],
  status: 409,
  reason: 'duplicate',
  when: 'the calendar the event would be stored in already has an event with its id (for move: one not deleted)',
  evidence: ['fact:conventions:errors/reasons/duplicate', 'decision:0055'],
});

/** Deleting what is deleted. */
export const EVENT_ALREADY_DELETED = refusal({
  id: 'calendar.eventAlreadyDeleted',
  scope: 'calendar',
  operations: ['events.delete'],
  status: 410,
  reason: 'deleted',
  when: 'the event (or instance) to delete is deleted already',
  evidence: ['fact:conventions:errors/reasons/deleted', 'decision:0055'],
});

/** An operation that takes only some event types, given another (x-event-types). */
export const EVENT_TYPE_RESTRICTION = refusal({
  id: 'calendar.eventTypeRestriction',
  scope: 'calendar',
  operations: ['events.move', 'events.import'],
  status: 400,
  reason: 'eventTypeRestriction',
  domain: 'calendar',
  when: 'the event’s type is not one the operation takes (`x-event-types`: move takes `default` only; import falls back instead when the spec says so)',
  evidence: ['decision:0055'],
});

/** A write that changes an event's type. */
export const EVENT_TYPE_CHANGE = refusal({
  id: 'calendar.eventTypeChange',
  scope: 'calendar',
  operations: ['events.update', 'events.patch'],
  status: 400,
  reason: 'invalid',
  location: 'eventType',
  when: 'an update or patch gives the event another `eventType` than it was created with',
  evidence: ['decision:0055'],
});

/** Writing events needs writer access (with or without private access). */
const WRITE: Role = 'writerWithoutPrivateAccess';

function calendarOf(context: OnCalendar, need: Role = WRITE) {
  return context.store.calendar(context.user, context.request.path.calendarId, need);
}

/**
 * The event of the path: a stored one, or an instance of a recurring event (not stored until
 * it is changed or cancelled, when it becomes an exception under its instance id).
 */
function eventOf(context: OnEvent, need: Role = WRITE): EventRecord {
  const calendar = calendarOf(context, need);
  const id = context.request.path.eventId;
  const events = context.store.state.calendar.events[calendar.id] ?? {};
  const record = own(events, id);
  if (record) return record;
  const parent = own(events, parseInstanceId(id)?.parentId ?? '');
  const missing = () => refuse(EVENT_NOT_FOUND, 'Not Found');
  if (!parent || parent.resource.status === 'cancelled' || !isRecurring(parent.resource)) throw missing();
  const instance = findInstance(parent.resource, calendarZone(calendar), id);
  if (!instance) throw missing();
  return { id, seq: parent.seq, revision: parent.revision, resource: instance.resource };
}

function typeRestriction(context: Context<unknown>, type: string): ApiError {
  return refuse(
    EVENT_TYPE_RESTRICTION,
    `${context.op.id} takes only events of type ${context.op.eventTypes?.join(', ')}; this event is ${type}`,
  );
}

/**
 * Applies x-event-types to the fields of a write. Returns the deprecated behaviour applied,
 * if any, so that the answer can report it.
 */
function applyEventTypes(context: Context<unknown>, fields: JsonObject): string | undefined {
  const allowed = context.op.eventTypes;
  const type = typeof fields.eventType === 'string' ? fields.eventType : 'default';
  if (!allowed || allowed.includes(type)) return undefined;
  if (!context.op.deprecatedBehaviors.some((b) => b.name === FALLBACK)) throw typeRestriction(context, type);
  fields.eventType = 'default';
  for (const property of typeSpecificProperties(context)) delete fields[property];
  return FALLBACK;
}

/** The answer of a write: the event as stored, shaped by the request's `maxAttendees` (if it has one). */
function answer(context: Context<unknown>, record: EventRecord, maxAttendees?: number, deprecated?: string) {
  const body = shapeAnswer(record.resource, {
    caller: context.user.email,
    ...(maxAttendees !== undefined ? { maxAttendees } : {}),
  });
  return {
    // The stored event itself, unshaped: answered (and kept by the journal) as it is stored.
    body: body === record.resource ? storedResource(body) : body,
    ...(deprecated ? { headers: { [DEPRECATED_BEHAVIOR_HEADER]: deprecated } } : {}),
  };
}

/**
 * `attendeesOmitted: true` in a write says the attendees given are not all of them (a client
 * that read the event with `maxAttendees` writes back what it got): each given attendee
 * replaces the stored one with the same email, the others stay. The flag describes an answer,
 * so it is not stored.
 */
function mergeOmittedAttendees(fields: JsonObject, stored: JsonObject | undefined): void {
  const omitted = fields.attendeesOmitted === true;
  delete fields.attendeesOmitted;
  if (!omitted || !Array.isArray(stored?.attendees)) return;
  const given = Array.isArray(fields.attendees) ? fields.attendees : [];
  const key = (attendee: Json) =>
    isObject(attendee) && typeof attendee.email === 'string' ? attendee.email.toLowerCase() : undefined;
  const byEmail = new Map(given.map((attendee) => [key(attendee), attendee]));
  const merged = stored.attendees.map((attendee) => {
    const email = key(attendee);
    const replaced = email === undefined ? undefined : byEmail.get(email);
    if (email !== undefined) byEmail.delete(email);
    return replaced ?? attendee;
  });
  for (const [email, attendee] of byEmail) if (email !== undefined) merged.push(attendee);
  fields.attendees = merged;
}

function replace(context: OnCalendar & Conditional, record: EventRecord, fields: JsonObject): EventRecord {
  checkIfMatch(context, record);
  const current = eventTypeOf(record.resource);
  if (fields.eventType !== undefined && fields.eventType !== current)
    throw refuse(EVENT_TYPE_CHANGE, `The eventType of an event cannot change (it is ${current})`, {
      location: 'eventType',
    });
  const calendar = calendarOf(context);
  mergeOmittedAttendees(fields, record.resource);
  checkTimes(fields, calendarZone(calendar));
  return storeEvent(context, {
    calendar,
    id: record.id,
    fields: { ...fields, eventType: current },
    previous: record,
  });
}

export const eventHandlers: CalendarHandlers = {
  'events.insert'(context) {
    const calendar = calendarOf(context);
    const fields = context.tools.writable(context.request.body, EVENT);
    delete fields.organizer;
    const chosen = typeof fields.id === 'string' ? fields.id : undefined;
    // An id the client chose must be one Google would take; ours always are.
    if (chosen !== undefined) checkEventId(chosen);
    const id = chosen ?? newEventId();
    if (own(context.store.state.calendar.events[calendar.id], id))
      throw refuse(EVENT_ID_TAKEN, 'The requested identifier already exists.');
    mergeOmittedAttendees(fields, undefined);
    checkTimes(fields, calendarZone(calendar));
    return answer(context, storeEvent(context, { calendar, id, fields }), context.request.query.maxAttendees);
  },

  'events.import'(context) {
    const calendar = calendarOf(context);
    const fields = context.tools.writable(context.request.body, EVENT);
    const deprecated = applyEventTypes(context, fields);
    mergeOmittedAttendees(fields, undefined);
    checkTimes(fields, calendarZone(calendar));
    const organizer = isObject(fields.organizer) ? fields.organizer : undefined;
    delete fields.organizer;
    // Importing a UID the calendar already has updates that copy instead of adding one.
    const events = Object.values(context.store.state.calendar.events[calendar.id] ?? {});
    const previous = events.find((event) => event.resource.iCalUID === fields.iCalUID);
    const id = previous?.id ?? (typeof fields.id === 'string' ? fields.id : newEventId());
    if (!previous) {
      checkEventId(id);
      if (own(context.store.state.calendar.events[calendar.id], id))
        throw refuse(EVENT_ID_TAKEN, 'The requested identifier already exists.');
    }
    const record = storeEvent(context, {
      calendar,
      id,
      fields,
      ...(previous ? { previous } : {}),
      ...(organizer ? { organizer } : {}),
    });
    return answer(context, record, undefined, deprecated);
  },

  'events.quickAdd'(context) {
    const calendar = calendarOf(context);
    const fields = parseQuickAdd(context.request.query.text, new Date());
    return answer(context, storeEvent(context, { calendar, id: newEventId(), fields }));
  },

  'events.get'(context) {
    const calendar = calendarOf(context, 'freeBusyReader');
    const record = eventOf(context, 'freeBusyReader');
    const { maxAttendees, timeZone } = context.request.query;
    const view = eventView(record.resource, context.store.roleOf(context.user.email, calendar));
    return {
      body: shapeAnswer(view, {
        caller: context.user.email,
        ...(maxAttendees !== undefined ? { maxAttendees } : {}),
        ...(timeZone !== undefined && isTimeZone(timeZone) ? { zone: timeZone } : {}),
      }),
    };
  },

  'events.update'(context) {
    const record = eventOf(context);
    const fields = context.tools.writable(context.request.body, EVENT);
    return answer(context, replace(context, record, fields), context.request.query.maxAttendees);
  },

  'events.patch'(context) {
    const record = eventOf(context);
    // Given fields replace (arrays and objects whole), omitted fields keep their value, and
    // null removes a field. The body was validated against EventPatch, where only fields that
    // may be absent take null; pruning against Event keeps nulls and drops read-only fields.
    const stored = context.tools.writable(record.resource, EVENT);
    const given = withoutNullMembers(context.tools.writable(context.request.body, EVENT), ['start', 'end']);
    return answer(
      context,
      replace(context, record, applyPatch(stored, given)),
      context.request.query.maxAttendees,
    );
  },

  'events.delete'(context) {
    const record = eventOf(context);
    checkIfMatch(context, record);
    if (record.resource.status === 'cancelled')
      throw refuse(EVENT_ALREADY_DELETED, 'Resource has been deleted');
    const calendar = calendarOf(context);
    cancelEvent(context, calendar.id, record);
    // Deleting a recurring event deletes its changed instances too.
    if (isRecurring(record.resource))
      for (const other of Object.values(context.store.state.calendar.events[calendar.id] ?? {}))
        if (other.resource.recurringEventId === record.id && other.resource.status !== 'cancelled')
          cancelEvent(context, calendar.id, other);
    return {};
  },

  'events.move'(context) {
    const record = eventOf(context);
    const source = calendarOf(context);
    const destination = context.store.calendar(context.user, context.request.query.destination, WRITE);
    const type = eventTypeOf(record.resource);
    if (context.op.eventTypes && !context.op.eventTypes.includes(type)) throw typeRestriction(context, type);
    if (destination.id === source.id) return answer(context, record);
    const there = own(context.store.state.calendar.events[destination.id], record.id);
    if (there && there.resource.status !== 'cancelled')
      throw refuse(EVENT_ID_TAKEN, 'The requested identifier already exists.');
    const fields = context.tools.writable(record.resource, EVENT);
    delete fields.organizer;
    // A deleted event moves as it is (still deleted): nothing says the service refuses it.
    const status = record.resource.status === 'cancelled' ? 'cancelled' : 'confirmed';
    // The source keeps a cancelled copy, so that its sync sees the event leave.
    cancelEvent(context, source.id, record);
    const moved = storeEvent(context, {
      calendar: destination,
      id: record.id,
      fields: { ...fields, status },
      organizer: calendarOrganizer(destination),
      ...(there ? { previous: there } : {}),
    });
    // The event keeps its history: who made it and when.
    moved.resource.created = record.resource.created ?? moved.resource.created ?? null;
    moved.resource.creator = record.resource.creator ?? moved.resource.creator ?? null;
    return answer(context, moved);
  },
};
