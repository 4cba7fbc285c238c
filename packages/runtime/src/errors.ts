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

/** What to do about an error status, from what Google said; '' when nothing general helps. */
function adviceOf(status: number, reasons: string[]): string {
  const has = (list: string[]) => reasons.some((r) => list.includes(r));
  return has(QUOTA_REASONS)
    ? 'quota used up: retrying will not help before it resets'
    : status === 429 || has(RATE_LIMIT_REASONS)
      ? 'too many requests: slow down, or let the retry option wait'
      : status === 401
        ? 'check accessToken or auth: missing, expired or not for this API'
        : status === 403
          ? "check the token's scopes and the account's access"
          : '';
}

/**
 * The service answered with an error status. Carries what Google said: `status`, the
 * `reasons` of `error.errors` (branch on these: they are stable, messages are not), the
 * message, the operation that failed and the raw body. Never the request's credentials.
 * The message also says the first problems of `error.errors` (field and message) and what to
 * do, when the status tells.
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
   * `options.hint`: what to do, when the caller knows better than the status (a 404 to a
   * baseUrl without the API's base path).
   */
  constructor(
    operationId: string,
    status: number,
    body: unknown,
    retryAfterMs?: number,
    options?: { cause?: unknown; hint?: string | undefined },
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
    // The first three problems, `field: message`, or `at field` when the message says it all.
    const problems = details.slice(0, 3).flatMap(({ location, message: said }) => {
      const where = typeof location === 'string' && location ? location : '';
      const text = typeof said === 'string' && said && said !== message ? said : '';
      return text ? [where ? `${where}: ${text}` : text] : where ? [`at ${where}`] : [];
    });
    if (details.length > 3) problems.push(`${details.length - 3} more in error.details`);
    const advice = options?.hint || adviceOf(status, reasons);
    super(
      `${operationId} failed with ${status}${reasons.length ? ` (${reasons.join(', ')})` : ''}: ${message}${problems.length ? ` (${problems.join('; ')})` : ''}${advice ? `; ${advice}` : ''}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
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

/**
 * A URL as it may be shown: without the user and password of its authority, and without the
 * values of the `key` and `access_token` query parameters.
 */
export const shownUrl = (url: string): string =>
  url.replace(/\/\/[^/@]*@/, '//').replace(/([?&](?:key|access_token)=)[^&#]*/gi, '$1…');

/** What an error says, with the messages (or codes) of its causes: `fetch failed: connect ECONNREFUSED 127.0.0.1:4011`. */
function reasonOf(error: unknown): string {
  const said: string[] = [];
  for (let at = error, depth = 0; at != null && depth < 4; at = (at as Error).cause, depth++) {
    const { message, code } = at as { message?: unknown; code?: unknown };
    said.push(String((typeof message === 'string' && message) || code || at));
  }
  return said.join(': ');
}

/** fetch itself failed (no answer): DNS, connection refused, reset. */
export class NetworkError extends Error {
  override name = 'NetworkError';
  declare readonly operationId: string;
  /**
   * `options.url`: the URL the call went to (shown without credentials); `options.attempts`:
   * how many attempts got no answer.
   */
  constructor(operationId: string, options: { cause: unknown; url?: string; attempts?: number }) {
    const { cause, url, attempts = 1 } = options;
    const shown = url && shownUrl(url);
    super(
      shown
        ? `${operationId}: no answer from ${shown} after ${attempts} attempt${attempts > 1 ? 's' : ''} (${reasonOf(cause)}); is a server running at ${/^[^:]+:\/\/[^/?#]*/.exec(shown)?.[0]}?`
        : `${operationId}: no answer from the service (${reasonOf(cause)})`,
      { cause },
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
