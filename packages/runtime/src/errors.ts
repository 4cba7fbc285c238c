/**
 * What a failed call throws. Resource methods throw instead of returning `{ data, error }`:
 * the answer type then stays the success type, and a caller who forgets to check cannot
 * read an error as data. The raw openapi-fetch methods keep openapi-fetch's contract.
 */

/** One entry of `error.errors` in Google's error envelope. */
export interface GoogleErrorDetail {
  reason?: string;
  message?: string;
  domain?: string;
  location?: string;
  locationType?: string;
}

/** Bad options, found before anything is sent. */
export class ClientConfigError extends TypeError {
  override name = 'ClientConfigError';
}

/**
 * The service answered with an error status. Carries what Google said: `status`, the
 * `reasons` of `error.errors` (branch on these: they are stable, messages are not), the
 * message, the operation that failed and the raw body. Never the request's credentials.
 */
export class GoogleApiError extends Error {
  override name = 'GoogleApiError';
  // Declared only (assigned in the constructor), so that no empty class fields are emitted.
  /** The HTTP status. */
  declare readonly status: number;
  /** The Google method id, such as `events.list`. */
  declare readonly operationId: string;
  /** `reason` of every entry of `error.errors`, in order. */
  declare readonly reasons: string[];
  /** The entries of `error.errors`. */
  declare readonly details: GoogleErrorDetail[];
  /** The answer's body: the parsed JSON envelope, or the text when it was not JSON. */
  declare readonly body: unknown;
  /** `Retry-After` of the answer, in milliseconds, when it was sent and valid. */
  declare readonly retryAfterMs: number | undefined;

  /**
   * `options.cause`: what went wrong besides the answer, such as the failed refresh of the
   * credentials after a 401. It is kept as the cause only, never put into the message.
   */
  constructor(
    operationId: string,
    status: number,
    body: unknown,
    retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    const envelope = (body as { error?: { message?: unknown; errors?: unknown } } | null)?.error;
    const details = Array.isArray(envelope?.errors) ? (envelope.errors as GoogleErrorDetail[]) : [];
    const message =
      typeof envelope?.message === 'string'
        ? envelope.message
        : typeof body === 'string' && body
          ? body.slice(0, 200)
          : 'no message';
    const reasons = details.flatMap((d) => (typeof d.reason === 'string' ? [d.reason] : []));
    super(
      `${operationId} failed with ${status}${reasons.length ? ` (${reasons.join(', ')})` : ''}: ${message}`,
      options,
    );
    this.status = status;
    this.operationId = operationId;
    this.reasons = reasons;
    this.details = details;
    this.body = body;
    this.retryAfterMs = retryAfterMs;
  }

  /** The first reason, which is the one Google's own clients branch on. */
  get reason(): string | undefined {
    return this.reasons[0];
  }
}

/** fetch itself failed (no answer): DNS, connection refused, reset. */
export class NetworkError extends Error {
  override name = 'NetworkError';
  declare readonly operationId: string;
  constructor(operationId: string, options: { cause: unknown }) {
    super(
      `${operationId}: no answer from the service (${options.cause instanceof Error ? options.cause.message : String(options.cause)})`,
      options,
    );
    this.operationId = operationId;
  }
}

/** An attempt took longer than the call's `timeoutMs`. */
export class TimeoutError extends Error {
  override name = 'TimeoutError';
  declare readonly operationId: string;
  declare readonly timeoutMs: number;
  constructor(operationId: string, timeoutMs: number) {
    super(`${operationId}: no answer within ${timeoutMs} ms`);
    this.operationId = operationId;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A call of a batch whose answer could not be read: the batch's answer was not a
 * multipart/mixed body of HTTP answers, had no part for the call, had a part for a call the
 * request did not hold, or the call's part was a success whose body did not parse. The request
 * was sent, so whether the call took effect is unknown; `cause` holds what was wrong with the
 * body as a whole, when that was it. Never retried: resending would not make the answer
 * readable, and a write may have been done.
 */
export class BatchResponseError extends Error {
  override name = 'BatchResponseError';
  declare readonly operationId: string;
  constructor(operationId: string, message: string, options?: { cause?: unknown }) {
    super(`${operationId}: ${message}`, options);
    this.operationId = operationId;
  }
}

/** The reasons of a rate limit and of an exhausted quota; the retry policy reads them too. */
export const RATE_LIMIT_REASONS = ['rateLimitExceeded', 'userRateLimitExceeded'];
export const QUOTA_REASONS = ['quotaExceeded', 'dailyLimitExceeded'];

/** Whether Google gave one of `reasons` for the error. */
export function hasReason(error: GoogleApiError, reasons: string[]): boolean {
  return error.reasons.some((r) => reasons.includes(r));
}

/** `429`, or `403` with `rateLimitExceeded` or `userRateLimitExceeded`: slow down and retry. */
export function isRateLimited(error: unknown): error is GoogleApiError {
  return (
    error instanceof GoogleApiError &&
    (error.status === 429 || (error.status === 403 && hasReason(error, RATE_LIMIT_REASONS))) &&
    !hasReason(error, QUOTA_REASONS)
  );
}

/** `quotaExceeded` or `dailyLimitExceeded`: retrying will not help before the quota resets. */
export function isQuotaExhausted(error: unknown): error is GoogleApiError {
  return error instanceof GoogleApiError && hasReason(error, QUOTA_REASONS);
}

/** `404`: the resource does not exist or the caller cannot see it. */
export function isNotFound(error: unknown): error is GoogleApiError {
  return error instanceof GoogleApiError && error.status === 404;
}

/** `410` on a sync: the sync token is no longer valid; do a full sync. */
export function isFullSyncRequired(error: unknown): error is GoogleApiError {
  return error instanceof GoogleApiError && error.status === 410 && hasReason(error, ['fullSyncRequired']);
}

/** `410`: gone, such as an event that was already deleted (`deleted`). */
export function isGone(error: unknown): error is GoogleApiError {
  return error instanceof GoogleApiError && error.status === 410;
}

/** `412` (`conditionNotMet`): the etag of `If-Match` is no longer current; read again. */
export function isPreconditionFailed(error: unknown): error is GoogleApiError {
  return error instanceof GoogleApiError && error.status === 412;
}

/** `401`: the credentials are missing, expired or invalid. */
export function isUnauthorized(error: unknown): error is GoogleApiError {
  return error instanceof GoogleApiError && error.status === 401;
}

/** `403` that is not about rate or quota: the caller may not do this. */
export function isForbidden(error: unknown): error is GoogleApiError {
  return (
    error instanceof GoogleApiError &&
    error.status === 403 &&
    !hasReason(error, RATE_LIMIT_REASONS) &&
    !hasReason(error, QUOTA_REASONS)
  );
}

/** `409` (`duplicate`): something with this id already exists. */
export function isConflict(error: unknown): error is GoogleApiError {
  return error instanceof GoogleApiError && error.status === 409;
}

/** `400`: the request is wrong; `details` say where (`location`) and why (`reason`). */
export function isBadRequest(error: unknown): error is GoogleApiError {
  return error instanceof GoogleApiError && error.status === 400;
}
