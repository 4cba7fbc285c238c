/**
 * Who a request is from. Any bearer token is accepted (as Google's own token checks are out of
 * reach locally); the token is the user's identity. A token-to-email map (`--users FILE`)
 * names users; a token not in it that is itself an email is that user, and any other token
 * gets a stable made-up address, so the same token always means the same user. An entry of
 * the map may also name the OAuth scopes its token was granted, which strict mode enforces
 * (see strict.ts).
 */

import { createHash } from 'node:crypto';
import { readBearer as readCredential } from '@gspec/server-kit';
import { authError } from './errors.js';
import { readJsonFile } from './files.js';

export type UserMap = Record<string, string>;

export class UsersFileError extends Error {
  override name = 'UsersFileError';
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * OAuth scopes granted per token (strict mode enforces them). A token not in the map has every
 * scope of both APIs, as every token had before scopes existed.
 */
export type ScopeMap = Record<string, string[]>;

/** A users file read: who each token is, and the scopes of the tokens that name theirs. */
export interface UsersFile {
  users: UserMap;
  scopes: ScopeMap;
}

/** Where Google's OAuth scopes live; a scope given without it (`calendar.readonly`) is short for one under it. */
export const SCOPE_PREFIX = 'https://www.googleapis.com/auth/';

/** A scope's full name: `calendar.readonly` becomes `https://www.googleapis.com/auth/calendar.readonly`. */
export const expandScope = (scope: string): string =>
  /^https?:\/\//.test(scope) ? scope : `${SCOPE_PREFIX}${scope}`;

const SCOPE = /^\S+$/;

/** The scopes of one entry, checked and expanded; the error names the entry. */
export function parseScopes(value: unknown, where: string): string[] {
  if (!Array.isArray(value))
    throw new UsersFileError(
      `${where}: expected an array of OAuth scopes (full names or short ones, as the specs name them), found ${JSON.stringify(value)}`,
    );
  return value.map((scope, i) => {
    if (typeof scope !== 'string' || !SCOPE.test(scope))
      throw new UsersFileError(
        `${where}[${i}]: expected a scope (a name without spaces), found ${JSON.stringify(scope)}`,
      );
    return expandScope(scope);
  });
}

/**
 * The users file's shape, published as dist/schemas/users.schema.json (config-schemas.ts) for
 * editors; parseUsersFile checks the same with messages of its own, and a test holds the two
 * to the same verdicts.
 */
export const USERS_SCHEMA = {
  type: 'object',
  description: 'Bearer token to the user it stands for: an email, or an email and the OAuth scopes granted.',
  properties: {
    $schema: { type: 'string', description: 'Where an editor finds this schema; not a token.' },
  },
  propertyNames: { pattern: '^\\S+$', not: { const: '__proto__' } },
  additionalProperties: {
    oneOf: [
      { type: 'string', pattern: EMAIL.source },
      {
        type: 'object',
        required: ['email'],
        additionalProperties: false,
        properties: {
          email: { type: 'string', pattern: EMAIL.source },
          scopes: { type: 'array', items: { type: 'string', pattern: '^\\S+$' } },
        },
      },
    ],
  },
};

/**
 * Checks a users document: token to email, or token to `{"email", "scopes"}`; the error names
 * the entry at fault.
 */
export function parseUsersFile(value: unknown, source = 'users'): UsersFile {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsersFileError(
      `${source}: expected a JSON object of token to email, such as {"token-a": "ana@example.com"}`,
    );
  const users: UserMap = {};
  const scopes: ScopeMap = {};
  for (const [token, entry] of Object.entries(value)) {
    // Where an editor finds USERS_SCHEMA; not a token.
    if (token === '$schema' && typeof entry === 'string') continue;
    if (token.trim() === '' || /\s/.test(token))
      throw new UsersFileError(
        `${source}: ${JSON.stringify(token)}: a token cannot be empty or contain spaces`,
      );
    // It would be taken as the map's prototype, not as a token (see own.ts).
    if (token === '__proto__') throw new UsersFileError(`${source}: "__proto__" cannot be a token`);
    let email: unknown = entry;
    if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
      const unknown = Object.keys(entry).find((key) => key !== 'email' && key !== 'scopes');
      if (unknown !== undefined)
        throw new UsersFileError(
          `${source}["${token}"]: unknown field ${JSON.stringify(unknown)}; an entry is an email or {"email": ..., "scopes": [...]}`,
        );
      email = (entry as { email?: unknown }).email;
      if ('scopes' in entry)
        scopes[token] = parseScopes((entry as { scopes?: unknown }).scopes, `${source}["${token}"].scopes`);
    }
    if (typeof email !== 'string' || !EMAIL.test(email))
      throw new UsersFileError(
        `${source}["${token}"]${entry === email ? '' : '.email'}: expected an email address, found ${JSON.stringify(email)}`,
      );
    users[token] = email.toLowerCase();
  }
  return { users, scopes };
}

/** Checks a token-to-email map (scopes, if any entry gives them, are checked and left out). */
export function parseUserMap(value: unknown, source = 'users'): UserMap {
  return parseUsersFile(value, source).users;
}

/** Reads and checks a users file (`--users FILE`). */
export function readUsersFile(file: string): UsersFile {
  return parseUsersFile(
    readJsonFile(file, (message) => new UsersFileError(message)),
    file,
  );
}

export function readUserMapFile(file: string): UserMap {
  return readUsersFile(file).users;
}

export function emailForToken(token: string, users: UserMap): string {
  // Own keys only: a token such as `constructor` is not a user of every map.
  const mapped = Object.hasOwn(users, token) ? users[token] : undefined;
  if (mapped) return mapped;
  if (EMAIL.test(token)) return token.toLowerCase();
  return `user-${createHash('sha256').update(token).digest('hex').slice(0, 10)}@example.com`;
}

/**
 * The bearer token of a request, as Google reads it: `Authorization: Bearer <token>` with the
 * scheme in any case, or the `access_token` query parameter. Anything else is a 401 whose
 * message says what is wrong.
 */
export function readBearer(authorization: string | undefined, accessToken: string | null): string {
  const credential = readCredential(authorization, accessToken);
  if (credential.problem !== undefined) throw authError(credential.problem);
  return credential.token;
}
