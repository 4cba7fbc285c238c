export type { AccessToken, AuthHeaders, AuthSource, GoogleAuthLike, TokenProvider } from './auth.js';
export {
  type Batch,
  type BatchBuilder,
  type BatchCall,
  type BatchCallError,
  type BatchCallOptions,
  type BatchConditionalMethod,
  type BatchConditionalMethodOptionalArgs,
  type BatchEndpoint,
  type BatchFailure,
  type BatchMaskedMethod,
  type BatchMaskedMethodOptionalArgs,
  type BatchMethod,
  type BatchMethodOptionalArgs,
  type BatchOptions,
  type BatchResult,
  type BatchResults,
  type BatchSuccess,
  createBatchClient,
  googleBatchUrl,
} from './batch.js';
export type {
  CallFetch,
  CallInit,
  CallOptions,
  FetchLike,
  FetchResponse,
  HttpMethod,
  OperationDescriptor,
  OperationTable,
} from './call.js';
export { createApiClient, createGoogleClient } from './client.js';
export type { ClientOptions, GoogleClientOptions, ResourceClientOptions } from './config.js';
export {
  BatchResponseError,
  ClientConfigError,
  GoogleApiError,
  type GoogleErrorDetail,
  isBadRequest,
  isConflict,
  isForbidden,
  isFullSyncRequired,
  isGone,
  isNotFound,
  isPreconditionFailed,
  isQuotaExhausted,
  isRateLimited,
  isUnauthorized,
  NetworkError,
  TimeoutError,
} from './errors.js';
export { type EtagUpdate, type ReadOnlyShape, updateWithEtag, withoutReadOnly } from './etag.js';
export { googleAuth } from './google-auth.js';
export type {
  BoundResources,
  ConditionalMethod,
  ConditionalMethodOptionalArgs,
  MaskedMethod,
  MaskedMethodOptionalArgs,
  Method,
  MethodOptionalArgs,
  Paged,
  PagedOptionalArgs,
  PageIterator,
  PagesMethod,
  PagesMethodOptionalArgs,
  Syncing,
  SyncOptions,
  SyncResult,
  Walkable,
  WalkTypes,
} from './methods.js';
export { items, type ListMethod, pages, sync } from './paging.js';
export { isNotModified, type NotModified, type Selected, type Trimmed } from './partial.js';
export { bindOperations, createResourceClient } from './resources.js';
export { type Clock, defaultRetry, type RetryOptions, systemClock } from './retry.js';
