/** Seed files (`--seed FILE`): the format, what it writes, and errors that name the entry at fault. */
import { describe, expect, it } from 'vitest';
import { applySeed, type Seed, SeedError, seedScopeMap, seedUserMap } from '../src/core/seed.ts';
import { parseSeed } from '../src/emulator.ts';
import { useEmulator } from './support/harness.ts';

const TEAM = 'team@group.calendar.google.com';

const SEED: Seed = {
  users: [
    {
      email: 'ana@example.com',
      tokens: ['token-ana'],
      settings: { timezone: 'Europe/Zurich', weekStart: '1' },
    },
    { email: 'Bo@Example.com', tokens: ['token-bo'] },
  ],
  calendars: [
    {
      id: 'primary',
      owner: 'ana@example.com',
      summary: 'Ana',
      events: [
        {
          id: 'standup0001',
          summary: 'Standup',
          start: { dateTime: '2026-03-02T09:00:00+01:00' },
          end: { dateTime: '2026-03-02T09:15:00+01:00' },
        },
      ],
    },
    {
      id: TEAM,
      owner: 'ana@example.com',
      summary: 'Team',
      timeZone: 'Europe/Berlin',
      acl: [{ role: 'reader', scope: { type: 'user', value: 'bo@example.com' } }],
      listedBy: ['bo@example.com'],
      events: [
        { summary: 'Kick-off', start: { date: '2026-03-03' }, end: { date: '2026-03-04' } },
        {
          summary: 'Weekly',
          start: { dateTime: '2026-03-02T10:00:00+01:00', timeZone: 'Europe/Berlin' },
          end: { dateTime: '2026-03-02T11:00:00+01:00', timeZone: 'Europe/Berlin' },
          recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
        },
      ],
    },
    { owner: 'cy@example.com', summary: 'Cy side project' },
  ],
};

const emu = useEmulator({ users: seedUserMap(SEED) });

async function seeded(seed: Seed = SEED): Promise<void> {
  await emu.reset();
  applySeed(emu.emulator, parseSeed(structuredClone(seed), 'seed.json'), 'seed.json');
}

describe('seed files', () => {
  it('writes users with their tokens and settings, calendars, rules and events', async () => {
    await seeded();
    const primary = await emu.call('GET', '/calendars/primary', { token: 'token-ana' });
    expect(primary.body).toMatchObject({ id: 'ana@example.com', summary: 'Ana', timeZone: 'Europe/Zurich' });
    const setting = await emu.call('GET', '/users/me/settings/weekStart', { token: 'token-ana' });
    expect(setting.body.value).toBe('1');
    const mine = await emu.call('GET', '/calendars/primary/events/standup0001', { token: 'token-ana' });
    expect(mine.body).toMatchObject({ summary: 'Standup', status: 'confirmed', sequence: 0 });
    expect(mine.body.etag).toMatch(/^"\d+"$/);

    const team = await emu.call('GET', `/calendars/${encodeURIComponent(TEAM)}`, { token: 'token-ana' });
    expect(team.body).toMatchObject({ id: TEAM, summary: 'Team', timeZone: 'Europe/Berlin' });
    const listed = await emu.call('GET', '/users/me/calendarList', { token: 'token-ana' });
    expect(listed.body.items.map((entry: { id: string }) => entry.id).sort()).toEqual(
      ['ana@example.com', TEAM].sort(),
    );
    const events = await emu.call('GET', `/calendars/${encodeURIComponent(TEAM)}/events`, {
      token: 'token-ana',
      query: { singleEvents: true, orderBy: 'startTime' },
    });
    expect(events.body.items.map((event: { summary: string }) => event.summary)).toEqual([
      'Weekly',
      'Kick-off',
      'Weekly',
      'Weekly',
    ]);
    // A calendar of a user the seed names only as an owner.
    const cy = await emu.call('GET', '/users/me/calendarList', { token: 'cy@example.com' });
    expect(cy.body.items.map((entry: { summary: string }) => entry.summary)).toContain('Cy side project');
  });

  it('shares as the rules say: Bo lists the team calendar as a reader and cannot write to it', async () => {
    await seeded();
    const entry = await emu.call('GET', `/users/me/calendarList/${encodeURIComponent(TEAM)}`, {
      token: 'token-bo',
    });
    expect(entry.body).toMatchObject({ id: TEAM, accessRole: 'reader' });
    const read = await emu.call('GET', `/calendars/${encodeURIComponent(TEAM)}/events`, {
      token: 'token-bo',
    });
    expect(read.status).toBe(200);
    const write = await emu.call('POST', `/calendars/${encodeURIComponent(TEAM)}/events`, {
      token: 'token-bo',
      body: { summary: 'x', start: { date: '2026-03-05' }, end: { date: '2026-03-06' } },
    });
    expect(write.status).toBe(403);
  });

  it('seeded events have a sync history: a sync token from the first listing sees later changes', async () => {
    await seeded();
    const first = await emu.call('GET', '/calendars/primary/events', { token: 'token-ana' });
    expect(first.body.nextSyncToken).toBeTruthy();
    await emu.call('DELETE', '/calendars/primary/events/standup0001', { token: 'token-ana' });
    const sync = await emu.call('GET', '/calendars/primary/events', {
      token: 'token-ana',
      query: { syncToken: first.body.nextSyncToken },
    });
    expect(sync.body.items).toMatchObject([{ id: 'standup0001', status: 'cancelled' }]);
  });

  it.each([
    ['not an object', [], '(the document): must be object'],
    ['an unknown top-level field', { events: [] }, '(the document): unknown field "events"'],
    ['a bad email', { users: [{ email: 'ana' }] }, 'users[0].email: expected an email address, found "ana"'],
    [
      'a user twice',
      { users: [{ email: 'a@b.co' }, { email: 'A@b.co' }] },
      'users[1].email: a@b.co is already users[0]',
    ],
    [
      'a token with a space',
      { users: [{ email: 'a@b.co', tokens: ['a b'] }] },
      'users[0].tokens[0]: must match pattern',
    ],
    [
      'a calendar without owner',
      { calendars: [{ summary: 'x' }] },
      "calendars[0]: must have required property 'owner'",
    ],
    [
      'a misspelt calendar field',
      { calendars: [{ owner: 'a@b.co', sumary: 'x' }] },
      'calendars[0]: unknown field "sumary"',
    ],
    [
      'a calendar id twice',
      {
        calendars: [
          { owner: 'a@b.co', id: 'primary' },
          { owner: 'a@b.co', id: 'a@b.co' },
        ],
      },
      'calendars[1].id: a@b.co is already calendars[0]',
    ],
    [
      'a calendar id that names the prototype',
      { calendars: [{ owner: 'a@b.co', id: '__proto__' }] },
      'calendars[0].id: "__proto__" cannot be an id',
    ],
  ])('refuses a document with %s, naming the place', (_name, value, message) => {
    expect(() => parseSeed(value, 'seed.json')).toThrow(SeedError);
    expect(() => parseSeed(value, 'seed.json')).toThrow(`seed.json: ${message}`);
  });

  it('takes tokens and ids that name properties of Object.prototype as ordinary ones', () => {
    const seed = parseSeed(
      { users: [{ email: 'a@b.co', tokens: ['constructor', 'toString'], scopes: ['calendar.readonly'] }] },
      'seed.json',
    );
    expect(seedUserMap(seed, {}, 'seed.json')).toEqual({ constructor: 'a@b.co', toString: 'a@b.co' });
    expect(seedScopeMap(seed, {}, 'seed.json')).toEqual({
      constructor: ['https://www.googleapis.com/auth/calendar.readonly'],
      toString: ['https://www.googleapis.com/auth/calendar.readonly'],
    });
  });

  it('refuses __proto__ as a token instead of dropping it', () => {
    const seed = parseSeed({ users: [{ email: 'a@b.co', tokens: ['__proto__'] }] }, 'seed.json');
    expect(() => seedUserMap(seed, {}, 'seed.json')).toThrow(
      'seed.json: users[0].tokens: "__proto__" cannot be a token',
    );
  });

  it.each([
    [
      'an unknown setting',
      { users: [{ email: 'a@b.co', settings: { colour: 'red' } }] },
      'users[0].settings.colour: unknown setting',
    ],
    [
      'an event that breaks the spec',
      {
        calendars: [
          {
            id: 'primary',
            owner: 'a@b.co',
            events: [
              { summary: 'Fine', start: { date: '2026-03-03' }, end: { date: '2026-03-04' } },
              { summary: 'Bad', start: { dateTime: 'tomorrow' }, end: { dateTime: 'later' } },
            ],
          },
        ],
      },
      'calendars[0].events[1] ("Bad"): 400 invalid: Invalid value for field end.dateTime: must be an RFC 3339 date-time such as 2027-03-01T10:00:00+01:00 (the offset may be left out when timeZone names the zone) (end.dateTime); Invalid value for field start.dateTime',
    ],
    [
      'an event that ends before it starts',
      {
        calendars: [
          {
            id: 'primary',
            owner: 'a@b.co',
            events: [{ start: { date: '2026-03-04' }, end: { date: '2026-03-03' } }],
          },
        ],
      },
      'calendars[0].events[0]: 400 timeRangeEmpty',
    ],
    [
      'a rule with an unknown role',
      {
        calendars: [{ id: 'primary', owner: 'a@b.co', acl: [{ role: 'boss', scope: { type: 'default' } }] }],
      },
      'calendars[0].acl[0]: 400 invalid: Invalid value for field role',
    ],
    [
      'a secondary calendar without a summary',
      { calendars: [{ owner: 'a@b.co' }] },
      'calendars[0]: summary: a secondary calendar needs a summary',
    ],
    [
      'a calendar id that is another user',
      { calendars: [{ owner: 'a@b.co', id: 'c@b.co', summary: 'x' }] },
      'calendars[0]: id: c@b.co looks like a user',
    ],
    [
      'an event id taken twice',
      {
        calendars: [
          {
            id: 'primary',
            owner: 'a@b.co',
            events: [
              { id: 'same00001', start: { date: '2026-03-03' }, end: { date: '2026-03-04' } },
              { id: 'same00001', start: { date: '2026-03-03' }, end: { date: '2026-03-04' } },
            ],
          },
        ],
      },
      'calendars[0].events[1]: 409 duplicate',
    ],
  ])('refuses %s, naming the entry, and leaves the state as it was', async (_name, value, message) => {
    await emu.reset();
    await emu.call('POST', '/calendars/primary/events', {
      token: 'a@b.co',
      body: { summary: 'before', start: { date: '2026-01-01' }, end: { date: '2026-01-02' } },
    });
    const before = (await emu.call('GET', '/__emulator/state')).body;
    const seed = parseSeed(value, 'seed.json');
    expect(() => applySeed(emu.emulator, seed, 'seed.json')).toThrow(`seed.json: ${message}`);
    expect((await emu.call('GET', '/__emulator/state')).body).toEqual(before);
  });

  it('merges its tokens with a users map, refusing a token given two emails', () => {
    expect(seedUserMap(SEED, { other: 'zed@example.com' })).toEqual({
      other: 'zed@example.com',
      'token-ana': 'ana@example.com',
      'token-bo': 'bo@example.com',
    });
    expect(() => seedUserMap(SEED, { 'token-ana': 'zed@example.com' }, 'seed.json')).toThrow(
      'seed.json: users[0].tokens: "token-ana" already means zed@example.com',
    );
  });
});
