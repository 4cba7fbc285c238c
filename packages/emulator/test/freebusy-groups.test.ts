/**
 * freebusy.query with groups (decision 0056): a group of the seed is answered under `groups`
 * with its members' calendar ids and each member under `calendars`; groupExpansionMax and
 * calendarExpansionMax are answered per group and per calendar, an unknown id as notFound in
 * the answer; a range longer than 90 days is refused. Groups are kept in the dumped state and
 * refused by the seed when they cannot be groups.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { applySeed } from '../src/core/seed.ts';
import { createEmulator, parseSeed } from '../src/emulator.ts';
import { timedEvent, useEmulator } from './support/harness.ts';

const emu = useEmulator();

const ANA = 'ana@example.com';
const BO = 'bo@example.com';
const CY = 'cy@example.com';
const CALLER = 'caller@example.com';
const TEAM = 'team@example.com';
const DAY = { timeMin: '2026-03-02T00:00:00Z', timeMax: '2026-03-03T00:00:00Z' };
const at = (hour: number) => `2026-03-02T${String(hour).padStart(2, '0')}:00:00Z`;

/** Ana (busy 9–10) and Bo (busy 14–15) share their free/busy with everyone; Cy shares nothing. */
const SEED = {
  calendars: [
    {
      id: 'primary',
      owner: ANA,
      acl: [{ role: 'freeBusyReader', scope: { type: 'default' } }],
      events: [timedEvent('ana', 9)],
    },
    {
      id: 'primary',
      owner: BO,
      acl: [{ role: 'freeBusyReader', scope: { type: 'default' } }],
      events: [timedEvent('bo', 14)],
    },
    { id: 'primary', owner: CY, events: [timedEvent('cy', 11)] },
  ],
  groups: [
    { email: TEAM, members: [ANA, BO] },
    { email: 'all@example.com', members: [ANA, BO, CY] },
  ],
};

beforeEach(async () => {
  await emu.reset();
  const seeded = await emu.call('POST', '/__emulator/seed', { body: SEED });
  expect(seeded.status).toBe(200);
});

async function query(items: string[], extra: Record<string, unknown> = {}) {
  return emu.call('POST', '/freeBusy', {
    token: CALLER,
    body: { ...DAY, items: items.map((id) => ({ id })), ...extra },
  });
}

const busy = (hour: number) => ({ busy: [{ start: at(hour), end: at(hour + 1) }] });
const error = (reason: string) => ({ busy: [], errors: [{ domain: 'global', reason }] });

describe('freebusy.query: groups and the expansion limits', () => {
  it.each([
    [
      'a group: its members under groups, each member under calendars',
      [TEAM],
      {},
      { [TEAM]: { calendars: [ANA, BO] } },
      { [ANA]: busy(9), [BO]: busy(14) },
    ],
    [
      'a member whose calendar the caller cannot see is notFound',
      ['all@example.com'],
      {},
      { 'all@example.com': { calendars: [ANA, BO, CY] } },
      { [ANA]: busy(9), [BO]: busy(14), [CY]: error('notFound') },
    ],
    [
      'a group larger than groupExpansionMax is groupTooBig, its members not answered',
      [TEAM],
      { groupExpansionMax: 1 },
      { [TEAM]: { calendars: [], errors: [{ domain: 'global', reason: 'groupTooBig' }] } },
      {},
    ],
    [
      'calendars past calendarExpansionMax are tooManyCalendarsRequested, group members included',
      [TEAM],
      { calendarExpansionMax: 1 },
      { [TEAM]: { calendars: [ANA, BO] } },
      { [ANA]: busy(9), [BO]: error('tooManyCalendarsRequested') },
    ],
    [
      'a calendar asked directly and through a group is answered once, and counted once',
      [ANA, TEAM],
      { calendarExpansionMax: 2 },
      { [TEAM]: { calendars: [ANA, BO] } },
      { [ANA]: busy(9), [BO]: busy(14) },
    ],
    [
      'an id that is neither a calendar nor a group is notFound in the answer',
      ['nobody@example.com'],
      {},
      undefined,
      { 'nobody@example.com': error('notFound') },
    ],
    [
      'a group id is not case-sensitive',
      ['Team@Example.com'],
      {},
      { 'Team@Example.com': { calendars: [ANA, BO] } },
      { [ANA]: busy(9), [BO]: busy(14) },
    ],
  ])('%s', async (_name, items, extra, groups, calendars) => {
    const reply = await query(items, extra);
    expect(reply.status).toBe(200);
    expect(reply.body.groups).toEqual(groups);
    expect(reply.body.calendars).toEqual(calendars);
  });

  it('groupExpansionMax defaults to 100: a group of 101 members is groupTooBig', async () => {
    const members = Array.from({ length: 101 }, (_, i) => `member${i}@example.com`);
    expect(
      (
        await emu.call('POST', '/__emulator/seed', {
          body: { groups: [{ email: 'big@example.com', members }] },
        })
      ).status,
    ).toBe(200);
    const reply = await query(['big@example.com']);
    expect(reply.body.groups['big@example.com'].errors).toEqual([
      { domain: 'global', reason: 'groupTooBig' },
    ]);
    // The reference's maximum is the spec's: a larger value is refused before anything is read.
    expect((await query(['big@example.com'], { groupExpansionMax: 101 })).status).toBe(400);
  });

  it('calendarExpansionMax defaults to 50', async () => {
    const members = Array.from({ length: 60 }, (_, i) => `m${i}@example.com`);
    await emu.call('POST', '/__emulator/seed', {
      body: { groups: [{ email: 'sixty@example.com', members }] },
    });
    const reply = await query(['sixty@example.com']);
    const answered = Object.values(reply.body.calendars) as { errors?: { reason: string }[] }[];
    expect(answered).toHaveLength(60);
    expect(answered.filter((one) => one.errors?.[0]?.reason === 'tooManyCalendarsRequested')).toHaveLength(
      10,
    );
  });
});

describe('freebusy.query: the length of the range', () => {
  const start = Date.parse(DAY.timeMin);
  const days = (n: number) => new Date(start + n * 24 * 3600 * 1000).toISOString();
  it.each([
    ['exactly 90 days is answered', 90, 200, undefined],
    ['90 days and a second is refused', 90 + 1 / 86400, 400, 'timeRangeTooLong'],
    ['a year is refused', 365, 400, 'timeRangeTooLong'],
  ])('%s', async (_name, length, status, reason) => {
    const reply = await emu.call('POST', '/freeBusy', {
      body: { timeMin: DAY.timeMin, timeMax: days(length), items: [{ id: 'primary' }] },
    });
    expect(reply.status).toBe(status);
    if (reason)
      expect(reply.body.error.errors[0]).toMatchObject({ domain: 'calendar', reason, location: 'timeMax' });
  });
});

describe('groups in the seed and the state', () => {
  it.each([
    ['a group whose email is a user', { groups: [{ email: ANA, members: [BO] }] }, /is a user or a calendar/],
    ['a member that is no email', { groups: [{ email: 'x@example.com', members: ['bo'] }] }, /email/],
    ['a group without members', { groups: [{ email: 'x@example.com', members: [] }] }, /members/],
    [
      'the same group twice in one seed',
      {
        groups: [
          { email: 'x@example.com', members: [ANA] },
          { email: 'X@example.com', members: [BO] },
        ],
      },
      /groups\[1\]\.email: x@example\.com is already groups\[0\]/,
    ],
  ])('refuses %s', async (_name, seed, message) => {
    const reply = await emu.call('POST', '/__emulator/seed', { body: seed });
    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.body)).toMatch(message);
  });

  it("keeps the groups in Calendar's users of the dumped state, and a loaded state answers them", async () => {
    const dump = (await emu.call('GET', '/__emulator/state')).body;
    expect(dump.calendar.users[ANA].groups).toEqual([TEAM, 'all@example.com']);
    expect(dump.calendar.users[CY].groups).toEqual(['all@example.com']);
    await emu.reset();
    expect((await query([TEAM])).body.groups).toBeUndefined();
    expect((await emu.call('PUT', '/__emulator/state', { body: dump })).status).toBe(204);
    expect((await query([TEAM])).body.groups).toEqual({ [TEAM]: { calendars: [ANA, BO] } });
  });

  it('keeps the groups in a --persist database across a restart', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gspec-groups-'));
    const file = path.join(dir, 'state.db');
    try {
      const first = createEmulator({ persist: file });
      applySeed(first, parseSeed({ groups: [{ email: TEAM, members: [ANA, BO] }] }));
      await first.close();
      const second = createEmulator({ persist: file });
      const answer = second.invoke(CALLER, 'freebusy.query', { body: { ...DAY, items: [{ id: TEAM }] } });
      expect(answer.body?.groups).toEqual({ [TEAM]: { calendars: [ANA, BO] } });
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
