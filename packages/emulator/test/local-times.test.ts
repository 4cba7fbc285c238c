/**
 * Event times without an offset (decision 0036): a `dateTime` like `2027-03-01T10:00:00` is a
 * reading of the clock of `timeZone`, taken by insert, import, update and patch, stored and
 * answered with the offset in force in that zone, expanded by recurrence on that clock (its
 * UTC instant moves at a DST change), and counted by free/busy at its real instant. Without
 * `timeZone` the offset stays required.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useEmulator } from './support/harness.ts';

const emu = useEmulator();
beforeEach(() => emu.reset());

const ZURICH = 'Europe/Zurich';
const local = (dateTime: string, timeZone = ZURICH) => ({ dateTime, timeZone });

async function insert(body: unknown) {
  const reply = await emu.call('POST', '/calendars/primary/events', { body });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

describe('writes take a local time with its zone', () => {
  it.each([
    ['winter time', '2027-03-01T10:00:00', '2027-03-01T10:00:00+01:00'],
    ['summer time', '2027-07-01T10:00:00', '2027-07-01T10:00:00+02:00'],
    ['fractions of a second', '2027-07-01T10:00:00.250', '2027-07-01T10:00:00+02:00'],
    [
      'in the spring-forward gap: moved forward by the gap',
      '2027-03-28T02:30:00',
      '2027-03-28T03:30:00+02:00',
    ],
    ['shown twice at fall-back: the later instant', '2027-10-31T02:30:00', '2027-10-31T02:30:00+01:00'],
  ])('events.insert, %s', async (_name, given, answered) => {
    const event = await insert({ summary: 'Local', start: local(given), end: local('2027-12-01T12:00:00') });
    expect(event.start).toEqual({ dateTime: answered, timeZone: ZURICH });
    const read = await emu.call('GET', `/calendars/primary/events/${event.id}`);
    expect(read.body.start).toEqual({ dateTime: answered, timeZone: ZURICH });
  });

  it('an offset with a zone names the instant, answered in that zone', async () => {
    const event = await insert({
      summary: 'Offset and zone',
      start: { dateTime: '2027-03-01T09:00:00Z', timeZone: ZURICH },
      end: { dateTime: '2027-03-01T10:00:00Z', timeZone: 'America/New_York' },
    });
    expect(event.start.dateTime).toBe('2027-03-01T10:00:00+01:00');
    expect(event.end.dateTime).toBe('2027-03-01T05:00:00-05:00');
  });

  it('events.update and events.patch take local times', async () => {
    const event = await insert({
      summary: 'Move me',
      start: { dateTime: '2027-03-01T09:00:00Z' },
      end: { dateTime: '2027-03-01T10:00:00Z' },
    });
    const updated = await emu.call('PUT', `/calendars/primary/events/${event.id}`, {
      body: { summary: 'Moved', start: local('2027-03-02T14:00:00'), end: local('2027-03-02T15:00:00') },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.start.dateTime).toBe('2027-03-02T14:00:00+01:00');
    const patched = await emu.call('PATCH', `/calendars/primary/events/${event.id}`, {
      body: { start: local('2027-04-02T14:00:00'), end: local('2027-04-02T15:00:00') },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.start).toEqual({ dateTime: '2027-04-02T14:00:00+02:00', timeZone: ZURICH });
    expect(patched.body.end).toEqual({ dateTime: '2027-04-02T15:00:00+02:00', timeZone: ZURICH });
  });

  it('events.import takes local times', async () => {
    const reply = await emu.call('POST', '/calendars/primary/events/import', {
      body: {
        iCalUID: 'local-times-import@example.com',
        summary: 'Imported',
        start: local('2027-07-05T08:15:00', 'America/New_York'),
        end: local('2027-07-05T09:00:00', 'America/New_York'),
      },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.start.dateTime).toBe('2027-07-05T08:15:00-04:00');
  });
});

describe('refusals name the field', () => {
  it.each([
    [
      'a local time without timeZone',
      { start: { dateTime: '2027-03-01T10:00:00' }, end: { dateTime: '2027-03-01T11:00:00Z' } },
      'start.dateTime',
      /UTC offset/,
    ],
    [
      'a local time naming no real day',
      { start: local('2027-02-30T10:00:00'), end: local('2027-03-01T11:00:00') },
      'start.dateTime',
      /not a real date and time/,
    ],
    [
      'a local time in an unknown zone',
      { start: local('2027-03-01T10:00:00', 'Mars/Olympus_Mons'), end: local('2027-03-01T11:00:00') },
      'start.timeZone',
      /Invalid time zone: Mars\/Olympus_Mons/,
    ],
    [
      'an end without offset nor zone',
      { start: local('2027-03-01T10:00:00'), end: { dateTime: '2027-03-01T11:00:00' } },
      'end.dateTime',
      /UTC offset/,
    ],
  ])('%s', async (_name, times, location, message) => {
    const reply = await emu.call('POST', '/calendars/primary/events', { body: { summary: 'Bad', ...times } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors).toEqual([
      expect.objectContaining({ reason: 'invalid', location, message: expect.stringMatching(message) }),
    ]);
  });
});

describe('recurrence on the zone clock', () => {
  it.each([
    [
      'across the March change',
      '2027-03-15T10:00:00',
      ['2027-03-15T09:00:00Z', '2027-03-22T09:00:00Z', '2027-03-29T08:00:00Z', '2027-04-05T08:00:00Z'],
    ],
    [
      'across the October change',
      '2027-10-18T10:00:00',
      ['2027-10-18T08:00:00Z', '2027-10-25T08:00:00Z', '2027-11-01T09:00:00Z', '2027-11-08T09:00:00Z'],
    ],
  ])('a weekly 10:00 Zurich event stays at 10:00 %s', async (_name, first, instants) => {
    const end = first.replace('T10:', 'T11:');
    const parent = await insert({
      summary: 'Weekly',
      start: local(first),
      end: local(end),
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    });
    const reply = await emu.call('GET', `/calendars/primary/events/${parent.id}/instances`);
    expect(reply.status).toBe(200);
    const items = reply.body.items as { id: string; start: { dateTime: string; timeZone: string } }[];
    expect(
      items.map((i) => new Date(Date.parse(i.start.dateTime)).toISOString().replace('.000', '')),
    ).toEqual(instants);
    expect(items.map((i) => i.start.dateTime.slice(11, 19))).toEqual([
      '10:00:00',
      '10:00:00',
      '10:00:00',
      '10:00:00',
    ]);
    expect(items.map((i) => i.start.timeZone)).toEqual([ZURICH, ZURICH, ZURICH, ZURICH]);
    // The instance ids carry the UTC instant, which moved with the change.
    expect(items.map((i) => i.id.slice(i.id.indexOf('_') + 1))).toEqual(
      instants.map((at) => at.replace(/[-:]/g, '')),
    );
  });

  it('an instance is found by the id of its moved instant, and patched with a local time', async () => {
    const parent = await insert({
      summary: 'Weekly',
      start: local('2027-03-22T10:00:00'),
      end: local('2027-03-22T11:00:00'),
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
    });
    const id = `${parent.id}_20270329T080000Z`;
    const patched = await emu.call('PATCH', `/calendars/primary/events/${id}`, {
      body: { start: local('2027-03-29T11:00:00'), end: local('2027-03-29T12:00:00') },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.start.dateTime).toBe('2027-03-29T11:00:00+02:00');
    expect(patched.body.originalStartTime.dateTime).toBe('2027-03-29T10:00:00+02:00');
  });
});

describe('free/busy counts local times at their instant', () => {
  it('a single event and a weekly one across the March change', async () => {
    await insert({ summary: 'One', start: local('2027-03-24T15:00:00'), end: local('2027-03-24T16:00:00') });
    await insert({
      summary: 'Weekly',
      start: local('2027-03-22T10:00:00'),
      end: local('2027-03-22T11:00:00'),
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'],
    });
    const reply = await emu.call('POST', '/freeBusy', {
      body: {
        timeMin: '2027-03-22T00:00:00Z',
        timeMax: '2027-04-01T00:00:00Z',
        items: [{ id: 'primary' }],
      },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.calendars.primary.busy).toEqual([
      { start: '2027-03-22T09:00:00Z', end: '2027-03-22T10:00:00Z' },
      { start: '2027-03-24T14:00:00Z', end: '2027-03-24T15:00:00Z' },
      { start: '2027-03-29T08:00:00Z', end: '2027-03-29T09:00:00Z' },
    ]);
  });
});
