/**
 * What events.get, events.list, events.instances and the writes answer for the parameters
 * that shape an answer (decision 0055): `timeZone` (every dateTime written in that zone; the
 * events' own zones and all-day dates kept), `maxAttendees` (only the caller's own entry when
 * there are more, with `attendeesOmitted`), `alwaysIncludeEmail` (deprecated and ignored:
 * every attendee has an email); and what the emulator no longer refuses, for want of evidence
 * that the live service does.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useEmulator } from './support/harness.ts';

const emu = useEmulator();
beforeEach(() => emu.reset());

const ZURICH = 'Europe/Zurich';

/** A recurring 09:00 Zurich event (3 days), a plain event in UTC and an all-day one, on ana's primary calendar (Zurich). */
async function seedEvents() {
  const events = '/calendars/primary/events';
  const daily = await emu.call('POST', events, {
    body: {
      summary: 'daily',
      start: { dateTime: '2026-03-10T09:00:00', timeZone: ZURICH },
      end: { dateTime: '2026-03-10T09:30:00', timeZone: ZURICH },
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
    },
  });
  const plain = await emu.call('POST', events, {
    body: {
      summary: 'plain',
      start: { dateTime: '2026-03-10T12:00:00Z' },
      end: { dateTime: '2026-03-10T13:00:00Z' },
    },
  });
  const allDay = await emu.call('POST', events, {
    body: { summary: 'all day', start: { date: '2026-03-11' }, end: { date: '2026-03-12' } },
  });
  for (const reply of [daily, plain, allDay]) expect(reply.status).toBe(200);
  return { daily: daily.body, plain: plain.body, allDay: allDay.body };
}

describe('timeZone: the zone the answer is written in', () => {
  it.each([
    ['Asia/Tokyo', '2026-03-10T17:00:00+09:00', '2026-03-10T21:00:00+09:00'],
    ['America/New_York', '2026-03-10T04:00:00-04:00', '2026-03-10T08:00:00-04:00'],
    ['UTC', '2026-03-10T08:00:00Z', '2026-03-10T12:00:00Z'],
  ])('events.list in %s: dateTimes in that zone, own zones and dates kept', async (zone, daily, plain) => {
    await seedEvents();
    const reply = await emu.call('GET', '/calendars/primary/events', {
      query: { timeZone: zone, singleEvents: true, orderBy: 'startTime', maxResults: 2 },
    });
    expect(reply.body.timeZone).toBe(zone);
    const [first, second] = reply.body.items;
    expect(first.start).toEqual({ dateTime: daily, timeZone: ZURICH });
    expect(first.originalStartTime).toEqual({ dateTime: daily, timeZone: ZURICH });
    expect(second.start).toEqual({ dateTime: plain });
    // The same instants as without the parameter.
    const plainAsStored = await emu.call('GET', `/calendars/primary/events/${second.id}`);
    expect(Date.parse(second.start.dateTime)).toBe(Date.parse(plainAsStored.body.start.dateTime));
    const all = await emu.call('GET', '/calendars/primary/events', {
      query: { timeZone: zone, q: 'all day' },
    });
    expect(all.body.items[0].start).toEqual({ date: '2026-03-11' });
  });

  it('events.get and events.instances answer in the zone too; the stored event is unchanged', async () => {
    const { daily, plain } = await seedEvents();
    const got = await emu.call('GET', `/calendars/primary/events/${plain.id}`, {
      query: { timeZone: 'Asia/Tokyo' },
    });
    expect(got.body.start.dateTime).toBe('2026-03-10T21:00:00+09:00');
    expect(got.body.etag).toBe(plain.etag);
    const instances = await emu.call('GET', `/calendars/primary/events/${daily.id}/instances`, {
      query: { timeZone: 'America/Los_Angeles' },
    });
    expect(instances.body.timeZone).toBe('America/Los_Angeles');
    expect(instances.body.items.map((i: { start: { dateTime: string } }) => i.start.dateTime)).toEqual([
      '2026-03-10T01:00:00-07:00',
      '2026-03-11T01:00:00-07:00',
      '2026-03-12T01:00:00-07:00',
    ]);
    const again = await emu.call('GET', `/calendars/primary/events/${plain.id}`);
    expect(again.body.start.dateTime).toBe('2026-03-10T12:00:00Z');
  });

  it('without it the answer is in the calendar’s zone (its timeZone), times as stored', async () => {
    await seedEvents();
    const reply = await emu.call('GET', '/calendars/primary/events', { query: { q: 'plain' } });
    expect(reply.body.timeZone).toBe(ZURICH);
    expect(reply.body.items[0].start.dateTime).toBe('2026-03-10T12:00:00Z');
  });

  it('an unknown zone is ignored: the answer is in the calendar’s zone', async () => {
    await seedEvents();
    const reply = await emu.call('GET', '/calendars/primary/events', {
      query: { timeZone: 'Mars/Olympus_Mons', q: 'plain' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.timeZone).toBe(ZURICH);
    expect(reply.body.items[0].start.dateTime).toBe('2026-03-10T12:00:00Z');
  });
});

const attendees = [
  { email: 'bo@example.com' },
  { email: 'Ana@Example.com', responseStatus: 'accepted' },
  { email: 'cy@example.com' },
];

describe('maxAttendees: at most that many; more leave only the caller’s own entry', () => {
  it.each([
    ['more than the limit, the caller among them', 'ana@example.com', 2, [attendees[1]], true],
    ['more than the limit, the caller not among them', 'dee@example.com', 2, undefined, true],
    ['exactly the limit', 'ana@example.com', 3, attendees, false],
    ['under the limit', 'ana@example.com', 10, attendees, false],
  ])('%s', async (_name, caller, maxAttendees, kept, omitted) => {
    const made = await emu.call('POST', '/calendars/primary/events', {
      body: {
        summary: 'team',
        start: { dateTime: '2026-03-10T12:00:00Z' },
        end: { dateTime: '2026-03-10T13:00:00Z' },
        attendees,
      },
    });
    if (caller !== 'ana@example.com')
      await emu.call('POST', '/calendars/primary/acl', {
        body: { role: 'reader', scope: { type: 'user', value: caller } },
      });
    const as = { token: caller, query: { maxAttendees } };
    const id = made.body.id as string;
    const calendarId = 'ana@example.com';
    const answers = [
      (await emu.call('GET', `/calendars/${calendarId}/events/${id}`, as)).body,
      (await emu.call('GET', `/calendars/${calendarId}/events`, as)).body.items[0],
    ];
    for (const answer of answers) {
      expect(answer.attendees).toEqual(kept);
      if (omitted) expect(answer.attendeesOmitted).toBe(true);
      else expect(answer).not.toHaveProperty('attendeesOmitted');
    }
  });

  it('applies to instances and to the answers of writes, never to what is stored', async () => {
    const made = await emu.call('POST', '/calendars/primary/events', {
      query: { maxAttendees: 1 },
      body: {
        summary: 'weekly',
        start: { dateTime: '2026-03-10T09:00:00', timeZone: ZURICH },
        end: { dateTime: '2026-03-10T10:00:00', timeZone: ZURICH },
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'],
        attendees,
      },
    });
    expect(made.body.attendees).toEqual([attendees[1]]);
    expect(made.body.attendeesOmitted).toBe(true);
    const id = made.body.id as string;
    const instances = await emu.call('GET', `/calendars/primary/events/${id}/instances`, {
      query: { maxAttendees: 1 },
    });
    for (const item of instances.body.items) expect(item.attendees).toEqual([attendees[1]]);
    const patched = await emu.call('PATCH', `/calendars/primary/events/${id}`, {
      query: { maxAttendees: 2 },
      body: { summary: 'weekly!' },
    });
    expect(patched.body.attendees).toEqual([attendees[1]]);
    const whole = await emu.call('GET', `/calendars/primary/events/${id}`);
    expect(whole.body.attendees).toEqual(attendees);
    expect(whole.body).not.toHaveProperty('attendeesOmitted');
  });

  it('an update of what such a read gave (attendeesOmitted: true) changes the caller’s entry and keeps the others', async () => {
    const made = await emu.call('POST', '/calendars/primary/events', {
      body: {
        summary: 'team',
        start: { dateTime: '2026-03-10T12:00:00Z' },
        end: { dateTime: '2026-03-10T13:00:00Z' },
        attendees,
      },
    });
    const id = made.body.id as string;
    const read = await emu.call('GET', `/calendars/primary/events/${id}`, { query: { maxAttendees: 1 } });
    const body = {
      ...read.body,
      attendees: [{ ...read.body.attendees[0], responseStatus: 'declined' }],
    };
    const updated = await emu.call('PUT', `/calendars/primary/events/${id}`, { body });
    expect(updated.status).toBe(200);
    expect(updated.body.attendees).toEqual([
      attendees[0],
      { ...attendees[1], responseStatus: 'declined' },
      attendees[2],
    ]);
    expect(updated.body).not.toHaveProperty('attendeesOmitted');
  });
});

describe('alwaysIncludeEmail: deprecated and ignored, every attendee has an email', () => {
  it.each([[undefined], [true], [false]])('alwaysIncludeEmail=%s', async (always) => {
    const made = await emu.call('POST', '/calendars/primary/events', {
      body: {
        summary: 'room',
        start: { dateTime: '2026-03-10T12:00:00Z' },
        end: { dateTime: '2026-03-10T13:00:00Z' },
        attendees: [{ email: 'bo@example.com' }, { displayName: 'Meeting room', resource: true }],
      },
    });
    const query: Record<string, boolean> = always === undefined ? {} : { alwaysIncludeEmail: always };
    const got = await emu.call('GET', `/calendars/primary/events/${made.body.id}`, { query });
    const listed = await emu.call('GET', '/calendars/primary/events', { query });
    for (const event of [got.body, listed.body.items[0]]) {
      expect(event.creator.email).toBe('ana@example.com');
      expect(event.organizer.email).toBe('ana@example.com');
      expect(event.attendees[0]).toEqual({ email: 'bo@example.com' });
      expect(event.attendees[1]).toMatchObject({ displayName: 'Meeting room', resource: true });
      expect(event.attendees[1].email).toMatch(/@calendar\.invalid$/);
    }
  });
});

describe('no longer refused: the live service states no refusal for these (decision 0055)', () => {
  const timed = { start: { dateTime: '2026-03-10T12:00:00Z' }, end: { dateTime: '2026-03-10T13:00:00Z' } };

  it('a leap second is the instant after :59', async () => {
    const reply = await emu.call('POST', '/calendars/primary/events', {
      body: {
        summary: 'leap',
        start: { dateTime: '2026-12-31T23:59:60Z' },
        end: { dateTime: '2027-01-01T00:30:00Z' },
      },
    });
    expect(reply.status).toBe(200);
    const listed = await emu.call('GET', '/calendars/primary/events', {
      query: { timeMin: '2026-12-31T23:59:59Z', timeMax: '2027-01-01T00:00:01Z' },
    });
    expect(listed.body.items).toHaveLength(1);
  });

  it('a start with both a date and a dateTime is timed', async () => {
    const reply = await emu.call('POST', '/calendars/primary/events', {
      body: {
        summary: 'both',
        start: { date: '2026-03-10', dateTime: '2026-03-10T12:00:00Z' },
        end: timed.end,
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.start).toEqual({ dateTime: '2026-03-10T12:00:00Z' });
  });

  it.each([
    ['a name without =', 'team', ['empty']],
    ['a name with =', 'team=', ['empty']],
    ['name=value', 'team=red', ['red']],
  ])('an extended property filter: %s', async (_name, filter, expected) => {
    for (const [summary, team] of [
      ['empty', ''],
      ['red', 'red'],
    ])
      await emu.call('POST', '/calendars/primary/events', {
        body: { summary, ...timed, extendedProperties: { private: { team } } },
      });
    const reply = await emu.call('GET', '/calendars/primary/events', {
      query: { privateExtendedProperty: filter },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.items.map((i: { summary: string }) => i.summary)).toEqual(expected);
  });

  it('events.instances of a deleted recurring event, or in an empty window, is an empty list', async () => {
    const { daily } = await seedEvents();
    const path = `/calendars/primary/events/${daily.id}/instances`;
    const empty = await emu.call('GET', path, {
      query: { timeMin: '2026-03-11T00:00:00Z', timeMax: '2026-03-10T00:00:00Z' },
    });
    expect(empty.status).toBe(200);
    expect(empty.body.items).toEqual([]);
    expect((await emu.call('DELETE', `/calendars/primary/events/${daily.id}`)).status).toBe(204);
    const gone = await emu.call('GET', path);
    expect(gone.status).toBe(200);
    expect(gone.body.items).toEqual([]);
  });

  it('events.move of a deleted event moves it, still deleted', async () => {
    const made = await emu.call('POST', '/calendars/primary/events', { body: { summary: 'gone', ...timed } });
    const other = await emu.call('POST', '/calendars', { body: { summary: 'Other' } });
    await emu.call('DELETE', `/calendars/primary/events/${made.body.id}`);
    const moved = await emu.call('POST', `/calendars/primary/events/${made.body.id}/move`, {
      query: { destination: other.body.id },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.status).toBe('cancelled');
    const there = await emu.call('GET', `/calendars/${encodeURIComponent(other.body.id)}/events`, {
      query: { showDeleted: true },
    });
    expect(there.body.items.map((i: { id: string }) => i.id)).toEqual([made.body.id]);
  });
});

describe('refused as the live service refuses', () => {
  it.each([
    [
      'timeMax not after timeMin (events.list)',
      'GET',
      '/calendars/primary/events',
      { query: { timeMin: '2026-03-10T00:00:00Z', timeMax: '2026-03-10T00:00:00Z' } },
      {
        domain: 'calendar',
        reason: 'timeRangeEmpty',
        location: 'timeMax',
        message: 'The specified time range is empty.',
      },
    ],
    [
      'orderBy=startTime without singleEvents',
      'GET',
      '/calendars/primary/events',
      { query: { orderBy: 'startTime' } },
      {
        reason: 'invalid',
        location: 'orderBy',
        message: 'The requested ordering is not available for the particular query.',
      },
    ],
    [
      'a date start with a timed end',
      'POST',
      '/calendars/primary/events',
      { body: { start: { date: '2026-03-10' }, end: { dateTime: '2026-03-10T13:00:00Z' } } },
      { reason: 'invalid', message: 'Start and end times must either both be date or both be dateTime.' },
    ],
    [
      'an end with neither date nor dateTime',
      'POST',
      '/calendars/primary/events',
      { body: { start: { date: '2026-03-10' }, end: {} } },
      { reason: 'required', message: 'Missing end time.' },
    ],
    [
      'a timed recurring event without start.timeZone',
      'POST',
      '/calendars/primary/events',
      {
        body: {
          start: { dateTime: '2026-03-10T12:00:00Z' },
          end: { dateTime: '2026-03-10T13:00:00Z' },
          recurrence: ['RRULE:FREQ=DAILY'],
        },
      },
      { reason: 'required', message: 'Missing time zone definition for start time.' },
    ],
    [
      'an unknown zone on a time with an offset',
      'POST',
      '/calendars/primary/events',
      {
        body: {
          start: { dateTime: '2026-03-10T12:00:00Z', timeZone: 'Europe/Atlantis' },
          end: { dateTime: '2026-03-10T13:00:00Z' },
        },
      },
      { reason: 'invalid', location: 'start.timeZone' },
    ],
  ] as const)('%s', async (_name, method, path, options, item) => {
    const reply = await emu.call(method, path, options as never);
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0]).toMatchObject(item);
  });

  it('a write to a calendar the caller only reads is 403 requiredAccessLevel', async () => {
    await emu.call('POST', '/calendars/primary/acl', {
      body: { role: 'reader', scope: { type: 'user', value: 'bo@example.com' } },
    });
    const reply = await emu.call('POST', '/calendars/ana@example.com/events', {
      token: 'bo@example.com',
      body: { summary: 'x', start: { date: '2026-03-10' }, end: { date: '2026-03-11' } },
    });
    expect(reply.status).toBe(403);
    expect(reply.body.error.errors[0]).toMatchObject({
      domain: 'calendar',
      reason: 'requiredAccessLevel',
      message: 'You need to have writer access to this calendar.',
    });
  });
});
