/**
 * Seed data (`--seed FILE`): the small, hand-written start of a state, as opposed to a dumped
 * state (`--state FILE`). Users with their tokens and settings, calendars with their sharing
 * rules and events; see the README for the format.
 *
 * The document's shape is checked first; then every calendar, rule and event is written
 * through the operation a client would call (calendars.insert/patch, acl.insert,
 * calendarList.insert, events.insert), so it is validated against the spec and gets etags,
 * sequence numbers and sync history as if it had been sent over HTTP. Every refusal names the
 * entry at fault (`calendars[1].events[0]`), and a seed that fails leaves the state untouched.
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import {
  applySearchAds360Seed,
  SEARCHADS360_SEED_SCHEMA,
  type SearchAds360Seed,
} from '../apis/searchads360/seed.js';
import { SEARCHADS360_SPEC_ID } from '../apis/searchads360/state-schema.js';
import { ApiError } from './errors.js';
import { own, setOwn } from './own.js';
import { createAjv } from './schemas.js';
import type { Emulator } from './server.js';
import { type JsonObject, loadApiSpec } from './spec.js';
import { nextRevision } from './state.js';
import { expandScope, parseUserMap, type ScopeMap, type UserMap } from './users.js';

export class SeedError extends Error {
  override name = 'SeedError';
}

export interface SeedUser {
  email: string;
  /** Bearer tokens that mean this user (besides the email itself, outside strict mode). */
  tokens?: string[];
  /**
   * OAuth scopes granted to the user's tokens (full or short names, `calendar.readonly`);
   * without it they have every scope. Only strict mode enforces scopes.
   */
  scopes?: string[];
  /** Setting id to value, over the defaults (`timezone` also sets the primary calendar's zone). */
  settings?: Record<string, string>;
}

export interface SeedCalendar {
  /** `primary` (or the owner's email) for the owner's primary calendar; else a new secondary calendar, with this id if given. */
  id?: string;
  owner: string;
  summary?: string;
  description?: string;
  location?: string;
  timeZone?: string;
  /** Sharing rules, as acl.insert takes them: `{role, scope: {type, value}}`. */
  acl?: JsonObject[];
  /** Users who have the calendar on their calendar list (besides the owner). */
  listedBy?: string[];
  /** Event bodies, as events.insert takes them. */
  events?: JsonObject[];
}

export interface Seed {
  users?: SeedUser[];
  calendars?: SeedCalendar[];
  /** Search Ads 360 entities and conversions (src/searchads360/seed.ts). */
  searchads360?: SearchAds360Seed;
}

const EMAIL = { type: 'string', pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' };

/** The seed file's shape (published as dist/schemas/seed.schema.json, see config-schemas.ts). */
export const SEED_SCHEMA = {
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
          email: EMAIL,
          tokens: { type: 'array', items: { type: 'string', pattern: '^\\S+$' } },
          scopes: { type: 'array', items: { type: 'string', pattern: '^\\S+$' } },
          settings: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
    },
    calendars: {
      type: 'array',
      items: {
        type: 'object',
        required: ['owner'],
        additionalProperties: false,
        properties: {
          // `__proto__` cannot be a key of the state's plain objects (see own.ts).
          id: { type: 'string', pattern: '^[^\\s/?#]+$', not: { const: '__proto__' } },
          owner: EMAIL,
          summary: { type: 'string' },
          description: { type: 'string' },
          location: { type: 'string' },
          timeZone: { type: 'string' },
          acl: { type: 'array', items: { type: 'object' } },
          listedBy: { type: 'array', items: EMAIL },
          events: { type: 'array', items: { type: 'object' } },
        },
      },
    },
    searchads360: SEARCHADS360_SEED_SCHEMA,
  },
};

/** `/calendars/1/events/0` becomes `calendars[1].events[0]`. */
function place(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
}

function describe(error: ErrorObject): string {
  const at = place(error.instancePath) || '(the document)';
  if (error.keyword === 'additionalProperties')
    return `${at}: unknown field ${JSON.stringify((error.params as { additionalProperty: string }).additionalProperty)}`;
  if (error.keyword === 'not') return `${at}: ${JSON.stringify(error.data)} cannot be an id`;
  if (error.keyword === 'pattern' && /email|owner|listedBy/.test(error.instancePath))
    return `${at}: expected an email address, found ${JSON.stringify(error.data)}`;
  return `${at}: ${error.message ?? 'invalid'}`;
}

// Compiled on first use: the Search Ads 360 part refers to the spec's own schemas (the device
// types of a click), and reading the spec is not something an import should do.
let shapeValidator: ValidateFunction | undefined;
function validateShape(value: unknown): value is Seed {
  if (!shapeValidator) {
    const ajv = createAjv();
    ajv.addSchema(loadApiSpec('searchads360').document, SEARCHADS360_SPEC_ID);
    shapeValidator = ajv.compile(SEED_SCHEMA);
  }
  return shapeValidator(value);
}

/** Checks the shape of a seed document; the error names the entry at fault. */
export function parseSeed(value: unknown, source = 'seed'): Seed {
  if (!validateShape(value)) {
    const errors = (shapeValidator?.errors ?? []).filter((e) => e.keyword !== 'if');
    throw new SeedError(`${source}: ${errors.slice(0, 3).map(describe).join('; ')}`);
  }
  const seed = value as Seed;
  const seen = new Map<string, number>();
  (seed.users ?? []).forEach((user, i) => {
    const email = user.email.toLowerCase();
    const first = seen.get(email);
    if (first !== undefined)
      throw new SeedError(`${source}: users[${i}].email: ${email} is already users[${first}]`);
    seen.set(email, i);
  });
  const ids = new Map<string, number>();
  (seed.calendars ?? []).forEach((calendar, i) => {
    if (calendar.id === undefined) return;
    const id = calendar.id === 'primary' ? calendar.owner.toLowerCase() : calendar.id.toLowerCase();
    const first = ids.get(id);
    if (first !== undefined)
      throw new SeedError(`${source}: calendars[${i}].id: ${calendar.id} is already calendars[${first}]`);
    ids.set(id, i);
  });
  return seed;
}

/** Reads and checks a seed file. */
export function readSeedFile(file: string): Seed {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SeedError(`${file}: cannot read (${(error as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SeedError(`${file}: not valid JSON (${(error as Error).message})`);
  }
  return parseSeed(value, file);
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

/** Gives a just-created secondary calendar the id the seed asks for. */
function renameCalendar(emulator: Emulator, from: string, to: string, owner: string): void {
  const { state } = emulator.store;
  const calendar = state.calendars[from];
  if (!calendar) return;
  delete state.calendars[from];
  state.calendars[to] = { ...calendar, id: to };
  state.events[to] = state.events[from] ?? {};
  delete state.events[from];
  state.acl[to] = state.acl[from] ?? {};
  delete state.acl[from];
  const list = state.calendarList[owner] ?? {};
  const entry = list[from];
  if (entry) {
    delete list[from];
    list[to] = { ...entry, calendarId: to };
  }
}

/**
 * Writes a checked seed into a running emulator, on top of its state. On failure the state is
 * restored and a SeedError names the entry at fault. The seed's tokens are not added here:
 * pass `seedUserMap(seed, users)` as the emulator's `users`.
 */
export function applySeed(emulator: Emulator, seed: Seed, source = 'seed'): void {
  const { store } = emulator;
  const before = structuredClone(store.state);
  let at = '';
  try {
    const known = Object.keys(store.defaults.settings);
    (seed.users ?? []).forEach((entry, i) => {
      at = `users[${i}]`;
      const email = entry.email.toLowerCase();
      const user = store.user(email);
      for (const [id, value] of Object.entries(entry.settings ?? {})) {
        at = `users[${i}].settings.${id}`;
        if (!known.includes(id)) throw new SeedError(`unknown setting; the settings are ${known.join(', ')}`);
        user.settings[id] = value;
      }
      if (entry.settings) {
        user.settingsRevision = nextRevision(store.state);
        const timeZone = entry.settings.timezone;
        const primary = store.state.calendars[email];
        if (timeZone && primary) {
          at = `users[${i}].settings.timezone`;
          emulator.invoke(email, 'calendars.patch', { path: { calendarId: email }, body: { timeZone } });
        }
      }
    });
    (seed.calendars ?? []).forEach((entry, i) => {
      at = `calendars[${i}]`;
      const owner = entry.owner.toLowerCase();
      store.user(owner);
      const fields: JsonObject = {};
      for (const key of ['summary', 'description', 'location', 'timeZone'] as const)
        if (entry[key] !== undefined) fields[key] = entry[key];
      const wanted = entry.id === 'primary' ? owner : entry.id;
      let id: string;
      if (wanted?.toLowerCase() === owner) {
        id = owner;
        if (Object.keys(fields).length > 0)
          emulator.invoke(owner, 'calendars.patch', { path: { calendarId: id }, body: fields });
      } else {
        if (wanted !== undefined && own(store.state.calendars, wanted))
          throw new SeedError(`id: a calendar ${wanted} exists already`);
        if (wanted?.includes('@') && !wanted.endsWith('.calendar.google.com'))
          throw new SeedError(
            `id: ${wanted} looks like a user's email; use "primary" for a primary calendar`,
          );
        if (fields.summary === undefined)
          throw new SeedError('summary: a secondary calendar needs a summary');
        const made = emulator.invoke(owner, 'calendars.insert', { body: fields });
        id = String(made.body?.id);
        if (wanted !== undefined) {
          renameCalendar(emulator, id, wanted, owner);
          id = wanted;
        }
      }
      (entry.acl ?? []).forEach((rule, j) => {
        at = `calendars[${i}].acl[${j}]`;
        emulator.invoke(owner, 'acl.insert', { path: { calendarId: id }, body: rule });
      });
      (entry.listedBy ?? []).forEach((email, j) => {
        at = `calendars[${i}].listedBy[${j}]`;
        if (email.toLowerCase() === owner) return;
        emulator.invoke(email.toLowerCase(), 'calendarList.insert', { body: { id } });
      });
      (entry.events ?? []).forEach((event, j) => {
        const summary = typeof event.summary === 'string' ? ` (${JSON.stringify(event.summary)})` : '';
        at = `calendars[${i}].events[${j}]${summary}`;
        emulator.invoke(owner, 'events.insert', { path: { calendarId: id }, body: event });
      });
    });
    if (seed.searchads360)
      applySearchAds360Seed(emulator, seed.searchads360, (place) => {
        at = place;
      });
  } catch (error) {
    store.state = before;
    throw new SeedError(`${source}: ${at}: ${error instanceof SeedError ? error.message : refusal(error)}`);
  } finally {
    // Nothing was watching before the start; no notifications for the seed.
    store.drainChanges();
  }
}
