/** freebusy.query computed from events: what counts as busy, time zones, and calendars one cannot see. */
import { beforeEach, describe, expect, it } from 'vitest';
import { timedEvent, useEmulator } from './support/harness.ts';

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
