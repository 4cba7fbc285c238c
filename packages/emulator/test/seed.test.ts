/** Seed files (`--seed FILE`): the format, what it writes, and errors that name the entry at fault. */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { applySeed, type Seed, SeedError, seedScopeMap, seedUserMap } from '../src/core/seed.ts';
import { parseSeed } from '../src/emulator.ts';
import { useEmulator } from './support/harness.ts';
import { ADVERTISER, AGENCY } from './support/searchads360.ts';

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
      'users[0].settings: unknown setting "colour" (at /users/0/settings/colour); the settings are ',
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

describe('a misspelt field anywhere in a seed', () => {
  const PUBLIC_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .publicKey.export({ type: 'spki', format: 'pem' })
    .toString();
  const event = (extra: Record<string, unknown>) => ({
    summary: 'Standup',
    start: { dateTime: '2026-03-02T09:00:00+01:00' },
    end: { dateTime: '2026-03-02T09:15:00+01:00' },
    ...extra,
  });
  const calendar = (extra: Record<string, unknown>) => ({ calendars: [{ owner: 'a@b.co', ...extra }] });
  const events = (extra: Record<string, unknown>) => calendar({ id: 'primary', events: [event(extra)] });
  const sa360 = (section: Record<string, unknown>) => ({ searchads360: section });
  const advertiser = (extra: Record<string, unknown>) =>
    sa360({ agencies: [{ id: '1', advertisers: [{ id: '2', currencyCode: 'CHF', ...extra }] }] });
  const account = (extra: Record<string, unknown>) => advertiser({ engineAccounts: [{ id: '3', ...extra }] });
  const adGroup = (extra: Record<string, unknown>) =>
    account({ campaigns: [{ id: '4', adGroups: [{ id: '5', ...extra }] }] });
  const row = {
    agencyId: AGENCY,
    advertiserId: ADVERTISER,
    segmentationType: 'FLOODLIGHT',
    segmentationId: '1',
  };

  // [where, the seed, the place named, the misspelt name, the name meant]
  it.each<[string, Record<string, unknown>, string, string, string]>([
    ['a user', { users: [{ email: 'a@b.co', token: ['t'] }] }, 'users[0]', 'token', 'tokens'],
    [
      "a user's settings",
      { users: [{ email: 'a@b.co', settings: { timezon: 'Europe/Zurich' } }] },
      'users[0].settings',
      'timezon',
      'timezone',
    ],
    [
      "a user's refresh token",
      {
        oauthClients: [{ clientId: 'app', clientSecret: 's' }],
        users: [{ email: 'a@b.co', refreshTokens: [{ token: 'r', clientID: 'app', scopes: [] }] }],
      },
      'users[0].refreshTokens[0]',
      'clientID',
      'clientId',
    ],
    [
      'a service account',
      {
        serviceAccounts: [{ email: 'sa@p.iam.gserviceaccount.com', keys: { k: PUBLIC_KEY }, delegaton: {} }],
      },
      'serviceAccounts[0]',
      'delegaton',
      'delegation',
    ],
    [
      'an OAuth client',
      { oauthClients: [{ clientId: 'app', clientSecert: 's' }] },
      'oauthClients[0]',
      'clientSecert',
      'clientSecret',
    ],
    ['a calendar', calendar({ sumary: 'x' }), 'calendars[0]', 'sumary', 'summary'],
    [
      "a calendar's conference properties",
      calendar({ id: 'primary', conferenceProperties: { allowedConferenceSolutionType: [] } }),
      'calendars[0].conferenceProperties',
      'allowedConferenceSolutionType',
      'allowedConferenceSolutionTypes',
    ],
    [
      'a sharing rule',
      calendar({ id: 'primary', acl: [{ rol: 'reader', scope: { type: 'default' } }] }),
      'calendars[0].acl[0]',
      'rol',
      'role',
    ],
    [
      "a sharing rule's scope",
      calendar({ id: 'primary', acl: [{ role: 'reader', scope: { type: 'user', valeu: 'c@d.co' } }] }),
      'calendars[0].acl[0].scope',
      'valeu',
      'value',
    ],
    [
      'a listing',
      calendar({ id: 'primary', listedBy: [{ email: 'a@b.co', entyr: {} }] }),
      'calendars[0].listedBy[0]',
      'entyr',
      'entry',
    ],
    [
      "a listing's entry",
      calendar({ id: 'primary', listedBy: [{ email: 'a@b.co', entry: { colorID: '3' } }] }),
      'calendars[0].listedBy[0].entry',
      'colorID',
      'colorId',
    ],
    [
      "a listing's default reminder",
      calendar({
        id: 'primary',
        listedBy: [{ email: 'a@b.co', entry: { defaultReminders: [{ method: 'popup', minute: 5 }] } }],
      }),
      'calendars[0].listedBy[0].entry.defaultReminders[0]',
      'minute',
      'minutes',
    ],
    ['an event', events({ sumary: 'Standup' }), 'calendars[0].events[0]', 'sumary', 'summary'],
    [
      "an event's start",
      events({ start: { datetime: '2026-03-02T09:00:00+01:00' } }),
      'calendars[0].events[0].start',
      'datetime',
      'dateTime',
    ],
    [
      "an event's attendee",
      events({ attendees: [{ emial: 'c@d.co' }] }),
      'calendars[0].events[0].attendees[0]',
      'emial',
      'email',
    ],
    [
      "an event's reminders",
      events({ reminders: { useDefaults: false } }),
      'calendars[0].events[0].reminders',
      'useDefaults',
      'useDefault',
    ],
    [
      "an event's reminder override",
      events({ reminders: { useDefault: false, overrides: [{ method: 'popup', minute: 5 }] } }),
      'calendars[0].events[0].reminders.overrides[0]',
      'minute',
      'minutes',
    ],
    [
      "an event's extended properties",
      events({ extendedProperties: { privat: { a: '1' } } }),
      'calendars[0].events[0].extendedProperties',
      'privat',
      'private',
    ],
    [
      "an event's source",
      events({ source: { titel: 'x', url: 'https://example.com' } }),
      'calendars[0].events[0].source',
      'titel',
      'title',
    ],
    ['a group', { groups: [{ email: 'g@b.co', member: [] }] }, 'groups[0]', 'member', 'members'],
    ['the Search Ads 360 section', sa360({ agencys: [] }), 'searchads360', 'agencys', 'agencies'],
    [
      'an agency',
      sa360({ agencies: [{ id: '1', advertiser: [] }] }),
      'searchads360.agencies[0]',
      'advertiser',
      'advertisers',
    ],
    [
      'an advertiser',
      advertiser({ timezone: 'Europe/Zurich' }),
      'searchads360.agencies[0].advertisers[0]',
      'timezone',
      'timeZone',
    ],
    [
      'a Floodlight activity',
      advertiser({ floodlightActivities: [{ id: '9', nmae: 'Order' }] }),
      'searchads360.agencies[0].advertisers[0].floodlightActivities[0]',
      'nmae',
      'name',
    ],
    [
      'a saved column',
      advertiser({ savedColumns: [{ savedColumnName: 'x', typ: 'number' }] }),
      'searchads360.agencies[0].advertisers[0].savedColumns[0]',
      'typ',
      'type',
    ],
    [
      'an engine account',
      account({ customerID: '7' }),
      'searchads360.agencies[0].advertisers[0].engineAccounts[0]',
      'customerID',
      'customerId',
    ],
    [
      'a campaign',
      account({ campaigns: [{ id: '4', adgroups: [] }] }),
      'searchads360.agencies[0].advertisers[0].engineAccounts[0].campaigns[0]',
      'adgroups',
      'adGroups',
    ],
    [
      'an ad',
      adGroup({ ads: [{ id: '6', newID: '7' }] }),
      'searchads360.agencies[0].advertisers[0].engineAccounts[0].campaigns[0].adGroups[0].ads[0]',
      'newID',
      'newId',
    ],
    [
      'a click',
      account({ clicks: [{ clickId: 'c', adGroupID: '5' }] }),
      'searchads360.agencies[0].advertisers[0].engineAccounts[0].clicks[0]',
      'adGroupID',
      'adGroupId',
    ],
    [
      'a conversion',
      sa360({ conversions: [{ ...row, conversionID: 'o1', conversionTimestamp: '1772445600000' }] }),
      'searchads360.conversions[0]',
      'conversionID',
      'conversionId',
    ],
    [
      "a conversion's custom dimension",
      sa360({
        conversions: [
          {
            ...row,
            conversionId: 'o1',
            conversionTimestamp: '1772445600000',
            customDimension: [{ nmae: 'size', value: 'L' }],
          },
        ],
      }),
      'searchads360.conversions[0].customDimension[0]',
      'nmae',
      'name',
    ],
    [
      'an availability',
      sa360({ availabilities: [{ ...row, availabilityTimestmp: '1772445600000' }] }),
      'searchads360.availabilities[0]',
      'availabilityTimestmp',
      'availabilityTimestamp',
    ],
  ])(
    'in %s is refused, with the place, the field and the name meant',
    async (_where, seed, place, typo, meant) => {
      const error = await seeded(seed as Seed).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(SeedError);
      // `calendars[0].events[0]` is the JSON pointer /calendars/0/events/0.
      const pointer = `/${place
        .replace(/\[(\d+)\]/g, '.$1')
        .split('.')
        .join('/')}/${typo}`;
      expect((error as Error).message).toMatch(`seed.json: ${place}: unknown `);
      expect((error as Error).message).toContain(
        `${JSON.stringify(typo)} (at ${pointer}); did you mean ${JSON.stringify(meant)}?`,
      );
    },
  );

  it('leaves the maps the live resources leave open open: extended properties, gadget preferences, key ids', async () => {
    await seeded({
      users: [{ email: 'a@b.co' }],
      serviceAccounts: [{ email: 'sa@p.iam.gserviceaccount.com', keys: { 'any-key-id': PUBLIC_KEY } }],
      ...events({
        extendedProperties: { private: { anyName: '1' }, shared: { other: '2' } },
        gadget: { preferences: { whatever: 'x' } },
      }),
    } as Seed);
    const listed = await emu.call('GET', '/calendars/primary/events', { token: 'a@b.co' });
    expect(listed.body.items[0].extendedProperties).toEqual({
      private: { anyName: '1' },
      shared: { other: '2' },
    });
  });

  it('says what to do when no known name is close', () => {
    expect(() => parseSeed(events({ zzzzzzzzzz: 1 }), 'seed.json')).toThrow(
      /^seed\.json: calendars\[0\]\.events\[0\]: unknown field "zzzzzzzzzz" \(at \/calendars\/0\/events\/0\/zzzzzzzzzz\); the fields here are /,
    );
  });
});
