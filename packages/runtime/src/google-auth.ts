/**
 * The glue of the `auth` option: `googleAuth(client)` turns a google-auth-library client (of
 * major 9, 10 or 11, or anything else with `getRequestHeaders(url)`) into credentials: its
 * headers as one record, and the refresh after a 401. Only a program that imports `googleAuth`,
 * or makes a client that takes a library client as it is (`acceptLibraryClient`), bundles it.
 */
import type { AuthSource, CredentialHeaders, Credentials, GoogleAuthLike } from './auth.js';
import { ClientConfigError } from './errors.js';

/**
 * The `auth` option of a google-auth-library client: `auth: googleAuth(new GoogleAuth({ scopes }))`.
 * Every header the client gives for a request is sent (`Authorization`, `x-goog-user-project`
 * when a quota project is set); after a 401 the client is made to refresh its token once and
 * the call is repeated, and when it cannot, the 401 is thrown with the reason as its `cause`.
 * Any major of the library from 9 fits (`GoogleAuth`, `JWT`, `OAuth2Client`,
 * `UserRefreshClient`, `Impersonated`, ...), taken by its shape: nothing here imports it.
 */
export function googleAuth(client: GoogleAuthLike): AuthSource {
  if (typeof (client as Partial<GoogleAuthLike> | null)?.getRequestHeaders !== 'function') {
    throw new ClientConfigError(
      'googleAuth() takes a google-auth-library client (GoogleAuth, JWT, OAuth2Client, ...) or another object with a getRequestHeaders(url) method',
    );
  }
  return {
    credentialsFor(headers) {
      const spelling = headers && new Map(Object.keys(headers).map((name) => [name.toLowerCase(), name]));
      return authCredentials(client, spelling?.size ? spelling : undefined);
    },
  };
}

/**
 * The options of the clients that bind every operation, where `auth` may also be a
 * google-auth-library client as it is: such a client is given as `googleAuth(client)`.
 */
export function acceptLibraryClient<Options extends { auth?: AuthSource | GoogleAuthLike | undefined }>(
  options: Options,
): Options & { auth?: AuthSource } {
  const client = options.auth as (Partial<AuthSource> & Partial<GoogleAuthLike>) | null | undefined;
  if (typeof client?.credentialsFor === 'function' || typeof client?.getRequestHeaders !== 'function')
    return options as Options & { auth?: AuthSource };
  return { ...options, auth: googleAuth(client as GoogleAuthLike) };
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
