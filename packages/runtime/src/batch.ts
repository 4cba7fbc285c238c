/**
 * Batch requests: many calls of one API sent as one HTTP request, `POST /batch/<api>/<version>`
 * with a multipart/mixed body of HTTP requests, answered by one multipart/mixed body of HTTP
 * answers (the wire format is multipart.ts's). What Google's batches save is connections and
 * round trips, not quota: every call counts as if sent alone, and the service caps the calls of
 * one request (Calendar: 50).
 *
 * `client.batch((b) => [b.events.get(args), ...])` takes calls made by a builder whose methods
 * mirror the resource methods: each takes the same argument and returns a description of the
 * call instead of sending it. Every call is encoded by the code of a single call (call.ts
 * `requestOf`), so a call sends the same path, query, headers and body alone or in a batch, and
 * its answer is read by the same code too (`outcomeOf`): a 304 to `ifNoneMatch` is `NotModified`,
 * an error status a GoogleApiError.
 *
 * The batch never throws for a call: it resolves to one result per call, in call order, each
 * `{ ok: true, value }` or `{ ok: false, error }`. A batch of many writes that stopped at its
 * first failure would leave the caller not knowing which of the others took effect. It rejects
 * only for what is no call's fault: an argument that cannot be encoded (nothing is sent then),
 * bad options, and the caller's `signal`.
 */
import type { CredentialHeaders } from './auth.js';
import {
  type Answer,
  attempt,
  type CallContext,
  type CallInit,
  errorOf,
  isRepeatable,
  type OperationDescriptor,
  type OperationTable,
  outcomeOf,
  policyOf,
  requestOf,
} from './call.js';
import { checkRetry, type ResourceClientOptions, resolve } from './config.js';
import {
  BatchResponseError,
  ClientConfigError,
  GoogleApiError,
  isUnauthorized,
  NetworkError,
  TimeoutError,
} from './errors.js';
import { acceptLibraryClient } from './google-auth.js';
import type { Masked, MaskedAndTagged, Plain, Tagged } from './methods.js';
import {
  type BatchPartRequest,
  type BatchPartResponse,
  encodeBatchRequest,
  parseBatchResponse,
} from './multipart.js';
import type { NotModified, Trimmed } from './partial.js';
import { backoffDelay, isRetryable, type RetryOptions } from './retry.js';

/** Options of one call in a batch. */
export interface BatchCallOptions {
  /**
   * Whether sending this POST or PATCH twice is harmless, as for a single call: only then is it
   * retried after a failure that does not say whether it took effect (a 503 of its part or of
   * the whole batch). An `events.insert` with an `id` of your choosing is such a call: a repeat
   * that finds the event made answers 409.
   */
  idempotent?: boolean;
}

/** Options of one batch. */
export interface BatchOptions {
  /**
   * Aborts the batch, waits included: it rejects with the signal's reason, and the results of
   * the calls answered before are not reported.
   */
  signal?: AbortSignal;
  /**
   * The longest one HTTP request of the batch (up to `maxCalls` calls) may take, its answer
   * read; the client's `timeoutMs` by default. A request that takes longer fails each of its
   * calls with a TimeoutError, retried as a single call's.
   */
  timeoutMs?: number;
  /** Overrides the client's retry policy for the calls of this batch; `false` sends each call once. */
  retry?: Partial<RetryOptions> | false;
  /** The most calls in one HTTP request: the API's limit (Calendar: 50) by default, and at most. */
  maxCalls?: number;
}

declare const answerType: unique symbol;

/** One call of a batch, made by the builder (`b.events.get({ ... })`); its type carries its answer's. */
export interface BatchCall<Answer> {
  /** The Google method id, such as `events.get`. */
  readonly operationId: string;
  /** Never set: the type of the call's answer, for the batch's results. */
  readonly [answerType]?: Answer;
}

/** What failed a call of a batch. */
export type BatchCallError = GoogleApiError | NetworkError | TimeoutError | BatchResponseError;

/** A call of a batch that succeeded: its answer, as the resource method would resolve to it. */
export interface BatchSuccess<T> {
  readonly ok: true;
  readonly value: T;
}

/** A call of a batch that failed: what the resource method would have thrown (or a BatchResponseError). */
export interface BatchFailure {
  readonly ok: false;
  readonly error: BatchCallError;
}

/** The result of one call of a batch; `ok` tells which. */
export type BatchResult<T> = BatchSuccess<T> | BatchFailure;

type AnswerOfCall<Call> = Call extends BatchCall<infer Answer> ? Answer : never;

/** The results of the calls of a batch, in their order: a tuple for a tuple, an array for an array. */
export type BatchResults<Calls extends readonly BatchCall<unknown>[]> = {
  -readonly [Index in keyof Calls]: BatchResult<AnswerOfCall<Calls[Index]>>;
};

/*
 * The builder's methods take what the resource methods take, with the same overloads, and
 * return a BatchCall of what they would resolve to: with a `fields` mask the answer is
 * `Trimmed`, with `ifNoneMatch` it may be `NotModified`. See methods.ts.
 */

/** A builder method without a `fields` mask, whose argument has required members. */
export type BatchMethod<Args, Answer> = (args: Args, options?: BatchCallOptions) => BatchCall<Answer>;

/** {@link BatchMethod} whose argument may be left out. */
export type BatchMethodOptionalArgs<Args, Answer> = (
  args?: Args,
  options?: BatchCallOptions,
) => BatchCall<Answer>;

/** A builder method that takes a `fields` mask, whose argument has required members. */
export interface BatchMaskedMethod<Args, Answer> {
  (args: Args & Plain, options?: BatchCallOptions): BatchCall<Answer>;
  (args: Args & Masked, options?: BatchCallOptions): BatchCall<Trimmed<Answer>>;
  (args: Args & { ifNoneMatch?: undefined }, options?: BatchCallOptions): BatchCall<Trimmed<Answer>>;
}

/** {@link BatchMaskedMethod} whose argument may be left out. */
export interface BatchMaskedMethodOptionalArgs<Args, Answer> {
  (args?: Args & Plain, options?: BatchCallOptions): BatchCall<Answer>;
  (args?: Args & Masked, options?: BatchCallOptions): BatchCall<Trimmed<Answer>>;
  (args?: Args & { ifNoneMatch?: undefined }, options?: BatchCallOptions): BatchCall<Trimmed<Answer>>;
}

/** A builder method of a read that takes a `fields` mask and `ifNoneMatch`, whose argument has required members. */
export interface BatchConditionalMethod<Args, Answer> {
  (args: Args & Plain, options?: BatchCallOptions): BatchCall<Answer>;
  (args: Args & Masked, options?: BatchCallOptions): BatchCall<Trimmed<Answer>>;
  (args: Args & Tagged, options?: BatchCallOptions): BatchCall<Answer | NotModified>;
  (args: Args & MaskedAndTagged, options?: BatchCallOptions): BatchCall<Trimmed<Answer> | NotModified>;
  (args: Args & { fields?: undefined }, options?: BatchCallOptions): BatchCall<Answer | NotModified>;
  (args: Args, options?: BatchCallOptions): BatchCall<Trimmed<Answer> | NotModified>;
}

/** {@link BatchConditionalMethod} whose argument may be left out. */
export interface BatchConditionalMethodOptionalArgs<Args, Answer> {
  (args?: Args & Plain, options?: BatchCallOptions): BatchCall<Answer>;
  (args?: Args & Masked, options?: BatchCallOptions): BatchCall<Trimmed<Answer>>;
  (args?: Args & Tagged, options?: BatchCallOptions): BatchCall<Answer | NotModified>;
  (args?: Args & MaskedAndTagged, options?: BatchCallOptions): BatchCall<Trimmed<Answer> | NotModified>;
  (args?: Args & { fields?: undefined }, options?: BatchCallOptions): BatchCall<Answer | NotModified>;
  (args?: Args, options?: BatchCallOptions): BatchCall<Trimmed<Answer> | NotModified>;
}

/**
 * The builder method of one operation. It follows the rule by which the generator picks the
 * resource method's kind (a `fields` parameter: masked; an `ifNoneMatch` header too:
 * conditional; no required member: the argument may be left out), read off the argument type.
 * It is evaluated once per operation, when the builder type is, never at a call.
 */
type BatchMethodOf<Args, Answer> = 'ifNoneMatch' extends keyof Args
  ? Partial<Args> extends Args
    ? BatchConditionalMethodOptionalArgs<Args, Answer>
    : BatchConditionalMethod<Args, Answer>
  : 'fields' extends keyof Args
    ? Partial<Args> extends Args
      ? BatchMaskedMethodOptionalArgs<Args, Answer>
      : BatchMaskedMethod<Args, Answer>
    : Partial<Args> extends Args
      ? BatchMethodOptionalArgs<Args, Answer>
      : BatchMethod<Args, Answer>;

type ResourceOf<Id> = Id extends `${infer Resource}.${string}` ? Resource : never;

/**
 * The builder of a batch: one namespace per resource, one method per operation
 * (`b.events.insert(args)`), from the generated `OperationTypes` of a client. The method id is
 * split at its first dot, as for the resource methods.
 */
export type BatchBuilder<Operations extends Record<keyof Operations, { args: unknown; answer: unknown }>> = {
  readonly [Resource in ResourceOf<keyof Operations>]: {
    readonly [Id in keyof Operations as Id extends `${Resource}.${infer Name}` ? Name : never]: BatchMethodOf<
      Operations[Id]['args'],
      Operations[Id]['answer']
    >;
  };
};

/**
 * `client.batch(build, options)`: `build` gets the builder and returns the calls, as an array
 * or a tuple; the batch resolves to their results in the same order.
 */
export type Batch<Builder> = <const Calls extends readonly BatchCall<unknown>[]>(
  build: (b: Builder) => Calls,
  options?: BatchOptions,
) => Promise<BatchResults<Calls>>;

/** What an API says about its batches; the client package passes it to the runtime. */
export interface BatchEndpoint {
  /** The most calls the service takes in one batch request (Calendar: 50). */
  readonly limit: number;
  /** The batch URL for the client's base URL; {@link googleBatchUrl} unless said. */
  readonly url?: (baseUrl: string) => string;
}

/** The scheme and host of a checked base URL (config.ts), and the path after them. */
function splitBaseUrl(baseUrl: string): { origin: string; basePath: string } {
  const pathStart = baseUrl.indexOf('/', baseUrl.indexOf('//') + 2);
  return pathStart < 0
    ? { origin: baseUrl, basePath: '' }
    : { origin: baseUrl.slice(0, pathStart), basePath: baseUrl.slice(pathStart) };
}

/**
 * Where the batches of an API go, in Google's form: `/batch` and the API's base path, at the
 * host's root. `https://www.googleapis.com/calendar/v3` batches to
 * `https://www.googleapis.com/batch/calendar/v3`, `http://127.0.0.1:4011/calendar/v3` to
 * `http://127.0.0.1:4011/batch/calendar/v3`.
 */
export function googleBatchUrl(baseUrl: string): string {
  const { origin, basePath } = splitBaseUrl(baseUrl);
  return `${origin}/batch${basePath}`;
}

/** A call the builder made; `batch` checks that it holds one of these, of its own table. */
class BuiltCall {
  constructor(
    readonly op: OperationDescriptor,
    readonly args: Record<string, unknown>,
    readonly options: BatchCallOptions,
  ) {}

  get operationId(): string {
    return this.op[0];
  }
}

/** The builder of a table: the namespaces of the resource methods, making calls instead of sending them. */
function bindBuilder(table: OperationTable): Record<string, Record<string, unknown>> {
  const namespaces: Record<string, Record<string, unknown>> = {};
  for (const op of Object.values(table)) {
    const id = op[0];
    const dot = id.indexOf('.');
    namespaces[id.slice(0, dot)] ??= {};
    (namespaces[id.slice(0, dot)] as Record<string, unknown>)[id.slice(dot + 1)] = (
      args: Record<string, unknown> = {},
      options: BatchCallOptions = {},
    ) => new BuiltCall(op, args, options);
  }
  return namespaces;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: BatchCallError };

/** One call of a running batch. */
interface Entry {
  /** Its place among the calls. */
  index: number;
  call: BuiltCall;
  /** The request of a single call, which the part encodes. */
  init: CallInit;
  part: BatchPartRequest;
  repeatable: boolean;
  /** Times sent; a resend after renewed credentials does not count, as for a single call. */
  attempts: number;
  /** When it was first sent, for the retry budget. */
  started: number | undefined;
  /** Whether credentials were renewed after a 401 to it (once per call). */
  refreshed: boolean;
}

const fail = (error: BatchCallError): Outcome => ({ ok: false, error });

/** The Content-ID an answer part carries for the request part `id`. */
const answerId = (id: string) => `response-${id}`;

/** Header names of a part whose answer is read through `Answer['headers']`. */
const headersOf = (headers: Record<string, string>): Answer['headers'] => ({
  get: (name) => headers[name.toLowerCase()] ?? null,
});

const utf8 = /* @__PURE__ */ new TextEncoder();

/**
 * The `batch` method of a client: it sends the calls `maxCalls` at a time, one request after
 * another (every call counts against the per-user rate limits as if sent alone, so requests
 * side by side would mostly trade waits for `rateLimitExceeded` answers), and retries each call
 * by the client's policy:
 *
 * - a call whose part failed with a retryable status (429, 5xx, 403 `rateLimitExceeded`, ...)
 *   goes into a later request, with the calls not sent yet, after the backoff; the calls
 *   answered keep their answer;
 * - a request that failed as a whole (its own 5xx or 429, no answer, a timeout) is a failure of
 *   each of its calls, so its calls are sent again after the backoff, like single calls;
 * - POST and PATCH calls are retried only when marked `idempotent`, attempts and the time
 *   budget count per call, from its first sending;
 * - a 401, to the request or to parts of it, renews the credentials once for those calls and
 *   resends them, as for single calls.
 */
export function createBatch(
  context: CallContext,
  table: OperationTable,
  endpoint: BatchEndpoint,
): (build: (b: unknown) => unknown, options?: BatchOptions) => Promise<BatchResult<unknown>[]> {
  const builder = bindBuilder(table);
  const batchUrl = (endpoint.url ?? googleBatchUrl)(context.baseUrl);
  const { origin } = splitBaseUrl(context.baseUrl);
  const { clock, credentials } = context;
  // Each part carries only its own headers: the client's go on the batch request, whose headers
  // other than the Content- ones the service applies to every part.
  const partContext: CallContext = { ...context, headers: undefined };

  /** The entries of what `build` returned; throws, before anything is sent, for what is no call. */
  function entriesOf(calls: unknown): Entry[] {
    if (!Array.isArray(calls))
      throw new TypeError(
        'batch: the function must return an array of calls made by its argument, such as [b.events.get({ ... })]',
      );
    return calls.map((call: unknown, index) => {
      if (!(call instanceof BuiltCall) || table[call.op[0]] !== call.op)
        throw new TypeError(
          `batch: item ${index} is not a call made by the batch's argument (b.events.get({ ... })); a resource method's promise is none`,
        );
      const { url, init } = requestOf(call.op, call.args, partContext);
      const headers = { ...init.headers };
      if (init.body !== undefined) headers['Content-Length'] = String(utf8.encode(init.body).length);
      const part: BatchPartRequest = {
        method: init.method,
        target: url.slice(origin.length),
        headers,
        contentId: `call-${index + 1}`,
        ...(init.body !== undefined ? { body: init.body } : {}),
      };
      return {
        index,
        call,
        init,
        part,
        repeatable: isRepeatable(call.op, call.options),
        attempts: 0,
        started: undefined,
        refreshed: false,
      };
    });
  }

  /** The answers of one request's parts, paired with its calls by Content-ID, or why they cannot be. */
  function pair(chunk: Entry[], parts: BatchPartResponse[]): (BatchPartResponse | undefined)[] | string {
    const byId = new Map(chunk.map((entry, at) => [answerId(entry.part.contentId as string), at]));
    const answered: (BatchPartResponse | undefined)[] = new Array(chunk.length);
    for (const [number, part] of parts.entries()) {
      const at = part.contentId === undefined ? undefined : byId.get(part.contentId);
      if (at === undefined)
        return `part ${number + 1} of the batch's answer has ${part.contentId === undefined ? 'no Content-ID' : `Content-ID <${part.contentId}>, which answers no call of the request`}`;
      if (answered[at]) return `the batch's answer has two parts with Content-ID <${part.contentId}>`;
      answered[at] = part;
    }
    return answered;
  }

  /** Sends one request with the calls of `chunk`: the outcome of each, in chunk order. */
  async function send(
    chunk: Entry[],
    sent: CredentialHeaders | undefined,
    timeoutMs: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Outcome[]> {
    const { contentType, body } = encodeBatchRequest(chunk.map((entry) => entry.part));
    const init: CallInit = {
      method: 'POST',
      headers: { ...context.headers, ...sent, 'Content-Type': contentType },
      body,
    };
    let answer: Answer;
    try {
      answer = await attempt(context, 'batch', batchUrl, init, timeoutMs, signal);
    } catch (error) {
      signal?.throwIfAborted();
      return chunk.map((entry) =>
        fail(
          error instanceof TimeoutError
            ? new TimeoutError(entry.call.operationId, error.timeoutMs)
            : new NetworkError(entry.call.operationId, {
                cause: error,
                url: batchUrl,
                attempts: entry.attempts,
              }),
        ),
      );
    }
    const now = clock.now();
    if (answer.status < 200 || answer.status >= 300)
      return chunk.map(({ call }) => fail(errorOf(call.operationId, answer, now, context.notFoundHint)));
    let answered: (BatchPartResponse | undefined)[] | string;
    let cause: unknown;
    try {
      answered = pair(chunk, parseBatchResponse(answer.headers.get('content-type'), answer.text));
    } catch (error) {
      cause = error;
      answered = `the answer to the batch request is not a batch of answers: ${(error as Error).message}`;
    }
    if (typeof answered === 'string') {
      const problem = answered;
      return chunk.map(({ call }) =>
        fail(
          new BatchResponseError(
            call.operationId,
            `${problem}; whether the call took effect is unknown`,
            cause === undefined ? undefined : { cause },
          ),
        ),
      );
    }
    return chunk.map((entry, at) => {
      const { call } = entry;
      const part = answered[at];
      if (!part)
        return fail(
          new BatchResponseError(
            call.operationId,
            `the batch's answer has no part for this call (Content-ID <${answerId(entry.part.contentId as string)}>); whether it took effect is unknown`,
          ),
        );
      const partAnswer: Answer = {
        status: part.status,
        headers: headersOf(part.headers),
        text: part.body ?? '',
      };
      try {
        return outcomeOf(call.op, entry.init, partAnswer, now, context.notFoundHint);
      } catch (error) {
        return fail(
          new BatchResponseError(
            call.operationId,
            `its answer in the batch (${part.status}) is not valid JSON`,
            {
              cause: error,
            },
          ),
        );
      }
    });
  }

  return async (build, options = {}) => {
    const { signal } = options;
    signal?.throwIfAborted();
    const maxCalls = options.maxCalls ?? endpoint.limit;
    if (!Number.isInteger(maxCalls) || maxCalls < 1 || maxCalls > endpoint.limit) {
      throw new ClientConfigError(
        `maxCalls must be a whole number from 1 to ${endpoint.limit}, the most calls the service takes in one batch; got ${maxCalls}`,
      );
    }
    const timeoutMs = options.timeoutMs ?? context.timeoutMs;
    if (timeoutMs !== undefined && !(timeoutMs > 0)) {
      throw new ClientConfigError(`timeoutMs must be a positive number of milliseconds; got ${timeoutMs}`);
    }
    const policy = checkRetry(policyOf(context, options.retry));
    const entries = entriesOf(build(builder));
    const results: BatchResult<unknown>[] = new Array(entries.length);

    let queue = entries;
    // When the next request may go: after the backoff of the calls it retries.
    let notBefore = 0;
    // The credentials a refresh after a 401 gave, for the request after it.
    let renewed: CredentialHeaders | undefined;
    while (queue.length > 0) {
      const chunk = queue.slice(0, maxCalls);
      queue = queue.slice(maxCalls);
      const wait = notBefore - clock.now();
      if (wait > 0) await clock.sleep(wait, signal);
      const sent = renewed ?? (await credentials.headers(batchUrl));
      renewed = undefined;
      const start = clock.now();
      for (const entry of chunk) {
        entry.attempts++;
        entry.started ??= start;
      }
      const outcomes = await send(chunk, sent, timeoutMs, signal);

      const again: Entry[] = [];
      // Refused credentials are renewed once for all the calls they failed, whatever their
      // method: nothing was done with them. The resend does not count as an attempt.
      const refused = chunk.filter((entry, at) => {
        const outcome = outcomes[at] as Outcome;
        return !outcome.ok && isUnauthorized(outcome.error) && !entry.refreshed;
      });
      if (refused.length > 0 && credentials.refresh) {
        try {
          renewed = await credentials.refresh(batchUrl, sent);
        } catch (cause) {
          for (const entry of refused) {
            const error = (outcomes[chunk.indexOf(entry)] as BatchFailure).error as GoogleApiError;
            outcomes[chunk.indexOf(entry)] = fail(
              new GoogleApiError(error.operationId, error.status, error.body, error.retryAfterMs, { cause }),
            );
          }
        }
        for (const entry of refused) entry.refreshed = true;
        if (renewed) {
          for (const entry of refused) {
            entry.attempts--;
            again.push(entry);
          }
        }
      }

      // The others are settled, or retried after the longest of their waits.
      const retrying: Entry[] = [];
      let longest = 0;
      for (const [at, entry] of chunk.entries()) {
        if (renewed && refused.includes(entry)) continue;
        const outcome = outcomes[at] as Outcome;
        if (
          !outcome.ok &&
          policy &&
          entry.repeatable &&
          entry.attempts < policy.maxAttempts &&
          isRetryable(outcome.error)
        ) {
          const { error } = outcome;
          const ownWait =
            (error instanceof GoogleApiError ? error.retryAfterMs : undefined) ??
            backoffDelay(entry.attempts, policy, clock.random);
          longest = Math.max(longest, ownWait);
          retrying.push(entry);
        } else results[entry.index] = outcome;
      }
      const now = clock.now();
      for (const entry of retrying) {
        // Past its budget the call ends with its last failure, as a single call does.
        if (policy && now - (entry.started as number) + longest > policy.budgetMs)
          results[entry.index] = outcomes[chunk.indexOf(entry)] as Outcome;
        else again.push(entry);
      }
      notBefore = again.some((entry) => retrying.includes(entry)) ? now + longest : 0;
      // Retried calls go first, in call order: a request that failed as a whole is sent again
      // as it was, like a single call.
      again.sort((a, b) => a.index - b.index);
      queue = again.concat(queue);
    }
    return results;
  };
}

/**
 * The batch function of an API on its own (`createCalendarBatch` in @gspec/calendar): same
 * options, same credentials and retry policy as the API's clients, its own resolved context.
 * It is a function of its own rather than a method of the clients so that a program that never
 * batches does not bundle this module (the runtime is `sideEffects: false`).
 */
export function createBatchClient<Builder>(
  defaultBaseUrl: string,
  table: OperationTable,
  endpoint: BatchEndpoint,
  options: ResourceClientOptions = {},
): Batch<Builder> {
  return createBatch(
    resolve(defaultBaseUrl, acceptLibraryClient(options)),
    table,
    endpoint,
  ) as Batch<Builder>;
}
