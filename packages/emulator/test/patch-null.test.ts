/**
 * JSON null in a patch (decision 0037): a field sent as null is removed from the stored
 * resource (and then reads as absent or as its default); a field that every resource has, or
 * that cannot change, is refused as null, and so is a read-only one, each with an error
 * naming the field. Insert and update bodies take no null at all.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { timedEvent, useEmulator } from './support/harness.ts';

const emu = useEmulator();
beforeEach(() => emu.reset());

const BEN = 'ben@example.com';
const enc = encodeURIComponent;

async function ok(method: string, path: string, body?: unknown) {
  const reply = await emu.call(method, path, body === undefined ? {} : { body });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function newEvent() {
  return ok(
    'POST',
    '/calendars/primary/events',
    timedEvent('Planning', 9, {
      description: 'Agenda',
      location: 'Room 1',
      colorId: '5',
      transparency: 'transparent',
      reminders: { useDefault: false, overrides: [{ method: 'popup', minutes: 5 }] },
      extendedProperties: { private: { ticket: '42' } },
    }),
  );
}

async function newCalendar() {
  return ok('POST', '/calendars', { summary: 'Team', description: 'Shared plans', location: 'Basel' });
}

/** What each patch operation's path is, for a fresh resource. */
const targets: Record<string, () => Promise<string>> = {
  'events.patch': async () => `/calendars/primary/events/${(await newEvent()).id}`,
  'calendars.patch': async () => `/calendars/${enc((await newCalendar()).id)}`,
  'calendarList.patch': async () => {
    const calendar = await newCalendar();
    await ok('PATCH', `/users/me/calendarList/${enc(calendar.id)}`, {
      summaryOverride: 'Mine',
      hidden: true,
    });
    return `/users/me/calendarList/${enc(calendar.id)}`;
  },
  'acl.patch': async () => {
    const calendar = await newCalendar();
    await ok('POST', `/calendars/${enc(calendar.id)}/acl`, {
      role: 'reader',
      scope: { type: 'user', value: BEN },
    });
    return `/calendars/${enc(calendar.id)}/acl/${enc(`user:${BEN}`)}`;
  },
};

describe('null removes a field', () => {
  it.each([
    [
      'events.patch',
      { description: null, location: null },
      ['description', 'location'],
      { summary: 'Planning' },
    ],
    // Fields with a default read as it once removed.
    [
      'events.patch',
      { transparency: null, reminders: null, colorId: null, extendedProperties: null },
      ['transparency', 'colorId', 'extendedProperties'],
      { reminders: { useDefault: true } },
    ],
    [
      'calendars.patch',
      { description: null, location: null },
      ['description', 'location'],
      { summary: 'Team' },
    ],
    ['calendarList.patch', { summaryOverride: null, hidden: null }, ['summaryOverride', 'hidden'], {}],
  ])('%s %j', async (operation, body, gone, kept) => {
    const path = await (targets[operation] as () => Promise<string>)();
    const patched = await ok('PATCH', path, body);
    const read = await ok('GET', path);
    for (const answer of [patched, read]) {
      for (const field of gone) expect(answer, field).not.toHaveProperty(field);
      expect(answer).toMatchObject(kept);
    }
  });

  it('null and a value in one patch: the value is set, the null removed', async () => {
    const path = await (targets['events.patch'] as () => Promise<string>)();
    const patched = await ok('PATCH', path, { summary: 'Renamed', location: null });
    expect(patched.summary).toBe('Renamed');
    expect(patched).not.toHaveProperty('location');
    expect(patched.description).toBe('Agenda');
  });
});

describe('null is refused where the field cannot be absent', () => {
  it.each([
    ['events.patch', 'start', /null is not accepted here/],
    ['events.patch', 'end', /null is not accepted here/],
    ['events.patch', 'eventType', /null is not accepted here/],
    ['calendars.patch', 'summary', /null is not accepted here/],
    ['calendars.patch', 'timeZone', /null is not accepted here/],
    ['calendarList.patch', 'id', /null is not accepted here/],
    ['acl.patch', 'role', /null is not accepted here/],
    ['acl.patch', 'scope', /null is not accepted here/],
  ])('%s with %s: null', async (operation, field, message) => {
    const path = await (targets[operation] as () => Promise<string>)();
    const before = await ok('GET', path);
    const reply = await emu.call('PATCH', path, { body: { [field]: null } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors).toEqual([
      {
        domain: 'global',
        reason: 'invalid',
        message: expect.stringMatching(message),
        location: field,
        locationType: 'parameter',
      },
    ]);
    expect(reply.body.error.message).toMatch(new RegExp(`field ${field}\\b`));
    // Nothing was written.
    expect((await ok('GET', path)).etag).toBe(before.etag);
  });

  // A read-only field is the service's to set and ignored in a request, null included: in
  // Google's JSON mapping null is the field left unset (decision 0054).
  it.each([
    ['events.patch', 'etag'],
    ['events.patch', 'creator'],
    ['calendars.patch', 'id'],
    ['calendarList.patch', 'accessRole'],
    ['acl.patch', 'etag'],
  ])('%s with %s: null is ignored, as any value of a read-only field', async (operation, field) => {
    const path = await (targets[operation] as () => Promise<string>)();
    const before = await ok('GET', path);
    const reply = await emu.call('PATCH', path, { body: { [field]: null } });
    expect(reply.status).toBe(200);
    expect(reply.body[field]).toBeDefined();
    if (field !== 'etag') expect(reply.body[field]).toEqual(before[field]);
  });

  it.each([
    ['POST', '/calendars/primary/events', timedEvent('Insert', 9, { location: null })],
    ['POST', '/calendars', { summary: 'New', description: null }],
  ])('%s %s (an insert) takes no null', async (method, path, body) => {
    const reply = await emu.call(method, path, { body });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0].message).toMatch(/null is not accepted here/);
  });

  it('events.update (a replacement) takes no null', async () => {
    const event = await newEvent();
    const reply = await emu.call('PUT', `/calendars/primary/events/${event.id}`, {
      body: timedEvent('Update', 9, { location: null }),
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0]).toMatchObject({ location: 'location', reason: 'invalid' });
  });
});

describe('null inside start and end', () => {
  it('turns an all-day event into a timed one with date: null, as clients of the live service do', async () => {
    const event = await ok('POST', '/calendars/primary/events', {
      summary: 'All day',
      start: { date: '2027-03-01' },
      end: { date: '2027-03-02' },
    });
    const patched = await ok('PATCH', `/calendars/primary/events/${event.id}`, {
      start: { date: null, dateTime: '2027-03-01T09:00:00', timeZone: 'Europe/Zurich' },
      end: { date: null, dateTime: '2027-03-01T10:00:00', timeZone: 'Europe/Zurich' },
    });
    expect(patched.start).toEqual({ dateTime: '2027-03-01T09:00:00+01:00', timeZone: 'Europe/Zurich' });
    expect(patched.end).toEqual({ dateTime: '2027-03-01T10:00:00+01:00', timeZone: 'Europe/Zurich' });
  });

  it('refuses a local time whose timeZone is sent as null, naming the field', async () => {
    const event = await newEvent();
    const reply = await emu.call('PATCH', `/calendars/primary/events/${event.id}`, {
      body: { start: { dateTime: '2026-03-02T10:00:00', timeZone: null } },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors).toEqual([
      expect.objectContaining({ location: 'start.dateTime', message: expect.stringMatching(/UTC offset/) }),
    ]);
  });
});
