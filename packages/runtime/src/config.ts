/**
 * The options every client takes, checked once when the client is made, and what they
 * resolve to for the calls. Shared by the lean resource client and the one with
 * openapi-fetch's raw methods; nothing here imports openapi-fetch.
 */
import { type AccessToken, type AuthSource, credentialsFrom, type GoogleAuthLike } from './auth.js';
import type { CallContext, CallFetch, FetchLike } from './call.js';
import { ClientConfigError, shownUrl } from './errors.js';
import { type Clock, defaultRetry, type RetryOptions, systemClock } from './retry.js';
import { serializeQuery } from './url.js';

/**
 * The options of every client: those of the clients bound to the operations a program names
 * (`createCalendarWith`), where `auth` takes only `googleAuth(client)`.
 */
export interface ClientOptions {
  /**
   * An OAuth 2.0 access token, or a provider of current ones (called for every request,
   * and once more with `refresh: true` after a 401). Sent as `Authorization: Bearer …`;
   * never included in errors or logs.
   */
  accessToken?: AccessToken;
  /**
   * A google-auth-library client, of major 9, 10 or 11, as `googleAuth(client)` (imported from
   * the client package): `GoogleAuth`, `JWT`, `OAuth2Client`, `UserRefreshClient`,
   * `Impersonated`, or anything else with `getRequestHeaders(url)`. Every header it returns for
   * a request is sent (`Authorization`, `x-goog-user-project` when a quota project is set).
   * After a 401 the client is made to refresh its token once and the call is repeated; when it
   * cannot, the 401 is thrown with the reason as its `cause`. Not together with `accessToken`.
   * The library is an optional peer dependency: nothing here imports it.
   */
  auth?: AuthSource;
  /** An API key, sent as the `key` query parameter; for public data only. */
  apiKey?: string;
  /**
   * Where the API lives, including its base path. Defaults to the live service; point it at
   * the mock with, for example, `http://127.0.0.1:4010/calendar/v3`.
   */
  baseUrl?: string;
  /**
   * The fetch to use; defaults to the global fetch. Called with a URL string and an init;
   * `nodeFetch` of `@gspec/runtime/node` fits, and tests inject one here.
   */
  fetch?: CallFetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** The retry policy of the resource methods (`false`: never retry). */
  retry?: Partial<RetryOptions> | false;
  /** Default per-attempt timeout of the resource methods, in ms; none by default. */
  timeoutMs?: number;
  /** Time for waits and timeouts; tests inject one that does not really sleep. */
  clock?: Clock;
}

/**
 * The options of the clients that bind every operation (`createCalendar`, `createResourceClient`)
 * and of the batch: `auth` also takes a google-auth-library client as it is.
 */
export interface ResourceClientOptions extends Omit<ClientOptions, 'auth'> {
  /**
   * A google-auth-library client (major 9, 10 or 11), given as it is or as `googleAuth(client)`:
   * `GoogleAuth`, `JWT`, `OAuth2Client`, `UserRefreshClient`, `Impersonated`, or anything else
   * with `getRequestHeaders(url)`. Every header it returns for a request is sent; after a 401
   * the client is made to refresh its token once and the call is repeated; when it cannot, the
   * 401 is thrown with the reason as its `cause`. Not together with `accessToken`. The library
   * is an optional peer dependency: nothing here imports it.
   */
  auth?: AuthSource | GoogleAuthLike;
}

/** The options of a client with openapi-fetch's raw methods too (`createApiClient`, `createGoogleClient`). */
export interface GoogleClientOptions extends ResourceClientOptions {
  /**
   * The fetch to use; defaults to the global fetch. The resource methods call it with a URL
   * string and an init, the raw methods with a `Request`, and read a whole `Response`.
   */
  fetch?: FetchLike;
}

function checkBaseUrl(baseUrl: string): string {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {}
  if (!url || !/^https?:$/.test(url.protocol)) {
    throw new ClientConfigError(
      `baseUrl must be an http or https URL such as http://${String(baseUrl).replace(/^[a-z]+:\/\//i, '')}; got ${JSON.stringify(baseUrl)}`,
    );
  }
  if (url.search || url.hash) {
    throw new ClientConfigError('baseUrl must not carry a query or a fragment');
  }
  return baseUrl.replace(/\/+$/, '');
}

/** The retry policy of the options, checked: each bound a number in range. */
export function checkRetry(retry: Partial<RetryOptions> | false | undefined): RetryOptions | false {
  if (retry === false) return false;
  const policy = { ...defaultRetry, ...retry };
  for (const [name, value] of Object.entries(policy)) {
    const least = name === 'maxAttempts' ? 1 : 0;
    if (typeof value !== 'number' || !(value >= least)) {
      throw new ClientConfigError(`retry.${name} must be a number of at least ${least}`);
    }
  }
  return policy;
}

/** The call context of the options: checked, with the defaults filled in. */
export function resolve(defaultBaseUrl: string, options: ClientOptions): CallContext {
  const { apiKey, timeoutMs } = options;
  if (apiKey !== undefined && (typeof apiKey !== 'string' || !apiKey)) {
    throw new ClientConfigError('apiKey is empty; leave it out to send no key');
  }
  if (timeoutMs !== undefined && !(timeoutMs > 0)) {
    throw new ClientConfigError(`timeoutMs must be a positive number of milliseconds; got ${timeoutMs}`);
  }
  const baseUrl = checkBaseUrl(options.baseUrl ?? defaultBaseUrl);
  // The API's base path, such as /calendar/v3: a 404 to a baseUrl without it says so.
  const basePath = defaultBaseUrl.replace(/^[^:]+:\/\/[^/]*/, '');
  return {
    baseUrl,
    notFoundHint: baseUrl.endsWith(basePath)
      ? undefined
      : `baseUrl ${shownUrl(baseUrl)} lacks the API's base path: did you mean ${shownUrl(baseUrl)}${basePath}?`,
    // Looked up at call time, so a fetch patched in after the client was made is used.
    fetch: options.fetch ?? ((url, init) => globalThis.fetch(url, init)),
    headers: options.headers,
    credentials: credentialsFrom(options.accessToken, options.auth, options.headers),
    querySerializer: apiKey ? (query) => serializeQuery({ ...query, key: apiKey }) : serializeQuery,
    retry: checkRetry(options.retry),
    timeoutMs,
    clock: options.clock ?? systemClock,
  };
}
