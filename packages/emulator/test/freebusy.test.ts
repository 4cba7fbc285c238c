/** freebusy.query computed from events: what counts as busy, time zones, and calendars one cannot see. */
import { beforeEach, describe, expect, it } from 'vitest';
import { calendarStoreOf } from '../src/apis/calendar/index.ts';
import { timedEvent, useEmulator } from './support/harness.ts';
import { random } from './support/random.ts';

const emu = useEmulator();
beforeEach(() => emu.reset());

const DAY = { timeMin: '2026-03-02T00:00:00Z', timeMax: '2026-03-03T00:00:00Z' };

async function query(items: string[], extra: Record<string, unknown> = {}, token?: string) {
  const reply = await emu.call('POST', '/freeBusy', {
    ...(token ? { token } : {}),
    body: { ...DAY, items: items.map((id) => ({ id })), ...extra },
  });
  expect(reply.status).toBe(200);
  return reply.body;
}

const at = (hour: number, minute = 0) =>
  `2026-03-02T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00Z`;

describe('freebusy.query', () => {
  it.each([
    ['one opaque event', [timedEvent('a', 9)], [[at(9), at(10)]]],
    ['a transparent event does not count', [timedEvent('free', 9, { transparency: 'transparent' })], []],
    [
      'overlapping and touching events are joined, in order',
      [
        timedEvent('c', 14),
        timedEvent('a', 9),
        timedEvent('b', 10),
        timedEvent('d', 14, { end: { dateTime: at(14, 30) } }),
      ],
      [
        [at(9), at(11)],
        [at(14), at(15)],
      ],
    ],
    [
      'an event crossing the range is cut to it',
      [{ summary: 'night', start: { dateTime: '2026-03-01T22:00:00Z' }, end: { dateTime: at(2) } }],
      [[at(0), at(2)]],
    ],
    [
      'an event outside the range is left out',
      [
        {
          summary: 'next day',
          start: { dateTime: '2026-03-03T09:00:00Z' },
          end: { dateTime: '2026-03-03T10:00:00Z' },
        },
      ],
      [],
    ],
  ])('%s', async (_name, events, busy) => {
    for (const body of events)
      expect((await emu.call('POST', '/calendars/primary/events', { body })).status).toBe(200);
    const answer = await query(['primary']);
    expect(answer).toMatchObject({ kind: 'calendar#freeBusy', timeMin: DAY.timeMin, timeMax: DAY.timeMax });
    expect(
      answer.calendars.primary.busy.map((p: { start: string; end: string }) => [p.start, p.end]),
    ).toEqual(busy);
  });

  it('a cancelled (deleted) event does not count', async () => {
    const made = await emu.call('POST', '/calendars/primary/events', { body: timedEvent('gone', 9) });
    await emu.call('DELETE', `/calendars/primary/events/${made.body.id}`);
    expect((await query(['primary'])).calendars.primary.busy).toEqual([]);
  });

  it("answers in the request's time zone", async () => {
    await emu.call('POST', '/calendars/primary/events', { body: timedEvent('a', 9) });
    const answer = await query(['primary'], { timeZone: 'Europe/Zurich' });
    expect(answer.timeMin).toBe('2026-03-02T01:00:00+01:00');
    expect(answer.calendars.primary.busy).toEqual([
      { start: '2026-03-02T10:00:00+01:00', end: '2026-03-02T11:00:00+01:00' },
    ]);
  });

  it("an all-day event is busy from midnight to midnight in the calendar's zone", async () => {
    const made = await emu.call('POST', '/calendars', {
      body: { summary: 'Zurich', timeZone: 'Europe/Zurich' },
    });
    const id = made.body.id as string;
    await emu.call('POST', `/calendars/${encodeURIComponent(id)}/events`, {
      body: { summary: 'holiday', start: { date: '2026-03-02' }, end: { date: '2026-03-03' } },
    });
    const answer = await query([id], { timeMin: '2026-03-01T00:00:00Z', timeMax: '2026-03-04T00:00:00Z' });
    expect(answer.calendars[id].busy).toEqual([
      { start: '2026-03-01T23:00:00Z', end: '2026-03-02T23:00:00Z' },
    ]);
  });

  it('a calendar the caller cannot see gets a notFound entry; a shared one answers', async () => {
    await emu.call('POST', '/calendars/primary/events', {
      token: 'bo@example.com',
      body: timedEvent('bo', 9),
    });
    const hidden = await query(['primary', 'bo@example.com', 'nobody@example.com']);
    expect(hidden.calendars['bo@example.com']).toEqual({
      busy: [],
      errors: [{ domain: 'global', reason: 'notFound' }],
    });
    expect(hidden.calendars['nobody@example.com'].errors[0].reason).toBe('notFound');
    expect(hidden.calendars.primary).toEqual({ busy: [] });
    await emu.call('POST', '/calendars/primary/acl', {
      token: 'bo@example.com',
      body: { role: 'freeBusyReader', scope: { type: 'user', value: 'ana@example.com' } },
    });
    const shared = await query(['bo@example.com']);
    expect(shared.calendars['bo@example.com']).toEqual({ busy: [{ start: at(9), end: at(10) }] });
  });

  it('calendars beyond calendarExpansionMax get tooManyCalendarsRequested', async () => {
    const answer = await query(['primary', 'ana@example.com'], { calendarExpansionMax: 1 });
    expect(answer.calendars['ana@example.com'].errors[0].reason).toBe('tooManyCalendarsRequested');
  });

  it.each([
    ['timeMax not after timeMin', { timeMax: DAY.timeMin }, 'timeRangeEmpty', 'timeMax'],
    ['an unknown time zone', { timeZone: 'Mars/Olympus' }, 'invalid', 'timeZone'],
    ['no items', { items: undefined }, 'required', 'items'],
  ])('refuses %s with 400', async (_name, extra, reason, location) => {
    const reply = await emu.call('POST', '/freeBusy', {
      body: { ...DAY, items: [{ id: 'primary' }], ...extra },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0]).toMatchObject({ reason, location });
  });
});

describe('freebusy.query with the time index', () => {
  const BASE = Date.parse('2026-03-01T00:00:00Z');
  const HOUR = 3_600_000;
  const iso = (ms: number) => new Date(ms).toISOString();

  async function busy(calendarId: string, window: { timeMin: string; timeMax: string }, indexed: boolean) {
    calendarStoreOf(emu.emulator.services).useIndexes = indexed;
    try {
      const reply = await emu.call('POST', '/freeBusy', { body: { ...window, items: [{ id: calendarId }] } });
      expect(reply.status).toBe(200);
      return reply.body.calendars[calendarId];
    } finally {
      calendarStoreOf(emu.emulator.services).useIndexes = true;
    }
  }

  it.each(['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Europe/Zurich'])(
    "answers as a scan of every event does, all-day events in %s's days included",
    async (timeZone) => {
      const next = random(timeZone.length);
      const made = await emu.call('POST', '/calendars', { body: { summary: 'Busy', timeZone } });
      const id = made.body.id as string;
      // Sparse (about two events a day, most short), so that a missed event shows in the merged spans.
      for (let i = 0; i < 40; i++) {
        const start = BASE + Math.floor(next() * 24 * 20) * HOUR;
        const kind = next();
        const day = (ms: number) => iso(ms).slice(0, 10);
        const body =
          kind < 0.2
            ? {
                start: { date: day(start) },
                end: { date: day(start + 24 * HOUR * (1 + Math.floor(next() * 2))) },
              }
            : kind < 0.25
              ? {
                  start: { dateTime: iso(start), timeZone },
                  end: { dateTime: iso(start + HOUR) },
                  recurrence: ['RRULE:FREQ=DAILY;COUNT=5'],
                }
              : {
                  start: { dateTime: iso(start) },
                  end: { dateTime: iso(start + Math.ceil(next() * 4) * HOUR) },
                  ...(next() < 0.1 ? { transparency: 'transparent' } : {}),
                };
        const event = await emu.call('POST', `/calendars/${encodeURIComponent(id)}/events`, {
          body: { summary: `E${i}`, ...body },
        });
        expect(event.status).toBe(200);
        if (next() < 0.1)
          await emu.call('DELETE', `/calendars/${encodeURIComponent(id)}/events/${event.body.id}`);
      }
      let seen = 0;
      for (let round = 0; round < 60; round++) {
        const min = BASE + Math.floor(next() * 24 * 20) * HOUR - 12 * HOUR;
        // Short windows too: a few hours before or after a UTC midnight, where a zone's day is not UTC's.
        const hours = round % 2 === 0 ? Math.ceil(next() * 6) : Math.ceil(next() * 48);
        const window = { timeMin: iso(min), timeMax: iso(min + hours * HOUR) };
        const withIndex = await busy(id, window, true);
        expect(withIndex).toEqual(await busy(id, window, false));
        seen += withIndex.busy.length;
      }
      expect(seen).toBeGreaterThan(0);
    },
  );
});
