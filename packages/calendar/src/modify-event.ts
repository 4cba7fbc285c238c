import { type CallOptions, updateWithEtag, withoutReadOnly } from '@gspec/runtime';
import { readOnlyFields } from './generated/api.js';
import type { AnswerOf, ArgsOf, Resources } from './generated/methods.js';
import type { EventInput } from './generated/types.js';

type EventIds = Pick<ArgsOf<'events.get'>, 'calendarId' | 'eventId'>;
/**
 * The event as `events.update` takes it: what was read, without the read-only fields. Its
 * `start` and `end` are optional, as in what was read (decision 0060).
 */
export type WritableEvent = EventInput;

export interface ModifyEventOptions {
  /** Attempts in all when other writers keep changing the event (412). Default 3. */
  maxAttempts?: number;
  /**
   * Query parameters of the update, such as `sendUpdates`; not `fields`, since the answer is
   * the whole event as stored.
   */
  update?: Omit<
    ArgsOf<'events.update'>,
    keyof WritableEvent | 'calendarId' | 'eventId' | 'ifMatch' | 'fields'
  >;
  /** Options of every call. */
  call?: CallOptions;
}

/**
 * The atomic partial update of an event: `events.get`, your change, `events.update` with
 * `If-Match` set to the etag that was read. When someone else changed the event in between
 * (412), it reads the event again and calls `change` again, up to `maxAttempts` times.
 * `change` receives the event without its read-only fields, so spreading it is a valid body.
 */
export function modifyEvent(
  calendar: { events: Pick<Resources['events'], 'get' | 'update'> },
  ids: EventIds,
  change: (event: WritableEvent) => WritableEvent | Promise<WritableEvent>,
  options: ModifyEventOptions = {},
): Promise<AnswerOf<'events.update'>> {
  return updateWithEtag({
    read: () => calendar.events.get(ids, options.call),
    change: (current) => change(withoutReadOnly(current, readOnlyFields.Event) as WritableEvent),
    write: (event, etag) =>
      calendar.events.update({ ...options.update, ...event, ...ids, ifMatch: etag }, options.call),
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
  });
}
