/**
 * Who may use the control plane and the inspector (README, Control plane; decision 0050).
 *
 * Everything under `/__emulator` but `GET /__emulator/health` and the inspector's page files
 * (its HTML, style sheet and scripts hold no state) can read or replace every user's data. On a
 * developer's loopback, without strict mode, it answers anyone, as it always has. It needs the
 * admin credential when one is configured, in strict mode, and whenever the emulator listens on
 * anything but loopback. Needed and not configured, the control plane is locked: it answers 401
 * to every request and changes nothing.
 *
 * The credential is sent as `X-Emulator-Admin-Token`, or as the cookie the inspector's sign-in
 * sets (HttpOnly, SameSite=Strict, for the control prefix only). It is compared in constant
 * time, through digests of equal length, so neither its bytes nor its length leak by timing.
 * Nothing prints it: the journal redacts the header and the cookie, and the start-up output
 * says only whether one is set.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { ApiError } from './errors.js';

export const ADMIN_TOKEN_HEADER = 'x-emulator-admin-token';
export const ADMIN_COOKIE = 'gspec-admin';
/** Where the CLI reads the credential from when no file is given. */
export const ADMIN_TOKEN_ENV = 'GSPEC_EMULATOR_ADMIN_TOKEN';

export interface AdminOptions {
  /** The admin credential; when set, it is needed wherever the emulator listens. */
  token?: string;
}

/** Whether a host the server listens on is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Equal strings, in a time that depends on neither's content nor length. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

function cookieOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key !== name) continue;
    try {
      return decodeURIComponent(value.join('='));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** A problem of the admin configuration: the message says what is wrong. */
export class AdminConfigError extends Error {
  override name = 'AdminConfigError';
}

/** Checks a credential given in configuration: text, not empty, no space or control character. */
export function checkAdminToken(token: unknown, where: string): string {
  if (typeof token !== 'string' || token.length === 0)
    throw new AdminConfigError(`${where}: the admin credential is empty`);
  if (token.length < 16)
    throw new AdminConfigError(
      `${where}: the admin credential is ${token.length} characters long; use at least 16 (for example, openssl rand -hex 24)`,
    );
  if (/[\s\p{Cc}]/u.test(token))
    throw new AdminConfigError(
      `${where}: the admin credential holds a space or a control character; it must fit in one HTTP header`,
    );
  return token;
}

export class AdminGate {
  private readonly token: string | undefined;

  constructor(
    options: AdminOptions | undefined,
    /** Strict mode: the credential is needed even on loopback. */
    private readonly strict: boolean,
    private readonly prefix: string,
    /**
     * The address the server is bound to, asked at each request: however it was made to
     * listen (`emulator.listen`, or `emulator.server.listen` directly), the gate sees where.
     * Undefined when it is not listening or listens on a local socket file.
     */
    private readonly boundTo: () => string | undefined = () => undefined,
  ) {
    this.token = options?.token === undefined ? undefined : checkAdminToken(options.token, 'admin.token');
  }

  /** Whether the server is reachable from other machines. */
  private get exposed(): boolean {
    const host = this.boundTo();
    return host !== undefined && !isLoopback(host);
  }

  /** Whether a request needs the credential. */
  get required(): boolean {
    return this.token !== undefined || this.strict || this.exposed;
  }

  /** Whether a credential is configured (a locked control plane has none). */
  get configured(): boolean {
    return this.token !== undefined;
  }

  /** Whether the request may use the control plane. */
  admits(headers: IncomingHttpHeaders): boolean {
    if (!this.required) return true;
    if (this.token === undefined) return false;
    const header = headers[ADMIN_TOKEN_HEADER];
    const given = typeof header === 'string' ? header : cookieOf(headers, ADMIN_COOKIE);
    return given !== undefined && sameSecret(given, this.token);
  }

  /** Whether `given` is the credential (the inspector's sign-in). */
  matches(given: string): boolean {
    return this.token !== undefined && sameSecret(given, this.token);
  }

  /** The cookie the inspector's sign-in sets: the credential, for the control prefix only. */
  cookie(): string {
    return `${ADMIN_COOKIE}=${encodeURIComponent(this.token ?? '')}; Path=${this.prefix}; HttpOnly; SameSite=Strict`;
  }

  /** The cookie that ends the sign-in. */
  clearedCookie(): string {
    return `${ADMIN_COOKIE}=; Path=${this.prefix}; Max-Age=0; HttpOnly; SameSite=Strict`;
  }

  /** The 401 of a request without the credential; it says why and how to give it. */
  refusal(): ApiError {
    const why =
      this.token === undefined
        ? `The control plane is locked: this emulator ${this.strict ? 'runs in strict mode' : 'listens beyond loopback'} and was started without an admin credential (set ${ADMIN_TOKEN_ENV} or --admin-token-file FILE)`
        : `The control plane needs the admin credential: send it as ${ADMIN_TOKEN_HEADER}, or sign in at ${this.prefix}/ui/`;
    return new ApiError(401, [{ domain: 'emulator', reason: 'adminCredential', message: why }]);
  }
}
