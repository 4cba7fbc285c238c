/**
 * Who a request is from. Any bearer token is accepted (as Google's own token checks are out of
 * reach locally); the token is the user's identity. A token-to-email map (`--users FILE`)
 * names users; a token not in it that is itself an email is that user, and any other token
 * gets a stable made-up address, so the same token always means the same user.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { authError, MISSING_CREDENTIAL } from './errors.js';

export type UserMap = Record<string, string>;

export class UsersFileError extends Error {
  override name = 'UsersFileError';
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Checks a token-to-email map; the error names the entry at fault. */
export function parseUserMap(value: unknown, source = 'users'): UserMap {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsersFileError(
      `${source}: expected a JSON object of token to email, such as {"token-a": "ana@example.com"}`,
    );
  const out: UserMap = {};
  for (const [token, email] of Object.entries(value)) {
    if (token.trim() === '' || /\s/.test(token))
      throw new UsersFileError(
        `${source}: ${JSON.stringify(token)}: a token cannot be empty or contain spaces`,
      );
    if (typeof email !== 'string' || !EMAIL.test(email))
      throw new UsersFileError(
        `${source}["${token}"]: expected an email address, found ${JSON.stringify(email)}`,
      );
    out[token] = email.toLowerCase();
  }
  return out;
}

export function readUserMapFile(file: string): UserMap {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsersFileError(`${file}: cannot read (${(error as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsersFileError(`${file}: not valid JSON (${(error as Error).message})`);
  }
  return parseUserMap(value, file);
}

export function emailForToken(token: string, users: UserMap): string {
  const mapped = users[token];
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
  if (authorization !== undefined) {
    const match = /^\s*(\S+)(?:\s+(.*))?$/.exec(authorization);
    const scheme = match?.[1];
    const token = match?.[2]?.trim();
    if (!scheme)
      throw authError('The Authorization header is empty. Expected "Authorization: Bearer <token>".');
    if (scheme.toLowerCase() !== 'bearer')
      throw authError(
        token === undefined
          ? 'The Authorization header has no scheme. Expected "Authorization: Bearer <token>".'
          : `The Authorization header uses the ${scheme} scheme; this API takes only an OAuth 2 access token as "Authorization: Bearer <token>".`,
      );
    if (!token) throw authError('The bearer token is empty. Expected "Authorization: Bearer <token>".');
    return token;
  }
  if (accessToken) return accessToken;
  throw authError(MISSING_CREDENTIAL);
}
