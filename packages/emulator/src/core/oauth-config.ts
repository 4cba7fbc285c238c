/**
 * The token endpoint's configuration (oauth.ts): the service accounts, OAuth clients and refresh
 * tokens a seed registers, and the checks that turn a service account's entry into the keys its
 * assertions are verified with.
 */
import { createHash, type KeyObject } from 'node:crypto';
import { readPublicKey } from './jwt.js';
import { expandScope } from './users.js';

/** A service account as the seed registers it. */
export interface ServiceAccountConfig {
  /** Its email, the `client_email` of its key file and the `iss` of its assertions. */
  email: string;
  /** Its numeric unique id (`client_id` of the key file); derived from the email when absent. */
  clientId?: string;
  /** Its public keys by key id (the key file's `private_key_id`): PEM public keys or X.509 certificates. */
  keys: Record<string, string>;
  /**
   * Domain-wide delegation: the scopes an administrator authorised it for when it acts as a
   * user (`sub`). Without it, an assertion with a `sub` is refused.
   */
  delegation?: { scopes: string[] };
}

/** An OAuth client (an installed or web app): the refresh-token grant authenticates it. */
export interface OAuthClientConfig {
  clientId: string;
  clientSecret: string;
}

/** A refresh token a user granted an OAuth client, for the given scopes. */
export interface RefreshTokenConfig {
  token: string;
  email: string;
  clientId: string;
  scopes: string[];
}

export interface OAuthOptions {
  serviceAccounts?: ServiceAccountConfig[];
  clients?: OAuthClientConfig[];
  refreshTokens?: RefreshTokenConfig[];
  /** How long an access token lives, in seconds: 3599 as Google's, shorter in tests. */
  tokenLifetimeSeconds?: number;
}

/** An OAuth configuration that cannot work; the message names the entry at fault. */
export class OAuthConfigError extends Error {
  override name = 'OAuthConfigError';
}

/** A service account as the endpoint checks its assertions: its keys read, its delegated scopes expanded. */
export interface ServiceAccount {
  email: string;
  clientId: string;
  keys: Map<string, KeyObject>;
  delegation?: Set<string>;
}

/** A stable numeric id for an email: Google's account and client ids are long decimal numbers. */
export function numericId(email: string): string {
  const digest = createHash('sha256').update(email.toLowerCase()).digest();
  return `1${digest.readBigUInt64BE(0).toString().padStart(20, '0')}`;
}

/** The service accounts of the configuration by email, their keys read; an entry that cannot work is an OAuthConfigError. */
export function checkServiceAccounts(entries: ServiceAccountConfig[]): Map<string, ServiceAccount> {
  const accounts = new Map<string, ServiceAccount>();
  entries.forEach((entry, i) => {
    const at = `serviceAccounts[${i}]`;
    const email = entry.email.toLowerCase();
    if (accounts.has(email)) throw new OAuthConfigError(`${at}.email: ${email} is registered twice`);
    const keys = new Map<string, KeyObject>();
    for (const [id, pem] of Object.entries(entry.keys)) {
      try {
        keys.set(id, readPublicKey(pem));
      } catch (error) {
        throw new OAuthConfigError(`${at}.keys[${JSON.stringify(id)}]: ${(error as Error).message}`);
      }
    }
    if (keys.size === 0)
      throw new OAuthConfigError(
        `${at}.keys: a service account needs at least one public key to check its assertions`,
      );
    accounts.set(email, {
      email,
      clientId: entry.clientId ?? numericId(email),
      keys,
      ...(entry.delegation ? { delegation: new Set(entry.delegation.scopes.map(expandScope)) } : {}),
    });
  });
  return accounts;
}
