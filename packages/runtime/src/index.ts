import createClient, { type Client, type Middleware } from 'openapi-fetch';

/** An OAuth 2.0 access token, or a function that returns a current one (it is called for every request). */
export type AccessToken = string | (() => string | Promise<string>);

export interface GoogleClientOptions {
  /** Sent as `Authorization: Bearer <token>`. Never included in errors or logs. */
  accessToken?: AccessToken;
  /**
   * Where the API lives, including its base path. Defaults to the live service; point it at
   * the mock with, for example, `http://127.0.0.1:4010/calendar/v3`.
   */
  baseUrl?: string;
  /** The fetch to use; defaults to the global fetch. Tests inject one here. */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

export class ClientConfigError extends TypeError {
  override name = 'ClientConfigError';
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

function authMiddleware(accessToken: AccessToken): Middleware {
  return {
    async onRequest({ request }) {
      const token = typeof accessToken === 'function' ? await accessToken() : accessToken;
      if (typeof token !== 'string' || token.length === 0) {
        throw new ClientConfigError('the access token provider returned no token');
      }
      request.headers.set('Authorization', `Bearer ${token}`);
      return request;
    },
  };
}

/**
 * A typed openapi-fetch client for one Google API. The API packages wrap this with their
 * own paths type and live base URL; call those (`createCalendarClient`, ...) instead.
 */
export function createGoogleClient<Paths extends {}>(
  defaultBaseUrl: string,
  options: GoogleClientOptions = {},
): Client<Paths, `${string}/${string}`> {
  if (typeof options.accessToken === 'string' && options.accessToken.length === 0) {
    throw new ClientConfigError('accessToken is an empty string; leave it out to send no credentials');
  }
  const client = createClient<Paths>({
    baseUrl: checkBaseUrl(options.baseUrl ?? defaultBaseUrl),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  if (options.accessToken !== undefined) client.use(authMiddleware(options.accessToken));
  return client;
}
