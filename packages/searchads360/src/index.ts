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
export {
  type AlreadyStoredRow,
  type ConversionBatchOptions,
  type ConversionBatchResult,
  type ConversionInput,
  ConversionUploadError,
  DuplicateConversionError,
  type FailedConversion,
  insertConversions,
  type StoredRow,
  updateConversions,
} from './conversions.js';
export { apiName, defaultBaseUrl, type OperationId, operations, readOnlyFields } from './generated/api.js';
// The argument type of every operation (`EventsInsertArgs`), its body type where it requires more
// than its schema (`EventsInsertBody`), OperationTypes, ArgsOf, BodyOf and AnswerOf.
export type * from './generated/methods.js';
export type { Resources as SearchAds360Resources } from './generated/methods.js';
export type * from './generated/schema.js';
export type * from './generated/types.js';

/**
 * A client for the Search Ads 360 API v2 with the resource methods generated from the spec
 * (`searchAds.conversion.insert({ conversion: [...] })`, which throw a GoogleApiError on
 * failure and retry what is safe to retry), and nothing else: a program that uses only this
 * does not bundle openapi-fetch. For openapi-fetch's raw methods as well, use
 * `createSearchAds360Client`.
 */
export function createSearchAds360(options?: ResourceClientOptions): Resources {
  return createResourceClient<Resources>(defaultBaseUrl, operations, options);
}

/**
 * A client for the Search Ads 360 API v2: the resource methods of `createSearchAds360`, and
 * openapi-fetch's raw `GET`, `POST`, `PUT`, `PATCH`, `DELETE`, `request` and `use` on the
 * same object. The ID-mapping CSV parser is in `@gspec/searchads360/id-mapping`, so that
 * only programs that read the file load csv-parse.
 */
export function createSearchAds360Client(options?: GoogleClientOptions) {
  return createApiClient<paths, Resources>(defaultBaseUrl, operations, options);
}

export type SearchAds360Client = ReturnType<typeof createSearchAds360Client>;
