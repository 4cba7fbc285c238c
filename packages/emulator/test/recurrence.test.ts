/**
 * Recurring events: RRULE, EXDATE and RDATE expanded (in the event's time zone) by
 * events.instances and by events.list with singleEvents=true; exceptions to single instances;
 * endless rules bounded.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_INSTANCES } from '../src/apis/calendar/recurrence.ts';
import { useEmulator } from './support/harness.ts';

const emu = useEmulator();
beforeEach(() => emu.reset());

const ZURICH = 'Europe/Zurich';

/** A 09:00–09:30 Zurich meeting from Monday 2026-03-16 (Zurich leaves winter time on 2026-03-29). */
function standup(recurrence: string[], extra: Record<string, unknown> = {}) {
  return {
    summary: 'Standup',
    start: { dateTime: '2026-03-16T09:00:00+01:00', timeZone: ZURICH },
    end: { dateTime: '2026-03-16T09:30:00+01:00', timeZone: ZURICH },
    recurrence,
    ...extra,
  };
}

async function insert(body: unknown) {
  const reply = await emu.call('POST', '/calendars/primary/events', { body });
  expect(reply.status).toBe(200);
  return reply.body;
}

const suffixes = (items: { id: string }[]) => items.map((item) => item.id.slice(item.id.indexOf('_') + 1));

/**
 * The processor time this process spent since `started`, in seconds: the work an expansion
 * did, which a busy machine does not stretch as it stretches the time on the clock (the emulator
 * answers in this process).
 */
function cpuSeconds(started: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1e6;
}
describe('expansion', () => {
  it.each([
    [
      'a daily count',
      ['RRULE:FREQ=DAILY;COUNT=3'],
      ['20260316T080000Z', '20260317T080000Z', '20260318T080000Z'],
    ],
    ['UNTIL in UTC', ['RRULE:FREQ=DAILY;UNTIL=20260317T235959Z'], ['20260316T080000Z', '20260317T080000Z']],
    [
      'weekly across the DST change: 09:00 stays 09:00 in Zurich',
      ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3'],
      ['20260316T080000Z', '20260323T080000Z', '20260330T070000Z'],
    ],
    [
      'EXDATE with TZID removes one',
      ['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE;TZID=Europe/Zurich:20260317T090000'],
      ['20260316T080000Z', '20260318T080000Z'],
    ],
    [
      'EXDATE in UTC removes one',
      ['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE:20260318T080000Z'],
      ['20260316T080000Z', '20260317T080000Z'],
    ],
    [
      'RDATE adds one',
      ['RRULE:FREQ=DAILY;COUNT=2', 'RDATE;TZID=Europe/Zurich:20260320T150000'],
      ['20260316T080000Z', '20260317T080000Z', '20260320T140000Z'],
    ],
    [
      'EXRULE removes a pattern',
      ['RRULE:FREQ=DAILY;COUNT=7', 'EXRULE:FREQ=WEEKLY;BYDAY=SA,SU'],
      ['20260316T080000Z', '20260317T080000Z', '20260318T080000Z', '20260319T080000Z', '20260320T080000Z'],
    ],
  ])('%s', async (_name, recurrence, expected) => {
    const parent = await insert(standup(recurrence));
    const reply = await emu.call('GET', `/calendars/primary/events/${parent.id}/instances`);
    expect(reply.status).toBe(200);
    expect(suffixes(reply.body.items)).toEqual(expected);
    expect(reply.body.items.map((i: { id: string }) => i.id.split('_')[0])).toEqual(
      expected.map(() => parent.id),
    );
  });

  it("instances carry Google's fields: recurringEventId, originalStartTime, times in the event's zone", async () => {
    const parent = await insert(standup(['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3']));
    const reply = await emu.call('GET', `/calendars/primary/events/${parent.id}/instances`);
    const last = reply.body.items[2];
    expect(last).toMatchObject({
      id: `${parent.id}_20260330T070000Z`,
      recurringEventId: parent.id,
      iCalUID: parent.iCalUID,
      summary: 'Standup',
      start: { dateTime: '2026-03-30T09:00:00+02:00', timeZone: ZURICH },
      end: { dateTime: '2026-03-30T09:30:00+02:00', timeZone: ZURICH },
      originalStartTime: { dateTime: '2026-03-30T09:00:00+02:00', timeZone: ZURICH },
    });
    expect(last).not.toHaveProperty('recurrence');
    expect(reply.body).not.toHaveProperty('nextSyncToken');
    const one = await emu.call('GET', `/calendars/primary/events/${last.id}`);
    expect(one.body).toEqual(last);
  });

  it('all-day instances have date ids', async () => {
    const parent = await insert({
      summary: 'Holiday',
      start: { date: '2026-03-16' },
      end: { date: '2026-03-17' },
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE;VALUE=DATE:20260317'],
    });
    const reply = await emu.call('GET', `/calendars/primary/events/${parent.id}/instances`);
    expect(
      reply.body.items.map((i: { id: string; start: { date: string } }) => [i.id, i.start.date]),
    ).toEqual([
      [`${parent.id}_20260316`, '2026-03-16'],
      [`${parent.id}_20260318`, '2026-03-18'],
    ]);
  });

  it('events.instances: window, originalStart, paging', async () => {
    const parent = await insert(standup(['RRULE:FREQ=DAILY']));
    const path = `/calendars/primary/events/${parent.id}/instances`;
    const week = await emu.call('GET', path, {
      query: { timeMin: '2026-04-06T00:00:00Z', timeMax: '2026-04-13T00:00:00Z' },
    });
    expect(week.body.items).toHaveLength(7);
    const one = await emu.call('GET', path, { query: { originalStart: '2026-04-08T09:00:00+02:00' } });
    expect(suffixes(one.body.items)).toEqual(['20260408T070000Z']);
    const first = await emu.call('GET', path, { query: { maxResults: 2 } });
    const second = await emu.call('GET', path, {
      query: { maxResults: 2, pageToken: first.body.nextPageToken },
    });
    expect(suffixes([...first.body.items, ...second.body.items])).toEqual([
      '20260316T080000Z',
      '20260317T080000Z',
      '20260318T080000Z',
      '20260319T080000Z',
    ]);
  });

  it(`an endless rule listed without timeMax stops at ${MAX_INSTANCES} instances`, async () => {
    const parent = await insert(standup(['RRULE:FREQ=DAILY']));
    const started = process.cpuUsage();
    const list = await emu.call('GET', '/calendars/primary/events', {
      query: { singleEvents: true, maxResults: 2500 },
    });
    expect(list.body.items).toHaveLength(MAX_INSTANCES);
    expect(list.body.items[0].recurringEventId).toBe(parent.id);
    expect(cpuSeconds(started)).toBeLessThan(5);
  });

  it('an endless rule excluded by an endless EXRULE answers quickly, empty', async () => {
    const parent = await insert(standup(['RRULE:FREQ=DAILY', 'EXRULE:FREQ=DAILY']));
    const started = process.cpuUsage();
    const reply = await emu.call('GET', `/calendars/primary/events/${parent.id}/instances`);
    expect(reply.body.items).toEqual([]);
    expect(cpuSeconds(started)).toBeLessThan(5);
  });

  it.each([
    ['an unknown line', ['FOO:BAR'], 'recurrence'],
    ['an RRULE without FREQ', ['RRULE:COUNT=3'], 'recurrence'],
    ['a bad EXDATE', ['RRULE:FREQ=DAILY', 'EXDATE:tomorrow'], 'recurrence'],
  ])('refuses %s with 400', async (_name, recurrence, location) => {
    const reply = await emu.call('POST', '/calendars/primary/events', { body: standup(recurrence) });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0].location).toBe(location);
  });

  it('refuses a timed recurring event without start.timeZone', async () => {
    const body = standup(['RRULE:FREQ=DAILY']);
    const reply = await emu.call('POST', '/calendars/primary/events', {
      body: { ...body, start: { dateTime: '2026-03-16T09:00:00+01:00' } },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0].location).toBe('start.timeZone');
  });

  // A single event has no instances: an empty list (decision 0055: no refusal without evidence).
  it.each([
    ['a single event', 200],
    ['an unknown event', 404],
  ])('events.instances of %s is %i', async (name, status) => {
    const single = await insert({
      summary: 's',
      start: { dateTime: '2026-03-16T09:00:00Z' },
      end: { dateTime: '2026-03-16T10:00:00Z' },
    });
    const id = name === 'a single event' ? single.id : 'unknown12345';
    const reply = await emu.call('GET', `/calendars/primary/events/${id}/instances`);
    expect(reply.status).toBe(status);
    if (status === 200) expect(reply.body.items).toEqual([]);
  });
});

describe('events.list and recurring events', () => {
  const window = { timeMin: '2026-03-17T00:00:00Z', timeMax: '2026-03-19T00:00:00Z' };

  it.each([
    [
      'singleEvents=true expands in the window',
      { singleEvents: true, ...window },
      ['Standup', 'Standup', 'Lunch'],
    ],
    ['without singleEvents the recurring event is listed once', window, ['Standup', 'Lunch']],
    [
      'orderBy=startTime with singleEvents orders instances and events together',
      { singleEvents: true, orderBy: 'startTime', ...window },
      ['Standup', 'Lunch', 'Standup'],
    ],
  ])('%s', async (_name, query, expected) => {
    await insert(standup(['RRULE:FREQ=DAILY']));
    await insert({
      summary: 'Lunch',
      start: { dateTime: '2026-03-17T12:00:00Z' },
      end: { dateTime: '2026-03-17T13:00:00Z' },
    });
    const reply = await emu.call('GET', '/calendars/primary/events', { query });
    expect(reply.status).toBe(200);
    expect(reply.body.items.map((e: { summary: string }) => e.summary)).toEqual(expected);
  });

  it('orderBy=startTime needs singleEvents=true', async () => {
    const reply = await emu.call('GET', '/calendars/primary/events', { query: { orderBy: 'startTime' } });
    expect(reply.status).toBe(400);
  });

  it('a recurring event whose first instance is before the window is still listed', async () => {
    await insert(standup(['RRULE:FREQ=WEEKLY']));
    const reply = await emu.call('GET', '/calendars/primary/events', {
      query: { timeMin: '2027-01-01T00:00:00Z', timeMax: '2027-01-08T00:00:00Z' },
    });
    expect(reply.body.items).toHaveLength(1);
    const none = await emu.call('GET', '/calendars/primary/events', {
      query: { timeMin: '2026-01-01T00:00:00Z', timeMax: '2026-01-08T00:00:00Z' },
    });
    expect(none.body.items).toHaveLength(0);
  });
});

describe('exceptions: one instance changed or cancelled', () => {
  it.each([
    [
      'PATCH',
      {
        summary: 'Moved standup',
        start: { dateTime: '2026-03-17T11:00:00+01:00', timeZone: ZURICH },
        end: { dateTime: '2026-03-17T11:30:00+01:00', timeZone: ZURICH },
      },
    ],
    [
      'PUT',
      {
        summary: 'Moved standup',
        start: { dateTime: '2026-03-17T11:00:00+01:00', timeZone: ZURICH },
        end: { dateTime: '2026-03-17T11:30:00+01:00', timeZone: ZURICH },
      },
    ],
  ])('%s on an instance id changes only that instance', async (method, body) => {
    const parent = await insert(standup(['RRULE:FREQ=DAILY;COUNT=3']));
    const id = `${parent.id}_20260317T080000Z`;
    const changed = await emu.call(method, `/calendars/primary/events/${id}`, { body });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      id,
      summary: 'Moved standup',
      recurringEventId: parent.id,
      originalStartTime: { dateTime: '2026-03-17T09:00:00+01:00', timeZone: ZURICH },
    });
    expect(changed.body).not.toHaveProperty('recurrence');
    const instances = await emu.call('GET', `/calendars/primary/events/${parent.id}/instances`);
    expect(instances.body.items.map((i: { summary: string }) => i.summary)).toEqual([
      'Standup',
      'Moved standup',
      'Standup',
    ]);
    const list = await emu.call('GET', '/calendars/primary/events', {
      query: { singleEvents: true, orderBy: 'startTime' },
    });
    expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([
      `${parent.id}_20260316T080000Z`,
      id,
      `${parent.id}_20260318T080000Z`,
    ]);
    expect((await emu.call('GET', `/calendars/primary/events/${id}`)).body).toEqual(changed.body);
    const busy = await emu.call('POST', '/freeBusy', {
      body: { timeMin: '2026-03-17T00:00:00Z', timeMax: '2026-03-18T00:00:00Z', items: [{ id: 'primary' }] },
    });
    expect(busy.body.calendars.primary.busy).toEqual([
      { start: '2026-03-17T10:00:00Z', end: '2026-03-17T10:30:00Z' },
    ]);
  });

  it('DELETE on an instance id cancels only that instance; sync reports it', async () => {
    const parent = await insert(standup(['RRULE:FREQ=DAILY;COUNT=3']));
    const before = await emu.call('GET', '/calendars/primary/events');
    const id = `${parent.id}_20260317T080000Z`;
    expect((await emu.call('DELETE', `/calendars/primary/events/${id}`)).status).toBe(204);
    expect((await emu.call('DELETE', `/calendars/primary/events/${id}`)).status).toBe(410);
    const instances = await emu.call('GET', `/calendars/primary/events/${parent.id}/instances`);
    expect(suffixes(instances.body.items)).toEqual(['20260316T080000Z', '20260318T080000Z']);
    const withDeleted = await emu.call('GET', `/calendars/primary/events/${parent.id}/instances`, {
      query: { showDeleted: true },
    });
    expect(withDeleted.body.items.map((i: { status: string }) => i.status)).toEqual([
      'confirmed',
      'cancelled',
      'confirmed',
    ]);
    const sync = await emu.call('GET', '/calendars/primary/events', {
      query: { syncToken: before.body.nextSyncToken },
    });
    expect(sync.body.items).toEqual([
      expect.objectContaining({ id, status: 'cancelled', recurringEventId: parent.id }),
    ]);
    const busy = await emu.call('POST', '/freeBusy', {
      body: { timeMin: '2026-03-16T00:00:00Z', timeMax: '2026-03-19T00:00:00Z', items: [{ id: 'primary' }] },
    });
    expect(busy.body.calendars.primary.busy.map((p: { start: string }) => p.start)).toEqual([
      '2026-03-16T08:00:00Z',
      '2026-03-18T08:00:00Z',
    ]);
  });

  it('an instance the rule does not have is 404; deleting the series takes its instances', async () => {
    const parent = await insert(standup(['RRULE:FREQ=DAILY;COUNT=3']));
    expect((await emu.call('GET', `/calendars/primary/events/${parent.id}_20260325T080000Z`)).status).toBe(
      404,
    );
    expect((await emu.call('GET', `/calendars/primary/events/${parent.id}_20260316T090000Z`)).status).toBe(
      404,
    );
    const changed = `${parent.id}_20260317T080000Z`;
    await emu.call('PATCH', `/calendars/primary/events/${changed}`, { body: { summary: 'x' } });
    expect((await emu.call('DELETE', `/calendars/primary/events/${parent.id}`)).status).toBe(204);
    expect((await emu.call('GET', `/calendars/primary/events/${parent.id}_20260316T080000Z`)).status).toBe(
      404,
    );
    expect((await emu.call('GET', `/calendars/primary/events/${changed}`)).body.status).toBe('cancelled');
    const list = await emu.call('GET', '/calendars/primary/events', { query: { singleEvents: true } });
    expect(list.body.items).toEqual([]);
  });
});
