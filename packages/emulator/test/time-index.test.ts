/**
 * The time index of events.list: windowed lists give the same answers with it as a scan of
 * every event does, before and after writes that move, add, cancel and move away events.
 * (Correctness only; its speed is measured by `npm run bench`.)
 */
import { describe, expect, it } from 'vitest';
import { EventTimeIndex } from '../src/apis/calendar/event-index.ts';
import { calendarStoreOf } from '../src/apis/calendar/index.ts';
import type { EventRecord } from '../src/apis/calendar/records.ts';
import type { JsonObject } from '../src/core/spec.ts';
import { useEmulator } from './support/harness.ts';
import { random } from './support/random.ts';

const BASE = Date.parse('2026-03-01T00:00:00Z');
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

function randomEvent(next: () => number): JsonObject {
  const start = BASE + Math.floor(next() * 24 * 30) * HOUR;
  const kind = next();
  if (kind < 0.1) {
    const day = iso(start).slice(0, 10);
    return {
      start: { date: day },
      end: { date: iso(start + (1 + Math.floor(next() * 3)) * 24 * HOUR).slice(0, 10) },
    };
  }
  if (kind < 0.15) return { start: { dateTime: iso(start) }, end: { dateTime: iso(start + 20 * 24 * HOUR) } };
  if (kind < 0.2) return { start: { dateTime: iso(start) }, end: { dateTime: iso(start) } };
  if (kind < 0.25)
    return {
      start: { dateTime: iso(start), timeZone: 'UTC' },
      end: { dateTime: iso(start + HOUR) },
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    };
  return { start: { dateTime: iso(start) }, end: { dateTime: iso(start + Math.ceil(next() * 5) * HOUR) } };
}

const instant = (value: unknown) => {
  const v = value as { date?: string; dateTime?: string };
  return Date.parse(v.dateTime ?? `${v.date}T00:00:00Z`);
};

describe('EventTimeIndex', () => {
  it('gives exactly the timed events overlapping a window, and every recurring one, through updates', () => {
    const next = random(7);
    const events: Record<string, EventRecord> = {};
    for (let i = 0; i < 300; i++)
      events[`e${i}`] = { id: `e${i}`, seq: i, revision: i, resource: randomEvent(next) };
    const index = new EventTimeIndex(events, 'UTC');
    const check = () => {
      for (let round = 0; round < 40; round++) {
        const min = BASE + Math.floor(next() * 24 * 35) * HOUR - 24 * HOUR * 2;
        const max = min + Math.ceil(next() * 24 * 10) * HOUR;
        const bounds: [number | undefined, number | undefined][] = [
          [min, max],
          [min, undefined],
          [undefined, max],
        ];
        for (const [lo, hi] of bounds) {
          const expected = Object.values(events)
            .filter(({ resource }) =>
              Array.isArray(resource.recurrence)
                ? true
                : (lo === undefined || instant(resource.end) > lo) &&
                  (hi === undefined || instant(resource.start) < hi),
            )
            .map((e) => e.id)
            .sort();
          expect(index.candidates(lo, hi).sort()).toEqual(expected);
        }
      }
    };
    check();
    for (let i = 0; i < 200; i++) {
      const id = `e${Math.floor(next() * 350)}`;
      if (next() < 0.15) {
        delete events[id];
        index.update(id, undefined);
      } else {
        events[id] = { id, seq: i, revision: 1000 + i, resource: randomEvent(next) };
        index.update(id, events[id].resource);
      }
    }
    expect(index.size).toBe(Object.keys(events).length);
    check();
  });
});

const emu = useEmulator();
const TOKEN = 'ana@example.com';

async function ids(query: Record<string, string | boolean | number>, indexed: boolean): Promise<string[]> {
  calendarStoreOf(emu.emulator.services).useIndexes = indexed;
  try {
    const reply = await emu.call('GET', '/calendars/primary/events', {
      token: TOKEN,
      query: { maxResults: 2500, ...query },
    });
    expect(reply.status).toBe(200);
    return reply.body.items.map((event: { id: string; status: string }) => `${event.id}:${event.status}`);
  } finally {
    calendarStoreOf(emu.emulator.services).useIndexes = true;
  }
}

/** Every page of a list, followed by its page tokens, and the sync token of the last page. */
async function pages(query: Record<string, string | boolean | number>, indexed: boolean): Promise<unknown[]> {
  calendarStoreOf(emu.emulator.services).useIndexes = indexed;
  try {
    const out: unknown[] = [];
    let pageToken: string | undefined;
    do {
      const reply = await emu.call('GET', '/calendars/primary/events', {
        token: TOKEN,
        query: { maxResults: 7, ...query, ...(pageToken ? { pageToken } : {}) },
      });
      expect(reply.status).toBe(200);
      out.push(
        reply.body.items.map((event: { id: string; status: string }) => `${event.id}:${event.status}`),
      );
      pageToken = reply.body.nextPageToken;
      if (!pageToken) out.push(reply.body.nextSyncToken);
    } while (pageToken);
    return out;
  } finally {
    calendarStoreOf(emu.emulator.services).useIndexes = true;
  }
}

/**
 * Lists without a time window (read from the order index, recurring events expanded as a page
 * reaches them with singleEvents) page as an expansion and a sort of every event does.
 */
async function samePagesWithAndWithoutIndex(syncToken?: string): Promise<number> {
  let seen = 0;
  const queries: Record<string, string | boolean>[] = [
    {},
    { showDeleted: true },
    { q: 'e1' },
    { singleEvents: true },
    { singleEvents: true, showDeleted: true },
    ...(syncToken ? [{ syncToken }, { syncToken, singleEvents: true }] : []),
  ];
  for (const query of queries) {
    const withIndex = await pages(query, true);
    expect(withIndex).toEqual(await pages(query, false));
    seen += withIndex.flat().length;
  }
  return seen;
}

async function sameWithAndWithoutIndex(next: () => number): Promise<number> {
  let seen = 0;
  for (let round = 0; round < 12; round++) {
    const min = BASE + Math.floor(next() * 24 * 32) * HOUR - 24 * HOUR;
    const window = { timeMin: iso(min), timeMax: iso(min + Math.ceil(next() * 24 * 8) * HOUR) };
    const queries: Record<string, string | boolean>[] = [
      window,
      { timeMin: window.timeMin },
      { timeMax: window.timeMax },
      { ...window, singleEvents: true, orderBy: 'startTime' },
      { ...window, showDeleted: true },
    ];
    for (const query of queries) {
      const withIndex = await ids(query, true);
      expect(withIndex).toEqual(await ids(query, false));
      seen += withIndex.length;
    }
  }
  return seen;
}

describe('events.list with a time window, and without one', () => {
  it('answers as a scan and a sort of every event do, before and after writes', async () => {
    await emu.reset();
    const next = random(11);
    const made: string[] = [];
    for (let i = 0; i < 120; i++) {
      const reply = await emu.call('POST', '/calendars/primary/events', {
        token: TOKEN,
        body: { summary: `E${i}`, ...randomEvent(next) },
      });
      expect(reply.status).toBe(200);
      made.push(reply.body.id);
    }
    expect(await sameWithAndWithoutIndex(next)).toBeGreaterThan(0); // builds the index
    const before = (await pages({}, true)).at(-1) as string; // a sync token from before the writes
    expect(await samePagesWithAndWithoutIndex()).toBeGreaterThan(120);
    const other = await emu.call('POST', '/calendars', { token: TOKEN, body: { summary: 'Other' } });
    for (let i = 0; i < 40; i++) {
      const id = made[Math.floor(next() * made.length)] as string;
      const action = next();
      if (action < 0.4)
        await emu.call('PATCH', `/calendars/primary/events/${id}`, { token: TOKEN, body: randomEvent(next) });
      else if (action < 0.55) await emu.call('DELETE', `/calendars/primary/events/${id}`, { token: TOKEN });
      else if (action < 0.65)
        await emu.call('POST', `/calendars/primary/events/${id}/move`, {
          token: TOKEN,
          query: { destination: other.body.id },
        });
      else if (action < 0.8)
        await emu.call('POST', '/calendars/primary/events/import', {
          token: TOKEN,
          body: { iCalUID: `uid-${i % 5}@example.com`, summary: `I${i}`, ...randomEvent(next) },
        });
      else
        await emu.call('POST', '/calendars/primary/events', {
          token: TOKEN,
          body: { summary: `N${i}`, ...randomEvent(next) },
        });
    }
    // An exception to one instance of a recurring event, moved to another day.
    const weekly = await emu.call('POST', '/calendars/primary/events', {
      token: TOKEN,
      body: {
        summary: 'Weekly',
        start: { dateTime: '2026-03-02T09:00:00Z', timeZone: 'UTC' },
        end: { dateTime: '2026-03-02T10:00:00Z' },
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
      },
    });
    const moved = await emu.call('PATCH', `/calendars/primary/events/${weekly.body.id}_20260309T090000Z`, {
      token: TOKEN,
      body: { start: { dateTime: '2026-03-20T09:00:00Z' }, end: { dateTime: '2026-03-20T10:00:00Z' } },
    });
    expect(moved.status).toBe(200);
    expect(await sameWithAndWithoutIndex(next)).toBeGreaterThan(0);
    expect(await samePagesWithAndWithoutIndex(before)).toBeGreaterThan(120);
    const march20 = await ids(
      { timeMin: '2026-03-20T00:00:00Z', timeMax: '2026-03-21T00:00:00Z', singleEvents: true },
      true,
    );
    expect(march20).toContain(`${weekly.body.id}_20260309T090000Z:confirmed`);
  });

  it('starts afresh after a reset and after a state is loaded', async () => {
    await emu.reset();
    const window = { timeMin: '2026-03-02T00:00:00Z', timeMax: '2026-03-03T00:00:00Z' };
    const made = await emu.call('POST', '/calendars/primary/events', {
      token: TOKEN,
      body: {
        summary: 'x',
        start: { dateTime: '2026-03-02T09:00:00Z' },
        end: { dateTime: '2026-03-02T10:00:00Z' },
      },
    });
    expect(await ids(window, true)).toEqual([`${made.body.id}:confirmed`]);
    const dump = (await emu.call('GET', '/__emulator/state')).body;
    await emu.reset();
    expect(await ids(window, true)).toEqual([]);
    await emu.call('PUT', '/__emulator/state', { body: dump });
    expect(await ids(window, true)).toEqual([`${made.body.id}:confirmed`]);
  });
});
