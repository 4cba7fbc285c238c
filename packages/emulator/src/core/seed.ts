/**
 * Seed data (`--seed FILE`): the small, hand-written start of a state, as opposed to a dumped
 * state (`--state FILE`). The core reads `users` (emails, tokens, scopes); each API reads its
 * own keys (`ApiModule.seed`: Calendar's `calendars` and users' `settings`, Search Ads 360's
 * `searchads360`); see the README for the format.
 *
 * The document's shape is checked first, against the core's schema and every API's; then each
 * API writes its part, mostly through the operations a client would call, so it is validated
 * against the spec and gets etags, sequence numbers and sync history as if it had been sent
 * over HTTP. Every refusal names the entry at fault (`calendars[1].events[0]`), and a seed that
 * fails leaves the state untouched. A field nothing knows is refused at every depth, with the
 * nearest known name: the entries written through operations are checked against the field
 * names of the spec's schemas (seed-fields.ts), as the operations themselves ignore such a field.
 */
import { closestNames, editDistance } from '@gspec/server-kit';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { AnyApiModule, Fail, SeedDocument, SeedUser } from './api-module.js';
import { ApiError } from './errors.js';
import { readJsonFile } from './files.js';
import { OAuthConfigError, type OAuthOptions, OAuthServer } from './oauth.js';
import type { InvokeInput, InvokeResult } from './operations.js';
import { own, setOwn } from './own.js';
import { createAjv } from './schemas.js';
import { fieldsDocument, fieldsFileId } from './seed-fields.js';
import type { Services } from './services.js';
import { type ApiName, type ApiSpec, loadApiSpec } from './spec.js';
import { specFileId } from './state-file.js';
import type { Store } from './store.js';
import { expandScope, parseUserMap, type ScopeMap, type UserMap } from './users.js';

export type { SeedUser } from './api-module.js';

/** A checked seed document: the core's `users` and every API's keys. */
export type Seed = SeedDocument;

export class SeedError extends Error {
  override name = 'SeedError';
}

/** An email in a seed file (users, and what APIs read: a calendar's owner). */
export const SEED_EMAIL = { type: 'string', pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' };

const SCOPES = { type: 'array', items: { type: 'string', pattern: '^\\S+$' } };
const NAME = { type: 'string', pattern: '^\\S+$' };

/**
 * The token endpoint's part of a seed (oauth.ts): service accounts with their public keys and
 * any domain-wide delegation, OAuth clients, and (under `users`) the refresh tokens users gave them.
 */
const OAUTH_SEED_PROPERTIES = {
  serviceAccounts: {
    type: 'array',
    description:
      'Service accounts the token endpoint knows: their public keys, and the scopes delegated to them.',
    items: {
      type: 'object',
      required: ['email', 'keys'],
      additionalProperties: false,
      properties: {
        email: SEED_EMAIL,
        clientId: { type: 'string', pattern: '^\\d+$' },
        keys: {
          type: 'object',
          description: "Key id (the key file's private_key_id) to a PEM public key or X.509 certificate.",
          minProperties: 1,
          additionalProperties: { type: 'string', minLength: 1 },
        },
        delegation: {
          type: 'object',
          required: ['scopes'],
          additionalProperties: false,
          description: 'Domain-wide delegation: the scopes it may ask for when it acts as a user (sub).',
          properties: { scopes: SCOPES },
        },
      },
    },
  },
  oauthClients: {
    type: 'array',
    description: 'OAuth clients (installed or web apps) that may use the refresh-token grant.',
    items: {
      type: 'object',
      required: ['clientId', 'clientSecret'],
      additionalProperties: false,
      properties: { clientId: NAME, clientSecret: { type: 'string', minLength: 1 } },
    },
  },
};

/** What a seed user may carry for the token endpoint: refresh tokens given to OAuth clients. */
const OAUTH_USER_PROPERTIES = {
  refreshTokens: {
    type: 'array',
    items: {
      type: 'object',
      required: ['token', 'clientId', 'scopes'],
      additionalProperties: false,
      properties: { token: NAME, clientId: NAME, scopes: SCOPES },
    },
  },
};

/** The seed file's shape (published as dist/schemas/seed.schema.json, see config-schemas.ts). */
export function seedSchema(modules: readonly AnyApiModule[]): object {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      $schema: { type: 'string', description: 'Where an editor finds this schema; ignored by the emulator.' },
      users: {
        type: 'array',
        items: {
          type: 'object',
          required: ['email'],
          additionalProperties: false,
          properties: {
            email: SEED_EMAIL,
            tokens: { type: 'array', items: { type: 'string', pattern: '^\\S+$' } },
            scopes: SCOPES,
            ...OAUTH_USER_PROPERTIES,
            ...Object.assign({}, ...modules.map((m) => m.seed?.user ?? {})),
          },
        },
      },
      ...OAUTH_SEED_PROPERTIES,
      ...Object.assign({}, ...modules.map((m) => m.seed?.properties ?? {})),
    },
  };
}

/** `/calendars/1/events/0` becomes `calendars[1].events[0]`. */
function place(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
}

/**
 * `; did you mean "summary"?` for the known names nearest to `name` (only the nearest: not
 * `dsConversionId` beside `conversionId` for `conversionID`); empty when none is near.
 */
export function nearestNames(name: string, known: readonly string[]): string {
  const close = closestNames(name, known);
  const far = (other: string) => editDistance(name.toLowerCase(), other.toLowerCase(), name.length);
  const best = Math.min(...close.map(far));
  const names = close.filter((other) => far(other) === best).map((other) => JSON.stringify(other));
  if (names.length === 0) return '';
  const last = names.pop();
  return `; did you mean ${names.length > 0 ? `${names.join(', ')} or ${last}` : last}?`;
}

/**
 * `calendars[0].events[0]: unknown field "sumary" (at /calendars/0/events/0/sumary); did you
 * mean "summary"?`, or the fields the entry takes when none is near.
 */
function unknownField(error: ErrorObject, at: string): string {
  const name = (error.params as { additionalProperty: string }).additionalProperty;
  const pointer = `${error.instancePath}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  const properties = (error.parentSchema as { properties?: object } | undefined)?.properties ?? {};
  const known = Object.keys(properties).filter((key) => key !== '$schema');
  const hint =
    nearestNames(name, known) ||
    (known.length > 0 ? `; the fields here are ${known.sort().join(', ')}` : '; this entry takes no fields');
  return `${at}: unknown field ${JSON.stringify(name)} (at ${pointer})${hint}`;
}

function describe(error: ErrorObject): string {
  const at = place(error.instancePath) || '(the document)';
  if (error.keyword === 'additionalProperties') return unknownField(error, at);
  if (error.keyword === 'not') return `${at}: ${JSON.stringify(error.data)} cannot be an id`;
  if (error.keyword === 'pattern' && error.schema === SEED_EMAIL.pattern)
    return `${at}: expected an email address, found ${JSON.stringify(error.data)}`;
  return `${at}: ${error.message ?? 'invalid'}`;
}

/** What a seed parser checks a document against: the APIs' parts, and their specs by name. */
export interface SeedParser {
  /** Checks the shape of a seed document; the error names the entry at fault. */
  parse(value: unknown, source?: string): Seed;
  /** Reads and checks a seed file. */
  read(file: string): Seed;
}

/**
 * The seed parser of the APIs of `modules`. Their seed schemas may refer to their specs' own
 * schemas (the device types of a click), so the specs are read (from @gspec/specs unless
 * given) when the first seed is checked, not before.
 */
export function createSeedParser(
  modules: readonly AnyApiModule[],
  specs: Partial<Record<ApiName, ApiSpec>> = {},
): SeedParser {
  let shapeValidator: ValidateFunction<Seed> | undefined;
  const validator = (): ValidateFunction<Seed> => {
    if (!shapeValidator) {
      const ajv = createAjv();
      for (const module of modules) {
        const { document } = specs[module.name] ?? loadApiSpec(module.name);
        ajv.addSchema(document, specFileId(module.name));
        ajv.addSchema(fieldsDocument(document), fieldsFileId(module.name));
      }
      shapeValidator = ajv.compile<Seed>(seedSchema(modules));
    }
    return shapeValidator;
  };
  function parse(value: unknown, source = 'seed'): Seed {
    const validate = validator();
    if (!validate(value)) {
      // An unknown field first: a misspelt required field is also a missing one.
      const errors = (validate.errors ?? [])
        .filter((e) => e.keyword !== 'if')
        .sort(
          (a, b) =>
            Number(b.keyword === 'additionalProperties') - Number(a.keyword === 'additionalProperties'),
        );
      throw new SeedError(`${source}: ${errors.slice(0, 3).map(describe).join('; ')}`);
    }
    const fail: Fail = (message) => {
      throw new SeedError(`${source}: ${message}`);
    };
    const seen = new Map<string, number>();
    (value.users ?? []).forEach((user, i) => {
      const email = user.email.toLowerCase();
      const first = seen.get(email);
      if (first !== undefined) fail(`users[${i}].email: ${email} is already users[${first}]`);
      seen.set(email, i);
    });
    for (const module of modules) module.seed?.check?.(value, fail);
    return value;
  }
  function read(file: string): Seed {
    return parse(
      readJsonFile(file, (message) => new SeedError(message)),
      file,
    );
  }
  return { parse, read };
}

/**
 * The seed's tokens merged into a token-to-email map (the `--users` map, which wins on
 * nothing: a token given two emails is an error).
 */
export function seedUserMap(seed: Seed, users: UserMap = {}, source = 'seed'): UserMap {
  const out = { ...users };
  (seed.users ?? []).forEach((user, i) => {
    const map = Object.fromEntries((user.tokens ?? []).map((token) => [token, user.email]));
    let parsed: UserMap;
    try {
      parsed = parseUserMap(map, `${source}: users[${i}].tokens`);
    } catch (error) {
      throw new SeedError((error as Error).message);
    }
    for (const [token, email] of Object.entries(parsed)) {
      const known = own(out, token);
      if (known !== undefined && known !== email)
        throw new SeedError(`${source}: users[${i}].tokens: ${JSON.stringify(token)} already means ${known}`);
      setOwn(out, token, email);
    }
  });
  return out;
}

/**
 * The scopes of the seed's users merged into a token-to-scopes map (the `--users` file's): each
 * of a user's tokens gets the user's `scopes`. A token granted other scopes elsewhere is an
 * error, as is `scopes` without a token to grant them to.
 */
export function seedScopeMap(seed: Seed, scopes: ScopeMap = {}, source = 'seed'): ScopeMap {
  const out = { ...scopes };
  (seed.users ?? []).forEach((user, i) => {
    if (user.scopes === undefined) return;
    if ((user.tokens ?? []).length === 0)
      throw new SeedError(
        `${source}: users[${i}].scopes: scopes are granted to the user's tokens, and the user has none (add "tokens")`,
      );
    const granted = [...new Set(user.scopes.map(expandScope))];
    for (const token of user.tokens ?? []) {
      const before = own(out, token);
      if (before && [...new Set(before)].sort().join(' ') !== [...granted].sort().join(' '))
        throw new SeedError(
          `${source}: users[${i}].scopes: token ${JSON.stringify(token)} already has the scopes ${before.join(', ') || '(none)'}`,
        );
      setOwn(out, token, granted);
    }
  });
  return out;
}

/**
 * The token endpoint's configuration from a seed: its service accounts, OAuth clients and the
 * users' refresh tokens, checked (keys that are no public key, a client given twice, a refresh
 * token for a client the seed does not list are SeedErrors that name the entry).
 */
export function seedOAuth(seed: Seed, source = 'seed'): OAuthOptions {
  const { serviceAccounts = [], oauthClients = [] } = seed;
  const users = seed.users ?? [];
  const clientIds = new Set(oauthClients.map((client) => client.clientId));
  users.forEach((user, i) => {
    (user.refreshTokens ?? []).forEach((grant, j) => {
      if (!clientIds.has(grant.clientId))
        throw new SeedError(
          `${source}: users[${i}].refreshTokens[${j}].clientId: ${JSON.stringify(grant.clientId)} is not one of oauthClients`,
        );
    });
  });
  const options: OAuthOptions = {
    serviceAccounts,
    clients: oauthClients,
    refreshTokens: users.flatMap((user) =>
      (user.refreshTokens ?? []).map((grant) => ({ ...grant, email: user.email })),
    ),
  };
  try {
    // The endpoint's own checks, once, so that a bad seed is refused before anything starts.
    new OAuthServer(options);
  } catch (error) {
    if (error instanceof OAuthConfigError) throw new SeedError(`${source}: ${error.message}`);
    throw error;
  }
  return options;
}

/**
 * What a seed is written through: an Emulator (server.ts), named by its parts so that the
 * server's control plane can seed itself without an import circle.
 */
export interface SeededEmulator {
  store: Store;
  services: Services;
  invoke(email: string, operationId: string, input?: InvokeInput): InvokeResult;
  invokeAsSeed(operationId: string, input?: InvokeInput): InvokeResult;
}

/** What an operation's refusal says, for a seed error. */
function refusal(error: unknown): string {
  if (!(error instanceof ApiError)) return (error as Error).message;
  const items = error.body.error.errors;
  const reason = items[0]?.reason ?? '';
  const said = items.length > 1 ? items : [{ ...items[0], message: error.message }];
  return `${error.status} ${reason}: ${said
    .map((item) => `${item.message}${item.location ? ` (${item.location})` : ''}`)
    .join('; ')}`;
}

/**
 * Writes a checked seed into a running emulator, on top of its state: the seed's users, then
 * each API's part in the registry's order. On failure the state is restored and a SeedError
 * names the entry at fault. The seed's tokens are not added here: pass
 * `seedUserMap(seed, users)` as the emulator's `users` (`POST /__emulator/seed` adds them to
 * a running emulator's, control.ts).
 */
export function applySeed(emulator: SeededEmulator, seed: Seed, source = 'seed'): void {
  const { store } = emulator;
  const before = structuredClone(store.state);
  let at = '';
  const place = (where: string) => {
    at = where;
  };
  try {
    (seed.users ?? []).forEach((entry: SeedUser, i) => {
      at = `users[${i}]`;
      store.user(entry.email.toLowerCase());
    });
    for (const service of emulator.services.list) {
      service.module.seed?.apply(
        {
          store: service.store,
          spec: service.spec,
          invoke: emulator.invoke,
          invokeAsSeed: emulator.invokeAsSeed,
        },
        seed,
        place,
      );
    }
  } catch (error) {
    store.state = before;
    throw new SeedError(`${source}: ${at}: ${error instanceof SeedError ? error.message : refusal(error)}`);
  } finally {
    // Nothing was watching before the start; no notifications for the seed.
    store.drainChanges();
  }
}
