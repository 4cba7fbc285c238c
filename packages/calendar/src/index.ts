import { createGoogleClient, type GoogleClientOptions } from '@gspec/runtime';
import { defaultBaseUrl } from './generated/api.js';
import type { paths } from './generated/schema.js';

export { type AccessToken, ClientConfigError, type GoogleClientOptions } from '@gspec/runtime';
export { apiName, defaultBaseUrl, type OperationId, operations } from './generated/api.js';
export type * from './generated/schema.js';

/** A typed client for the Google Calendar API v3. Its methods are openapi-fetch's: `GET`, `POST`, `PUT`, `PATCH`, `DELETE`. */
export function createCalendarClient(options?: GoogleClientOptions) {
  return createGoogleClient<paths>(defaultBaseUrl, options);
}

export type CalendarClient = ReturnType<typeof createCalendarClient>;
