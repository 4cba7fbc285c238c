export type { AccessToken, AuthHeaders, GoogleAuthLike, TokenProvider } from './auth.js';
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
export type { GoogleClientOptions, ResourceClientOptions } from './config.js';
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
export type {
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
} from './methods.js';
export { isNotModified, type NotModified, type Selected, type Trimmed } from './partial.js';
export { createResourceClient } from './resources.js';
export { type Clock, defaultRetry, type RetryOptions, systemClock } from './retry.js';
