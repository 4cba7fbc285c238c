/**
 * Where the credentials of a request come from: an access token (a string or a provider), or
 * a google-auth-library client, taken by its shape. Both are turned into one `Credentials`,
 * which the resource methods (call.ts) and the raw client (client.ts) read the same way.
 */
import { ClientConfigError } from './errors.js';

/**
 * Returns a current OAuth 2.0 access token. It is called for every request, so it should
 * cache; `refresh` is true once after the service refused the last token with 401, when a
 * cached token must not be returned again.
 */
export type TokenProvider = (context: { refresh: boolean }) => string | Promise<string>;

/** A static OAuth 2.0 access token, or a provider of current ones. */
export type AccessToken = string | TokenProvider;

/**
 * Headers as an auth client gives them: a Fetch `Headers` (google-auth-library 10 and 11),
 * any other object with `forEach(value, name)` or an iterable of `[name, value]` pairs, or a
 * plain record of names to values (google-auth-library 9).
 */
export type AuthHeaders =
  | { forEach(callback: (value: string, name: string) => void): void }
  | Iterable<readonly [string, string]>
  | Readonly<Record<string, string>>;

/**
 * What the `auth` option needs of an auth client. Every client of google-auth-library 9, 10
 * and 11 fits (`GoogleAuth`, `JWT`, `OAuth2Client`, `UserRefreshClient`, `Impersonated`, ...),
 * without this package depending on that library or on the types of one of its majors.
 */
export interface GoogleAuthLike {
  /** The headers that authorize a request to `url`; all of them are sent. */
  getRequestHeaders(url?: string): Promise<AuthHeaders>;
  /** `GoogleAuth` has it: the client it delegates to, which is the one refreshed after a 401. */
  getClient?(): Promise<unknown>;
}

/** Header names to values, as added to a request. */
export type CredentialHeaders = Readonly<Record<string, string>>;

/** The credentials of every request of one client, whichever option gave them. */
export interface Credentials {
  /** The headers to add to a request to `url`, or undefined when the client sends no credentials. */
  headers(url: string): Promise<CredentialHeaders | undefined>;
  /**
   * After the service answered 401 to a request to `url` that carried `sent`: the headers of
   * new credentials for one more attempt, or undefined when there are none to try (the 401
   * then stands). Rejects with the reason when getting new credentials failed. Undefined
   * itself when these credentials can never change (a static token, none at all).
   */
  readonly refresh:
    | ((url: string, sent: CredentialHeaders | undefined) => Promise<CredentialHeaders | undefined>)
    | undefined;
}

const none: Credentials = { headers: async () => undefined, refresh: undefined };

/**
 * The credentials of the options. `headers` are the client's own headers: a header of an auth
 * client replaces the one of the same name there, whatever the case of either.
 */
export function credentialsFrom(
  accessToken: AccessToken | undefined,
  auth: GoogleAuthLike | undefined,
  headers?: Readonly<Record<string, string>>,
): Credentials {
  if (auth !== undefined) {
    if (accessToken !== undefined) {
      throw new ClientConfigError(
        'auth and accessToken are both set; pick one: auth for a google-auth-library client, accessToken for a token or a token provider',
      );
    }
    if (
      auth === null ||
      (typeof auth !== 'object' && typeof auth !== 'function') ||
      typeof (auth as Partial<GoogleAuthLike>).getRequestHeaders !== 'function'
    ) {
      throw new ClientConfigError(
        'auth must be a google-auth-library client (GoogleAuth, JWT, OAuth2Client, ...) or another object with a getRequestHeaders(url) method',
      );
    }
    const spelling = headers && new Map(Object.keys(headers).map((name) => [name.toLowerCase(), name]));
    return authCredentials(auth, spelling?.size ? spelling : undefined);
  }
  if (accessToken === undefined) return none;
  if (accessToken === '') {
    throw new ClientConfigError('accessToken is an empty string; leave it out to send no credentials');
  }
  if (typeof accessToken !== 'function') {
    if (typeof accessToken !== 'string') {
      throw new ClientConfigError('accessToken must be a string or a function that returns one');
    }
    const bearer: CredentialHeaders = { Authorization: `Bearer ${accessToken}` };
    return { headers: async () => bearer, refresh: undefined };
  }
  // The last token and its headers: a provider that caches returns the same token for a
  // while, and its requests then share one headers object instead of building one each.
  let lastToken = '';
  let lastHeaders: CredentialHeaders = {};
  const ask = async (refresh: boolean): Promise<CredentialHeaders> => {
    const token = await accessToken({ refresh });
    // The message names the problem, never a value: a wrong value may still be a secret.
    if (typeof token !== 'string' || token.length === 0) {
      throw new ClientConfigError('the access token provider returned no token');
    }
    if (token !== lastToken) {
      lastToken = token;
      lastHeaders = { Authorization: `Bearer ${token}` };
    }
    return lastHeaders;
  };
  return { headers: () => ask(false), refresh: () => ask(true) };
}

/**
 * The headers an auth client gave as one record; undefined when it gave none. A name the
 * client's own headers spell otherwise (`X-Goog-User-Project` for `x-goog-user-project`) takes
 * their spelling, so that it replaces that header instead of being sent next to it.
 */
function recordOf(
  given: unknown,
  spelling: Map<string, string> | undefined,
): Record<string, string> | undefined {
  if (given === null || typeof given !== 'object') return undefined;
  const record: Record<string, string> = {};
  let count = 0;
  const add = (value: unknown, name: unknown) => {
    if (typeof name === 'string' && name && typeof value === 'string' && value) {
      record[spelling?.get(name.toLowerCase()) ?? name] = value;
      count++;
    }
  };
  const { forEach } = given as { forEach?: unknown };
  if (typeof forEach === 'function' && !Array.isArray(given)) {
    // Headers, Map: forEach(value, name), without an array per entry.
    forEach.call(given, add);
  } else if (Symbol.iterator in given) {
    for (const entry of given as Iterable<unknown>) {
      if (Array.isArray(entry)) add(entry[1], entry[0]);
    }
  } else {
    for (const name of Object.keys(given)) add((given as Record<string, unknown>)[name], name);
  }
  return count ? record : undefined;
}

function sameHeaders(a: CredentialHeaders, b: CredentialHeaders | undefined): boolean {
  if (!b) return false;
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  for (const name of names) if (a[name] !== b[name]) return false;
  return true;
}

/**
 * What a refresh through a google-auth-library client uses: the OAuth2Client family (JWT,
 * UserRefreshClient, Impersonated, Compute, OAuth2Client itself) and the external account
 * clients hold their token in a public `credentials` object and take a new one through a
 * public `setCredentials`.
 */
interface ExpirableClient {
  credentials: { access_token?: unknown; expiry_date?: unknown };
  setCredentials(credentials: object): void;
}

function isExpirable(client: unknown): client is ExpirableClient {
  if (client === null || typeof client !== 'object') return false;
  const { credentials, setCredentials } = client as Partial<Record<keyof ExpirableClient, unknown>>;
  return (
    typeof setCredentials === 'function' &&
    typeof credentials === 'object' &&
    credentials !== null &&
    typeof (credentials as ExpirableClient['credentials']).access_token === 'string' &&
    (credentials as { access_token: string }).access_token !== ''
  );
}

/** The forced refresh under way for each library client, which concurrent 401s wait for. */
const refreshing = new WeakMap<object, Promise<CredentialHeaders>>();

function authCredentials(auth: GoogleAuthLike, spelling: Map<string, string> | undefined): Credentials {
  const headers = async (url: string): Promise<CredentialHeaders> => {
    const record = recordOf(await auth.getRequestHeaders(url), spelling);
    if (!record) {
      // Says what came back, never a value of it.
      throw new ClientConfigError(
        'auth.getRequestHeaders() gave no headers to send; expected a Headers object or a record of header names to non-empty values',
      );
    }
    return record;
  };
  /**
   * google-auth-library has no public call that drops a cached token. Its clients refresh
   * inside getRequestHeaders once `credentials.expiry_date` has passed (isTokenExpiring()),
   * and JWT's second cache (gtoken) is bypassed only then; an expiry of 0 or undefined reads
   * as "does not expire". So a refresh sets `expiry_date: 1`, a truthy time in the past, and
   * asks for the headers again. If that fails (a bare access token cannot be refreshed, the
   * token endpoint refused), the credentials are put back as they were and the error is the
   * reason the 401 stands.
   *
   * Before that, the headers are read once more: if they differ from the refused ones, the
   * client has new credentials already (another call refreshed it, or it signs every request
   * anew) and those are tried without forcing anything. If they are the same and the client
   * has no `credentials.access_token` and `setCredentials` to force a refresh with (a
   * self-signed JWT, an object of your own), nothing else can be tried and the 401 stands.
   */
  const refresh = async (url: string, sent: CredentialHeaders | undefined) => {
    const current = await headers(url);
    if (!sameHeaders(current, sent)) return current;
    const client = typeof auth.getClient === 'function' ? await auth.getClient() : auth;
    if (!isExpirable(client)) return undefined;
    const underWay = refreshing.get(client);
    if (underWay) {
      await underWay;
      return headers(url);
    }
    const saved = client.credentials;
    client.setCredentials({ ...saved, expiry_date: 1 });
    const fresh = headers(url).then(
      (result) => {
        refreshing.delete(client);
        return result;
      },
      (error: unknown) => {
        refreshing.delete(client);
        client.setCredentials(saved);
        throw error;
      },
    );
    refreshing.set(client, fresh);
    return fresh;
  };
  return { headers, refresh };
}
