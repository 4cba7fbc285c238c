/**
 * events.* writes and reads of one event. The type rules come from the spec: x-event-types
 * says which event types an operation takes, and x-deprecated-behavior
 * `nonDefaultEventTypeFallback` turns a refusal into the conversion to `default`.
 */

import { ApiError, alreadyDeleted, badRequest, duplicate, notFound } from '../../core/errors.js';
import { own } from '../../core/own.js';
import { isObject, type JsonObject } from '../../core/spec.js';
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
  storeEvent,
  typeSpecificProperties,
} from './event-model.js';
import type { CalendarHandlers, Conditional, OnCalendar, OnEvent } from './handler-types.js';
import { applyPatch, withoutNullMembers } from './patch.js';
import { parseQuickAdd } from './quick-add.js';
import type { EventRecord } from './records.js';
import { findInstance, isRecurring, parseInstanceId } from './recurrence.js';
import type { Role } from './store.js';

const FALLBACK = 'nonDefaultEventTypeFallback';
/** The response header naming a deprecated behaviour the emulator applied to the request. */
export const DEPRECATED_BEHAVIOR_HEADER = 'x-emulator-deprecated-behavior';

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
  const events = context.store.state.events[calendar.id] ?? {};
  const record = own(events, id);
  if (record) return record;
  const parent = own(events, parseInstanceId(id)?.parentId ?? '');
  if (!parent || parent.resource.status === 'cancelled' || !isRecurring(parent.resource)) throw notFound();
  const instance = findInstance(parent.resource, calendarZone(calendar), id);
  if (!instance) throw notFound();
  return { id, seq: parent.seq, revision: parent.revision, resource: instance.resource };
}

function typeRestriction(context: Context<unknown>, type: string): ApiError {
  return new ApiError(400, [
    {
      domain: 'calendar',
      reason: 'eventTypeRestriction',
      message: `${context.op.id} takes only events of type ${context.op.eventTypes?.join(', ')}; this event is ${type}`,
      location: 'eventType',
      locationType: 'parameter',
    },
  ]);
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

function answer(record: EventRecord, deprecated?: string) {
  return {
    body: record.resource,
    ...(deprecated ? { headers: { [DEPRECATED_BEHAVIOR_HEADER]: deprecated } } : {}),
  };
}

function replace(context: OnCalendar & Conditional, record: EventRecord, fields: JsonObject): EventRecord {
  checkIfMatch(context, record);
  const current = eventTypeOf(record.resource);
  if (fields.eventType !== undefined && fields.eventType !== current)
    throw badRequest('invalid', `The eventType of an event cannot change (it is ${current})`, 'eventType');
  checkTimes(fields);
  return storeEvent(context, {
    calendar: calendarOf(context),
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
    if (own(context.store.state.events[calendar.id], id))
      throw duplicate('The requested identifier already exists.');
    checkTimes(fields);
    return answer(storeEvent(context, { calendar, id, fields }));
  },

  'events.import'(context) {
    const calendar = calendarOf(context);
    const fields = context.tools.writable(context.request.body, EVENT);
    const deprecated = applyEventTypes(context, fields);
    checkTimes(fields);
    const organizer = isObject(fields.organizer) ? fields.organizer : undefined;
    delete fields.organizer;
    // Importing a UID the calendar already has updates that copy instead of adding one.
    const events = Object.values(context.store.state.events[calendar.id] ?? {});
    const previous = events.find((event) => event.resource.iCalUID === fields.iCalUID);
    const id = previous?.id ?? (typeof fields.id === 'string' ? fields.id : newEventId());
    if (!previous) {
      checkEventId(id);
      if (own(context.store.state.events[calendar.id], id))
        throw duplicate('The requested identifier already exists.');
    }
    const record = storeEvent(context, {
      calendar,
      id,
      fields,
      ...(previous ? { previous } : {}),
      ...(organizer ? { organizer } : {}),
    });
    return answer(record, deprecated);
  },

  'events.quickAdd'(context) {
    const calendar = calendarOf(context);
    const fields = parseQuickAdd(context.request.query.text, new Date());
    return answer(storeEvent(context, { calendar, id: newEventId(), fields }));
  },

  'events.get'(context) {
    const calendar = calendarOf(context, 'freeBusyReader');
    const record = eventOf(context, 'freeBusyReader');
    return { body: eventView(record.resource, context.store.roleOf(context.user.email, calendar)) };
  },

  'events.update'(context) {
    const record = eventOf(context);
    return answer(replace(context, record, context.tools.writable(context.request.body, EVENT)));
  },

  'events.patch'(context) {
    const record = eventOf(context);
    // Given fields replace (arrays and objects whole), omitted fields keep their value, and
    // null removes a field. The body was validated against EventPatch, where only fields that
    // may be absent take null; pruning against Event keeps nulls and drops read-only fields.
    const stored = context.tools.writable(record.resource, EVENT);
    const given = withoutNullMembers(context.tools.writable(context.request.body, EVENT), ['start', 'end']);
    return answer(replace(context, record, applyPatch(stored, given)));
  },

  'events.delete'(context) {
    const record = eventOf(context);
    checkIfMatch(context, record);
    if (record.resource.status === 'cancelled') throw alreadyDeleted();
    const calendar = calendarOf(context);
    cancelEvent(context, calendar.id, record);
    // Deleting a recurring event deletes its changed instances too.
    if (isRecurring(record.resource))
      for (const other of Object.values(context.store.state.events[calendar.id] ?? {}))
        if (other.resource.recurringEventId === record.id && other.resource.status !== 'cancelled')
          cancelEvent(context, calendar.id, other);
    return {};
  },

  'events.move'(context) {
    const record = eventOf(context);
    const source = calendarOf(context);
    const destination = context.store.calendar(context.user, context.request.query.destination, WRITE);
    if (record.resource.status === 'cancelled') throw notFound();
    const type = eventTypeOf(record.resource);
    if (context.op.eventTypes && !context.op.eventTypes.includes(type)) throw typeRestriction(context, type);
    if (destination.id === source.id) return answer(record);
    const there = own(context.store.state.events[destination.id], record.id);
    if (there && there.resource.status !== 'cancelled')
      throw duplicate('The requested identifier already exists.');
    const fields = context.tools.writable(record.resource, EVENT);
    delete fields.organizer;
    // The source keeps a cancelled copy, so that its sync sees the event leave.
    cancelEvent(context, source.id, record);
    const moved = storeEvent(context, {
      calendar: destination,
      id: record.id,
      fields: { ...fields, status: 'confirmed' },
      organizer: calendarOrganizer(destination),
      ...(there ? { previous: there } : {}),
    });
    // The event keeps its history: who made it and when.
    moved.resource.created = record.resource.created ?? moved.resource.created ?? null;
    moved.resource.creator = record.resource.creator ?? moved.resource.creator ?? null;
    return answer(moved);
  },
};
