/**
 * The control plane: health, reset, dump and load of the state, a seed loaded while running,
 * quota, and the rate limit set, changed and turned off while running.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { notImplementedOperations } from '../src/apis/calendar/handlers.ts';
import { calendarState } from '../src/apis/calendar/records.ts';
import { type Harness, spec, TEST_ADMIN_TOKEN, timedEvent, useEmulator } from './support/harness.ts';
import { at } from './support/searchads360.ts';

const emu = useEmulator({
  users: { 'token-ana': 'ana@example.com', 'token-bo': 'bo@example.com', 'ya29.listed': 'bo@example.com' },
});

describe('control plane', () => {
  it('health lists what is not implemented yet', async () => {
    const reply = await emu.call('GET', '/__emulator/health');
    expect(reply.body).toMatchObject({
      status: 'ok',
      apis: {
        calendar: { basePath: '/calendar/v3', operations: 37 },
        searchads360: { basePath: '/doubleclicksearch/v2', operations: 7 },
      },
    });
    expect(reply.body.apis.calendar.notImplemented).toEqual(notImplementedOperations(spec));
    expect(reply.body.apis.calendar.notImplemented).toEqual([]);
    expect(reply.body.apis.searchads360.notImplemented).toEqual([]);
  });

  it('reset empties the state and the quota', async () => {
    await emu.call('POST', '/calendars/primary/events', { body: timedEvent('x') });
    await emu.reset();
    expect((await emu.call('GET', '/__emulator/quota')).body).toEqual({
      total: 0,
      byUser: {},
      byOperation: {},
    });
    expect((await emu.call('GET', '/calendars/primary/events')).body.items).toEqual([]);
  });

  it('a dumped state loads back: events, etags and sync tokens survive', async () => {
    await emu.reset();
    const made = await emu.call('POST', '/calendars/primary/events', { body: timedEvent('kept') });
    const list = await emu.call('GET', '/calendars/primary/events');
    const dump = (await emu.call('GET', '/__emulator/state')).body;
    await emu.reset();
    expect((await emu.call('GET', `/calendars/primary/events/${made.body.id}`)).status).toBe(404);
    expect((await emu.call('PUT', '/__emulator/state', { body: dump })).status).toBe(204);
    expect((await emu.call('GET', `/calendars/primary/events/${made.body.id}`)).body).toEqual(made.body);
    const sync = await emu.call('GET', '/calendars/primary/events', {
      query: { syncToken: list.body.nextSyncToken },
    });
    expect(sync.status).toBe(200);
    expect(sync.body.items).toEqual([]);
  });

  it('a dump of 20,000 events (over 10 MB) loads back whole', async () => {
    await emu.reset();
    const description = 'd'.repeat(400);
    for (let i = 0; i < 20_000; i++)
      emu.emulator.invoke('ana@example.com', 'events.insert', {
        path: { calendarId: 'primary' },
        body: timedEvent(`bulk ${i}`, 9, { description }),
      });
    const text = (await emu.call('GET', '/__emulator/state')).text;
    expect(text.length).toBeGreaterThan(10 * 1024 * 1024);
    await emu.reset();
    const loaded = await fetch(`${emu.origin}/__emulator/state`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-emulator-admin-token': TEST_ADMIN_TOKEN },
      body: text,
    });
    expect(loaded.status).toBe(204);
    expect(
      Object.keys(calendarState(emu.emulator.store.state).calendar.events['ana@example.com'] ?? {}),
    ).toHaveLength(20_000);
  });

  it("a state dumped before sharing rules existed loads with the owners' rules", async () => {
    await emu.reset();
    await emu.call('POST', '/calendars/primary/acl', {
      body: { role: 'reader', scope: { type: 'user', value: 'bo@example.com' } },
    });
    const dump = (await emu.call('GET', '/__emulator/state')).body;
    delete dump.calendar.acl;
    expect((await emu.call('PUT', '/__emulator/state', { body: dump })).status).toBe(204);
    const rules = await emu.call('GET', '/calendars/primary/acl');
    expect(rules.body.items.map((rule: { id: string; role: string }) => [rule.id, rule.role])).toEqual([
      ['user:ana@example.com', 'owner'],
    ]);
  });

  it.each([
    ['not JSON', '{', 'parseError', 'not valid JSON'],
    ['a missing field', { version: 1 }, 'invalid', 'must have required property'],
    ['an event that breaks the spec', 'badEvent', 'invalid', '/calendar/events/'],
    ['a calendar of nobody', 'orphan', 'invalid', 'owner'],
  ])('refuses to load %s, naming the place', async (_name, variant, reason, text) => {
    await emu.reset();
    await emu.call('POST', '/calendars/primary/events', { body: timedEvent('x') });
    const dump = (await emu.call('GET', '/__emulator/state')).body;
    let body: unknown = variant;
    if (variant === 'badEvent') {
      const events = Object.values(dump.calendar.events['ana@example.com']) as {
        resource: Record<string, unknown>;
      }[];
      (events[0] as { resource: Record<string, unknown> }).resource.sequence = 'one';
      body = dump;
    } else if (variant === 'orphan') {
      dump.calendar.calendars['ana@example.com'].owner = 'nobody@example.com';
      body = dump;
    }
    const reply = await emu.call('PUT', '/__emulator/state', { body });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0].reason).toBe(reason);
    expect(reply.body.error.message).toContain(text);
  });

  it('an unknown control endpoint is 404 listing the endpoints', async () => {
    const reply = await emu.call('GET', '/__emulator/nothing');
    expect(reply.status).toBe(404);
    for (const endpoint of ['POST /reset', 'POST /seed', 'GET|PUT|DELETE /rate-limit'])
      expect(reply.body.error.message).toContain(endpoint);
  });
});

describe('users', () => {
  it('maps tokens to emails; other tokens are users of their own', async () => {
    await emu.reset();
    const ana = await emu.call('GET', '/calendars/primary', { token: 'token-ana' });
    expect(ana.body.id).toBe('ana@example.com');
    const bo = await emu.call('GET', '/calendars/primary', { token: 'token-bo' });
    expect(bo.body.id).toBe('bo@example.com');
    const other = await emu.call('GET', '/calendars/primary', { token: 'some-other-token' });
    expect(other.body.id).toMatch(/^user-[0-9a-f]{10}@example\.com$/);
    const again = await emu.call('GET', '/calendars/primary', { token: 'some-other-token' });
    expect(again.body.id).toBe(other.body.id);
    await emu.call('POST', '/calendars/primary/events', { token: 'token-ana', body: timedEvent('ana only') });
    expect((await emu.call('GET', '/calendars/primary/events', { token: 'token-bo' })).body.items).toEqual(
      [],
    );
    const quota = (await emu.call('GET', '/__emulator/quota')).body;
    expect(quota.byUser['ana@example.com']).toBe(2);
  });

  it('takes a token of the shape the token endpoint issues for the user the users map gives it, and no other (decision 0047)', async () => {
    await emu.reset();
    const listed = await emu.call('GET', '/calendars/primary', { token: 'ya29.listed' });
    expect(listed.body.id).toBe('bo@example.com');
    // Not strict, yet not a made-up user: the token endpoint did not issue it (or forgot it).
    const unknown = await emu.call('GET', '/calendars/primary', { token: 'ya29.something' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.message).toContain('not one this emulator issued');
  });
});

/**
 * A seed of one user with a token and a time zone, their primary calendar with an event, a
 * calendar they share with ana (on her list), and a Search Ads 360 advertiser with a conversion.
 */
const SEED = {
  users: [{ email: 'cy@example.com', tokens: ['token-cy'], settings: { timezone: 'Europe/Zurich' } }],
  calendars: [
    { id: 'primary', owner: 'cy@example.com', events: [{ id: 'seeded0001', ...timedEvent('Seeded') }] },
    {
      id: 'team@group.calendar.google.com',
      owner: 'cy@example.com',
      summary: 'Team',
      acl: [{ role: 'reader', scope: { type: 'user', value: 'ana@example.com' } }],
      listedBy: ['ana@example.com'],
      events: [{ summary: 'Kick-off', start: { date: '2026-03-03' }, end: { date: '2026-03-04' } }],
    },
  ],
  searchads360: {
    agencies: [
      {
        id: '100',
        name: 'Agency',
        advertisers: [
          {
            id: '200',
            name: 'Shop',
            currencyCode: 'CHF',
            floodlightActivities: [{ id: '300', name: 'Order' }],
            engineAccounts: [
              {
                id: '400',
                name: 'Shop Search',
                campaigns: [{ id: '500', name: 'Shoes', adGroups: [{ id: '600' }] }],
                clicks: [{ clickId: 'click-a', adGroupId: '600' }],
              },
            ],
          },
        ],
      },
    ],
    conversions: [
      {
        agencyId: '100',
        advertiserId: '200',
        conversionId: 'o-1',
        clickId: 'click-a',
        conversionTimestamp: at('2026-03-02T10:00:00Z'),
        segmentationType: 'FLOODLIGHT',
        segmentationName: 'Order',
        type: 'TRANSACTION',
        revenueMicros: '5000000',
      },
    ],
  },
};

const loadSeed = (harness: Harness, body: unknown) => harness.call('POST', '/__emulator/seed', { body });

describe('a seed loaded while running (POST /__emulator/seed)', () => {
  it('writes its users, calendars, events and conversions on top of the state, and its tokens mean its users', async () => {
    await emu.reset();
    const kept = await emu.call('POST', '/calendars/primary/events', { body: timedEvent('before the seed') });
    const reply = await loadSeed(emu, SEED);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      entries: {
        users: 1,
        calendars: 2,
        'calendars.acl': 1,
        'calendars.events': 2,
        'searchads360.agencies': 1,
        'searchads360.agencies.advertisers.engineAccounts.clicks': 1,
        'searchads360.conversions': 1,
      },
      tokens: 1,
      users: 2,
    });
    const seeded = await emu.call('GET', '/calendars/primary/events/seeded0001', { token: 'token-cy' });
    expect(seeded.status).toBe(200);
    expect(seeded.body).toMatchObject({ summary: 'Seeded', organizer: { email: 'cy@example.com' } });
    const zone = await emu.call('GET', '/users/me/settings/timezone', { token: 'token-cy' });
    expect(zone.body.value).toBe('Europe/Zurich');
    const list = await emu.call('GET', '/users/me/calendarList');
    expect(list.body.items.map((entry: { id: string }) => entry.id)).toContain(
      'team@group.calendar.google.com',
    );
    // What was there before the seed is still there.
    expect((await emu.call('GET', `/calendars/primary/events/${kept.body.id}`)).status).toBe(200);
    const conversions = await emu.call('GET', '/agency/100/advertiser/200/engine/400/conversion', {
      api: 'searchads360',
      query: { startDate: 20260301, endDate: 20260331, startRow: 0, rowCount: 10 },
    });
    expect(conversions.status).toBe(200);
    expect(conversions.body.conversion).toMatchObject([{ conversionId: 'o-1', currencyCode: 'CHF' }]);
  });

  it.each([
    ['not JSON', '{', 'parseError', 'The seed is not valid JSON'],
    [
      'an unknown field',
      { users: [{ email: 'dee@example.com', tokens: ['token-dee'], nick: 'D' }] },
      'invalid',
      'seed: users[0]: unknown field "nick"',
    ],
    [
      'an event the spec refuses, after writes that went in',
      {
        users: [{ email: 'dee@example.com', tokens: ['token-dee'] }],
        calendars: [
          {
            id: 'primary',
            owner: 'dee@example.com',
            events: [
              timedEvent('fine'),
              timedEvent('backwards', 10, { end: { dateTime: '2026-03-02T09:00:00Z' } }),
            ],
          },
        ],
      },
      'invalid',
      'seed: calendars[0].events[1] ("backwards"): 400 timeRangeEmpty',
    ],
    [
      'a token that means another user already',
      { users: [{ email: 'dee@example.com', tokens: ['token-dee', 'token-ana'] }] },
      'invalid',
      'seed: users[0].tokens: "token-ana" already means ana@example.com',
    ],
    [
      'scopes without a token',
      { users: [{ email: 'dee@example.com', scopes: ['calendar.readonly'] }] },
      'invalid',
      "seed: users[0].scopes: scopes are granted to the user's tokens",
    ],
    [
      'a service account',
      {
        users: [{ email: 'dee@example.com', tokens: ['token-dee'] }],
        serviceAccounts: [{ email: 'robot@project.iam.gserviceaccount.com', keys: { k1: 'PEM' } }],
      },
      'invalid',
      'seed: serviceAccounts: service accounts, OAuth clients and refresh tokens are given to the token endpoint when the emulator starts',
    ],
    [
      "a user's refresh token",
      {
        users: [
          { email: 'dee@example.com', tokens: ['token-dee'] },
          {
            email: 'eve@example.com',
            refreshTokens: [{ token: 'r-1', clientId: 'app', scopes: ['calendar'] }],
          },
        ],
      },
      'invalid',
      'seed: users[1].refreshTokens: service accounts, OAuth clients and refresh tokens',
    ],
  ])('refuses %s with 400 naming the place, and changes nothing', async (_name, body, reason, text) => {
    await emu.reset();
    await emu.call('POST', '/calendars/primary/events', { body: timedEvent('x') });
    const before = (await emu.call('GET', '/__emulator/state')).text;
    const reply = await loadSeed(emu, body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0].reason).toBe(reason);
    expect(reply.body.error.message).toContain(text);
    expect((await emu.call('GET', '/__emulator/state')).text).toBe(before);
    // Its token was not added: it is a user of its own, as any token no map names.
    const dee = await emu.call('GET', '/calendars/primary', { token: 'token-dee' });
    expect(dee.body.id).toMatch(/^user-[0-9a-f]{10}@example\.com$/);
  });

  it('keeps its tokens after a reset, as those given at start, so the same seed loads again', async () => {
    await emu.reset();
    expect((await loadSeed(emu, SEED)).status).toBe(200);
    // On top of itself its event ids are taken: refused whole.
    const twice = await loadSeed(emu, SEED);
    expect(twice.status).toBe(400);
    expect(twice.body.error.message).toMatch(/^seed: calendars\[0\]\.events\[0\]/);
    await emu.reset();
    expect((await emu.call('GET', '/calendars/primary', { token: 'token-cy' })).body.id).toBe(
      'cy@example.com',
    );
    const again = await loadSeed(emu, SEED);
    expect(again.status).toBe(200);
    expect(again.body.tokens).toBe(0);
  });
});

describe('a seed loaded while running, in strict mode', () => {
  const strict = useEmulator({ strict: true, users: { 'token-ana': 'ana@example.com' } });

  it('adds its tokens, with their scopes, to those strict mode accepts', async () => {
    expect((await strict.call('GET', '/calendars/primary', { token: 'token-reader' })).status).toBe(401);
    const reply = await loadSeed(strict, {
      users: [{ email: 'dee@example.com', tokens: ['token-reader'], scopes: ['calendar.readonly'] }],
    });
    expect(reply.status).toBe(200);
    const read = await strict.call('GET', '/calendars/primary', { token: 'token-reader' });
    expect(read.body.id).toBe('dee@example.com');
    const write = await strict.call('POST', '/calendars/primary/events', {
      token: 'token-reader',
      body: timedEvent('not allowed'),
    });
    expect(write.status).toBe(403);
    expect(write.body.error.errors[0].reason).toBe('insufficientPermissions');
  });
});

describe('the rate limit set while running (/__emulator/rate-limit)', () => {
  const colors = () => emu.call('GET', '/colors');
  // Default mode: Search Ads 360 ids no seed names are made on first use.
  const savedColumns = () => emu.call('GET', '/agency/1/advertiser/2/savedcolumns', { api: 'searchads360' });
  const setLimit = (body: unknown) => emu.call('PUT', '/__emulator/rate-limit', { body });
  const current = async () => (await emu.call('GET', '/__emulator/rate-limit')).body;
  afterEach(async () => {
    expect((await emu.call('DELETE', '/__emulator/rate-limit')).status).toBe(204);
    await emu.reset();
  });

  it('is off until set; PUT applies it to the following requests, each API refusing as its live service does', async () => {
    await emu.reset();
    expect(await current()).toEqual({ enabled: false });
    for (let i = 0; i < 6; i++) expect((await colors()).status).toBe(200);
    const set = await setLimit({ units: 5 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      enabled: true,
      units: 5,
      windowMs: 60_000,
      status: { calendar: 403, searchads360: 429 },
      used: { calendar: {}, searchads360: {} },
    });
    for (let i = 0; i < 5; i++) expect((await colors()).status).toBe(200);
    const over = await colors();
    expect(over.status).toBe(403);
    expect(over.body.error.errors[0]).toMatchObject({ domain: 'usageLimits', reason: 'rateLimitExceeded' });
    for (let i = 0; i < 5; i++) expect((await savedColumns()).status).toBe(200);
    const saOver = await savedColumns();
    expect(saOver.status).toBe(429);
    expect(saOver.body.error.errors[0]).toMatchObject({ domain: 'usageLimits', reason: 'rateLimitExceeded' });
    expect(saOver.headers.get('retry-after')).toMatch(/^\d+$/);
    const { enabled, ...report } = await current();
    expect(enabled).toBe(true);
    expect(report.used).toEqual({
      calendar: { 'ana@example.com': 5 },
      searchads360: { 'ana@example.com': 5 },
    });
    expect((await emu.call('GET', '/__emulator/quota')).body.rateLimit).toEqual(report);

    expect((await emu.call('DELETE', '/__emulator/rate-limit')).status).toBe(204);
    expect((await colors()).status).toBe(200);
    expect((await savedColumns()).status).toBe(200);
    expect(await current()).toEqual({ enabled: false });
    expect((await emu.call('GET', '/__emulator/quota')).body.rateLimit).toBeUndefined();
  });

  it('takes a status for both APIs; a PUT again changes the limit and starts its windows empty', async () => {
    expect((await setLimit({ units: 3, status: 429 })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await colors()).status).toBe(200);
    const over = await colors();
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    const changed = await setLimit({ units: 4, status: 403 });
    expect(changed.body).toMatchObject({ units: 4, status: { calendar: 403, searchads360: 403 } });
    for (let i = 0; i < 4; i++) expect((await colors()).status).toBe(200);
    expect((await colors()).status).toBe(403);
    for (let i = 0; i < 4; i++) expect((await savedColumns()).status).toBe(200);
    expect((await savedColumns()).status).toBe(403);
  });

  it('stays set through a reset, its windows emptied', async () => {
    await setLimit({ units: 3 });
    for (let i = 0; i < 3; i++) expect((await colors()).status).toBe(200);
    expect((await colors()).status).toBe(403);
    await emu.reset();
    expect(await current()).toMatchObject({
      enabled: true,
      units: 3,
      used: { calendar: {}, searchads360: {} },
    });
    expect((await colors()).status).toBe(200);
  });

  it.each([
    ['not JSON', '{', 'parseError', 'The rate limit is not valid JSON'],
    ['not an object', [60], 'invalid', 'The rate limit is a JSON object such as {"units": 60}'],
    ['no units', { status: 429 }, 'required', 'units: required'],
    [
      'fewer units than a patch costs',
      { units: 2 },
      'invalid',
      'units: expected a whole number of quota units of at least 3 (the cost of calendars.patch',
    ],
    [
      'units as text',
      { units: '60' },
      'invalid',
      'units: expected a whole number of quota units of at least 3',
    ],
    ['a fraction', { units: 7.5 }, 'invalid', 'found 7.5'],
    ['another status', { units: 60, status: 500 }, 'invalid', 'status: expected 403 or 429, found 500'],
    ['an empty window', { units: 60, windowMs: 0 }, 'invalid', 'windowMs: expected a positive number'],
    ['an unknown field', { units: 60, burst: 10 }, 'invalid', 'unknown field "burst"'],
  ])(
    'refuses %s with 400 saying what is wrong, and keeps the limit it had',
    async (_name, body, reason, text) => {
      expect((await setLimit({ units: 10 })).status).toBe(200);
      const reply = await setLimit(body);
      expect(reply.status).toBe(400);
      expect(reply.body.error.errors[0].reason).toBe(reason);
      expect(reply.body.error.message).toContain(text);
      expect(await current()).toMatchObject({ enabled: true, units: 10 });
    },
  );
});
