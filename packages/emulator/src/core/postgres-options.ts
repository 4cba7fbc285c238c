/**
 * What a shared store (`--store postgres://…`, core/postgres.ts) is given and tells: its
 * options, the URL's checks, how a store is named in messages (never with its password), the
 * parts of an emulator it keeps, how a turn's work ended, its figures, and the error a store
 * that cannot be used is told with.
 */
import type { Notifier } from './notifier.js';
import type { QuotaMeter } from './quota.js';
import type { StorageSlice } from './slice.js';
import type { StateHolder } from './state.js';
import type { AccessPolicy } from './strict.js';

export interface SharedStoreOptions {
  /** postgres://user:password@host:port/database (or postgresql://). */
  url: string;
  /** Told of each failed transaction and lost connection (the requests are answered 503). */
  onError?: (message: string) => void;
  /**
   * How a process catches up with what others committed: `changes` (default) reads only the
   * rows written since it last saw the state; `reload` reads the whole state again every time
   * (the way of the first version, kept to measure against).
   */
  catchUp?: 'changes' | 'reload';
}

/** A bad URL, an unreachable server, a refused login, a database of another kind or a newer schema. */
export class SharedStoreError extends Error {
  override name = 'SharedStoreError';
}

/** The URL checked: postgres:// or postgresql://, with a host. */
export function parseStoreUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SharedStoreError(
      `${JSON.stringify(text)} is not a URL; expected postgres://user:password@host:port/database`,
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new SharedStoreError(
      `${url.protocol}// is not a store this emulator knows; expected postgres://user:password@host:port/database`,
    );
  if (!url.hostname && !url.searchParams.has('host'))
    throw new SharedStoreError(
      `${describeStore(url)}: no host; expected postgres://user:password@host:port/database`,
    );
  return url;
}

/** Where a store is, for messages: user, host, port and database, never the password. */
export function describeStore(url: URL): string {
  const host = url.hostname || url.searchParams.get('host') || 'localhost';
  const user = url.username ? `${decodeURIComponent(url.username)}@` : '';
  return `postgres://${user}${host}:${url.port || '5432'}${url.pathname}`;
}

/** What a shared store keeps beside the state: the counters and channels every process shares. */
export interface SharedParts {
  store: StateHolder;
  slices: readonly StorageSlice[];
  quota: Pick<QuotaMeter, 'track' | 'take' | 'restore'>;
  /**
   * The rate limit (read at each use: `PUT|DELETE /__emulator/rate-limit` replaces it), its
   * setting and the tokens a seed added while running, shared like the state.
   */
  access: Pick<AccessPolicy, 'limiter' | 'saveShared' | 'restoreShared'>;
  notifier: Pick<Notifier, 'save' | 'restore' | 'hold' | 'release'>;
}

/** How a piece of work run in a turn's transaction ended. */
export type Outcome<T> = { ran: true; value: T; failure?: Error } | { ran: false; failure: Error };

export interface SharedStats {
  /**
   * Transactions committed, failed; the full reloads of the state (at start, after a failed
   * turn, or after another process reset or loaded it) and the catch-ups that read only the
   * rows another process changed.
   */
  commits: number;
  /** Turns of requests that only read, answered without the lock and with nothing to commit. */
  reads: number;
  failures: number;
  reloads: number;
  catchUps: number;
  /** Duration of the last transaction, lock wait included. */
  lastMs: number;
}
