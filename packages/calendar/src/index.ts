import {
  createApiClient,
  createResourceClient,
  type GoogleClientOptions,
  type ResourceClientOptions,
} from '@gspec/runtime';
import { defaultBaseUrl, operations } from './generated/api.js';
import type { Resources } from './generated/methods.js';
import type { paths } from './generated/schema.js';

export * from '@gspec/runtime';
export { apiName, defaultBaseUrl, type OperationId, operations, readOnlyFields } from './generated/api.js';
// The argument type of every operation (`EventsInsertArgs`), its body type where it requires more
// than its schema (`EventsInsertBody`), OperationTypes, ArgsOf, BodyOf and AnswerOf.
export type * from './generated/methods.js';
export type { Resources as CalendarResources } from './generated/methods.js';
export type * from './generated/schema.js';
export type * from './generated/types.js';
export { type ModifyEventOptions, modifyEvent, type WritableEvent } from './modify-event.js';

/**
 * A client for the Google Calendar API v3 with the resource methods generated from the
 * spec (`calendar.events.list({ calendarId: 'primary' })`, which throw a GoogleApiError on
 * failure and retry what is safe to retry), and nothing else: a program that uses only this
 * does not bundle openapi-fetch. For openapi-fetch's raw methods as well, use
 * `createCalendarClient`.
 */
export function createCalendar(options?: ResourceClientOptions): Resources {
  return createResourceClient<Resources>(defaultBaseUrl, operations, options);
}

/**
 * A client for the Google Calendar API v3: the resource methods of `createCalendar`, and
 * openapi-fetch's raw `GET`, `POST`, `PUT`, `PATCH`, `DELETE`, `request` and `use` on the
 * same object.
 */
export function createCalendarClient(options?: GoogleClientOptions) {
  return createApiClient<paths, Resources>(defaultBaseUrl, operations, options);
}

export type CalendarClient = ReturnType<typeof createCalendarClient>;
