/**
 * When to try a call again and how long to wait. Google asks clients to back off
 * exponentially with jitter and to honour `Retry-After`; this is that policy, with a total
 * time budget so that a call never retries for longer than the caller can wait.
 */
import {
  GoogleApiError,
  hasReason,
  NetworkError,
  QUOTA_REASONS,
  RATE_LIMIT_REASONS,
  TimeoutError,
} from './errors.js';

export interface RetryOptions {
  /** Attempts in all, the first one included. Default 5. */
  maxAttempts: number;
  /** The upper bound of the first wait, in ms; it doubles on every retry. Default 500. */
  initialDelayMs: number;
  /** The largest upper bound of a wait, in ms. Default 32 000. */
  maxDelayMs: number;
  /** The most time a call may take, attempts and waits together, in ms. Default 60 000. */
  budgetMs: number;
}

export const defaultRetry: RetryOptions = {
  maxAttempts: 5,
  initialDelayMs: 500,
  maxDelayMs: 32_000,
  budgetMs: 60_000,
};

/** Time as the runtime sees it. Tests inject one that records waits instead of sleeping. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects with `signal.reason` as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A number in [0, 1), for the jitter. */
  random(): number;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  random: () => Math.random(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      signal?.throwIfAborted(); // Rejects the promise with the reason.
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      function onAbort() {
        clearTimeout(timer);
        reject(signal?.reason);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** `Retry-After` as milliseconds to wait: delta-seconds or an HTTP date; undefined when absent or invalid. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const RETRY_STATUSES = [429, 500, 502, 503, 504];

/**
 * Whether a failure is worth another attempt. Quota answers never are: the quota does not
 * come back within a backoff. A 403 is retried only for the two rate-limit reasons.
 */
export function isRetryable(failure: unknown): boolean {
  if (!(failure instanceof GoogleApiError))
    return failure instanceof NetworkError || failure instanceof TimeoutError;
  if (hasReason(failure, QUOTA_REASONS)) return false;
  return failure.status === 403
    ? hasReason(failure, RATE_LIMIT_REASONS)
    : RETRY_STATUSES.includes(failure.status);
}

/** "Full jitter": a uniformly random wait between 0 and the exponential bound. */
export function backoffDelay(retry: number, options: RetryOptions, random: () => number): number {
  const bound = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * bound);
}
