/**
 * Where the credentials of a request come from: an access token (a string or a provider), or
 * a google-auth-library client given as `googleAuth(client)`. Both are turned into one
 * `Credentials`, which the resource methods (call.ts) and the raw client (client.ts) read the
 * same way. What only a library client needs is in google-auth.ts, which only a program that
 * uses one bundles.
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

/**
 * The `auth` option, as `googleAuth(client)` makes it of a google-auth-library client: the
 * credentials of a client whose own headers are `headers`.
 */
export interface AuthSource {
  credentialsFor(headers: Readonly<Record<string, string>> | undefined): Credentials;
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
  auth: AuthSource | undefined,
  headers?: Readonly<Record<string, string>>,
): Credentials {
  if (auth !== undefined) {
    if (accessToken !== undefined) {
      throw new ClientConfigError(
        'auth and accessToken are both set; pick one: auth for a google-auth-library client, accessToken for a token',
      );
    }
    if (typeof (auth as Partial<AuthSource> | null)?.credentialsFor !== 'function') {
      throw new ClientConfigError(
        'auth must be googleAuth(client), with googleAuth imported from the client package and client a google-auth-library client or another object with a getRequestHeaders(url) method',
      );
    }
    return auth.credentialsFor(headers);
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
