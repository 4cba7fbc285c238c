import { createApiClient, type GoogleClientOptions } from '@gspec/runtime';
import { defaultBaseUrl, operations } from './generated/api.js';
import type { Resources } from './generated/methods.js';
import type { paths } from './generated/schema.js';

export * from '@gspec/runtime';
export { apiName, defaultBaseUrl, type OperationId, operations, readOnlyFields } from './generated/api.js';
export type {
  AnswerOf,
  ArgsOf,
  BodyOf,
  OperationTypes,
  Resources as CalendarResources,
} from './generated/methods.js';
export type * from './generated/schema.js';
export { type ModifyEventOptions, modifyEvent, type WritableEvent } from './modify-event.js';

/**
 * A client for the Google Calendar API v3: resource methods generated from the spec
 * (`calendar.events.list({ calendarId: 'primary' })`, which throw a GoogleApiError on
 * failure and retry what is safe to retry), and openapi-fetch's raw `GET`, `POST`, `PUT`,
 * `PATCH`, `DELETE`, `request` and `use` on the same object.
 */
export function createCalendarClient(options?: GoogleClientOptions) {
  return createApiClient<paths, Resources>(defaultBaseUrl, operations, options);
}

export type CalendarClient = ReturnType<typeof createCalendarClient>;
