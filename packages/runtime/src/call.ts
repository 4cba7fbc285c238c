/**
 * One call of one operation: the flat argument object split into path, query, header and
 * body, sent, retried by the policy, and answered with the success body or a thrown error.
 *
 * It encodes parameters as openapi-fetch does (url.ts), so the raw methods and the resource
 * methods send the same URLs, but it calls `fetch(url, init)` itself rather than going
 * through openapi-fetch's request pipeline: that pipeline creates a Request object, merges
 * Headers twice and runs middleware on every call, which measured about 30 % slower than a
 * bare fetch over loopback (docs/benchmarks.md). Nothing here imports openapi-fetch, so a
 * program that uses only resource methods does not bundle it.
 */
import type { CredentialHeaders, Credentials } from './auth.js';
import { GoogleApiError, NetworkError, TimeoutError } from './errors.js';
import { notModified } from './partial.js';
import { backoffDelay, type Clock, isRetryable, parseRetryAfter, type RetryOptions } from './retry.js';
import { buildUrl } from './url.js';

export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS' | 'TRACE';

/**
 * What the generated operation table says about one operation, in the form the runtime reads
 * as it is (nothing decodes it): `[operationId, method, path, query?, paging?, text?]`.
 * - `query`: for an operation that takes a JSON body, its query parameters other than `fields`,
 *   `prettyPrint` and `quotaUser`, which always go to the query; every other argument that is
 *   not a path parameter or a header makes up the body. `0` or absent: the operation takes no
 *   body, so every such argument goes to the query.
 * - `paging`: for a list operation (`x-pagination` with `pageToken`, `nextPageToken` and
 *   `items`), `1`; for one that also syncs (`x-sync` with `syncToken` and `nextSyncToken`),
 *   the parameters the service refuses together with a sync token.
 * - `text`: `1` when the success answer is text rather than JSON.
 *
 * The arguments `ifMatch` and `ifNoneMatch` are the `If-Match` and `If-None-Match` headers.
 * The generator refuses a spec that names any of these otherwise (scripts/generate.ts).
 */
export type OperationDescriptor = readonly [
  operationId: string,
  method: HttpMethod,
  path: string,
  query?: readonly string[] | 0,
  paging?: readonly string[] | 1 | 0,
  text?: 1 | 0,
];

export type OperationTable = Readonly<Record<string, OperationDescriptor>>;

/** Options of one call of a resource method. */
export interface CallOptions {
  /** Aborts the call, waits between retries included; the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The longest one attempt may take, body included; a slower attempt fails with `TimeoutError` (and may be retried). */
  timeoutMs?: number;
  /**
   * Whether repeating this POST or PATCH is harmless. They are not retried otherwise,
   * since a lost answer does not say whether the first attempt took effect.
   */
  idempotent?: boolean;
  /** Overrides the client's retry policy for this call; `false` sends once. */
  retry?: Partial<RetryOptions> | false;
}

/** `fetch` as openapi-fetch's raw methods call it (with a `Request`); the global one by default. */
export type FetchLike = (input: string | Request, init?: RequestInit) => Promise<Response>;

/** What the resource methods pass to fetch besides the URL; a `RequestInit`. */
export interface CallInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** What the resource methods read of an answer; a fetch `Response` has all of it. */
export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/**
 * `fetch` as the resource methods call it: always a URL string and an init. The global
 * fetch is one; so is `nodeFetch` of `@gspec/runtime/node`.
 */
export type CallFetch = (url: string, init: CallInit) => Promise<FetchResponse>;

export interface CallContext {
  baseUrl: string;
  fetch: CallFetch;
  headers: Record<string, string> | undefined;
  credentials: Credentials;
  querySerializer: (query: Record<string, unknown>) => string;
  retry: RetryOptions | false;
  timeoutMs: number | undefined;
  clock: Clock;
  /** Said with a 404 when the baseUrl lacks the API's base path: the baseUrl that was probably meant. */
  notFoundHint?: string | undefined;
}

/** Google's standard query parameters: they always go to the query, and no descriptor lists them. */
const STANDARD_QUERY = ['fields', 'prettyPrint', 'quotaUser'];

/** Methods whose repetition is harmless; a POST or PATCH is repeated only when the call says so. */
const REPEATABLE = ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'];

/** Whether a call may be sent again after a failure that left its effect unknown. */
export function isRepeatable(
  op: OperationDescriptor,
  options: { idempotent?: boolean | undefined },
): boolean {
  return options.idempotent === true || REPEATABLE.includes(op[1]);
}

/** The client's retry policy with a call's (or a batch's) own over it; `false` when it sends once. */
export function policyOf(context: CallContext, retry: Partial<RetryOptions> | false | undefined) {
  return retry === false || !context.retry ? false : { ...context.retry, ...retry };
}

/** An answer read whole: a batch part's answer has the same shape as one of fetch's. */
export interface Answer {
  status: number;
  headers: FetchResponse['headers'];
  text: string;
}

/**
 * The URL and init of one call: parameters split into path, query, headers and body. A batch
 * (batch.ts) encodes each of its calls from this too, so a call sends the same request alone
 * or in a batch.
 */
export function requestOf(
  op: OperationDescriptor,
  args: Record<string, unknown>,
  context: CallContext,
): { url: string; init: CallInit } {
  const [operationId, method, path, names] = op;
  const query: Record<string, unknown> = {};
  const headers: Record<string, string> = { ...context.headers };
  const init: CallInit = { method, headers };
  const body: Record<string, unknown> | undefined = names ? {} : undefined;
  for (const key in args) {
    const value = args[key];
    // Path parameters are filled in by buildUrl, from `args`.
    if (value === undefined || path.includes(`{${key}}`)) continue;
    if (key === 'ifMatch') headers['If-Match'] = String(value);
    else if (key === 'ifNoneMatch') headers['If-None-Match'] = String(value);
    else if (!body || STANDARD_QUERY.includes(key) || (names as readonly string[]).includes(key))
      query[key] = value;
    else body[key] = value;
  }
  if (body) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  return { url: buildUrl(operationId, context.baseUrl, path, args, context.querySerializer(query)), init };
}

/** One attempt; the timeout covers reading the body too, since a stalled body is a stalled call. */
export async function attempt(
  context: CallContext,
  operationId: string,
  url: string,
  init: CallInit,
  timeoutMs: number | undefined,
  signal: AbortSignal | undefined,
): Promise<Answer> {
  const read = async (requestSignal: AbortSignal | undefined): Promise<Answer> => {
    const response = await context.fetch(url, requestSignal ? { ...init, signal: requestSignal } : init);
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  if (!timeoutMs) return read(signal);
  const controller = new AbortController();
  const stopTimer = new AbortController();
  const forward = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', forward, { once: true });
  context.clock.sleep(timeoutMs, stopTimer.signal).then(
    () => controller.abort(new TimeoutError(operationId, timeoutMs)),
    () => {},
  );
  try {
    return await read(controller.signal);
  } catch (error) {
    controller.signal.throwIfAborted();
    throw error;
  } finally {
    stopTimer.abort();
    signal?.removeEventListener('abort', forward);
  }
}

function parse(op: OperationDescriptor, answer: Answer): unknown {
  if (op[5]) return answer.text;
  return answer.text ? JSON.parse(answer.text) : undefined;
}

/**
 * What an answer means for a call that sent `init`: the value it resolves to (the body, or
 * `NotModified` for a 304 to a conditional read), or the GoogleApiError of an error status.
 * Throws when a success body does not parse.
 */
export function outcomeOf(
  op: OperationDescriptor,
  init: CallInit,
  answer: Answer,
  now: number,
  notFoundHint?: string,
): { ok: true; value: unknown } | { ok: false; error: GoogleApiError } {
  if (answer.status >= 200 && answer.status < 300) return { ok: true, value: parse(op, answer) };
  // A conditional read whose tag is current: the caller keeps its copy (no body).
  const ifNoneMatch = init.headers['If-None-Match'];
  if (answer.status === 304 && ifNoneMatch !== undefined)
    return { ok: true, value: notModified(answer.headers.get('etag'), ifNoneMatch) };
  return { ok: false, error: errorOf(op[0], answer, now, notFoundHint) };
}

/** The GoogleApiError of an error answer; `notFoundHint` is said with a 404. */
export function errorOf(
  operationId: string,
  answer: Answer,
  now: number,
  notFoundHint?: string,
): GoogleApiError {
  let body: unknown = answer.text;
  try {
    body = JSON.parse(answer.text);
  } catch {
    // Not JSON (a proxy's HTML page, say): keep the text.
  }
  return new GoogleApiError(
    operationId,
    answer.status,
    body,
    parseRetryAfter(answer.headers.get('retry-after'), now),
    { hint: answer.status === 404 ? notFoundHint : undefined },
  );
}

/** Calls one operation with the retry policy; resolves to the success body, throws the last failure. */
export async function callOperation(
  context: CallContext,
  op: OperationDescriptor,
  args: Record<string, unknown> = {},
  options: CallOptions = {},
): Promise<unknown> {
  const { signal } = options;
  signal?.throwIfAborted();
  const operationId = op[0];
  const { url, init } = requestOf(op, args, context);
  const policy = policyOf(context, options.retry);
  const repeatable = isRepeatable(op, options);
  const timeoutMs = options.timeoutMs ?? context.timeoutMs;
  const { clock, credentials } = context;
  const started = clock.now();
  // Whether the credentials were refreshed after a 401 (once per call), and the headers that
  // refresh gave, for the attempt after it.
  let refreshed = false;
  let renewed: CredentialHeaders | undefined;
  for (let attempts = 1; ; attempts++) {
    const sent = renewed ?? (await credentials.headers(url));
    renewed = undefined;
    let failure: GoogleApiError | NetworkError | TimeoutError;
    try {
      const answer = await attempt(
        context,
        operationId,
        url,
        sent ? { ...init, headers: { ...init.headers, ...sent } } : init,
        timeoutMs,
        signal,
      );
      const outcome = outcomeOf(op, init, answer, clock.now(), context.notFoundHint);
      if (outcome.ok) return outcome.value;
      failure = outcome.error;
    } catch (error) {
      signal?.throwIfAborted();
      failure =
        error instanceof TimeoutError
          ? error
          : new NetworkError(operationId, { cause: error, url, attempts });
    }
    // Refused credentials are refreshed once, whatever the method: nothing was done with the
    // request. The attempt with the new ones does not count. When the refresh fails, the 401
    // is thrown with the reason as its cause.
    if (failure instanceof GoogleApiError && failure.status === 401 && credentials.refresh && !refreshed) {
      refreshed = true;
      try {
        renewed = await credentials.refresh(url, sent);
      } catch (cause) {
        throw new GoogleApiError(operationId, failure.status, failure.body, failure.retryAfterMs, { cause });
      }
      if (renewed) {
        attempts--;
        continue;
      }
    }
    if (!policy || !repeatable || attempts >= policy.maxAttempts || !isRetryable(failure)) throw failure;
    const wait =
      (failure instanceof GoogleApiError ? failure.retryAfterMs : undefined) ??
      backoffDelay(attempts, policy, clock.random);
    if (clock.now() - started + wait > policy.budgetMs) throw failure;
    await clock.sleep(wait, signal);
  }
}
