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
 * The credential is sent as `X-Emulator-Admin-Token`. It is compared in constant time, through
 * digests of equal length, so neither its bytes nor its length leak by timing. Nothing prints
 * it: the journal redacts the header and the cookie, and the start-up output says only whether
 * one is set.
 *
 * The inspector's page signs in instead: `POST /ui/session` checks the credential once and
 * answers a cookie that holds a session id, never the credential, so a stolen cookie is worth
 * one session and signing out (`DELETE /ui/session`) ends it. An id is 32 random bytes
 * (base64url) mapped in memory to when it expires: sessions die with the process, and each
 * emulator behind a load balancer knows only its own. A session lasts a fixed time from the
 * sign-in (12 hours by default), however much it is used: absolute, not sliding, so that a
 * stolen cookie in use is not kept alive by its thief. At most `sessions.max` live at once; a
 * sign-in beyond it ends the oldest. The cookie is HttpOnly, SameSite=Strict and for the
 * control prefix only; it cannot be `Secure`, which would keep browsers from sending it back
 * over the plain http the emulator serves.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { type ApiError, refusal, refuse } from './errors.js';

/** The control plane asked for without the admin credential. */
export const ADMIN_CREDENTIAL = refusal({
  id: 'control.adminCredential',
  scope: 'control plane',
  operations: [],
  status: 401,
  reason: 'adminCredential',
  domain: 'emulator',
  when: 'a control-plane or inspector-data request without the admin credential, where one is needed',
  evidence: ['decision:0050'],
});

export const ADMIN_TOKEN_HEADER = 'x-emulator-admin-token';
export const ADMIN_COOKIE = 'gspec-admin';
/** Where the CLI reads the credential from when no file is given. */
export const ADMIN_TOKEN_ENV = 'GSPEC_EMULATOR_ADMIN_TOKEN';

export interface AdminOptions {
  /** The admin credential; when set, it is needed wherever the emulator listens. */
  token?: string;
  /** The inspector's sign-in sessions. */
  sessions?: SessionOptions;
}

export interface SessionOptions {
  /** How long a session lasts from its sign-in, in milliseconds (absolute): 12 hours by default. */
  lifetimeMs?: number;
  /** The most sessions live at once; a sign-in beyond it ends the oldest. 100 by default. */
  max?: number;
  /** The clock, in milliseconds since the epoch (tests give their own). */
  now?: () => number;
}

/** 12 hours: a working day's sign-in, then the credential again. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
export const MAX_SESSIONS = 100;

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

function checkCount(value: unknown, where: string, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new AdminConfigError(
      `${where}: ${what} must be a whole number of at least 1; got ${String(value)}`,
    );
  return value;
}

export class AdminGate {
  private readonly token: string | undefined;
  /**
   * The live sessions: id to when it expires, oldest sign-in first. Every session lasts the
   * same time, so they expire in this order too, and pruning stops at the first live one.
   */
  private readonly sessions = new Map<string, number>();
  private readonly lifetimeMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;

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
    const sessions = options?.sessions;
    this.lifetimeMs =
      sessions?.lifetimeMs === undefined
        ? SESSION_LIFETIME_MS
        : checkCount(sessions.lifetimeMs, 'admin.sessions.lifetimeMs', 'the lifetime of a session');
    this.maxSessions =
      sessions?.max === undefined
        ? MAX_SESSIONS
        : checkCount(sessions.max, 'admin.sessions.max', 'the number of sessions');
    this.now = sessions?.now ?? Date.now;
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

  /**
   * Whether the request may use the control plane: the credential in the header, or the cookie
   * of a live session.
   */
  admits(headers: IncomingHttpHeaders): boolean {
    return this.watch(headers)();
  }

  /**
   * A check of whether the request's admission still holds, for a request that lasts (the
   * live stream): always for the header credential or an open control plane, for as long as
   * its session lives for a cookie, never for anything else.
   */
  watch(headers: IncomingHttpHeaders): () => boolean {
    if (!this.required) return () => true;
    if (this.token === undefined) return () => false;
    const header = headers[ADMIN_TOKEN_HEADER];
    if (typeof header === 'string') {
      const admitted = sameSecret(header, this.token);
      return () => admitted;
    }
    const id = cookieOf(headers, ADMIN_COOKIE);
    return id === undefined ? () => false : () => this.live(id);
  }

  /** Whether `given` is the credential (the inspector's sign-in). */
  matches(given: string): boolean {
    return this.token !== undefined && sameSecret(given, this.token);
  }

  /**
   * Starts a session (once the sign-in's credential `matches`) and answers the cookie that
   * names it: its id only, for the control prefix, forgotten by the browser when it expires.
   */
  signIn(): string {
    this.prune();
    while (this.sessions.size >= this.maxSessions) {
      const oldest = this.sessions.keys().next().value as string;
      this.sessions.delete(oldest);
    }
    const id = randomBytes(32).toString('base64url');
    this.sessions.set(id, this.now() + this.lifetimeMs);
    return `${ADMIN_COOKIE}=${id}; Path=${this.prefix}; Max-Age=${Math.ceil(this.lifetimeMs / 1000)}; HttpOnly; SameSite=Strict`;
  }

  /** Ends the session the request's cookie names, if any, and answers the cookie that clears it. */
  signOut(headers: IncomingHttpHeaders): string {
    const id = cookieOf(headers, ADMIN_COOKIE);
    if (id !== undefined) this.sessions.delete(id);
    return `${ADMIN_COOKIE}=; Path=${this.prefix}; Max-Age=0; HttpOnly; SameSite=Strict`;
  }

  /** How many sessions are live (expired ones are dropped first). */
  get liveSessions(): number {
    this.prune();
    return this.sessions.size;
  }

  /**
   * Whether `id` names a live session. A plain map lookup, not a constant-time comparison: an
   * id is 256 random bits, so guessing one is hopeless, and the time a hash lookup takes tells
   * nothing that would let a guess be made closer byte by byte (it depends on the guess's hash,
   * not on how much of a real id it shares).
   */
  private live(id: string): boolean {
    this.prune();
    const expires = this.sessions.get(id);
    return expires !== undefined && this.now() < expires;
  }

  /** Drops the expired sessions, oldest first, up to the first live one. */
  private prune(): void {
    const now = this.now();
    for (const [id, expires] of this.sessions) {
      if (now < expires) break;
      this.sessions.delete(id);
    }
  }

  /** The 401 of a request without the credential; it says why and how to give it. */
  refusal(): ApiError {
    const why =
      this.token === undefined
        ? `The control plane is locked: this emulator ${this.strict ? 'runs in strict mode' : 'listens beyond loopback'} and was started without an admin credential (set ${ADMIN_TOKEN_ENV} or --admin-token-file FILE)`
        : `The control plane needs the admin credential: send it as ${ADMIN_TOKEN_HEADER}, or sign in at ${this.prefix}/ui/`;
    return refuse(ADMIN_CREDENTIAL, why);
  }
}
