import {
  type BoundResources,
  bindOperations,
  type ClientOptions,
  createApiClient,
  createResourceClient,
  type GoogleClientOptions,
  type ResourceClientOptions,
} from '@gspec/runtime';
import { defaultBaseUrl, type OperationId, operations } from './generated/api.js';
import type { ResourceMethods, Resources } from './generated/methods.js';
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
// apiName, defaultBaseUrl, OperationId, readOnlyFields, every operation on its own
// (`conversionInsert`, for createSearchAds360With) and all of them by operationId (`operations`).
export * from './generated/api.js';
export { operations } from './generated/api.js';
// The argument type of every operation (`EventsInsertArgs`), its body type where it requires more
// than its schema (`EventsInsertBody`), OperationTypes, ArgsOf, BodyOf and AnswerOf.
export type * from './generated/methods.js';
export type { Resources as SearchAds360Resources } from './generated/methods.js';
export type * from './generated/schema.js';
export type * from './generated/types.js';

/** One operation of Search Ads 360 as `createSearchAds360With` takes it: `conversionInsert`, ... */
export type SearchAds360Operation = (typeof operations)[OperationId];

/** The client `createSearchAds360With` makes of the operations `Id`. */
export type SearchAds360Of<Id extends OperationId> = BoundResources<ResourceMethods, Id>;

/**
 * A client for the Search Ads 360 API v2 with the operations given and no others:
 * `createSearchAds360With({ accessToken }, conversionInsert)` has `searchAds.conversion.insert`.
 * A bundler leaves every other operation out of the program, and the google-auth-library glue
 * too unless the program imports it: give a library client as `auth: googleAuth(client)`.
 * Same options and same behaviour as `createSearchAds360` otherwise.
 */
export function createSearchAds360With<
  const Ops extends readonly [SearchAds360Operation, ...SearchAds360Operation[]],
>(options: ClientOptions, ...ops: Ops): SearchAds360Of<Ops[number][0]> {
  return bindOperations(defaultBaseUrl, options, ops);
}

/**
 * A client for the Search Ads 360 API v2 with every resource method generated from the spec
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
