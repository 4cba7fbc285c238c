/**
 * Strict mode and the rate limit: the checks a request passes after it is routed and its bearer
 * token read, before it is charged, validated and handled.
 *
 * - Strict mode (`--strict`) accepts only the tokens of the users map (`--users`, the seed's
 *   users); any other token is `401 authError`. A token is allowed an operation when it was
 *   granted one of the scopes the spec lists for it (`security`); else `403
 *   insufficientPermissions`. A token whose entry names no scopes has them all.
 * - The rate limit (`--rate-limit N` with or without strict mode, or `PUT /__emulator/rate-limit`
 *   while running) lets each user spend N quota units (`x-quota-cost`) per API in any rolling
 *   minute. Over it, Calendar answers `403 rateLimitExceeded` and Search Ads 360 `429
 *   rateLimitExceeded` (with `Retry-After`), as the live services do; `status` makes both
 *   answer 403 or both 429.
 *
 * Refused requests cost nothing: Google does not charge a request it refuses at the door, and a
 * client that backs off must see the window empty again.
 */

import type { RateLimitStatus } from './api-module.js';
import { type ApiError, authError, refusal, refuse } from './errors.js';

/** Over the rate limit, answered as Calendar answers it (403) or as Search Ads 360 does (429). */
export const RATE_LIMITED = {
  403: refusal({
    id: 'any.rateLimitExceeded403',
    scope: 'every API',
    operations: [],
    status: 403,
    reason: 'rateLimitExceeded',
    domain: 'usageLimits',
    when: 'a user spent the rate limit’s quota units in the window (`--rate-limit`; 403 where the API’s live service answers 403)',
    evidence: ['fact:conventions:errors/reasons/rateLimitExceeded', 'decision:0032'],
  }),
  429: refusal({
    id: 'any.rateLimitExceeded429',
    scope: 'every API',
    operations: [],
    status: 429,
    reason: 'rateLimitExceeded',
    domain: 'usageLimits',
    when: 'as above, answered 429 with `Retry-After` (where the API’s live service answers 429, or with `--rate-limit-status 429`)',
    evidence: ['fact:conventions:errors/reasons/rateLimitExceeded', 'decision:0032'],
  }),
} as const;

/** A token without any of the operation's scopes (strict mode). */
export const INSUFFICIENT_SCOPES = refusal({
  id: 'any.insufficientPermissions',
  scope: 'every API',
  operations: [],
  status: 403,
  reason: 'insufficientPermissions',
  when: 'strict mode: the token was granted none of the scopes the operation takes',
  evidence: ['decision:0054', 'decision:0032'],
});

import type { OAuthServer } from './oauth.js';
import { setOwn } from './own.js';
import type { Services } from './services.js';
import type { ApiName, OperationSpec } from './spec.js';
import { emailForToken, expandScope, type ScopeMap, type UserMap } from './users.js';

export type { RateLimitStatus } from './api-module.js';

export interface RateLimitOptions {
  /** Quota units a user may spend per API in any window; at least the dearest operation's cost. */
  units: number;
  /** The window's length in ms; a minute by default. Tests shorten it. */
  windowMs?: number;
  /** The status of every API's refusal; by default each API answers as its live service does. */
  status?: RateLimitStatus;
}

export interface AccessOptions {
  /** Only the tokens of `users`, with their scopes enforced. */
  strict?: boolean;
  /** Token to email: the known tokens of strict mode. */
  users?: UserMap;
  /** Token to granted scopes (full or short names); a token not in it has every scope. */
  scopes?: ScopeMap;
  rateLimit?: RateLimitOptions;
  /** The token endpoint: the access tokens it issued carry their own user and scopes. */
  oauth?: OAuthServer;
}

/** Options of strict mode or the rate limit that cannot work; the message names the option. */
export class AccessConfigError extends Error {
  override name = 'AccessConfigError';
  constructor(
    /** The option at fault, such as `rateLimit.units`. */
    readonly option: string,
    /** What is wrong with it. */
    readonly detail: string,
  ) {
    super(`${option}: ${detail}`);
  }
}

export const MINUTE_MS = 60_000;

/** What `GET /__emulator/quota` tells of the rate limit. */
export interface RateLimitReport {
  units: number;
  windowMs: number;
  status: Record<ApiName, RateLimitStatus>;
  /** Units each user has spent in the window that ends now, per API; users with none are left out. */
  used: Record<ApiName, Record<string, number>>;
}

interface Spend {
  at: number;
  units: number;
}

/** `12 s`, `1.5 s`, `300 ms`, `1 minute`: a duration for a message. */
function duration(ms: number): string {
  if (ms === MINUTE_MS) return '1 minute';
  if (ms < 1000) return `${Math.ceil(ms)} ms`;
  const seconds = Math.ceil(ms / 100) / 10;
  return `${seconds} s`;
}

/**
 * Quota units spent per user and API in a rolling window: a spend counts until `windowMs` after
 * it was made, so the window frees up unit by unit rather than all at once at a boundary, and
 * the wait before a call fits is exact.
 */
export class RateLimiter {
  readonly units: number;
  readonly windowMs: number;
  readonly status: Record<ApiName, RateLimitStatus>;
  /** The options it was made with (a shared store keeps them, so every emulator sets the same). */
  readonly options: RateLimitOptions;
  private spends = new Map<string, { api: ApiName; email: string; log: Spend[] }>();

  /** `live`: how each API answers over the limit as its live service does (the modules say). */
  constructor(options: RateLimitOptions, live: Readonly<Record<ApiName, RateLimitStatus>>) {
    this.units = options.units;
    this.windowMs = options.windowMs ?? MINUTE_MS;
    const chosen = options.status;
    this.options = { units: this.units, windowMs: this.windowMs, ...(chosen ? { status: chosen } : {}) };
    this.status = Object.fromEntries(
      Object.entries(live).map(([api, status]) => [api, chosen ?? status]),
    ) as Record<ApiName, RateLimitStatus>;
  }

  /** The user's spends still in the window at `now`, oldest first (older ones dropped). */
  private log(api: ApiName, email: string, now: number): Spend[] {
    const key = `${api} ${email}`;
    let entry = this.spends.get(key);
    if (!entry) {
      entry = { api, email, log: [] };
      this.spends.set(key, entry);
    }
    const { log } = entry;
    let expired = 0;
    while (expired < log.length && (log[expired] as Spend).at + this.windowMs <= now) expired += 1;
    if (expired > 0) log.splice(0, expired);
    return log;
  }

  /** Units the user has spent on the API in the window that ends at `now`. */
  used(api: ApiName, email: string, now = Date.now()): number {
    return this.log(api, email, now).reduce((sum, spend) => sum + spend.units, 0);
  }

  /** Milliseconds until `cost` more units fit the user's window; 0 when they fit now. */
  wait(api: ApiName, email: string, cost: number, now = Date.now()): number {
    const log = this.log(api, email, now);
    let over = log.reduce((sum, spend) => sum + spend.units, 0) + cost - this.units;
    if (over <= 0) return 0;
    for (const spend of log) {
      over -= spend.units;
      if (over <= 0) return spend.at + this.windowMs - now;
    }
    // Dearer than the whole window: it never fits (the options refuse such a limit).
    return Number.POSITIVE_INFINITY;
  }

  /** Spends `cost` units of the user's window, or throws the API's rate-limit refusal. */
  charge(api: ApiName, email: string, cost: number, now = Date.now()): void {
    if (cost <= 0) return;
    const wait = this.wait(api, email, cost, now);
    if (wait > 0) throw this.refusal(api, email, cost, wait, now);
    this.log(api, email, now).push({ at: now, units: cost });
  }

  private refusal(api: ApiName, email: string, cost: number, wait: number, now: number): ApiError {
    // Every served API has its status (the modules'); 429 is the field's answer for any other.
    const status = this.status[api] ?? 429;
    // Both services' reason for a user over its request rate, as a 403 or a 429.
    const message = `Rate Limit Exceeded. The emulator's rate limit is ${this.units} quota units per user per ${duration(
      this.windowMs,
    )}; ${email} has spent ${this.used(api, email, now)} of them and this request costs ${cost}. Retry in ${duration(wait)} or later.`;
    // Retry-After is documented for 429 only, and Google's 403 usage-limit answers never carry it.
    const headers: Record<string, string> =
      status === 429 ? { 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))) } : {};
    return refuse(status === 403 ? RATE_LIMITED[403] : RATE_LIMITED[429], message, { headers });
  }

  snapshot(now = Date.now()): RateLimitReport {
    const used = Object.fromEntries(
      Object.keys(this.status).map((api) => [api, {}]),
    ) as RateLimitReport['used'];
    for (const [key, { api, email }] of [...this.spends]) {
      const units = this.used(api, email, now);
      const byUser = used[api];
      if (units > 0 && byUser) byUser[email] = units;
      else this.spends.delete(key);
    }
    return { units: this.units, windowMs: this.windowMs, status: { ...this.status }, used };
  }

  reset(): void {
    this.spends.clear();
  }

  /** The spends in the window as JSON text (a shared store keeps them in its database). */
  save(): string {
    return JSON.stringify([...this.spends.values()]);
  }

  /** Replaces the spends with saved ones (`save`). */
  restore(text: string): void {
    const entries = JSON.parse(text) as { api: ApiName; email: string; log: Spend[] }[];
    this.spends = new Map(entries.map((entry) => [`${entry.api} ${entry.email}`, entry]));
  }
}

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** Checks the rate limit's options against the served operations; throws AccessConfigError. */
function checkRateLimit(options: RateLimitOptions, services: Services): void {
  let dearest: OperationSpec | undefined;
  for (const service of services.list)
    for (const op of service.spec.operations) if (!dearest || op.quotaCost > dearest.quotaCost) dearest = op;
  const least = Math.max(1, dearest?.quotaCost ?? 1);
  if (!Number.isSafeInteger(options.units) || options.units < least)
    throw new AccessConfigError(
      'rateLimit.units',
      `expected a whole number of quota units of at least ${least}${
        dearest && dearest.quotaCost === least
          ? ` (the cost of ${dearest.id}, which could never run with less)`
          : ''
      }, found ${JSON.stringify(options.units)}`,
    );
  if (options.windowMs !== undefined && !(Number.isFinite(options.windowMs) && options.windowMs > 0))
    throw new AccessConfigError(
      'rateLimit.windowMs',
      `expected a positive number of milliseconds, found ${JSON.stringify(options.windowMs)}`,
    );
  if (options.status !== undefined && options.status !== 403 && options.status !== 429)
    throw new AccessConfigError(
      'rateLimit.status',
      `expected 403 or 429, found ${JSON.stringify(options.status)}`,
    );
}

/**
 * The checks of strict mode and the rate limit, for every API request that carries a token.
 * The users and scopes maps are read at each request, so a caller may add tokens later; the
 * control plane adds a seed's tokens (`addTokens`) and sets or drops the rate limit
 * (`setRateLimit`) while the emulator runs.
 */
export class AccessPolicy {
  readonly strict: boolean;
  private readonly users: UserMap;
  private readonly scopes: ScopeMap;
  /**
   * Tokens added while the emulator runs, kept apart from the maps the caller gave: those are
   * the caller's own objects, which it may share with another emulator.
   */
  private readonly added: { users: UserMap; scopes: ScopeMap } = { users: {}, scopes: {} };
  private readonly oauth: OAuthServer | undefined;
  private readonly services: Services;
  /** How each API answers over the limit as its live service does (the modules say). */
  private readonly live: Record<ApiName, RateLimitStatus>;
  private rateLimiter: RateLimiter | undefined;

  constructor(services: Services, options: AccessOptions = {}) {
    this.strict = options.strict === true;
    this.oauth = options.oauth;
    this.users = options.users ?? {};
    this.scopes = options.scopes ?? {};
    for (const [token, granted] of Object.entries(this.scopes))
      if (!isStringArray(granted))
        throw new AccessConfigError(
          `scopes["${token}"]`,
          `expected an array of scopes, found ${JSON.stringify(granted)}`,
        );
    this.services = services;
    this.live = Object.fromEntries(services.list.map((s) => [s.name, s.module.rateLimitStatus])) as Record<
      ApiName,
      RateLimitStatus
    >;
    this.setRateLimit(options.rateLimit);
  }

  /** The rate limit in force, if any: read at each request, as it may change while the emulator runs. */
  get limiter(): RateLimiter | undefined {
    return this.rateLimiter;
  }

  /**
   * Sets the rate limit, checked as the `rateLimit` option is (AccessConfigError naming the
   * option), or turns it off (`undefined`). A limit set anew starts with empty windows: what was
   * spent under the one before counts no more.
   */
  setRateLimit(options: RateLimitOptions | undefined): RateLimiter | undefined {
    if (options) checkRateLimit(options, this.services);
    this.rateLimiter = options ? new RateLimiter(options, this.live) : undefined;
    return this.rateLimiter;
  }

  /**
   * Every token known and the scopes of those that name theirs: the maps given and the tokens
   * added since, as copies (a seed's tokens are checked against them: seedUserMap, seedScopeMap).
   */
  tokens(): { users: UserMap; scopes: ScopeMap } {
    return {
      users: { ...this.added.users, ...this.users },
      scopes: { ...this.added.scopes, ...this.scopes },
    };
  }

  /**
   * Adds tokens (token to email) and the scopes granted to some of them, from the next request
   * on. The caller has checked them against `tokens()`: a token of the maps given keeps what
   * they say.
   */
  addTokens(users: UserMap, scopes: ScopeMap = {}): void {
    for (const [token, email] of Object.entries(users))
      if (!Object.hasOwn(this.users, token)) setOwn(this.added.users, token, email);
    for (const [token, granted] of Object.entries(scopes))
      if (!Object.hasOwn(this.scopes, token)) setOwn(this.added.scopes, token, [...granted]);
  }

  /**
   * The rate limit's setting and the tokens added while running, as JSON text: a shared store
   * keeps it in its database, so that a change at one emulator applies at every one.
   */
  saveShared(): string {
    return JSON.stringify({
      rateLimit: this.rateLimiter?.options ?? null,
      users: this.added.users,
      scopes: this.added.scopes,
    });
  }

  /**
   * Applies a setting saved by `saveShared` (another emulator's): the tokens added replaced, the
   * rate limit set anew when it differs. True when it was (its windows are then empty).
   */
  restoreShared(text: string): boolean {
    const saved = JSON.parse(text) as {
      rateLimit: RateLimitOptions | null;
      users: UserMap;
      scopes: ScopeMap;
    };
    this.added.users = saved.users;
    this.added.scopes = saved.scopes;
    if (JSON.stringify(saved.rateLimit) === JSON.stringify(this.rateLimiter?.options ?? null)) return false;
    this.setRateLimit(saved.rateLimit ?? undefined);
    return true;
  }

  /** Whether the token is one of the users maps' (given, or added since). */
  private known(token: string): boolean {
    return Object.hasOwn(this.users, token) || Object.hasOwn(this.added.users, token);
  }

  /**
   * The email of the request's token once strict mode and the rate limit let the request
   * through, its units spent; else throws their refusal (401, 403 or 429). A token the token
   * endpoint issued (or a service account's self-signed JWT) acts as its user with its scopes,
   * in strict mode and out of it; an expired or revoked one is a 401 in both. A token the
   * users map names is its user's, whatever its shape.
   */
  admit(token: string, api: ApiName, op: OperationSpec, now = Date.now()): string {
    const grant = this.known(token) ? undefined : this.oauth?.lookup(token, now);
    let email: string;
    if (grant) {
      if (this.strict) this.checkScopes(grant.scopes, op);
      email = grant.email;
    } else {
      if (this.strict) {
        if (!this.known(token))
          throw authError(
            "Request had invalid authentication credentials. The emulator runs in strict mode, which accepts only the bearer tokens of its users file (--users), of the seed's users and of its token endpoint; this token is none of them.",
          );
        this.checkScopes(this.granted(token), op);
      }
      email = emailForToken(token, Object.hasOwn(this.users, token) ? this.users : this.added.users);
    }
    this.rateLimiter?.charge(api, email, op.quotaCost, now);
    return email;
  }

  /** The scopes granted to a token, in full; undefined when it has every scope. */
  granted(token: string): string[] | undefined {
    const scopes = Object.hasOwn(this.scopes, token) ? this.scopes : this.added.scopes;
    return Object.hasOwn(scopes, token) ? (scopes[token] ?? []).map(expandScope) : undefined;
  }

  /** Refuses an operation none of whose scopes was granted (`undefined`: every scope was). */
  private checkScopes(granted: string[] | undefined, op: OperationSpec): void {
    // An operation the spec secures with no scope takes any token.
    if (granted === undefined || op.scopes.length === 0 || op.scopes.some((s) => granted.includes(s))) return;
    const message = `Request had insufficient authentication scopes. ${op.id} needs any one of ${op.scopes.join(
      ', ',
    )}; the token was granted ${granted.length > 0 ? granted.join(', ') : 'no scope'}.`;
    throw refuse(INSUFFICIENT_SCOPES, message, {
      // As Google's answer: the scopes that would do, for a client that asks for them again.
      headers: {
        'www-authenticate': `Bearer realm="https://accounts.google.com/", error="insufficient_scope", scope="${op.scopes.join(' ')}"`,
      },
    });
  }
}

/**
 * The granted scopes that allow no operation of the served APIs, each with how many tokens
 * have it: a misspelt scope, or one of another API (which a real token may well carry).
 */
export function unusedScopes(services: Services, scopes: ScopeMap): { scope: string; tokens: number }[] {
  const accepted = new Set(services.list.flatMap((s) => s.spec.operations.flatMap((op) => op.scopes)));
  const count = new Map<string, number>();
  for (const granted of Object.values(scopes))
    for (const scope of new Set(granted.map(expandScope)))
      if (!accepted.has(scope)) count.set(scope, (count.get(scope) ?? 0) + 1);
  return [...count].map(([scope, tokens]) => ({ scope, tokens }));
}
