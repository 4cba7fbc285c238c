/**
 * Strict mode and the rate limit (strict.ts): known tokens only, the spec's scopes per
 * operation for both APIs, the per-user rolling window with its 403/429 answers and recovery,
 * the users-file and seed formats for scopes, the CLI flags, and Google's client backing off
 * against the limit. Every answer is checked against the spec of the API it came from.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Clock, createCalendar, GoogleApiError } from '@gspec/calendar';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { LIVE_RATE_LIMIT_STATUS } from '../src/apis/index.ts';
import { SeedError, seedScopeMap } from '../src/core/seed.ts';
import type { Emulator, EmulatorOptions } from '../src/core/server.ts';
import { type ApiName, type ApiSpec, isObject, loadApiSpec, type OperationSpec } from '../src/core/spec.ts';
import { AccessConfigError, RateLimiter } from '../src/core/strict.ts';
import { parseUsersFile, SCOPE_PREFIX, UsersFileError } from '../src/core/users.ts';
import { createEmulator, parseSeed } from '../src/emulator.ts';
import { startCli } from './support/cli-process.ts';
import { TEST_ADMIN_TOKEN } from './support/harness.ts';
import { createResponseCheck } from './support/spec-check.ts';

const SPECS = {
  calendar: loadApiSpec('calendar'),
  searchads360: loadApiSpec('searchads360'),
} satisfies Record<ApiName, ApiSpec>;
type TestedApi = keyof typeof SPECS;

/** Every scope a spec's OAuth 2 scheme declares. */
function declaredScopes(spec: ApiSpec): string[] {
  const schemes = (spec.document.components as { securitySchemes?: Record<string, unknown> }).securitySchemes;
  const scopes = new Set<string>();
  for (const scheme of Object.values(schemes ?? {}))
    if (isObject(scheme) && isObject(scheme.flows))
      for (const flow of Object.values(scheme.flows))
        if (isObject(flow) && isObject(flow.scopes))
          for (const scope of Object.keys(flow.scopes)) scopes.add(scope);
  return [...scopes];
}

const ALL_SCOPES = [...new Set([...declaredScopes(SPECS.calendar), ...declaredScopes(SPECS.searchads360)])];
const CAL = (name: string) => `${SCOPE_PREFIX}${name}`;

interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read freely; the spec check types them.
  body: any;
  text: string;
}

interface Checked {
  emulator: Emulator;
  origin: string;
  /** `path` is absolute (`/calendar/v3/...`, `/__emulator/...`). */
  call(
    method: string,
    path: string,
    options?: { token?: string | null; body?: unknown; query?: Record<string, string> },
  ): Promise<Reply>;
}

/** An emulator for a describe block; every answer is checked against its own API's spec. */
function useChecked(options: EmulatorOptions): Checked {
  const violations: string[] = [];
  const harness = {} as Checked;
  beforeAll(async () => {
    let checks: Map<string, ReturnType<typeof createResponseCheck>> | undefined;
    const emulator = createEmulator({
      admin: { token: TEST_ADMIN_TOKEN },
      ...options,
      specs: SPECS,
      onResponse: (exchange) => {
        const found = exchange.operationId ? emulator.services.operation(exchange.operationId) : undefined;
        const check = checks?.get(found?.service.name ?? 'calendar');
        if (check) violations.push(...check(exchange));
      },
    });
    checks = new Map(
      emulator.services.list.map((s) => [s.name, createResponseCheck(s.spec, s.notImplemented)]),
    );
    harness.emulator = emulator;
    harness.origin = await emulator.listen(0);
  });
  afterAll(async () => {
    await harness.emulator?.close();
  });
  afterEach(() => {
    expect(violations.splice(0), 'answers that break the spec').toEqual([]);
  });
  harness.call = async (method, where, { token = 'token-ana', body, query } = {}) => {
    const url = new URL(`${harness.origin}${where}`);
    for (const [key, value] of Object.entries(query ?? {})) url.searchParams.set(key, value);
    const headers: Record<string, string> = where.startsWith('/__emulator')
      ? { 'x-emulator-admin-token': TEST_ADMIN_TOKEN }
      : {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(url, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text ? JSON.parse(text) : undefined,
      text,
    };
  };
  return harness;
}

/** The operation's path under its API with every path parameter filled in. */
function pathOf(api: TestedApi, op: OperationSpec): string {
  return `${SPECS[api].basePath}${op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    name === 'calendarId' ? 'primary' : '1',
  )}`;
}

const reasonOf = (reply: Reply): string | undefined => reply.body?.error?.errors?.[0]?.reason;

const OPERATIONS = (Object.keys(SPECS) as TestedApi[]).flatMap((api) =>
  SPECS[api].operations.map((op) => ({ api, op })),
);

describe('what the specs say of scopes and refusals', () => {
  it.each(OPERATIONS.map(({ api, op }) => [`${api} ${op.id}`, api, op] as const))(
    '%s lists scopes the API declares and documents 401, 403 and 429',
    (_name, api, op) => {
      expect(op.scopes.length).toBeGreaterThan(0);
      for (const scope of op.scopes) expect(declaredScopes(SPECS[api])).toContain(scope);
      for (const status of ['401', '403', '429']) expect(Object.keys(op.responses)).toContain(status);
    },
  );
});

// One token per scope any spec declares, and one granted none: the table below tries each
// operation with each of them and expects exactly what the operation's `security` lists.
const SCOPED_TOKENS: Record<string, string[]> = {
  'token-none': [],
  ...Object.fromEntries(ALL_SCOPES.map((scope, i) => [`token-scope-${i}`, [scope]])),
};

describe('strict mode: scopes per operation, from the specs', () => {
  const emu = useChecked({
    strict: true,
    users: Object.fromEntries(Object.keys(SCOPED_TOKENS).map((token) => [token, 'ana@example.com'])),
    scopes: SCOPED_TOKENS,
  });
  afterEach(async () => {
    await emu.call('POST', '/__emulator/reset');
  });

  it.each(OPERATIONS.map(({ api, op }) => [`${api} ${op.id}`, api, op] as const))(
    '%s: allowed with each scope it lists, 403 insufficientPermissions with any other',
    async (_name, api, op) => {
      let allowed = 0;
      let refused = 0;
      for (const [token, granted] of Object.entries(SCOPED_TOKENS)) {
        const reply = await emu.call(op.method, pathOf(api, op), { token });
        const scope = granted[0];
        if (scope !== undefined && op.scopes.includes(scope)) {
          allowed += 1;
          // Past the door: whatever the handler (or the 501 of a missing one) answers, not a refusal of the token.
          expect(reply.status, `${token} (${scope})`).not.toBe(401);
          expect(reasonOf(reply), `${token} (${scope})`).not.toBe('insufficientPermissions');
        } else {
          refused += 1;
          expect(reply.status, `${token} (${scope ?? 'no scope'})`).toBe(403);
          expect(reply.body.error.errors[0]).toMatchObject({
            domain: 'global',
            reason: 'insufficientPermissions',
          });
          expect(reply.body.error.message).toContain('Request had insufficient authentication scopes.');
          expect(reply.body.error.message).toContain(op.id);
          expect(reply.headers.get('www-authenticate')).toContain(`scope="${op.scopes.join(' ')}"`);
        }
      }
      expect(allowed).toBe(op.scopes.length);
      expect(allowed + refused).toBe(Object.keys(SCOPED_TOKENS).length);
    },
  );
});

describe('strict mode: tokens', () => {
  const emu = useChecked({
    strict: true,
    users: {
      'token-ana': 'ana@example.com',
      'token-read': 'ana@example.com',
      'token-events': 'bo@example.com',
    },
    scopes: { 'token-read': ['calendar.readonly'], 'token-events': [CAL('calendar.events')] },
  });
  afterEach(async () => {
    await emu.call('POST', '/__emulator/reset');
  });

  it.each([
    ['an unknown token', { token: 'not-a-known-token' }],
    ['an email that no users entry maps', { token: 'ana@example.com' }],
    ['a name of Object.prototype', { token: 'constructor' }],
    ['an unknown access_token parameter', { token: null, query: { access_token: 'not-a-known-token' } }],
  ])('refuses %s with 401 authError, never echoing the token', async (_name, options) => {
    const reply = await emu.call('GET', '/calendar/v3/users/me/calendarList', options);
    expect(reply.status).toBe(401);
    expect(reply.body.error.errors).toEqual([
      expect.objectContaining({
        domain: 'global',
        reason: 'authError',
        location: 'Authorization',
        locationType: 'header',
      }),
    ]);
    expect(reply.body.error.message).toContain('strict mode');
    expect(reply.headers.get('www-authenticate')).toContain('Bearer');
    const token = options.token ?? options.query?.access_token;
    expect(reply.text).not.toContain(String(token));
  });

  it('still answers a missing credential as before', async () => {
    const reply = await emu.call('GET', '/calendar/v3/colors', { token: null });
    expect(reply.status).toBe(401);
    expect(reply.body.error.message).toContain('missing required authentication credential');
  });

  it('lets a token without listed scopes do everything', async () => {
    const made = await emu.call('POST', '/calendar/v3/calendars', { body: { summary: 'Team' } });
    expect(made.status).toBe(200);
    const sa = await emu.call('GET', '/doubleclicksearch/v2/agency/1/advertiser/2/savedcolumns');
    expect([401, 403]).not.toContain(sa.status);
  });

  it('takes a read-only scope for reads and refuses writes', async () => {
    expect(
      (await emu.call('GET', '/calendar/v3/calendars/primary/events', { token: 'token-read' })).status,
    ).toBe(200);
    expect((await emu.call('GET', '/calendar/v3/users/me/settings', { token: 'token-read' })).status).toBe(
      200,
    );
    const insert = await emu.call('POST', '/calendar/v3/calendars/primary/events', {
      token: 'token-read',
      body: { summary: 'x', start: { date: '2026-03-02' }, end: { date: '2026-03-03' } },
    });
    expect(insert.status).toBe(403);
    expect(reasonOf(insert)).toBe('insufficientPermissions');
    expect(insert.body.error.message).toContain(`the token was granted ${CAL('calendar.readonly')}`);
    // The scope covers Calendar only: Search Ads 360 needs its own.
    const sa = await emu.call('GET', '/doubleclicksearch/v2/agency/1/advertiser/2/savedcolumns', {
      token: 'token-read',
    });
    expect(reasonOf(sa)).toBe('insufficientPermissions');
  });

  it('takes calendar.events for events but not for calendars', async () => {
    const event = { summary: 'Standup', start: { date: '2026-03-02' }, end: { date: '2026-03-03' } };
    const insert = await emu.call('POST', '/calendar/v3/calendars/primary/events', {
      token: 'token-events',
      body: event,
    });
    expect(insert.status).toBe(200);
    const calendar = await emu.call('POST', '/calendar/v3/calendars', {
      token: 'token-events',
      body: { summary: 'x' },
    });
    expect(calendar.status).toBe(403);
    expect(reasonOf(calendar)).toBe('insufficientPermissions');
  });

  it('charges nothing for refused requests; its control plane asks for the admin credential, not a token', async () => {
    await emu.call('GET', '/calendar/v3/colors', { token: 'nobody' });
    await emu.call('POST', '/calendar/v3/calendars', { token: 'token-read', body: { summary: 'x' } });
    const quota = await emu.call('GET', '/__emulator/quota', { token: null });
    expect(quota.status).toBe(200);
    expect(quota.body).toEqual({ total: 0, byUser: {}, byOperation: {} });
    const without = await fetch(`${emu.origin}/__emulator/quota`, {
      headers: { authorization: 'Bearer token-read' },
    });
    expect(without.status).toBe(401);
    expect((await emu.call('GET', '/__emulator/health', { token: 'nobody' })).status).toBe(200);
  });
});

describe('strict mode off: nothing changes', () => {
  const emu = useChecked({
    users: { 'token-read': 'ana@example.com' },
    scopes: { 'token-read': ['calendar.readonly'] },
  });

  it('takes any token, emails as tokens, and ignores scopes', async () => {
    expect((await emu.call('GET', '/calendar/v3/colors', { token: 'anything' })).status).toBe(200);
    expect((await emu.call('GET', '/calendar/v3/colors', { token: 'cy@example.com' })).status).toBe(200);
    const made = await emu.call('POST', '/calendar/v3/calendars', {
      token: 'token-read',
      body: { summary: 'x' },
    });
    expect(made.status).toBe(200);
    expect(made.headers.get('x-emulator-quota-cost')).toBe('1');
    // A token named like a property of every object is a token like any other.
    expect((await emu.call('GET', '/calendar/v3/colors', { token: 'constructor' })).status).toBe(200);
    const quota = await emu.call('GET', '/__emulator/quota');
    expect(quota.body.rateLimit).toBeUndefined();
    const hashed = `user-${createHash('sha256').update('constructor').digest('hex').slice(0, 10)}@example.com`;
    expect(quota.body.byUser[hashed]).toBe(1);
  });
});

describe('the rate limit', () => {
  const WINDOW = 300;
  const calendar = useChecked({ rateLimit: { units: 5, windowMs: WINDOW } });
  const colors = (token = 'ana@example.com') => calendar.call('GET', '/calendar/v3/colors', { token });
  const patchPrimary = (token = 'ana@example.com') =>
    calendar.call('PATCH', '/calendar/v3/calendars/primary', { token, body: { description: 'x' } });
  // The clock stands still unless a test moves it: on a loaded machine a few requests can take
  // longer than the window, and spends would age out while a test is still counting them.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-11-22T12:00:00Z') });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await calendar.call('POST', '/__emulator/reset');
  });

  it("spends each operation's x-quota-cost and answers Calendar's 403 rateLimitExceeded over it", async () => {
    expect((await colors()).status).toBe(200); // 1
    expect((await patchPrimary()).status).toBe(200); // 3 more: 4
    expect((await colors()).status).toBe(200); // 5
    const over = await colors();
    expect(over.status).toBe(403);
    expect(over.body.error.status).toBe('PERMISSION_DENIED');
    expect(over.body.error.errors[0]).toMatchObject({
      domain: 'usageLimits',
      reason: 'rateLimitExceeded',
    });
    expect(over.body.error.message).toMatch(/^Rate Limit Exceeded\. .*5 quota units per user per 300 ms/);
    expect(over.headers.get('retry-after')).toBeNull();
    // Refused calls are not charged: the quota counters saw five units.
    expect((await calendar.call('GET', '/__emulator/quota')).body.total).toBe(5);
    // Another user has a window of their own.
    expect((await colors('bo@example.com')).status).toBe(200);
  });

  it('frees the window unit by unit as spends age out (rolling, not fixed)', async () => {
    for (let i = 0; i < 5; i++) expect((await colors()).status).toBe(200);
    expect((await colors()).status).toBe(403);
    vi.setSystemTime(Date.now() + WINDOW + 50);
    expect((await colors()).status).toBe(200);
    const report = (await calendar.call('GET', '/__emulator/quota')).body.rateLimit;
    expect(report).toEqual({
      units: 5,
      windowMs: WINDOW,
      status: { calendar: 403, searchads360: 429 },
      used: { calendar: { 'ana@example.com': 1 }, searchads360: {} },
    });
  });

  it('counts each API apart, and Search Ads 360 answers 429 with Retry-After', async () => {
    for (let i = 0; i < 5; i++) expect((await colors()).status).toBe(200);
    expect((await colors()).status).toBe(403);
    const sa = (token = 'ana@example.com') =>
      calendar.call('GET', '/doubleclicksearch/v2/agency/1/advertiser/2/savedcolumns', { token });
    for (let i = 0; i < 5; i++) expect([403, 429]).not.toContain((await sa()).status);
    const over = await sa();
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    expect(over.body.error.errors[0]).toMatchObject({ domain: 'usageLimits', reason: 'rateLimitExceeded' });
    expect(over.headers.get('retry-after')).toBe('1');
  });

  it('is emptied by POST /__emulator/quota/reset', async () => {
    for (let i = 0; i < 5; i++) await colors();
    expect((await colors()).status).toBe(403);
    expect((await calendar.call('POST', '/__emulator/quota/reset')).status).toBe(204);
    expect((await colors()).status).toBe(200);
  });
});

describe('the rate limit with status 429, in strict mode', () => {
  const emu = useChecked({
    strict: true,
    users: { 'token-ana': 'ana@example.com', 'token-read': 'ana@example.com' },
    scopes: { 'token-read': ['calendar.readonly'] },
    rateLimit: { units: 3, windowMs: 60_000, status: 429 },
  });

  it('answers 429 rateLimitExceeded with the seconds until the window has room', async () => {
    // Refusals of strict mode spend nothing.
    for (let i = 0; i < 4; i++)
      expect(
        (await emu.call('DELETE', '/calendar/v3/calendars/primary', { token: 'token-read' })).status,
      ).toBe(403);
    for (let i = 0; i < 3; i++) expect((await emu.call('GET', '/calendar/v3/colors')).status).toBe(200);
    const over = await emu.call('GET', '/calendar/v3/colors');
    expect(over.status).toBe(429);
    expect(over.body.error.errors[0]).toMatchObject({ domain: 'usageLimits', reason: 'rateLimitExceeded' });
    expect(over.body.error.message).toContain('per user per 1 minute');
    const seconds = Number(over.headers.get('retry-after'));
    expect(seconds).toBeGreaterThanOrEqual(59);
    expect(seconds).toBeLessThanOrEqual(60);
    // Unknown tokens are refused before the limit is looked at.
    expect((await emu.call('GET', '/calendar/v3/colors', { token: 'nobody' })).status).toBe(401);
  });
});

describe('RateLimiter', () => {
  it('computes the wait from the oldest spends that must age out', () => {
    const limiter = new RateLimiter({ units: 5, windowMs: 1000 }, LIVE_RATE_LIMIT_STATUS);
    limiter.charge('calendar', 'a@x.io', 1, 0);
    limiter.charge('calendar', 'a@x.io', 3, 100);
    limiter.charge('calendar', 'a@x.io', 1, 200);
    expect(limiter.used('calendar', 'a@x.io', 250)).toBe(5);
    // One unit frees when the first spend ages out at 1000; three need the second's at 1100.
    expect(limiter.wait('calendar', 'a@x.io', 1, 250)).toBe(750);
    expect(limiter.wait('calendar', 'a@x.io', 3, 250)).toBe(850);
    expect(() => limiter.charge('calendar', 'a@x.io', 1, 300)).toThrow(/^Rate Limit Exceeded/);
    // An operation of cost 0 is never refused nor counted; the other API has a window of its own.
    limiter.charge('calendar', 'a@x.io', 0, 300);
    expect(limiter.used('calendar', 'a@x.io', 300)).toBe(5);
    expect(limiter.wait('searchads360', 'a@x.io', 5, 300)).toBe(0);
    expect(limiter.wait('calendar', 'a@x.io', 1, 1000)).toBe(0);
    expect(limiter.used('calendar', 'a@x.io', 1100)).toBe(1);
    expect(limiter.snapshot(2000).used).toEqual({ calendar: {}, searchads360: {} });
  });

  it.each([
    [{ units: 2 }, /rateLimit\.units: .*at least 3 \(the cost of calendars\.patch/],
    [{ units: 2.5 }, /rateLimit\.units/],
    [{ units: 10, windowMs: 0 }, /rateLimit\.windowMs: expected a positive number/],
    [{ units: 10, status: 500 as 403 }, /rateLimit\.status: expected 403 or 429, found 500/],
  ])('createEmulator refuses rateLimit %j', (rateLimit, message) => {
    expect(() => createEmulator({ specs: SPECS, rateLimit })).toThrow(AccessConfigError);
    expect(() => createEmulator({ specs: SPECS, rateLimit })).toThrow(message);
  });

  it.each([
    ['spec', 'specs.calendar'],
    ['searchAdsSpec', 'specs.searchads360'],
  ])('createEmulator refuses the option %s of earlier versions, naming %s', (option, now) => {
    const options = { [option]: SPECS.calendar } as Parameters<typeof createEmulator>[0];
    expect(() => createEmulator(options)).toThrow(`createEmulator: the option ${option} is now ${now}`);
  });
});

describe('scopes in the users file and the seed', () => {
  it('reads an email or {email, scopes}, short scope names expanded', () => {
    expect(
      parseUsersFile({
        a: 'Ana@Example.com',
        b: { email: 'bo@example.com', scopes: ['calendar.readonly', CAL('calendar.events')] },
        c: { email: 'cy@example.com', scopes: [] },
        d: { email: 'di@example.com' },
      }),
    ).toEqual({
      users: { a: 'ana@example.com', b: 'bo@example.com', c: 'cy@example.com', d: 'di@example.com' },
      scopes: { b: [CAL('calendar.readonly'), CAL('calendar.events')], c: [] },
    });
  });

  it.each([
    [{ t: { email: 'a@x.io', scope: ['x'] } }, 'users.json["t"]: unknown field "scope"'],
    [{ t: { scopes: [] } }, 'users.json["t"].email: expected an email address, found undefined'],
    [
      { t: { email: 'a@x.io', scopes: 'calendar' } },
      'users.json["t"].scopes: expected an array of OAuth scopes',
    ],
    [
      { t: { email: 'a@x.io', scopes: ['calendar', 'two words'] } },
      'users.json["t"].scopes[1]: expected a scope',
    ],
  ])('refuses %j, naming the entry', (value, message) => {
    expect(() => parseUsersFile(value, 'users.json')).toThrow(UsersFileError);
    expect(() => parseUsersFile(value, 'users.json')).toThrow(message);
  });

  it("gives a seed user's scopes to their tokens", () => {
    const seed = parseSeed({
      users: [
        { email: 'ana@example.com', tokens: ['t1', 't2'], scopes: ['calendar.readonly'] },
        { email: 'bo@example.com', tokens: ['t3'] },
      ],
    });
    expect(seedScopeMap(seed, { other: [] })).toEqual({
      other: [],
      t1: [CAL('calendar.readonly')],
      t2: [CAL('calendar.readonly')],
    });
  });

  it('refuses seed scopes without tokens, or a token granted other scopes by --users', () => {
    expect(() =>
      seedScopeMap(parseSeed({ users: [{ email: 'a@x.io', scopes: ['calendar'] }] }), {}, 's.json'),
    ).toThrow(/s\.json: users\[0\]\.scopes: .*the user has none/);
    const seed = parseSeed({ users: [{ email: 'a@x.io', tokens: ['t'], scopes: ['calendar'] }] });
    expect(() => seedScopeMap(seed, { t: [CAL('calendar.readonly')] }, 's.json')).toThrow(SeedError);
    expect(seedScopeMap(seed, { t: [CAL('calendar')] }, 's.json')).toEqual({ t: [CAL('calendar')] });
    expect(() => parseSeed({ users: [{ email: 'a@x.io', scopes: 'calendar' }] })).toThrow(
      /users\[0\]\.scopes/,
    );
  });
});

describe("@gspec/calendar's retries against the rate limit", () => {
  // Time passes only when the client waits (the clock below moves it), so that a loaded
  // machine cannot let the window free itself between the requests that fill it.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-11-22T12:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A clock whose waits move the (faked) time on at once, and are noted. */
  function recordingClock(waits: number[]): Clock {
    return {
      now: () => Date.now(),
      random: () => 0.99,
      sleep: (ms) => {
        waits.push(ms);
        vi.setSystemTime(Date.now() + ms);
        return new Promise((resolve) => setImmediate(resolve));
      },
    };
  }

  const limited = useChecked({ rateLimit: { units: 3, windowMs: 400 } });
  const limited429 = useChecked({ rateLimit: { units: 3, windowMs: 400, status: 429 } });

  it('backs off on 403 rateLimitExceeded and succeeds once the window has room', async () => {
    const waits: number[] = [];
    const calendar = createCalendar({
      accessToken: 'ana@example.com',
      baseUrl: `${limited.origin}/calendar/v3`,
      retry: { maxAttempts: 8, initialDelayMs: 100, maxDelayMs: 1000, budgetMs: 10_000 },
      clock: recordingClock(waits),
    });
    for (let i = 0; i < 3; i++) await calendar.colors.get({});
    expect(waits).toEqual([]);
    const started = Date.now();
    const answer = await calendar.colors.get({});
    expect(answer.kind).toBe('calendar#colors');
    expect(waits.length).toBeGreaterThan(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    // Without retries the same call fails with the limit's error.
    await limited.call('POST', '/__emulator/quota/reset');
    const once = createCalendar({
      accessToken: 'ana@example.com',
      baseUrl: `${limited.origin}/calendar/v3`,
      retry: false,
    });
    for (let i = 0; i < 3; i++) await once.colors.get({});
    const failure = await once.colors.get({}).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(GoogleApiError);
    expect(failure).toMatchObject({ status: 403, reason: 'rateLimitExceeded' });
  });

  it('waits the Retry-After of a 429, then succeeds', async () => {
    const waits: number[] = [];
    const calendar = createCalendar({
      accessToken: 'ana@example.com',
      baseUrl: `${limited429.origin}/calendar/v3`,
      retry: { maxAttempts: 3, initialDelayMs: 10, budgetMs: 10_000 },
      clock: recordingClock(waits),
    });
    for (let i = 0; i < 3; i++) await calendar.colors.get({});
    const answer = await calendar.colors.get({});
    expect(answer.kind).toBe('calendar#colors');
    // The window frees within 400 ms; Retry-After counts whole seconds.
    expect(waits).toEqual([1000]);
  });
});

describe('gspec-emulator --strict and --rate-limit', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gspec-strict-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, value: unknown) => {
    const where = path.join(dir, name);
    writeFileSync(where, typeof value === 'string' ? value : JSON.stringify(value));
    return where;
  };

  /** Runs the CLI until it exits, or until it prints its URLs: then runs `meanwhile` and stops it. */
  async function run(
    args: string[],
    meanwhile: (origin: string) => Promise<void> = async () => undefined,
  ): Promise<{ code: number | null; out: string; err: string }> {
    const cli = startCli(args);
    const started = await cli.ready.then(
      () => true,
      () => false,
    );
    if (started) {
      try {
        await meanwhile(await cli.ready);
      } finally {
        await cli.stop();
      }
    }
    return { code: await cli.exited, ...cli.output() };
  }

  it.each([
    [
      ['--rate-limit', 'abc'],
      'invalid --rate-limit "abc": expected a whole number of quota units per user per minute',
    ],
    [['--rate-limit', '0'], 'invalid --rate-limit "0"'],
    [['--rate-limit=-5'], 'invalid --rate-limit "-5"'],
    [['--rate-limit', '2'], 'invalid --rate-limit 2: expected a whole number of quota units of at least 3'],
    [
      ['--rate-limit', '10', '--rate-limit-status', '500'],
      'invalid --rate-limit-status "500": expected 403 or 429',
    ],
    [['--rate-limit-status', '429'], '--rate-limit-status needs --rate-limit N'],
    [
      ['--strict'],
      "--strict accepts only the tokens of --users, of the seed's users and of the token endpoint, and none can be had",
    ],
    [['--strict', '--users', 'USERS_BAD_SCOPE'], 'invalid --users file: '],
    [['--strict', '--seed', 'SEED_NO_TOKENS'], 'invalid --seed file: '],
  ])('%j exits 1 with a one-line message', async (args, message) => {
    const files: Record<string, string> = {
      USERS_BAD_SCOPE: file('bad-scope.json', { t: { email: 'a@x.io', scopes: ['two words'] } }),
      SEED_NO_TOKENS: file('seed-no-tokens.json', { users: [{ email: 'a@x.io', scopes: ['calendar'] }] }),
    };
    const result = await run(args.map((arg) => files[arg] ?? arg));
    expect(result.code).toBe(1);
    expect(result.err).toContain(message);
    expect(result.err.trim().split('\n')[0]).toContain('gspec-emulator: ');
  });

  it('starts strict with the users and seed tokens, and says so', async () => {
    const users = file('users.json', {
      'token-ana': 'ana@example.com',
      'token-read': { email: 'ana@example.com', scopes: ['calendar.readonly', 'calendar.redonly'] },
    });
    const seed = file('seed.json', {
      users: [{ email: 'bo@example.com', tokens: ['token-bo'], scopes: ['calendar'] }],
    });
    const statuses: number[] = [];
    const result = await run(
      ['--strict', '--users', users, '--seed', seed, '--rate-limit', '60'],
      async (origin) => {
        for (const token of ['token-ana', 'token-bo', 'nobody', 'ana@example.com'])
          statuses.push(
            (await fetch(`${origin}/calendar/v3/colors`, { headers: { authorization: `Bearer ${token}` } }))
              .status,
          );
        const write = await fetch(`${origin}/calendar/v3/calendars`, {
          method: 'POST',
          headers: { authorization: 'Bearer token-read', 'content-type': 'application/json' },
          body: JSON.stringify({ summary: 'x' }),
        });
        statuses.push(write.status);
      },
    );
    expect(result.code).toBe(0);
    expect(statuses).toEqual([200, 200, 401, 401, 403]);
    expect(result.out).toContain(
      'Strict mode: only the 3 tokens of --users and the seed are accepted, 2 with only the scopes given to them',
    );
    expect(result.out).toContain(`note: scope ${CAL('calendar.redonly')} (1 token) allows no operation`);
    expect(result.out).toContain(
      'Rate limit: 60 quota units per user per minute and API; over it Calendar answers 403 rateLimitExceeded, Search Ads 360 429',
    );
    expect(result.out).not.toContain('any other token works too');
  });
});
