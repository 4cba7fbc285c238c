import { createGoogleClient, type GoogleClientOptions } from '@gspec/runtime';
import { defaultBaseUrl } from './generated/api.js';
import type { paths } from './generated/schema.js';

export { type AccessToken, ClientConfigError, type GoogleClientOptions } from '@gspec/runtime';
export { apiName, defaultBaseUrl, type OperationId, operations } from './generated/api.js';
export type * from './generated/schema.js';

/** A typed client for the Search Ads 360 API v2. Its methods are openapi-fetch's: `GET`, `POST`, `PUT`, `PATCH`, `DELETE`. */
export function createSearchAds360Client(options?: GoogleClientOptions) {
  return createGoogleClient<paths>(defaultBaseUrl, options);
}

export type SearchAds360Client = ReturnType<typeof createSearchAds360Client>;
