export type { AccessToken, TokenProvider } from './auth.js';
export type {
  CallOptions,
  FetchLike,
  HttpMethod,
  OperationDescriptor,
  OperationTable,
} from './call.js';
export { createApiClient, createGoogleClient, type GoogleClientOptions } from './client.js';
export {
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
  ListMethod,
  Method,
  PageIterator,
  SyncListMethod,
  SyncOptions,
  SyncResult,
} from './methods.js';
export { type Clock, defaultRetry, type RetryOptions, systemClock } from './retry.js';
