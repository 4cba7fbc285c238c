import createClient, { type Client, createQuerySerializer } from 'openapi-fetch';
import type { CallContext, FetchLike, OperationTable } from './call.js';
import { type GoogleClientOptions, resolve } from './config.js';
import { ClientConfigError } from './errors.js';
import { acceptLibraryClient } from './google-auth.js';
import { bindTable } from './resources.js';

/**
 * The client with openapi-fetch's raw methods and the resource methods side by side. It is
 * its own module so that a program using only `createResourceClient` does not bundle
 * openapi-fetch.
 */

function rawClient<Paths extends {}>(
  context: CallContext,
  options: GoogleClientOptions,
): Client<Paths, `${string}/${string}`> {
  const { credentials } = context;
  const { apiKey } = options;
  // openapi-fetch's own serializer for its own methods: the raw client behaves exactly as
  // openapi-fetch documents. url.ts encodes the same way for the resource methods.
  const serialize = createQuerySerializer();
  const client = createClient<Paths>({
    baseUrl: context.baseUrl,
    // Looked up at call time, so a fetch patched in after the client was made is used.
    fetch: options.fetch ?? (((input, init) => globalThis.fetch(input, init)) satisfies FetchLike),
    querySerializer: apiKey ? (query) => serialize({ ...query, key: apiKey }) : serialize,
    ...(context.headers ? { headers: context.headers } : {}),
  });
  client.use({
    async onRequest({ request }) {
      // The same headers as the resource methods send, all of them (an auth client may add
      // x-goog-user-project to Authorization). No refresh after a 401: raw calls never repeat.
      const headers = await credentials.headers(request.url);
      if (headers) for (const name in headers) request.headers.set(name, headers[name] as string);
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
  return rawClient<Paths>(resolve(defaultBaseUrl, acceptLibraryClient(options)), options);
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
  const context = resolve(defaultBaseUrl, acceptLibraryClient(options));
  const client = rawClient<Paths>(context, options);
  const namespaces = bindTable(context, table);
  for (const name in namespaces) {
    if (name in client)
      throw new ClientConfigError(`resource "${name}" collides with a method of the raw client`);
  }
  return Object.assign(client, namespaces) as Client<Paths, `${string}/${string}`> & Methods;
}
