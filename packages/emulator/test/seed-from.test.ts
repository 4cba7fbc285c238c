/**
 * `gspec-emulator --seed-from FILE.har` and `gspec-emulator seed-from FILE.har`: a session of
 * Google's own client (googleapis) against an emulator, recorded as HAR through a forwarder
 * (as `gspec-mock --proxy --record` records real traffic), seeds a fresh emulator started by
 * the built CLI, whose reads answer what the recording answered. Also: the subcommand's seed,
 * which `--seed` takes; deletes in the recording; what is skipped and why; and the one-line
 * errors of a recording that cannot be used.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BatchPartRequest, encodeBatchRequest } from '@gspec/runtime/multipart';
import { stopAll } from '@gspec/scripts/child-process';
import { type BatchCall, type Exchange, type HarEntry, harEntry, writeBatch } from '@gspec/server-kit';
import { google } from 'googleapis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applySeed } from '../src/core/seed.ts';
import { createEmulator, parseSeed, recordingSeedOf } from '../src/emulator.ts';
import { CLI, startCli } from './support/cli-process.ts';
import { useEmulator } from './support/harness.ts';
import { type Recorder, startRecorder } from './support/recorder.ts';

const ANA = 'ana@example.com';
const dir = mkdtempSync(path.join(tmpdir(), 'gspec-seed-from-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => stopAll('SIGKILL'));

/** The built CLI run to its end: status and output. */
function cli(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, out: run.stdout, err: run.stderr };
}

// Search Ads 360 ids of the user's own (the emulator creates them on first use).
const AGENCY = '41000000000000011';
const ADVERTISER = '42000000000000022';
const ENGINE = '43000000000000033';
const WHEN = Date.parse('2026-05-12T09:15:00Z');
const MAY = { startDate: 20260501, endDate: 20260531, startRow: 0, rowCount: 100 };
const row = {
  agencyId: AGENCY,
  advertiserId: ADVERTISER,
  engineAccountId: ENGINE,
  customerId: '4567890123',
  campaignId: '45000000000000055',
  adGroupId: '46000000000000066',
  criterionId: '47000000000000077',
  segmentationType: 'FLOODLIGHT',
};
const lead = {
  ...row,
  clickId: 'Cj0KCQjw-users-own-click',
  conversionId: 'lead-1',
  conversionTimestamp: String(WHEN),
  segmentationName: 'Lead form',
  type: 'ACTION',
  quantityMillis: '1000',
};
const sale = {
  ...row,
  conversionId: 'order-7',
  conversionTimestamp: String(WHEN + 60_000),
  segmentationName: 'Purchase',
  type: 'TRANSACTION',
  revenueMicros: '89500000',
  currencyCode: 'USD',
};

/** The fields of an answer named by `keys` (those it lacks as undefined). */
const pick = (value: object, keys: readonly string[]) =>
  Object.fromEntries(keys.map((key) => [key, (value as Record<string, unknown>)[key]]));

/** What a user relies on in an event, to compare. */
const eventFacts = (event: object) =>
  pick(event, [
    'id',
    'status',
    'summary',
    'start',
    'end',
    'recurrence',
    'recurringEventId',
    'originalStartTime',
    'iCalUID',
    'sequence',
  ]);

/** What a user relies on in a calendar list entry. */
const entryFacts = (entry: object) =>
  pick(entry, [
    'id',
    'summary',
    'summaryOverride',
    'description',
    'timeZone',
    'colorId',
    'backgroundColor',
    'accessRole',
    'primary',
    'hidden',
    'selected',
  ]);

/** The answers of the reads at the end of the recorded session, to compare with a seeded emulator's. */
async function reads(rootUrl: string, team: string, exception: string) {
  const auth = new google.auth.OAuth2();
  auth.setCredentials({ access_token: ANA });
  const calendar = google.calendar({ version: 'v3', auth, rootUrl });
  const ds = google.doubleclicksearch({ version: 'v2', auth, rootUrl });
  const teamCalendar = (await calendar.calendars.get({ calendarId: team })).data;
  const list = (await calendar.calendarList.list()).data.items ?? [];
  const teamEvents = (
    await calendar.events.list({ calendarId: team, singleEvents: true, orderBy: 'startTime' })
  ).data.items;
  const recurring = (await calendar.events.list({ calendarId: team })).data.items;
  const got = (await calendar.events.get({ calendarId: team, eventId: exception })).data;
  const mine = (await calendar.events.list({ calendarId: 'primary' })).data.items;
  const acl = (await calendar.acl.list({ calendarId: team })).data.items;
  const settings = (await calendar.settings.list()).data.items;
  const conversions = (
    await ds.conversion.get({ agencyId: AGENCY, advertiserId: ADVERTISER, engineAccountId: ENGINE, ...MAY })
  ).data.conversion;
  return {
    calendar: {
      id: teamCalendar.id,
      summary: teamCalendar.summary,
      description: teamCalendar.description,
      timeZone: teamCalendar.timeZone,
    },
    list: list.map(entryFacts),
    teamEvents: (teamEvents ?? []).map(eventFacts),
    recurring: (recurring ?? []).map(eventFacts),
    exception: eventFacts(got),
    mine: (mine ?? []).map(eventFacts),
    acl: (acl ?? []).map((rule) => ({ id: rule.id, role: rule.role, scope: rule.scope })),
    settings: (settings ?? []).map((setting) => [setting.id, setting.value]),
    // conversionModifiedTimestamp is when the conversion was written: the seed writes it anew.
    conversions: (conversions ?? []).map(({ conversionModifiedTimestamp: _when, ...rest }) => rest),
  };
}

describe('seeding from a recording of a googleapis session', () => {
  const source = useEmulator();
  let recorder: Recorder;
  const har = path.join(dir, 'session.har');
  let team = '';
  let exception = '';
  let deletedEvent = '';
  let scratch = '';
  let recorded: Awaited<ReturnType<typeof reads>>;

  beforeAll(async () => {
    // The account recorded has settings of its own (the API cannot change them: a seed does).
    await source.inProcess(() =>
      applySeed(
        source.emulator,
        parseSeed({
          users: [{ email: ANA, settings: { timezone: 'America/New_York', weekStart: '0', locale: 'de' } }],
        }),
      ),
    );
    recorder = await startRecorder(source.origin);
    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: ANA });
    const rootUrl = `${recorder.origin}/`;
    const calendar = google.calendar({ version: 'v3', auth, rootUrl });
    const ds = google.doubleclicksearch({ version: 'v2', auth, rootUrl });

    // Who the user is, and a shared team calendar.
    await calendar.calendarList.list();
    await calendar.calendars.get({ calendarId: 'primary' });
    team = (await calendar.calendars.insert({ requestBody: { summary: 'Team', timeZone: 'Europe/Zurich' } }))
      .data.id as string;
    await calendar.calendars.patch({
      calendarId: team,
      requestBody: { description: 'Where the team meets' },
    });
    await calendar.acl.insert({
      calendarId: team,
      requestBody: { role: 'reader', scope: { type: 'user', value: 'bo@example.com' } },
    });
    await calendar.acl.insert({
      calendarId: team,
      requestBody: { role: 'writer', scope: { type: 'user', value: 'cy@example.com' } },
    });
    await calendar.acl.delete({ calendarId: team, ruleId: 'user:cy@example.com' });
    await calendar.calendarList.patch({
      calendarId: team,
      requestBody: { summaryOverride: 'Team (mine)', colorId: '7' },
    });
    scratch = (await calendar.calendars.insert({ requestBody: { summary: 'Scratch' } })).data.id as string;
    await calendar.calendars.delete({ calendarId: scratch });

    // A weekly meeting: its second occurrence moved and renamed, its third deleted.
    const weekly = await calendar.events.insert({
      calendarId: team,
      requestBody: {
        summary: 'Weekly',
        start: { dateTime: '2026-03-02T10:00:00+01:00', timeZone: 'Europe/Zurich' },
        end: { dateTime: '2026-03-02T11:00:00+01:00', timeZone: 'Europe/Zurich' },
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
      },
    });
    const instances = (
      await calendar.events.instances({ calendarId: team, eventId: weekly.data.id as string })
    ).data.items;
    const second = instances?.[1]?.id as string;
    const third = instances?.[2]?.id as string;
    exception = (
      await calendar.events.patch({
        calendarId: team,
        eventId: second,
        requestBody: {
          summary: 'Weekly (moved)',
          start: { dateTime: '2026-03-10T14:00:00+01:00', timeZone: 'Europe/Zurich' },
          end: { dateTime: '2026-03-10T15:00:00+01:00', timeZone: 'Europe/Zurich' },
        },
      })
    ).data.id as string;
    await calendar.events.delete({ calendarId: team, eventId: third });

    // Single events: one kept (renamed later), one deleted.
    const dentist = await calendar.events.insert({
      calendarId: 'primary',
      requestBody: {
        id: 'dentist00001',
        summary: 'Dentist',
        start: { dateTime: '2026-03-04T08:00:00Z' },
        end: { dateTime: '2026-03-04T08:30:00Z' },
      },
    });
    await calendar.events.patch({
      calendarId: 'primary',
      eventId: dentist.data.id as string,
      requestBody: { summary: 'Dentist (check-up)' },
    });
    deletedEvent = (
      await calendar.events.insert({
        calendarId: 'primary',
        requestBody: { summary: 'Cancelled', start: { date: '2026-03-05' }, end: { date: '2026-03-06' } },
      })
    ).data.id as string;
    await calendar.events.delete({ calendarId: 'primary', eventId: deletedEvent });

    // An error answer and a read with nothing to seed.
    await expect(calendar.events.get({ calendarId: team, eventId: 'nosuchevent1' })).rejects.toMatchObject({
      status: 404,
    });
    await calendar.colors.get();
    await calendar.settings.get({ setting: 'timezone' });

    // Search Ads 360: conversions written, one corrected, an availability, the saved columns.
    await ds.conversion.insert({ requestBody: { conversion: [lead, sale] } });
    await ds.conversion.update({ requestBody: { conversion: [{ ...sale, revenueMicros: '79500000' }] } });
    await ds.conversion.updateAvailability({
      requestBody: {
        availabilities: [
          {
            agencyId: AGENCY,
            advertiserId: ADVERTISER,
            segmentationType: 'FLOODLIGHT',
            segmentationName: 'Purchase',
            availabilityTimestamp: String(WHEN + 3_600_000),
          },
        ],
      },
    });
    await ds.savedColumns.list({ agencyId: AGENCY, advertiserId: ADVERTISER });

    // The reads a user makes, recorded too: what a seeded emulator must answer alike.
    recorded = await reads(rootUrl, team, exception);
    recorder.write(har);
  });
  afterAll(() => recorder?.close());

  it('records what the session did', () => {
    expect(recorded.teamEvents.map((e) => e.summary)).toEqual(['Weekly', 'Weekly (moved)', 'Weekly']);
    expect(recorded.acl.map((rule) => rule.id)).toEqual([`user:${ANA}`, 'user:bo@example.com']);
    expect(recorded.conversions).toHaveLength(2);
    const text = readFileSync(har, 'utf8');
    // The recorder redacts credentials, as a real recording does.
    expect(text).not.toContain(`Bearer ${ANA}`);
    expect(text).toContain('[redacted]');
  });

  it('--seed-from starts a fresh emulator whose reads answer what the recording answered', async () => {
    const run = startCli(['--seed-from', har]);
    const origin = await run.ready;
    const out = run.output().out;
    expect(out).toContain(`Seeded from ${har} (a recording): took `);
    expect(out).toContain(
      'took users: 1; settings: 12; calendars: 2; sharing rules: 1; calendar list entries: 2; events: 2; changed occurrences of recurring events: 1; deleted occurrences of recurring events: 1; agencies: 1; advertisers: 1; engine accounts: 1; campaigns, ad groups, ads, keywords and product groups: 3; clicks: 1; Floodlight activities: 2; conversions: 2; availabilities: 1 (from 33 of 34 exchanges)\n',
    );
    // What was left out, by kind, with its count.
    expect(out).toMatch(
      /\n {2}skipped [^\n]*error answers \(4xx\/5xx\): 1;[^\n]*colors\.get \(nothing a seed keeps\): 1/,
    );

    const seeded = await reads(`${origin}/`, team, exception);
    expect(seeded.calendar).toEqual(recorded.calendar);
    expect(seeded.list).toEqual(recorded.list);
    expect(seeded.teamEvents).toEqual(recorded.teamEvents);
    expect(seeded.recurring).toEqual(recorded.recurring);
    expect(seeded.exception).toEqual(recorded.exception);
    expect(seeded.mine).toEqual(recorded.mine);
    expect(seeded.acl).toEqual(recorded.acl);
    expect(seeded.settings).toEqual(recorded.settings);
    expect(seeded.conversions).toEqual(recorded.conversions);
    expect(seeded).toEqual(recorded);

    // The availability is in the state (no operation reads it back).
    const state = (await (await fetch(`${origin}/__emulator/state`)).json()) as {
      searchads360: { availabilities: Record<string, Record<string, { availabilityTimestamp: string }>> };
    };
    const availabilities = Object.values(state.searchads360.availabilities[ADVERTISER] ?? {});
    expect(availabilities.map((a) => a.availabilityTimestamp)).toEqual([String(WHEN + 3_600_000)]);
    expect(await run.stop('SIGTERM')).toBe(0);
  });

  it('leaves out what the recording deleted', async () => {
    const run = startCli(['--seed-from', har]);
    const origin = await run.ready;
    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: ANA });
    const calendar = google.calendar({ version: 'v3', auth, rootUrl: `${origin}/` });
    // In the recording: deleted (answered 204), so not in the seed at all.
    await expect(calendar.events.get({ calendarId: 'primary', eventId: deletedEvent })).rejects.toMatchObject(
      {
        status: 404,
      },
    );
    await expect(calendar.calendars.get({ calendarId: scratch })).rejects.toMatchObject({ status: 404 });
    const rules = (await calendar.acl.list({ calendarId: team, showDeleted: true })).data.items ?? [];
    expect(rules.map((rule) => rule.id)).not.toContain('user:cy@example.com');
    expect(await run.stop('SIGTERM')).toBe(0);
  });

  it('seed-from writes a seed file that --seed takes, and never replaces a file', async () => {
    const written = cli('seed-from', har, '--out', 'seed.json');
    expect(written.status, written.err).toBe(0);
    expect(written.out).toBe('');
    expect(written.err).toMatch(
      /^gspec-emulator seed-from: wrote seed\.json from .*session\.har\n {2}took [^\n]+\n {2}skipped [^\n]+\n$/,
    );
    const file = path.join(dir, 'seed.json');
    const seed = JSON.parse(readFileSync(file, 'utf8'));
    expect(seed.users).toEqual([
      { email: ANA, settings: expect.objectContaining({ timezone: 'America/New_York', weekStart: '0' }) },
    ]);
    const teamSeed = seed.calendars.find((c: { id: string }) => c.id === team);
    expect(teamSeed).toMatchObject({
      owner: ANA,
      summary: 'Team',
      description: 'Where the team meets',
      timeZone: 'Europe/Zurich',
      acl: [{ role: 'reader', scope: { type: 'user', value: 'bo@example.com' } }],
      listedBy: [
        { email: ANA, entry: expect.objectContaining({ summaryOverride: 'Team (mine)', colorId: '7' }) },
      ],
    });
    // Read-only fields the seed format does not take are not written.
    expect(JSON.stringify(seed)).not.toMatch(/"(etag|htmlLink|created|updated|conversionModifiedTimestamp)"/);
    expect(seed.searchads360.exampleEntities).toBe(false);

    // The same seed on stdout without --out.
    const printed = cli('seed-from', har);
    expect(printed.status).toBe(0);
    expect(JSON.parse(printed.out)).toEqual(seed);

    // --seed takes it.
    const run = startCli(['--seed', file]);
    const origin = await run.ready;
    const reply = await fetch(`${origin}/calendar/v3/calendars/${encodeURIComponent(team)}`, {
      headers: { authorization: `Bearer ${ANA}` },
    });
    expect(((await reply.json()) as { summary: string }).summary).toBe('Team');
    expect(await run.stop('SIGTERM')).toBe(0);

    const again = cli('seed-from', har, '--out', 'seed.json');
    expect(again.status).toBe(1);
    expect(again.err).toBe(
      'gspec-emulator seed-from: seed.json exists already; choose another file (seed-from never replaces one)\n',
    );
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(seed);
  });

  it('refuses --seed with --seed-from', async () => {
    const run = startCli(['--seed', 'seed.json', '--seed-from', har]);
    expect(await run.exited).toBe(1);
    expect(run.output().err).toMatch(
      /^gspec-emulator: --seed and --seed-from are two seeds: give one [^\n]*\n$/,
    );
  });
});

describe('recordings that cannot be used', () => {
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const entry = (url: string, status = 200, body: unknown = {}) =>
    harEntry({
      method: 'GET',
      url,
      requestHeaders: { authorization: 'Bearer secret' },
      status,
      responseHeaders: { 'content-type': 'application/json' },
      responseBody: JSON.stringify(body),
      started: new Date('2026-03-01T10:00:00Z'),
      timeMs: 5,
    });
  const harOf = (entries: HarEntry[]) =>
    JSON.stringify({ log: { version: '1.2', creator: { name: 't', version: '0' }, entries } });

  it.each([
    ['not JSON', 'broken.har', 'this is no HAR', (file: string) => `${file}:1:2: Unexpected token 'h'`],
    ['no log', 'nolog.har', '{"entries": []}', (file: string) => `${file}: log: missing: a HAR file is`],
    [
      'a bad entry',
      'badurl.har',
      harOf([
        {
          ...entry('https://www.googleapis.com/calendar/v3/colors'),
          request: { method: 'GET', url: 'nope' },
        } as HarEntry,
      ]),
      (file: string) => `${file}: log.entries[0].request.url: expected an absolute URL, found "nope"`,
    ],
    [
      'nothing usable',
      'useless.har',
      harOf([
        entry('https://accounts.google.com/o/oauth2/auth'),
        entry('https://www.googleapis.com/calendar/v3/calendars/primary', 404, { error: { code: 404 } }),
        entry('https://www.googleapis.com/oauth2/v3/userinfo'),
      ]),
      (file: string) =>
        `${file}: nothing in it can be seeded (3 entries; skipped: exchanges with other hosts: 1; error answers (4xx/5xx): 1; paths under no API: 1)`,
    ],
  ])('%s: one line naming the file and the place, status 1', (_name, fileName, text, message) => {
    const file = write(fileName, text);
    for (const [args, prefix] of [
      [['--port', '0', '--seed-from', file], 'gspec-emulator: invalid --seed-from file: '],
      [['seed-from', file], 'gspec-emulator seed-from: '],
    ] as const) {
      const run = cli(...args);
      expect(run.status).toBe(1);
      expect(run.err.startsWith(`${prefix}${message(file)}`), run.err).toBe(true);
      expect(run.err.split('\n')).toHaveLength(2);
      expect(run.err).not.toMatch(/\n\s+at /);
    }
  });

  it('names a missing file', () => {
    const missing = path.join(dir, 'missing.har');
    expect(cli('--seed-from', missing).err).toBe(
      `gspec-emulator: invalid --seed-from file: ${missing}: no such file\n`,
    );
    expect(cli('seed-from', missing).err).toBe(`gspec-emulator seed-from: ${missing}: no such file\n`);
    expect(cli('seed-from').err).toBe(
      'gspec-emulator seed-from: name the recording: gspec-emulator seed-from FILE.har [--out FILE] (see gspec-emulator seed-from --help)\n',
    );
  });
});

describe('what a recording makes (in process)', () => {
  const API = 'https://www.googleapis.com/calendar/v3';
  let clock = Date.parse('2026-03-01T10:00:00Z');
  const next = () => {
    clock += 1000;
    return new Date(clock);
  };
  const exchange = (
    method: string,
    url: string,
    status: number,
    body?: unknown,
    extra: Partial<Exchange> = {},
  ): HarEntry =>
    harEntry({
      method,
      url,
      requestHeaders: { authorization: 'Bearer secret' },
      status,
      responseHeaders: body === undefined ? {} : { 'content-type': 'application/json; charset=UTF-8' },
      ...(body === undefined ? {} : { responseBody: JSON.stringify(body) }),
      started: next(),
      timeMs: 3,
      ...extra,
    });
  const event = (id: string, summary: string, extra: Record<string, unknown> = {}) => ({
    kind: 'calendar#event',
    etag: '"3511111111111111"',
    id,
    status: 'confirmed',
    htmlLink: `https://www.google.com/calendar/event?eid=${id}`,
    created: '2026-02-01T10:00:00.000Z',
    updated: '2026-02-01T10:00:00.000Z',
    summary,
    creator: { email: ANA, self: true },
    organizer: { email: ANA, self: true },
    start: { dateTime: '2026-03-02T09:00:00+01:00' },
    end: { dateTime: '2026-03-02T10:00:00+01:00' },
    iCalUID: `${id}@google.com`,
    sequence: 2,
    ...extra,
  });

  it('takes later answers over earlier ones, deletions from lists, and counts what it skips', () => {
    const entries = [
      exchange('GET', `${API}/calendars/primary/events/aaaa11111`, 200, event('aaaa11111', 'First name')),
      exchange('PATCH', `${API}/calendars/primary/events/aaaa11111`, 200, event('aaaa11111', 'Second name')),
      exchange('POST', `${API}/calendars/primary/events`, 200, event('bbbb22222', 'Gone soon')),
      exchange('GET', `${API}/calendars/primary/events?syncToken=x`, 200, {
        kind: 'calendar#events',
        summary: ANA,
        timeZone: 'Europe/Zurich',
        accessRole: 'owner',
        items: [{ kind: 'calendar#event', id: 'bbbb22222', status: 'cancelled' }],
      }),
      exchange('GET', `${API}/calendars/primary/events?fields=items(id)`, 200, {
        items: [{ id: 'cccc33333' }],
      }),
      exchange('GET', `${API}/calendars/primary/events/dddd44444`, 404, { error: { code: 404 } }),
      exchange('GET', `${API}/colors`, 304),
      exchange('POST', 'https://www.googleapis.com/batch/calendar/v3', 200, {}),
      exchange('GET', 'https://evil.example.com/calendar/v3/colors', 200, {}),
    ];
    const { seed, report } = recordingSeedOf(entries, 'inline.har');
    // The user is the one the events of `primary` show as `self`.
    expect(seed.users).toEqual([{ email: ANA }]);
    expect(seed.calendars).toEqual([
      {
        id: ANA,
        owner: ANA,
        summary: ANA,
        timeZone: 'Europe/Zurich',
        events: [
          {
            id: 'aaaa11111',
            status: 'confirmed',
            summary: 'Second name',
            start: { dateTime: '2026-03-02T09:00:00+01:00' },
            end: { dateTime: '2026-03-02T10:00:00+01:00' },
            iCalUID: 'aaaa11111@google.com',
            sequence: 2,
          },
        ],
      },
    ]);
    expect(report.skipped).toEqual({
      'partial answers (fields=)': 1,
      'error answers (4xx/5xx)': 1,
      'answers neither 2xx nor an error (304, redirects)': 1,
      'batch requests refused whole or unreadable': 1,
      'exchanges with other hosts': 1,
    });
    expect(report).toMatchObject({ entries: 9, read: 4, taken: { users: 1, calendars: 1, events: 1 } });
  });

  it('reads each call of a batch with its own answer, as if it had been sent alone', () => {
    const calls: BatchPartRequest[] = [
      {
        method: 'POST',
        target: '/calendar/v3/calendars/primary/events',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ summary: 'Batched one' }),
        contentId: 'a',
      },
      {
        method: 'GET',
        target: '/calendar/v3/calendars/primary/events/nosuchevent',
        headers: {},
        contentId: 'b',
      },
    ];
    const sent = encodeBatchRequest(calls);
    // Answered in the other order: pairs go by Content-ID, not by place.
    const answered = writeBatch(
      [
        { ...calls[1], index: 2 },
        { ...calls[0], index: 1 },
      ] as BatchCall[],
      [
        { status: 404, headers: { 'content-type': 'application/json' }, body: '{"error":{"code":404}}' },
        {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(event('eeee55555', 'Batched one')),
        },
      ],
    );
    const batch = harEntry({
      method: 'POST',
      url: 'https://www.googleapis.com/batch/calendar/v3',
      requestHeaders: { 'content-type': sent.contentType },
      requestBody: sent.body,
      status: 200,
      responseHeaders: { 'content-type': answered.contentType },
      responseBody: answered.body,
      started: next(),
      timeMs: 3,
    });
    const { seed, report } = recordingSeedOf([batch], 'batch.har');
    const [calendar] = seed.calendars as { events: { id: string; summary: string }[] }[];
    expect(calendar?.events.map((e) => [e.id, e.summary])).toEqual([['eeee55555', 'Batched one']]);
    expect(report.skipped).toEqual({ 'error answers (4xx/5xx)': 1 });
  });

  it('takes the latest row of each conversion with the entities it names, and skips contradictions', () => {
    const DS = 'https://doubleclicksearch.googleapis.com/doubleclicksearch/v2';
    const base = {
      agencyId: '1',
      advertiserId: '2',
      engineAccountId: '3',
      segmentationType: 'FLOODLIGHT',
      segmentationId: '9',
      segmentationName: 'Order',
      type: 'TRANSACTION',
      state: 'ACTIVE',
    };
    const sold = {
      ...base,
      campaignId: '10',
      adGroupId: '11',
      conversionId: 'o-1',
      conversionTimestamp: '1772445600000',
      conversionModifiedTimestamp: '1772445600500',
      dsConversionId: '777001',
      revenueMicros: '5000000',
      currencyCode: 'CHF',
      attributionModel: 'Last click',
    };
    const list = (...conversion: object[]) => ({ kind: 'doubleclicksearch#conversionList', conversion });
    const read = `${DS}/agency/1/advertiser/2/engine/3/conversion?startDate=20260301&endDate=20260331&startRow=0&rowCount=100`;
    const entries = [
      exchange('GET', read, 200, list(sold)),
      // The ad group under another campaign than the first row says: skipped.
      exchange('GET', read, 200, list({ ...sold, conversionId: 'o-2', campaignId: '12' })),
      // An advertiser whose rows show no currency: a seed cannot hold it.
      exchange(
        'GET',
        `${DS}/agency/1/advertiser/5/engine/6/conversion?startDate=20260301&endDate=20260331&startRow=0&rowCount=100`,
        200,
        list({
          ...base,
          advertiserId: '5',
          engineAccountId: '6',
          type: 'ACTION',
          conversionId: 'a-1',
          conversionTimestamp: '1772445600000',
        }),
      ),
      // conversion.update's answer: the same conversion, corrected; later answers win.
      exchange('PUT', `${DS}/conversion`, 200, list({ ...sold, revenueMicros: '4000000' })),
      exchange('GET', `${DS}/agency/1/advertiser/2/idmapping`, 200, undefined, {
        responseHeaders: { 'content-type': 'text/csv' },
        responseBody: 'Entity type,...\n',
      }),
    ];
    const { seed, report } = recordingSeedOf(entries, 'ads.har');
    expect(seed.searchads360).toEqual({
      exampleEntities: false,
      agencies: [
        {
          id: '1',
          advertisers: [
            {
              id: '2',
              currencyCode: 'CHF',
              attributionModel: 'Last click',
              floodlightActivities: [{ id: '9', name: 'Order' }],
              engineAccounts: [{ id: '3', campaigns: [{ id: '10', adGroups: [{ id: '11' }] }] }],
            },
          ],
        },
      ],
      conversions: [
        {
          agencyId: '1',
          advertiserId: '2',
          engineAccountId: '3',
          segmentationType: 'FLOODLIGHT',
          segmentationId: '9',
          segmentationName: 'Order',
          type: 'TRANSACTION',
          state: 'ACTIVE',
          campaignId: '10',
          adGroupId: '11',
          conversionId: 'o-1',
          conversionTimestamp: '1772445600000',
          revenueMicros: '4000000',
          currencyCode: 'CHF',
          dsConversionId: '777001',
        },
      ],
    });
    expect(report.skipped).toEqual({
      "conversions whose ids contradict an earlier conversion's": 1,
      'reports.getIdMappingFile (nothing a seed keeps)': 1,
      'advertisers whose currency no answer shows (a seed needs it), left out with their conversions, availabilities and saved columns': 1,
      'conversions and availabilities of those advertisers': 1,
    });
  });

  it('keeps an invitation organized elsewhere through events.import, with its organizer', async () => {
    const invitation = event('eeee55555', 'Their meeting', {
      organizer: { email: 'bo@example.com', displayName: 'Bo' },
      attendees: [{ email: ANA, self: true, responseStatus: 'accepted' }],
    });
    const { seed } = recordingSeedOf(
      [exchange('GET', `${API}/calendars/primary/events/eeee55555`, 200, invitation)],
      'invitation.har',
    );
    const entry = (seed.calendars as { events: Record<string, unknown>[] }[])[0]?.events[0];
    expect(entry).toMatchObject({ organizer: { email: 'bo@example.com', displayName: 'Bo' } });
    const emulator = createEmulator();
    try {
      applySeed(emulator, seed, 'invitation.har');
      const stored = emulator.invoke(ANA, 'events.get', {
        path: { calendarId: 'primary', eventId: 'eeee55555' },
      });
      expect(stored.body).toMatchObject({ organizer: { email: 'bo@example.com' }, summary: 'Their meeting' });
    } finally {
      await emulator.close();
    }
  });
});

describe('what the seed format takes for recordings', () => {
  const apply = (seed: unknown) => {
    const emulator = createEmulator();
    try {
      applySeed(emulator, parseSeed(seed, 'seed.json'), 'seed.json');
      return emulator;
    } catch (error) {
      void emulator.close();
      throw error;
    }
  };
  const weekly = {
    id: 'abcd00001',
    summary: 'Weekly',
    start: { dateTime: '2026-03-02T10:00:00+01:00', timeZone: 'Europe/Zurich' },
    end: { dateTime: '2026-03-02T11:00:00+01:00', timeZone: 'Europe/Zurich' },
    recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
  };

  it('refuses an exception whose id is not an instance of its recurring event, naming it', () => {
    expect(() =>
      apply({
        calendars: [
          {
            id: 'primary',
            owner: ANA,
            events: [
              weekly,
              { id: 'other00001_20260309T090000Z', recurringEventId: 'abcd00001', summary: 'x' },
            ],
          },
        ],
      }),
    ).toThrow(
      'seed.json: calendars[0].events[1] ("x"): id: an exception of "abcd00001" has the id <recurringEventId>_<its original start>',
    );
  });

  it('refuses an exception of an occurrence the rule does not have', () => {
    expect(() =>
      apply({
        calendars: [
          {
            id: 'primary',
            owner: ANA,
            events: [
              weekly,
              { id: 'abcd00001_20260310T090000Z', recurringEventId: 'abcd00001', status: 'cancelled' },
            ],
          },
        ],
      }),
    ).toThrow('seed.json: calendars[0].events[1]: 404 notFound');
  });

  it('keeps the dsConversionIds given and numbers the others past them; refuses one given twice', async () => {
    const conversion = (id: string, extra: Record<string, unknown> = {}) => ({
      agencyId: '1',
      advertiserId: '2',
      engineAccountId: '3',
      campaignId: '10',
      conversionId: id,
      conversionTimestamp: '1772445600000',
      segmentationType: 'FLOODLIGHT',
      segmentationId: '9',
      type: 'ACTION',
      ...extra,
    });
    const section = (conversions: object[]) => ({
      searchads360: {
        exampleEntities: false,
        agencies: [
          {
            id: '1',
            advertisers: [
              {
                id: '2',
                currencyCode: 'EUR',
                floodlightActivities: [{ id: '9' }],
                engineAccounts: [{ id: '3', campaigns: [{ id: '10' }] }],
              },
            ],
          },
        ],
        conversions,
        availabilities: [
          {
            agencyId: '1',
            advertiserId: '2',
            segmentationId: '9',
            availabilityTimestamp: '1772449200000',
          },
        ],
      },
    });
    // The same conversionId at two times: two conversions, inserted in two batches.
    const emulator = apply(
      section([
        conversion('c-1', { dsConversionId: '2' }),
        conversion('c-2'),
        conversion('c-1', { conversionTimestamp: '1772445700000' }),
      ]),
    );
    try {
      const read = emulator.invoke(ANA, 'conversion.get', {
        path: { agencyId: '1', advertiserId: '2', engineAccountId: '3' },
        query: { startDate: 20260301, endDate: 20260331, startRow: 0, rowCount: 10 },
      });
      const rows = (read.body?.conversion ?? []) as { conversionId: string; dsConversionId: string }[];
      expect(rows.map((row) => row.conversionId)).toEqual(['c-1', 'c-2', 'c-1']);
      const [given, ...numbered] = rows.map((row) => BigInt(row.dsConversionId));
      expect(given).toBe(2n);
      // The others: past the highest given, each its own.
      expect(numbered.every((id) => id > 2n)).toBe(true);
      expect(new Set(numbered).size).toBe(2);
      // An activity known by its id alone is answered without a name.
      expect(rows[0]).not.toHaveProperty('segmentationName');
    } finally {
      await emulator.close();
    }
    expect(() =>
      apply(
        section([conversion('c-1', { dsConversionId: '7' }), conversion('c-2', { dsConversionId: '7' })]),
      ),
    ).toThrow(
      "seed.json: searchads360.conversions[1].dsConversionId: 7 is already searchads360.conversions[0]'s",
    );
    expect(() =>
      apply({
        ...section([]),
        searchads360: {
          ...section([]).searchads360,
          conversions: [],
          availabilities: [
            { agencyId: '1', advertiserId: '2', segmentationId: '8', availabilityTimestamp: '1' },
          ],
        },
      }),
    ).toThrow(
      'seed.json: searchads360.availabilities[0].segmentationId: notFound: Floodlight activity id 8 is not found.',
    );
  });
});
