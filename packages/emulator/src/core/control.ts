/**
 * The control plane, under CONTROL_PREFIX (outside the API base paths, so no client call can
 * reach it by mistake): health, reset, dump and load the state, load a seed, quota use, and
 * the rate limit, which can be set, changed or turned off while the emulator runs.
 */

import { describeJsonError } from '@gspec/server-kit';
import { type Refusal, refuse } from './errors.js';
import { jsonChunks } from './json.js';
import type { QuotaMeter } from './quota.js';
import { ownRefusal } from './refusals.js';
import { type Seed, SeedError, seedScopeMap, seedUserMap } from './seed.js';
import type { Services } from './services.js';
import type { State } from './state.js';
import type { StateFileError } from './state-file.js';
import type { Store } from './store.js';
import {
  AccessConfigError,
  type AccessPolicy,
  type RateLimitOptions,
  type RateLimitStatus,
} from './strict.js';

export const CONTROL_PREFIX = '/__emulator';

export interface ControlDeps {
  services: Services;
  store: Pick<Store, 'state' | 'empty'>;
  quota: QuotaMeter;
  /**
   * The tokens and the rate limit: a seed's tokens are added to it, the rate limit set or
   * turned off through it, and the limit in force (`limiter`, read at each request) is
   * reported with the quota and emptied with it.
   */
  access: Pick<AccessPolicy, 'limiter' | 'setRateLimit' | 'tokens' | 'addTokens'>;
  /** Seed documents: their check (SeedError), and writing one on top of the state (applySeed). */
  seeds: { parse(value: unknown, source?: string): Seed; apply(seed: Seed, source?: string): void };
  checkState(value: unknown): State;
  /** Called when the state is replaced (reset or load): watch channels close. */
  onReset(): void;
}

export interface ControlAnswer {
  status: number;
  body?: unknown;
  /** A JSON body in pieces, sent one after another (the state dump). */
  chunks?: string[];
}

const control = (id: string, status: number, reason: string, when: string): Refusal =>
  ownRefusal('control', id, status, reason, when);

export const CONTROL_NOT_JSON = control(
  'notJson',
  400,
  'parseError',
  'a body of `PUT /state`, `POST /seed` or `PUT /rate-limit` that is not JSON',
);
export const CONTROL_BAD_SEED = control(
  'invalidSeed',
  400,
  'invalid',
  'a seed the seed schema or the state’s checks refuse (the message names the entry)',
);
export const CONTROL_BAD_STATE = control(
  'invalidState',
  400,
  'invalid',
  'a state document its checks refuse (the message names the field)',
);
export const CONTROL_BAD_RATE_LIMIT = control(
  'invalidRateLimit',
  400,
  'invalid',
  'a rate limit that is not an object, has an unknown field or an out-of-range value',
);
export const CONTROL_RATE_LIMIT_UNITS = control(
  'rateLimitUnitsRequired',
  400,
  'required',
  'a rate limit without `units`',
);
export const CONTROL_NO_ENDPOINT = control(
  'noEndpoint',
  404,
  'notFound',
  'no control endpoint has the path and method',
);

const problem = (entry: Refusal, message: string) => refuse(entry, message);

/** What every endpoint is, for the 404 of a path that is none. */
const ENDPOINTS =
  'GET /health, POST /reset, GET|PUT /state, POST /seed, GET /quota, POST /quota/reset, GET|PUT|DELETE /rate-limit';

/** A request body read as JSON; `what` names it in the 400 of a body that is not JSON. */
function readJson(body: string | undefined, what: string): unknown {
  try {
    return JSON.parse(body ?? '');
  } catch (error) {
    throw problem(CONTROL_NOT_JSON, `${what} is not valid JSON: ${describeJsonError(error)}`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The name the seed is given in its error messages (`seed: users[0].email: ...`). */
const SEED_SOURCE = 'seed';

/**
 * The first part of a seed that configures the token endpoint (service accounts, OAuth
 * clients, refresh tokens), if any. The endpoint (oauth.ts) is made once, at start, from them
 * and takes no more afterwards, so a running emulator cannot honour them: the seed is refused
 * rather than loaded without them.
 */
function tokenEndpointPart(seed: Seed): string | undefined {
  if ((seed.serviceAccounts ?? []).length > 0) return 'serviceAccounts';
  if ((seed.oauthClients ?? []).length > 0) return 'oauthClients';
  const i = (seed.users ?? []).findIndex((user) => (user.refreshTokens ?? []).length > 0);
  return i >= 0 ? `users[${i}].refreshTokens` : undefined;
}

/**
 * How many entries the seed held, by where they are: every array of objects at any depth,
 * named by the path of its fields (`users`, `calendars`, `calendars.events`).
 */
function seedEntries(seed: Seed): Record<string, number> {
  const counts = new Map<string, number>();
  const walk = (value: unknown, at: string): void => {
    if (Array.isArray(value)) {
      for (const item of value)
        if (isObject(item)) {
          counts.set(at, (counts.get(at) ?? 0) + 1);
          walk(item, at);
        }
    } else if (isObject(value))
      for (const [key, field] of Object.entries(value))
        if (key !== '$schema') walk(field, at ? `${at}.${key}` : key);
  };
  walk(seed, '');
  return Object.fromEntries(counts);
}

/**
 * `POST /seed`: a seed document written on top of the state, as `--seed` does at start, or
 * nothing at all. Everything that can be refused is checked before anything changes (the
 * shape, the token endpoint's parts, tokens and scopes against those known); applySeed then
 * restores the state if one of its writes is refused. Its tokens and their scopes are added
 * last, once the writes are in, and work from the next request on.
 */
function loadSeed(deps: ControlDeps, body: string | undefined): ControlAnswer {
  const value = readJson(body, 'The seed');
  try {
    const seed = deps.seeds.parse(value, SEED_SOURCE);
    const part = tokenEndpointPart(seed);
    if (part !== undefined)
      throw new SeedError(
        `${SEED_SOURCE}: ${part}: service accounts, OAuth clients and refresh tokens are given to the token endpoint when the emulator starts (--seed FILE, or the oauth option of createEmulator); a running emulator cannot take them. Load this seed at start, or leave serviceAccounts, oauthClients and users' refreshTokens out`,
      );
    const known = deps.access.tokens();
    const users = seedUserMap(seed, known.users, SEED_SOURCE);
    const scopes = seedScopeMap(seed, known.scopes, SEED_SOURCE);
    deps.seeds.apply(seed, SEED_SOURCE);
    deps.access.addTokens(users, scopes);
    return {
      status: 200,
      body: {
        entries: seedEntries(seed),
        tokens: Object.keys(users).filter((token) => !Object.hasOwn(known.users, token)).length,
        users: Object.keys(deps.store.state.users).length,
      },
    };
  } catch (error) {
    if (error instanceof SeedError) throw problem(CONTROL_BAD_SEED, error.message);
    throw error;
  }
}

const RATE_LIMIT_FIELDS = ['units', 'status', 'windowMs'];

/** `PUT /rate-limit`'s body: `{"units", "status"?, "windowMs"?}`, each checked by setRateLimit. */
function readRateLimit(body: string | undefined): RateLimitOptions {
  const value = readJson(body, 'The rate limit');
  if (!isObject(value))
    throw problem(
      CONTROL_BAD_RATE_LIMIT,
      `The rate limit is a JSON object such as {"units": 60} or {"units": 60, "status": 429}; found ${JSON.stringify(value)}`,
    );
  const unknown = Object.keys(value).find((key) => !RATE_LIMIT_FIELDS.includes(key));
  if (unknown !== undefined)
    throw problem(
      CONTROL_BAD_RATE_LIMIT,
      `unknown field ${JSON.stringify(unknown)}: the rate limit takes units, and optionally status (403 or 429) and windowMs`,
    );
  if (value.units === undefined)
    throw problem(
      CONTROL_RATE_LIMIT_UNITS,
      'units: required, the quota units each user may spend per API in any window (a minute unless windowMs), such as 60',
    );
  return {
    units: value.units as number,
    ...(value.status !== undefined ? { status: value.status as RateLimitStatus } : {}),
    ...(value.windowMs !== undefined ? { windowMs: value.windowMs as number } : {}),
  };
}

/** `GET /rate-limit`: off, or the limit with what each user has spent in the window. */
function rateLimitReport(deps: ControlDeps): object {
  const limiter = deps.access.limiter;
  return limiter ? { enabled: true, ...limiter.snapshot() } : { enabled: false };
}

export function handleControl(
  deps: ControlDeps,
  method: string,
  path: string,
  body: string | undefined,
): ControlAnswer {
  const route = `${method} ${path.slice(CONTROL_PREFIX.length) || '/'}`;
  switch (route) {
    case 'GET /health':
      return {
        status: 200,
        body: {
          status: 'ok',
          apis: Object.fromEntries(
            deps.services.list.map((s) => [
              s.name,
              {
                basePath: s.spec.basePath,
                operations: s.spec.operations.length,
                notImplemented: s.notImplemented,
              },
            ]),
          ),
          users: Object.keys(deps.store.state.users).length,
        },
      };
    case 'POST /reset':
      deps.store.state = deps.store.empty();
      deps.quota.reset();
      // The limit stays as set (at start or since); only its windows empty.
      deps.access.limiter?.reset();
      deps.onReset();
      return { status: 204 };
    case 'GET /state':
      return { status: 200, chunks: jsonChunks(deps.store.state) };
    case 'PUT /state':
    case 'POST /state': {
      const value = readJson(body, 'The state');
      try {
        deps.store.state = deps.checkState(value);
        deps.onReset();
      } catch (error) {
        throw problem(CONTROL_BAD_STATE, (error as StateFileError).message);
      }
      return { status: 204 };
    }
    case 'POST /seed':
      return loadSeed(deps, body);
    case 'GET /quota': {
      const limiter = deps.access.limiter;
      return {
        status: 200,
        body: { ...deps.quota.snapshot(), ...(limiter ? { rateLimit: limiter.snapshot() } : {}) },
      };
    }
    case 'POST /quota/reset':
      deps.quota.reset();
      deps.access.limiter?.reset();
      return { status: 204 };
    case 'GET /rate-limit':
      return { status: 200, body: rateLimitReport(deps) };
    case 'PUT /rate-limit': {
      const options = readRateLimit(body);
      try {
        deps.access.setRateLimit(options);
      } catch (error) {
        if (!(error instanceof AccessConfigError)) throw error;
        // The body's field, not the option of createEmulator (`rateLimit.units`).
        throw problem(CONTROL_BAD_RATE_LIMIT, `${error.option.replace(/^rateLimit\./, '')}: ${error.detail}`);
      }
      return { status: 200, body: rateLimitReport(deps) };
    }
    case 'DELETE /rate-limit':
      deps.access.setRateLimit(undefined);
      return { status: 204 };
    default:
      throw problem(
        CONTROL_NO_ENDPOINT,
        `No control endpoint ${route}; see ${ENDPOINTS} under ${CONTROL_PREFIX}`,
      );
  }
}
