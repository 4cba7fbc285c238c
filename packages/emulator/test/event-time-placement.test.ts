/**
 * One rule places event times in absolute time (decision 0055): `instantOfEventTime` of
 * apis/calendar/time.ts. An all-day date starts at midnight in the calendar's zone, for the
 * time filters of events.list and events.instances, the time index, recurrence and
 * free/busy alike; so an all-day event is listed by a window exactly when its local day
 * overlaps it, and free/busy agrees. A source scan keeps every other module from placing a
 * date or a local time itself.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { instantOfEventTime } from '../src/apis/calendar/time.ts';
import { useEmulator } from './support/harness.ts';

const emu = useEmulator();
beforeEach(() => emu.reset());

const packageDir = path.resolve(import.meta.dirname, '..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(path.join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [path.join(dir, entry.name)]
        : [],
  );
}

/** Ways of placing a date or a local time by hand, which only time.ts may use. */
const PLACING = [
  { what: 'reads a date as midnight by text (T00:00:00)', pattern: /T00:00:00/ },
  { what: 'turns a wall time into an instant (wallToUtc)', pattern: /\bwallToUtc\s*\(/ },
  {
    what: 'parses an event date (Date.parse / new Date of a .date)',
    pattern: /(?:Date\.parse|new Date)\([^)]*\.date\b/,
  },
  { what: 'builds a date-time from a date (a template `…date}T…`)', pattern: /\$\{[^}]*\bdate\b[^}]*\}T\d/ },
];

describe('one rule places event times', () => {
  const sources = ['src/apis/calendar', 'src/ui'].flatMap((dir) => files(path.join(packageDir, dir)));

  it('is the only place a date or a local time is placed (a scan of src/apis/calendar and src/ui)', () => {
    expect(sources.length).toBeGreaterThan(10);
    const found: string[] = [];
    for (const file of sources) {
      const name = path.relative(packageDir, file).split(path.sep).join('/');
      if (name === 'src/apis/calendar/time.ts') continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          for (const { what, pattern } of PLACING)
            if (pattern.test(line)) found.push(`${name}:${index + 1} ${what}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it.each([
    ['a date, in the calendar zone', { date: '2026-03-10' }, 'Pacific/Kiritimati', '2026-03-09T10:00:00Z'],
    ['a date, in a zone behind UTC', { date: '2026-03-10' }, 'America/Los_Angeles', '2026-03-10T07:00:00Z'],
    ['a date on the day DST starts', { date: '2026-03-08' }, 'America/Los_Angeles', '2026-03-08T08:00:00Z'],
    [
      'a time with an offset, whatever the zones',
      { dateTime: '2026-03-10T09:00:00+01:00', timeZone: 'Asia/Tokyo' },
      'UTC',
      '2026-03-10T08:00:00Z',
    ],
    [
      'a local time, on its own zone',
      { dateTime: '2026-03-10T09:00:00', timeZone: 'Europe/Zurich' },
      'UTC',
      '2026-03-10T08:00:00Z',
    ],
    [
      'a local time without zone, on the calendar’s',
      { dateTime: '2026-03-10T09:00:00' },
      'Asia/Tokyo',
      '2026-03-10T00:00:00Z',
    ],
    [
      'a local time in the spring-forward gap, moved by the gap',
      { dateTime: '2026-03-29T02:30:00', timeZone: 'Europe/Zurich' },
      'UTC',
      '2026-03-29T01:30:00Z',
    ],
    [
      'a leap second, as the instant after :59',
      { dateTime: '2026-03-02T23:59:60Z' },
      'UTC',
      '2026-03-03T00:00:00Z',
    ],
  ])('places %s', (_name, value, zone, expected) => {
    expect(new Date(instantOfEventTime(value, zone)).toISOString().replace('.000', '')).toBe(expected);
  });

  it.each([
    ['no field', {}],
    ['no real day', { date: '2026-02-30' }],
    ['an unknown zone', { dateTime: '2026-03-10T09:00:00', timeZone: 'Mars/Olympus_Mons' }],
  ])('names no instant for %s (NaN)', (_name, value) => {
    expect(instantOfEventTime(value, 'UTC')).toBeNaN();
  });
});

/** A secondary calendar in `timeZone` with one all-day event on 2026-03-10 (and a weekly one from 2026-03-03). */
async function calendarIn(timeZone: string) {
  const made = await emu.call('POST', '/calendars', { body: { summary: timeZone, timeZone } });
  expect(made.status).toBe(200);
  const id = made.body.id as string;
  const events = `/calendars/${encodeURIComponent(id)}/events`;
  const day = await emu.call('POST', events, {
    body: { summary: 'day', start: { date: '2026-03-10' }, end: { date: '2026-03-11' } },
  });
  expect(day.status).toBe(200);
  return { id, events };
}

const listed = async (events: string, query: Record<string, string | boolean>) => {
  const reply = await emu.call('GET', events, { query });
  expect(reply.status).toBe(200);
  return (reply.body.items as { summary: string }[]).map((item) => item.summary);
};

const busy = async (id: string, timeMin: string, timeMax: string) => {
  const reply = await emu.call('POST', '/freeBusy', { body: { timeMin, timeMax, items: [{ id }] } });
  expect(reply.status).toBe(200);
  return (reply.body.calendars[id].busy as unknown[]).length > 0;
};

describe('an all-day event is placed in its calendar’s zone', () => {
  // Kiritimati is UTC+14: the local 2026-03-10 is 03-09T10:00Z to 03-10T10:00Z. Los Angeles is
  // UTC-7 then (DST began on 03-08): 03-10T07:00Z to 03-11T07:00Z. The rows marked "UTC day"
  // are those a placement from midnight UTC would get wrong.
  it.each([
    ['Pacific/Kiritimati', '2026-03-09T09:00:00Z', '2026-03-09T10:00:00Z', false],
    ['Pacific/Kiritimati', '2026-03-09T09:00:00Z', '2026-03-09T10:01:00Z', true], // UTC day: not listed
    ['Pacific/Kiritimati', '2026-03-10T09:59:00Z', '2026-03-10T11:00:00Z', true],
    ['Pacific/Kiritimati', '2026-03-10T10:00:00Z', '2026-03-10T12:00:00Z', false], // UTC day: listed
    ['Pacific/Kiritimati', '2026-03-10T12:00:00Z', '2026-03-10T23:00:00Z', false], // UTC day: listed
    ['America/Los_Angeles', '2026-03-10T00:00:00Z', '2026-03-10T07:00:00Z', false], // UTC day: listed
    ['America/Los_Angeles', '2026-03-10T06:59:00Z', '2026-03-10T07:01:00Z', true],
    ['America/Los_Angeles', '2026-03-11T00:00:00Z', '2026-03-11T05:00:00Z', true], // UTC day: not listed
    ['America/Los_Angeles', '2026-03-11T06:59:00Z', '2026-03-11T08:00:00Z', true], // UTC day: not listed
    ['America/Los_Angeles', '2026-03-11T07:00:00Z', '2026-03-11T09:00:00Z', false],
  ])(
    'in %s, a window %s to %s lists it: %s, and free/busy agrees',
    async (zone, timeMin, timeMax, expected) => {
      const { id, events } = await calendarIn(zone);
      for (const singleEvents of [false, true])
        expect(
          await listed(events, { timeMin, timeMax, singleEvents }),
          `singleEvents=${singleEvents}`,
        ).toEqual(expected ? ['day'] : []);
      expect(await busy(id, timeMin, timeMax)).toBe(expected);
    },
  );

  it('places the instances of a recurring all-day event the same way, in lists, instances and free/busy', async () => {
    const { id, events } = await calendarIn('Pacific/Kiritimati');
    const weekly = await emu.call('POST', events, {
      body: {
        summary: 'weekly',
        start: { date: '2026-03-03' },
        end: { date: '2026-03-04' },
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
      },
    });
    // The second instance is the local 2026-03-10 too: 03-09T10:00Z to 03-10T10:00Z.
    const inside = { timeMin: '2026-03-09T09:00:00Z', timeMax: '2026-03-09T11:00:00Z' };
    const outside = { timeMin: '2026-03-10T12:00:00Z', timeMax: '2026-03-10T23:00:00Z' };
    expect(await listed(events, { ...inside, singleEvents: true })).toEqual(['day', 'weekly']);
    expect(await listed(events, { ...outside, singleEvents: true })).toEqual([]);
    expect(await listed(events, { ...outside })).toEqual([]);
    const instances = await emu.call('GET', `${events}/${weekly.body.id}/instances`, { query: inside });
    expect(instances.body.items.map((item: { id: string }) => item.id)).toEqual([
      `${weekly.body.id}_20260310`,
    ]);
    expect(await busy(id, outside.timeMin, outside.timeMax)).toBe(false);
    expect(await busy(id, inside.timeMin, inside.timeMax)).toBe(true);
  });

  it('places them again when the calendar’s zone changes (the time index is rebuilt)', async () => {
    const { id, events } = await calendarIn('Pacific/Kiritimati');
    const window = { timeMin: '2026-03-10T12:00:00Z', timeMax: '2026-03-10T23:00:00Z' };
    expect(await listed(events, window)).toEqual([]);
    const patched = await emu.call('PATCH', `/calendars/${encodeURIComponent(id)}`, {
      body: { timeZone: 'America/Los_Angeles' },
    });
    expect(patched.status).toBe(200);
    expect(await listed(events, window)).toEqual(['day']);
    expect(await busy(id, window.timeMin, window.timeMax)).toBe(true);
  });

  it('places them in the zone a list asks its answer in (`timeZone`)', async () => {
    const { events } = await calendarIn('Pacific/Kiritimati');
    const window = { timeMin: '2026-03-10T12:00:00Z', timeMax: '2026-03-10T23:00:00Z' };
    expect(await listed(events, window)).toEqual([]);
    expect(await listed(events, { ...window, timeZone: 'UTC' })).toEqual(['day']);
    expect(await listed(events, { ...window, timeZone: 'UTC', singleEvents: true })).toEqual(['day']);
  });
});
