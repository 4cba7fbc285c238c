import { ClientConfigError } from './errors.js';

/**
 * Returns a current OAuth 2.0 access token. It is called for every request, so it should
 * cache; `refresh` is true once after the service refused the last token with 401, when a
 * cached token must not be returned again.
 */
export type TokenProvider = (context: { refresh: boolean }) => string | Promise<string>;

/** A static OAuth 2.0 access token, or a provider of current ones. */
export type AccessToken = string | TokenProvider;

export interface Credentials {
  /** The value of the `Authorization` header, or undefined when no token is configured. */
  authorization(refresh: boolean): Promise<string | undefined>;
  /** Whether asking again after a 401 can give another token. */
  readonly refreshable: boolean;
}

export function credentialsFrom(accessToken: AccessToken | undefined): Credentials {
  if (accessToken === '') {
    throw new ClientConfigError('accessToken is an empty string; leave it out to send no credentials');
  }
  const refreshable = typeof accessToken === 'function';
  return {
    refreshable,
    async authorization(refresh) {
      if (accessToken === undefined) return undefined;
      const token = refreshable ? await accessToken({ refresh }) : accessToken;
      // The message names the problem, never a value: a wrong value may still be a secret.
      if (typeof token !== 'string' || token.length === 0) {
        throw new ClientConfigError('the access token provider returned no token');
      }
      return `Bearer ${token}`;
    },
  };
}
