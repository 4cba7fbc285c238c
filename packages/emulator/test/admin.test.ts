/**
 * Who may use the control plane and the inspector (core/admin.ts): every endpoint under
 * /__emulator but health and the page's files, with and without the admin credential, in each
 * case that asks for it (a credential configured, strict mode, a listener beyond loopback) and
 * the one that does not (loopback, not strict). A refused request changes nothing. The
 * inspector's sign-in sessions expire (on a clock the test moves) and are bounded in number.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AdminGate, checkAdminToken, isLoopback, sameSecret } from '../src/core/admin.ts';
import type { Emulator, EmulatorOptions } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';

const ADMIN = 'sandbox-admin-credential-0123456789';
const ANA = 'ana@example.com';
const SEED = { users: [{ email: 'bo@example.com', tokens: ['token-bo'] }] };
/** Stands for the emulator's own state, dumped when the request is made (a state it loads). */
const STATE = Symbol('the state as dumped');

/** Every endpoint of the control plane and the inspector that reads or changes the state. */
const GUARDED: [method: string, path: string, body?: unknown][] = [
  ['POST', '/reset'],
  ['GET', '/state'],
  ['PUT', '/state', STATE],
  ['POST', '/state', STATE],
  ['GET', '/quota'],
  ['POST', '/quota/reset'],
  ['POST', '/seed', SEED],
  ['GET', '/rate-limit'],
  ['PUT', '/rate-limit', { units: 3 }],
  ['DELETE', '/rate-limit'],
  ['GET', '/journal'],
  ['GET', '/journal/1'],
  ['GET', '/deliveries'],
  ['GET', '/channels'],
  ['GET', '/users'],
  ['POST', '/invoke', { user: ANA, operationId: 'colors.get' }],
  ['GET', '/apis'],
  ['GET', '/apis/searchads360/advertisers'],
  ['GET', '/stream'],
];

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function start(options: EmulatorOptions, host = '127.0.0.1'): Promise<string> {
  emulator = createEmulator({ users: { 'token-ana': ANA }, ...options });
  const origin = await emulator.listen(0, host);
  // Reached over loopback whatever it listens on.
  return origin.replace(/\/\/[^:/]+:/, '//127.0.0.1:');
}

/** The status of one request; an open stream is closed once its status is known. */
async function statusOf(
  origin: string,
  [method, path, body]: (typeof GUARDED)[number],
  headers: Record<string, string> = {},
): Promise<{ status: number; reason?: string }> {
  const abort = new AbortController();
  const response = await fetch(`${origin}/__emulator${path}`, {
    method,
    signal: abort.signal,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body === STATE ? emulator?.store.state : body) } : {}),
  });
  if (response.status !== 401) {
    abort.abort();
    return { status: response.status };
  }
  const answer = (await response.json()) as { error: { errors: { reason: string }[] } };
  return { status: 401, reason: answer.error.errors[0]?.reason as string };
}

/** Makes Ana's account and spends quota, so that a reset or a load would show. */
async function use(origin: string): Promise<void> {
  const read = await fetch(`${origin}/calendar/v3/users/me/calendarList`, {
    headers: { authorization: 'Bearer token-ana' },
  });
  expect(read.status).toBe(200);
}

/** The state and counters a refused request must leave as they were. */
const snapshot = () =>
  JSON.stringify({
    state: emulator?.store.state,
    quota: emulator?.quota.snapshot(),
    journal: emulator?.journal.usage(),
  });

describe('the admin credential', () => {
  it.each([
    ['a credential is configured', { admin: { token: ADMIN } }, '127.0.0.1'],
    ['strict mode, with a credential', { strict: true, admin: { token: ADMIN } }, '127.0.0.1'],
    ['listening beyond loopback, with a credential', { admin: { token: ADMIN } }, '0.0.0.0'],
  ] as const)(
    '%s: each endpoint answers 401 without it or with a wrong one, and changes nothing',
    async (_case, options, host) => {
      const origin = await start(options, host);
      await use(origin);
      const before = snapshot();
      for (const endpoint of GUARDED) {
        const name = endpoint.slice(0, 2).join(' ');
        expect(await statusOf(origin, endpoint), name).toEqual({ status: 401, reason: 'adminCredential' });
        expect(await statusOf(origin, endpoint, { 'x-emulator-admin-token': `${ADMIN}x` }), name).toEqual({
          status: 401,
          reason: 'adminCredential',
        });
        expect(
          await statusOf(origin, endpoint, { cookie: `gspec-admin=${encodeURIComponent(ADMIN.slice(1))}` }),
          name,
        ).toEqual({ status: 401, reason: 'adminCredential' });
        // The cookie names a session: the credential itself in it is no sign-in.
        expect(
          await statusOf(origin, endpoint, { cookie: `gspec-admin=${encodeURIComponent(ADMIN)}` }),
          name,
        ).toEqual({ status: 401, reason: 'adminCredential' });
      }
      // Nothing was reset, loaded, seeded or limited, and nothing of it was journaled.
      expect(snapshot()).toBe(before);
      expect(Object.keys(emulator?.store.state.users ?? {})).toEqual([ANA]);
      // No rate limit was set: three units a minute would refuse the fourth read.
      for (let i = 0; i < 4; i++) await use(origin);
      // Health stays open for load balancers.
      expect((await fetch(`${origin}/__emulator/health`)).status).toBe(200);
    },
  );

  it.each([
    ['a credential is configured', { admin: { token: ADMIN } }, '127.0.0.1'],
    ['strict mode', { strict: true, admin: { token: ADMIN } }, '127.0.0.1'],
    ['beyond loopback', { admin: { token: ADMIN } }, '0.0.0.0'],
  ] as const)('%s: each endpoint answers with the credential in the header', async (_case, options, host) => {
    const origin = await start(options, host);
    for (const endpoint of GUARDED) {
      const { status } = await statusOf(origin, endpoint, { 'x-emulator-admin-token': ADMIN });
      // journal/1 may be gone (a reset came first): 404 is an answer past the gate.
      expect([200, 204, 404], endpoint.slice(0, 2).join(' ')).toContain(status);
    }
    // The seed went in, the rate limit was set and dropped.
    expect(emulator?.store.state.users).toHaveProperty(['bo@example.com']);
  });

  it.each([
    ['in strict mode', { strict: true }, '127.0.0.1', 'runs in strict mode'],
    ['beyond loopback', {}, '0.0.0.0', 'listens beyond loopback'],
  ] as const)(
    'without one configured, %s, locks the control plane and says how to open it',
    async (_case, options, host, why) => {
      const origin = await start(options, host);
      await use(origin);
      const before = snapshot();
      for (const endpoint of GUARDED)
        expect(
          await statusOf(origin, endpoint, { 'x-emulator-admin-token': 'anything-at-all-here' }),
        ).toEqual({
          status: 401,
          reason: 'adminCredential',
        });
      const refused = await (await fetch(`${origin}/__emulator/reset`, { method: 'POST' })).json();
      expect(refused.error.message).toContain(why);
      expect(refused.error.message).toContain('GSPEC_EMULATOR_ADMIN_TOKEN');
      expect(snapshot()).toBe(before);
      // The page loads and says it is locked; nothing signs in.
      expect((await fetch(`${origin}/__emulator/ui/`)).status).toBe(200);
      expect(await (await fetch(`${origin}/__emulator/ui/session`)).json()).toEqual({
        required: true,
        configured: false,
        signedIn: false,
      });
      expect((await fetch(`${origin}/__emulator/health`)).status).toBe(200);
    },
  );

  it('sees where the server listens however it was made to: server.listen beyond loopback locks too', async () => {
    emulator = createEmulator({ users: { 'token-ana': ANA } });
    const { server } = emulator;
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    const { port } = server.address() as { port: number };
    const origin = `http://127.0.0.1:${port}`;
    expect(await statusOf(origin, ['POST', '/reset'])).toEqual({ status: 401, reason: 'adminCredential' });
    expect((await fetch(`${origin}/__emulator/health`)).status).toBe(200);
  });

  it('on loopback, not strict and with none configured, answers anyone as before', async () => {
    const origin = await start({});
    for (const endpoint of GUARDED) {
      const { status } = await statusOf(origin, endpoint);
      expect([200, 204, 404], endpoint.slice(0, 2).join(' ')).toContain(status);
    }
    expect(await (await fetch(`${origin}/__emulator/ui/session`)).json()).toMatchObject({ required: false });
  });

  it('refuses a credential too short, empty or unfit for a header, naming where it came from', () => {
    expect(() => createEmulator({ admin: { token: 'short' } })).toThrow(
      'admin.token: the admin credential is 5 characters long; use at least 16',
    );
    expect(() => checkAdminToken('', 'GSPEC_EMULATOR_ADMIN_TOKEN')).toThrow(
      'GSPEC_EMULATOR_ADMIN_TOKEN: the admin credential is empty',
    );
    expect(() => checkAdminToken('a credential with spaces', 'f')).toThrow('space or a control character');
  });

  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::1', true],
    ['[::1]', true],
    ['localhost', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['sandbox.internal', false],
  ])('counts %s as loopback: %s', (host, loopback) => {
    expect(isLoopback(host)).toBe(loopback);
  });

  it('compares credentials of any length without throwing', () => {
    expect(sameSecret(ADMIN, ADMIN)).toBe(true);
    expect(sameSecret('x', ADMIN)).toBe(false);
    expect(sameSecret(`${ADMIN}${ADMIN}`, ADMIN)).toBe(false);
  });
});

describe("the inspector's sign-in sessions", () => {
  /** A clock the test moves by hand. */
  const clock = { now: 1_000_000 };
  const now = () => clock.now;

  const signIn = (origin: string) =>
    fetch(`${origin}/__emulator/ui/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: ADMIN }),
    }).then((response) => {
      expect(response.status).toBe(204);
      return response.headers.get('set-cookie') as string;
    });
  const journalWith = async (origin: string, cookie: string) =>
    (await fetch(`${origin}/__emulator/journal`, { headers: { cookie } })).status;

  it('last their lifetime from the sign-in, however used, then are refused and pruned', async () => {
    const origin = await start({ admin: { token: ADMIN, sessions: { lifetimeMs: 60_000, now } } });
    const setCookie = await signIn(origin);
    // The browser forgets the cookie when the session ends.
    expect(setCookie).toMatch(/; Max-Age=60;/);
    const cookie = setCookie.split(';')[0] as string;
    expect(await journalWith(origin, cookie)).toBe(200);
    clock.now += 59_999;
    expect(await journalWith(origin, cookie)).toBe(200);
    // Being used did not lengthen it: it ends 60 s after the sign-in.
    clock.now += 1;
    expect(await journalWith(origin, cookie)).toBe(401);
    const session = await (await fetch(`${origin}/__emulator/ui/session`, { headers: { cookie } })).json();
    expect(session.signedIn).toBe(false);
    // The header credential does not expire.
    expect(
      (await fetch(`${origin}/__emulator/journal`, { headers: { 'x-emulator-admin-token': ADMIN } })).status,
    ).toBe(200);
  });

  it('drops expired sessions from memory', () => {
    const gate = new AdminGate({ token: ADMIN, sessions: { lifetimeMs: 1_000, now } }, true, '/__emulator');
    const cookies = [gate.signIn(), gate.signIn()];
    clock.now += 500;
    cookies.push(gate.signIn());
    expect(gate.liveSessions).toBe(3);
    clock.now += 500;
    expect(gate.liveSessions).toBe(1);
    expect(cookies.map((set) => gate.admits({ cookie: set.split(';')[0] }))).toEqual([false, false, true]);
    clock.now += 500;
    expect(gate.liveSessions).toBe(0);
  });

  it('are at most sessions.max at once: a sign-in beyond it ends the oldest', async () => {
    const origin = await start({ admin: { token: ADMIN, sessions: { max: 2, now } } });
    const cookies: string[] = [];
    for (let i = 0; i < 3; i++) cookies.push((await signIn(origin)).split(';')[0] as string);
    const statuses = [];
    for (const cookie of cookies) statuses.push(await journalWith(origin, cookie));
    expect(statuses).toEqual([401, 200, 200]);
  });

  it('end when the emulator restarts: they live in its memory only', async () => {
    const first = await start({ admin: { token: ADMIN } });
    const cookie = (await signIn(first)).split(';')[0] as string;
    expect(await journalWith(first, cookie)).toBe(200);
    await emulator?.close();
    const second = await start({ admin: { token: ADMIN } });
    expect(await journalWith(second, cookie)).toBe(401);
  });

  it.each([
    [
      { lifetimeMs: 0 },
      'admin.sessions.lifetimeMs: the lifetime of a session must be a whole number of at least 1; got 0',
    ],
    [
      { lifetimeMs: 1.5 },
      'admin.sessions.lifetimeMs: the lifetime of a session must be a whole number of at least 1; got 1.5',
    ],
    [{ max: -1 }, 'admin.sessions.max: the number of sessions must be a whole number of at least 1; got -1'],
  ])('refuses the session options %o, saying which and why', (sessions, message) => {
    expect(() => createEmulator({ admin: { token: ADMIN, sessions } })).toThrow(message);
  });
});
