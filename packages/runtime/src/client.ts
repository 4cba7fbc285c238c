import createClient, { type Client, createQuerySerializer } from 'openapi-fetch';
import { type AccessToken, type Credentials, credentialsFrom } from './auth.js';
import { type CallContext, callOperation, type FetchLike, type OperationTable } from './call.js';
import { ClientConfigError } from './errors.js';
import { bindMethods } from './methods.js';
import { type Clock, defaultRetry, type RetryOptions, systemClock } from './retry.js';

export interface GoogleClientOptions {
  /**
   * An OAuth 2.0 access token, or a provider of current ones (called for every request,
   * and once more with `refresh: true` after a 401). Sent as `Authorization: Bearer …`;
   * never included in errors or logs.
   */
  accessToken?: AccessToken;
  /** An API key, sent as the `key` query parameter; for public data only. */
  apiKey?: string;
  /**
   * Where the API lives, including its base path. Defaults to the live service; point it at
   * the mock with, for example, `http://127.0.0.1:4010/calendar/v3`.
   */
  baseUrl?: string;
  /** The fetch to use; defaults to the global fetch. Tests inject one here. */
  fetch?: FetchLike;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** The retry policy of the resource methods (`false`: never retry). */
  retry?: Partial<RetryOptions> | false;
  /** Default per-attempt timeout of the resource methods, in ms; none by default. */
  timeoutMs?: number;
  /** Time for waits and timeouts; tests inject one that does not really sleep. */
  clock?: Clock;
}

function checkBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ClientConfigError(`baseUrl must be an absolute http(s) URL; got ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ClientConfigError(`baseUrl must use http or https; got ${JSON.stringify(url.protocol)}`);
  }
  if (url.search || url.hash) {
    throw new ClientConfigError('baseUrl must not carry a query or a fragment');
  }
  return baseUrl.replace(/\/+$/, '');
}

function checkRetry(retry: Partial<RetryOptions> | false | undefined): RetryOptions | false {
  if (retry === false) return false;
  const policy = { ...defaultRetry, ...retry };
  for (const [name, value] of Object.entries(policy)) {
    if (typeof value !== 'number' || !(value >= 0) || (name === 'maxAttempts' && !(value >= 1))) {
      throw new ClientConfigError(
        `retry.${name} must be a number of at least ${name === 'maxAttempts' ? 1 : 0}`,
      );
    }
  }
  return policy;
}

interface Resolved {
  context: CallContext;
  credentials: Credentials;
}

function resolve(defaultBaseUrl: string, options: GoogleClientOptions): Resolved {
  if (options.apiKey !== undefined && (typeof options.apiKey !== 'string' || options.apiKey.length === 0)) {
    throw new ClientConfigError('apiKey is empty; leave it out to send no key');
  }
  if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) {
    throw new ClientConfigError(
      `timeoutMs must be a positive number of milliseconds; got ${options.timeoutMs}`,
    );
  }
  const credentials = credentialsFrom(options.accessToken);
  const serialize = createQuerySerializer();
  const { apiKey } = options;
  const context: CallContext = {
    baseUrl: checkBaseUrl(options.baseUrl ?? defaultBaseUrl),
    // Looked up at call time, so a fetch patched in after the client was made is used.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    headers: options.headers,
    credentials,
    querySerializer: apiKey ? (query) => serialize({ ...query, key: apiKey }) : serialize,
    retry: checkRetry(options.retry),
    timeoutMs: options.timeoutMs,
    clock: options.clock ?? systemClock,
  };
  return { context, credentials };
}

function rawClient<Paths extends {}>({
  context,
  credentials,
}: Resolved): Client<Paths, `${string}/${string}`> {
  const client = createClient<Paths>({
    baseUrl: context.baseUrl,
    fetch: context.fetch,
    querySerializer: context.querySerializer,
    ...(context.headers ? { headers: context.headers } : {}),
  });
  client.use({
    async onRequest({ request }) {
      const authorization = await credentials.authorization(false);
      if (authorization) request.headers.set('Authorization', authorization);
      return request;
    },
  });
  return client;
}

/**
 * The raw openapi-fetch client for one Google API, with credentials and base URL: its
 * `GET`, `POST`, ... return `{ data, error, response }` and never retry.
 */
export function createGoogleClient<Paths extends {}>(
  defaultBaseUrl: string,
  options: GoogleClientOptions = {},
): Client<Paths, `${string}/${string}`> {
  return rawClient<Paths>(resolve(defaultBaseUrl, options));
}

/**
 * The raw client plus one namespace per resource of the operation table
 * (`client.events.list(...)`), typed by `Methods` from the generated `methods.ts`.
 */
export function createApiClient<Paths extends {}, Methods>(
  defaultBaseUrl: string,
  table: OperationTable,
  options: GoogleClientOptions = {},
): Client<Paths, `${string}/${string}`> & Methods {
  const resolved = resolve(defaultBaseUrl, options);
  const client = rawClient<Paths>(resolved);
  const namespaces = bindMethods(
    (id, op, args, callOptions) => callOperation(resolved.context, id, op, args, callOptions),
    table,
  );
  for (const name in namespaces) {
    if (name in client)
      throw new ClientConfigError(`resource "${name}" collides with a method of the raw client`);
  }
  return Object.assign(client, namespaces) as Client<Paths, `${string}/${string}`> & Methods;
}
