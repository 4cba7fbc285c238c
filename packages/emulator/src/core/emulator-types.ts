/**
 * What an emulator takes (`EmulatorOptions`) and what it is (`Emulator`): the server, its parts,
 * in-process calls and its lifecycle. server.ts makes one; wiring.ts reads the options.
 */
import type { Server } from 'node:http';
import type { AdminOptions } from './admin.js';
import type { Exchange } from './answers.js';
import type { InspectorOptions } from './inspector.js';
import type { Journal } from './journal.js';
import type { Notifier, NotifierOptions } from './notifier.js';
import type { OAuthOptions, OAuthServer } from './oauth.js';
import type { InvokeInput, InvokeResult } from './operations.js';
import type { SharedStore } from './postgres.js';
import type { SharedStoreOptions } from './postgres-options.js';
import type { QuotaMeter } from './quota.js';
import type { Services } from './services.js';
import type { ApiName, ApiSpec } from './spec.js';
import type { State } from './state.js';
import type { StateStore } from './state-store.js';
import type { Persistence, PersistOptions } from './storage.js';
import type { Store } from './store.js';
import type { RateLimitOptions } from './strict.js';
import type { ScopeMap, UserMap } from './users.js';

export interface EmulatorOptions {
  /** Specs by API name (`calendar`); an API's spec not given is loaded from @gspec/specs. */
  specs?: Partial<Record<ApiName, ApiSpec>>;
  /** Token to email; other tokens still work (see users.ts), except in strict mode. */
  users?: UserMap;
  /**
   * Strict mode (strict.ts): only the tokens of `users` are accepted (others are 401), and each
   * operation needs one of its spec's scopes among the token's `scopes` (else 403).
   */
  strict?: boolean;
  /** Token to the OAuth scopes it was granted (full or short names); a token not in it has all. */
  scopes?: ScopeMap;
  /**
   * The token endpoint (oauth.ts): the service accounts, OAuth clients and refresh tokens it
   * knows (`seedOAuth` reads them from a seed). Served whatever is given; with nothing
   * registered every grant is refused.
   */
  oauth?: OAuthOptions;
  /**
   * Quota units per user and API in any rolling window (a minute unless `windowMs`); over it,
   * 403 or 429. `PUT|DELETE /__emulator/rate-limit` sets, changes or drops it while running.
   */
  rateLimit?: RateLimitOptions;
  onResponse?: (exchange: Exchange) => void;
  /** One line per request, when set. */
  log?: (line: string) => void;
  /**
   * Push notification delivery: retry delays and timeout, the targets allowed (`allow`; needed
   * in a shared sandbox), the caps (`maxChannelsPerUser`, `maxAttemptsPerChange`), the resolver.
   */
  notifications?: Omit<NotifierOptions, 'log'>;
  /**
   * Keeps the state in this database file (core/storage.ts): loaded now when it holds a state
   * (a file that fails to load throws PersistError), and every request that changes the state
   * is answered once the change is committed.
   */
  persist?: string | PersistOptions;
  /**
   * The web inspector (`/__emulator/ui/`): `journal` bounds what it keeps, `streamBacklogBytes`
   * the unsent output past which a reader of its live stream is dropped (1 MiB).
   */
  inspector?: InspectorOptions;
  /**
   * Keeps the state in a PostgreSQL database that several emulators share (core/postgres.ts,
   * `postgres://user:password@host:port/database`): each turn's requests run in one transaction
   * there and are answered once it committed. Connected by `listen` (or `shared.open`); not with `persist`.
   */
  store?: string | SharedStoreOptions;
  /**
   * The admin credential of the control plane and the inspector (core/admin.ts): needed, when
   * set, wherever the emulator listens. Without one, strict mode and a listener beyond loopback
   * lock them (401 to everything but `GET /__emulator/health`).
   */
  admin?: AdminOptions;
  /**
   * Host names the emulator answers to besides IP addresses, `localhost` and names under
   * `.localhost` (decision 0052): `emulator`, `.example.test` for a domain and its names, `*`
   * for any (no protection against DNS rebinding). A list, or one string separated by commas.
   */
  allowedHosts?: string | readonly string[];
}

export interface Emulator {
  server: Server;
  /** Every API served, each with its spec and its own store (`services.list`). */
  services: Services;
  /** The core's store: the whole state (`store.state`), the users. */
  store: Store;
  quota: QuotaMeter;
  notifier: Notifier;
  /** The requests and deliveries the inspector shows, bounded (journal.ts). */
  journal: Journal;
  /** The OAuth 2.0 token endpoint at the root (`/token`, `/tokeninfo`, `/revoke`). */
  oauth: OAuthServer;
  /**
   * Where the state is kept (state-store.ts): in memory, or the `persist` file, or the `store`
   * database. `stateStore.open(initialize)` loads what it holds, or writes the starting state
   * that `initialize` makes (`listen` opens it, when not done yet). `stateStore.run(work)` runs
   * in-process work (`invoke`) as a turn of its own and commits it.
   */
  stateStore: StateStore;
  /** With the `persist` option: the same store as the database, and `commit()` to save in-process changes (`invoke`). */
  persistence?: Persistence;
  /**
   * With the `store` option: the same store as the shared database. `shared.open(initialize)` connects and loads
   * it (`listen` does, when not done yet); `shared.run(work)` runs in-process work (`invoke`)
   * in a transaction, as requests are.
   */
  shared?: SharedStore;
  /**
   * Runs an operation as the user `email`, in-process, validated and handled as over HTTP
   * (no quota charged); a refusal throws the ApiError the request would get.
   */
  invoke(email: string, operationId: string, input?: InvokeInput): InvokeResult;
  /**
   * Runs an operation in-process for a seed, as no user (none is made): ids the seed does not
   * name are refused, not created, and a batch with a bad row is refused whole.
   */
  invokeAsSeed(operationId: string, input?: InvokeInput): InvokeResult;
  /** Checks a dumped state (as `PUT /__emulator/state` does) and returns it; throws StateFileError. */
  checkState(value: unknown): State;
  listen(port: number, host?: string): Promise<string>;
  close(): Promise<void>;
}
