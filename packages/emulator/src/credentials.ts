/**
 * Credentials for the emulator's token endpoint, written as Google writes them: a service
 * account key file (what the Cloud console downloads) or an `authorized_user` file (what
 * `gcloud auth application-default login` writes), each with the seed entry that makes the
 * emulator accept it. `gspec-emulator credentials` (credentials-cli.ts) is the command; the
 * functions are exported for programs and tests.
 *
 * A seed file given is read, changed and written back whole (through a temporary file and a
 * rename, so a failure leaves the old one): what else it holds is kept, and a service account
 * already in it gets the new key beside its others, as a key added in the console would be.
 * A seed the emulator would refuse is refused as it is, before anything is added to it, and
 * nothing is written unless the changed seed still passes the emulator's checks.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { JsonFileError, parseJsonText } from '@gspec/server-kit';
import { numericId, TOKEN_PATH } from './core/oauth.js';
import { type Seed, SeedError, seedOAuth } from './core/seed.js';
import { expandScope } from './core/users.js';
import { parseSeed } from './emulator.js';
import { emulatorOrigin } from './google-auth.js';

export const DEFAULT_EMULATOR_ORIGIN = 'http://127.0.0.1:4011';

export class CredentialsError extends Error {
  override name = 'CredentialsError';
}

/** A service account key file, with the fields of Google's. */
export interface ServiceAccountKeyFile {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  auth_provider_x509_cert_url: string;
  client_x509_cert_url: string;
  universe_domain: string;
}

/** An `authorized_user` file, as Application Default Credentials read it. */
export interface AuthorizedUserFile {
  type: 'authorized_user';
  client_id: string;
  client_secret: string;
  refresh_token: string;
  account: string;
  universe_domain: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function checkEmail(email: string, what: string): string {
  if (!EMAIL.test(email))
    throw new CredentialsError(`${what}: expected an email address, found ${JSON.stringify(email)}`);
  return email.toLowerCase();
}

function checkOrigin(origin: string): string {
  try {
    return emulatorOrigin(origin).origin;
  } catch (error) {
    throw new CredentialsError(`emulator: ${(error as Error).message}`);
  }
}

function checkScopes(scopes: readonly string[], what: string): string[] {
  if (scopes.length === 0) throw new CredentialsError(`${what}: give at least one scope, such as calendar`);
  for (const scope of scopes)
    if (!/^\S+$/.test(scope)) throw new CredentialsError(`${what}: ${JSON.stringify(scope)} is not a scope`);
  return scopes.map(expandScope);
}

/** A seed as the emulator checks it (its shape, the APIs' checks, the token endpoint's). */
function checkSeed(file: string, value: unknown): Seed {
  try {
    const seed = parseSeed(value, file);
    seedOAuth(seed, file);
    return seed;
  } catch (error) {
    if (error instanceof SeedError)
      throw new CredentialsError(`${error.message} (the seed file was not changed)`);
    throw error;
  }
}

/**
 * Reads a seed file to change (an empty seed when there is none yet); refuses what is no seed,
 * or one the emulator would refuse: a `users` that is no list must not be replaced by one.
 */
function readSeed(file: string): Seed {
  if (!existsSync(file)) return {};
  let value: unknown;
  try {
    value = parseJsonText(readFileSync(file, 'utf8'), file);
  } catch (error) {
    if (error instanceof JsonFileError)
      throw new CredentialsError(`${error.message}; not a JSON seed file, left as it is`);
    throw new CredentialsError(`${file}: cannot be read (${(error as Error).message}); left as it is`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CredentialsError(`${file}: a seed file is a JSON object; left as it is`);
  return checkSeed(file, value);
}

/**
 * Writes the changed seed and the new credentials file, both or (as far as a file system
 * allows) neither: each goes to a temporary file beside its target first, then the seed is
 * renamed into place, then the credentials file. The seed is checked as the emulator will check
 * it before anything is written, and keeps its file mode; the credentials file, which holds a
 * secret, is readable by its owner only.
 */
function writeSeedAndCredentials(
  seedFile: string,
  seed: Seed,
  file: string,
  credentials: object,
  replace: boolean,
): void {
  checkSeed(seedFile, seed);
  if (!replace && existsSync(file))
    throw new CredentialsError(`${file} exists already; choose another file, or pass --force to replace it`);
  const seedMode = existsSync(seedFile) ? statSync(seedFile).mode & 0o777 : 0o644;
  const seedTemp = `${seedFile}.${process.pid}.tmp`;
  const temp = `${file}.${process.pid}.tmp`;
  const drop = (path: string) => rmSync(path, { force: true });
  try {
    writeFileSync(temp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
    writeFileSync(seedTemp, `${JSON.stringify(seed, null, 2)}\n`, { mode: seedMode });
    renameSync(seedTemp, seedFile);
  } catch (error) {
    drop(temp);
    drop(seedTemp);
    throw new CredentialsError(
      `could not write ${seedFile} and ${file}: ${(error as Error).message}; neither was changed`,
    );
  }
  try {
    renameSync(temp, file);
  } catch (error) {
    drop(temp);
    throw new CredentialsError(
      `${seedFile} was updated, but ${file} could not be written: ${(error as Error).message}`,
    );
  }
}

export interface ServiceAccountRequest {
  /** The service account's email, such as `robot@my-project.iam.gserviceaccount.com`. */
  email: string;
  /** Where to write the key file. */
  keyFile: string;
  /** The seed file to add the account to (made when missing). */
  seedFile: string;
  /** The emulator's origin, for the key file's `token_uri`. */
  origin?: string;
  /** Scopes to delegate domain-wide (the account may then act as the seed's users with them). */
  delegate?: readonly string[];
  /** Replace an existing key file. */
  force?: boolean;
}

/** Writes a new service account key file and registers its public key in the seed. */
export function writeServiceAccount(request: ServiceAccountRequest): ServiceAccountKeyFile {
  const email = checkEmail(request.email, 'email');
  const origin = checkOrigin(request.origin ?? DEFAULT_EMULATOR_ORIGIN);
  const delegate = request.delegate ? checkScopes(request.delegate, 'delegate') : undefined;
  if (!request.force && existsSync(request.keyFile))
    throw new CredentialsError(
      `${request.keyFile} exists already; choose another file, or pass --force to replace it`,
    );
  const seed = readSeed(request.seedFile);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyId = randomBytes(20).toString('hex');
  const accounts = seed.serviceAccounts ?? [];
  let account = accounts.find((entry) => entry.email.toLowerCase() === email);
  if (!account) {
    account = { email, keys: {} };
    accounts.push(account);
  }
  account.keys = { ...account.keys, [keyId]: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
  if (delegate)
    account.delegation = {
      scopes: [...new Set([...(account.delegation?.scopes ?? []).map(expandScope), ...delegate])],
    };
  seed.serviceAccounts = accounts;
  const domain = email.split('@')[1] ?? '';
  const key: ServiceAccountKeyFile = {
    type: 'service_account',
    project_id: /^([a-z][\w-]*)\.iam\.gserviceaccount\.com$/.exec(domain)?.[1] ?? 'gspec-emulator',
    private_key_id: keyId,
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: email,
    client_id: numericId(email),
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: `${origin}${TOKEN_PATH}`,
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(email)}`,
    universe_domain: 'googleapis.com',
  };
  writeSeedAndCredentials(request.seedFile, seed, request.keyFile, key, request.force === true);
  return key;
}

export interface UserRequest {
  /** The user's email; made a seed user when the seed has none by that email. */
  email: string;
  /** Where to write the `authorized_user` file. */
  file: string;
  seedFile: string;
  /** The scopes the user grants. */
  scopes: readonly string[];
  /** The OAuth client the user grants them to (made in the seed when missing). */
  clientId?: string;
  force?: boolean;
}

export const DEFAULT_CLIENT_ID = 'gspec-emulator.apps.googleusercontent.com';

/** Writes an `authorized_user` file with a new refresh token, and the token and its client in the seed. */
export function writeUserCredentials(request: UserRequest): AuthorizedUserFile {
  const email = checkEmail(request.email, 'email');
  const scopes = checkScopes(request.scopes, 'scopes');
  const clientId = request.clientId ?? DEFAULT_CLIENT_ID;
  if (!/^\S+$/.test(clientId))
    throw new CredentialsError(`client-id: ${JSON.stringify(clientId)} is not a client id`);
  if (!request.force && existsSync(request.file))
    throw new CredentialsError(
      `${request.file} exists already; choose another file, or pass --force to replace it`,
    );
  const seed = readSeed(request.seedFile);
  const clients = seed.oauthClients ?? [];
  let client = clients.find((entry) => entry.clientId === clientId);
  if (!client) {
    client = { clientId, clientSecret: `GOCSPX-${randomBytes(18).toString('base64url')}` };
    clients.push(client);
  }
  seed.oauthClients = clients;
  const users = seed.users ?? [];
  let user = users.find((entry) => entry.email.toLowerCase() === email);
  if (!user) {
    user = { email };
    users.push(user);
  }
  const token = `1//${randomBytes(48).toString('base64url')}`;
  user.refreshTokens = [...(user.refreshTokens ?? []), { token, clientId, scopes }];
  seed.users = users;
  const file: AuthorizedUserFile = {
    type: 'authorized_user',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    refresh_token: token,
    account: email,
    universe_domain: 'googleapis.com',
  };
  writeSeedAndCredentials(request.seedFile, seed, request.file, file, request.force === true);
  return file;
}
