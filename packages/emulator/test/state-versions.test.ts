/**
 * What an earlier emulator wrote, read by this one. Version 1 of the state document had
 * Calendar's keys at the top level and its users' settings and groups in the user records;
 * version 2 has each API's part under the API's name (decision 0066). The fixtures were written
 * by the release before version 2, from the README's seed with a group, then a conversion
 * inserted, an event deleted and a calendar taken off a list:
 *
 * - `fixtures/state-v1.json`, its `GET /__emulator/state`;
 * - `fixtures/persist-v1.db`, its `--persist` database started with `--state` from that dump.
 *
 * Both load whole, and the answers from them are the ones that release gave (etags, group
 * expansion, settings, deleted records kept for sync).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { API_MODULES } from '../src/apis/index.ts';
import { readVersion1 } from '../src/core/state-file.ts';
import { createEmulator } from '../src/emulator.ts';
import { startCli } from './support/cli-process.ts';
import { type Reply, spec, useEmulator } from './support/harness.ts';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const V1_FILE = path.join(fixtures, 'state-v1.json');
// biome-ignore lint/suspicious/noExplicitAny: the dumped document is read freely.
const v1: any = JSON.parse(readFileSync(V1_FILE, 'utf8'));
const ANA = 'ana@example.com';
const BO = 'bo@example.com';
const TEAM = 'team@group.calendar.google.com';
const GROUP = 'team-people@example.com';

const dir = mkdtempSync(path.join(tmpdir(), 'gspec-emulator-versions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The version-2 document the version-1 fixture is: each part moved, nothing else changed. */
function expectedOf(old: typeof v1) {
  const calendarUsers = Object.fromEntries(
    Object.entries(old.users as Record<string, { email: string }>).map(([email, { email: _, ...rest }]) => [
      email,
      rest,
    ]),
  );
  return {
    version: 2,
    epoch: old.epoch,
    revision: old.revision,
    lastTime: old.lastTime,
    nextSeq: old.nextSeq,
    users: Object.fromEntries(Object.keys(old.users).map((email) => [email, { email }])),
    calendar: {
      users: calendarUsers,
      calendars: old.calendars,
      events: old.events,
      calendarList: old.calendarList,
      acl: old.acl,
    },
    searchads360: old.searchads360,
  };
}

/** The answers a user relies on, the same as the release that wrote the fixtures gave. */
async function expectAnswersOfV1(call: (method: string, route: string, body?: unknown) => Promise<Reply>) {
  const [kickOff] = Object.values(
    v1.events[TEAM] as Record<string, { resource: { id: string; etag: string } }>,
  );
  if (!kickOff) throw new Error('the fixture has no event in the team calendar');
  const event = await call('GET', `/calendars/${encodeURIComponent(TEAM)}/events/${kickOff.resource.id}`);
  expect(event.body.etag).toBe(kickOff.resource.etag);
  const zone = await call('GET', '/users/me/settings/timezone');
  expect(zone.body.value).toBe('Europe/Zurich');
  const deleted = await call('GET', '/calendars/primary/events?showDeleted=true');
  expect(deleted.body.items.map((e: { id: string; status: string }) => [e.id, e.status])).toEqual([
    ['standup0001', 'cancelled'],
  ]);
  const busy = await call('POST', '/freeBusy', {
    timeMin: '2026-03-01T00:00:00Z',
    timeMax: '2026-03-05T00:00:00Z',
    items: [{ id: GROUP }],
  });
  expect(busy.body.groups).toEqual({ [GROUP]: { calendars: [ANA, BO] } });
}

describe('a version-1 state document', () => {
  const emu = useEmulator();
  const call = (method: string, route: string, body?: unknown) =>
    emu.call(method, route, { token: ANA, ...(body !== undefined ? { body } : {}) });

  it('loads as version 2, every part under its API, and answers as the release that dumped it', async () => {
    expect(v1.version).toBe(1);
    expect((await emu.call('PUT', '/__emulator/state', { body: v1 })).status).toBe(204);
    const dump = (await emu.call('GET', '/__emulator/state')).body;
    expect(dump).toEqual(expectedOf(v1));
    expect(dump.calendar.users[ANA].groups).toEqual([GROUP]);
    await expectAnswersOfV1(call);
    // Dumped again, it loads as it is: version 2 reads version 2.
    expect((await emu.call('PUT', '/__emulator/state', { body: dump })).status).toBe(204);
    expect((await emu.call('GET', '/__emulator/state')).body).toEqual(dump);
  });

  it.each([
    [
      'an event that breaks the spec',
      (doc: typeof v1) => {
        doc.events[TEAM][Object.keys(doc.events[TEAM])[0] as string].resource.sequence = 'one';
      },
      /^invalid state \(version 1, read as version 2\): \/calendar\/events\/team@group\.calendar\.google\.com\/[^/]+\/resource\/sequence: must be integer$/,
    ],
    [
      'a user field no API keeps',
      (doc: typeof v1) => {
        doc.users[ANA].nickname = 'A';
      },
      /^invalid state \(version 1, read as version 2\): \/users\/ana@example\.com: must NOT have additional properties \(nickname\)$/,
    ],
    [
      'a calendar of nobody',
      (doc: typeof v1) => {
        doc.calendars[TEAM].owner = 'nobody@example.com';
      },
      /^invalid state \(version 1, read as version 2\): \/calendar\/calendars\/team@group\.calendar\.google\.com\/owner: no user nobody@example\.com$/,
    ],
  ])('with %s is refused, naming the place as version 2 has it', async (_name, breakIt, message) => {
    const doc = structuredClone(v1);
    breakIt(doc);
    const reply = await emu.call('PUT', '/__emulator/state', { body: doc });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toMatch(message);
  });

  it('is read from a copy: the document given is left as it was', () => {
    const doc = structuredClone(v1);
    const upgraded = readVersion1(doc, API_MODULES);
    expect(doc).toEqual(v1);
    expect(upgraded).toEqual(expectedOf(v1));
  });

  it('starts the CLI with --state', async () => {
    const run = startCli(['--state', V1_FILE]);
    try {
      const origin = await run.ready;
      expect(run.output().out).toContain(`State loaded from ${V1_FILE}`);
      const dump = await (await fetch(`${origin}/__emulator/state`)).json();
      expect(dump).toEqual(expectedOf(v1));
    } finally {
      await run.stop('SIGTERM');
    }
  });
});

describe('a --persist database written before version 2', () => {
  it('opens with every row, answers as before, and keeps its rows as that release wrote them', async () => {
    const file = path.join(dir, 'persist-v1.db');
    copyFileSync(path.join(fixtures, 'persist-v1.db'), file);
    const before = new Database(file, { readonly: true });
    const userRows = before.prepare('SELECT email, body FROM calendar_users ORDER BY email').all();
    before.close();

    const emulator = createEmulator({ specs: { calendar: spec }, persist: file });
    try {
      const origin = await emulator.listen(0);
      const call = async (method: string, route: string, body?: unknown): Promise<Reply> => {
        const response = await fetch(`${origin}${route.startsWith('/__') ? '' : '/calendar/v3'}${route}`, {
          method,
          headers: {
            authorization: `Bearer ${ANA}`,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        const text = await response.text();
        return {
          status: response.status,
          headers: response.headers,
          text,
          body: text ? JSON.parse(text) : undefined,
        };
      };
      expect((await call('GET', '/__emulator/state')).body).toEqual(expectedOf(v1));
      await expectAnswersOfV1(call);
      expect(
        (
          await call('POST', '/calendars/primary/events', {
            summary: 'after',
            start: { date: '2026-03-09' },
            end: { date: '2026-03-10' },
          })
        ).status,
      ).toBe(200);
    } finally {
      await emulator.close();
    }

    const after = new Database(file, { readonly: true });
    // The users' rows are as the earlier release wrote them (the core's email and Calendar's fields in one).
    expect(after.prepare('SELECT email, body FROM calendar_users ORDER BY email').all()).toEqual(userRows);
    expect(JSON.parse((userRows[0] as { body: string }).body)).toEqual(v1.users[ANA]);
    const events = after.prepare('SELECT count(*) AS n FROM calendar_events').get() as { n: number };
    after.close();
    expect(events.n).toBe(3);

    // Opened again, it holds the event written since.
    const again = createEmulator({ specs: { calendar: spec }, persist: file });
    try {
      const summaries = Object.values(
        (
          again.store.state.calendar as {
            events: Record<string, Record<string, { resource: { summary?: string } }>>;
          }
        ).events[ANA] ?? {},
      ).map((event) => event.resource.summary);
      expect(summaries).toContain('after');
    } finally {
      await again.close();
    }
  });
});

// The fixture is what the earlier release dumped: Calendar's keys at the top level.
it('the version-1 fixture is a version-1 document', () => {
  expect(Object.keys(v1)).toEqual([
    'version',
    'epoch',
    'revision',
    'lastTime',
    'nextSeq',
    'users',
    'calendars',
    'events',
    'calendarList',
    'acl',
    'searchads360',
  ]);
});
