/**
 * The seed rules as behaviour: each one is done against the emulator and read back.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { DEPRECATED_BEHAVIOR_HEADER } from '../src/apis/calendar/events.ts';
import { QUOTA_COST_HEADER } from '../src/core/quota.ts';
import { spec, timedEvent, useEmulator } from './support/harness.ts';

const emu = useEmulator();
beforeEach(() => emu.reset());

async function secondary(summary = 'Team') {
  const reply = await emu.call('POST', '/calendars', { body: { summary } });
  expect(reply.status).toBe(200);
  return reply.body.id as string;
}

describe('primary calendar: delete refused, clear allowed', () => {
  it.each([
    ['the alias primary', () => 'primary', 'invalid'],
    ['its own id', () => 'ana@example.com', 'cannotDeletePrimaryCalendar'],
  ])('refuses to delete %s with 400', async (_name, id, reason) => {
    const reply = await emu.call('DELETE', `/calendars/${encodeURIComponent(id())}`);
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0]).toMatchObject({ reason, location: 'calendarId' });
    expect((await emu.call('GET', '/calendars/primary')).status).toBe(200);
  });

  it('clear cancels every event of the primary calendar and keeps the calendar', async () => {
    await emu.call('POST', '/calendars/primary/events', { body: timedEvent('a') });
    await emu.call('POST', '/calendars/primary/events', { body: timedEvent('b', 11) });
    expect((await emu.call('POST', '/calendars/primary/clear')).status).toBe(204);
    expect((await emu.call('GET', '/calendars/primary/events')).body.items).toEqual([]);
    const deleted = await emu.call('GET', '/calendars/primary/events', { query: { showDeleted: true } });
    expect(deleted.body.items.map((e: { status: string }) => e.status)).toEqual(['cancelled', 'cancelled']);
    expect((await emu.call('GET', '/calendars/primary')).status).toBe(200);
  });

  it('clear refuses a secondary calendar', async () => {
    const id = await secondary();
    const reply = await emu.call('POST', `/calendars/${encodeURIComponent(id)}/clear`);
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0].location).toBe('calendarId');
  });
});

describe('secondary calendars: created and deleted', () => {
  it('creates one on the calendar list, deletes it with its events', async () => {
    const id = await secondary('Project X');
    const path = `/calendars/${encodeURIComponent(id)}`;
    expect((await emu.call('GET', path)).body).toMatchObject({
      id,
      summary: 'Project X',
      kind: 'calendar#calendar',
    });
    const entry = await emu.call('GET', `/users/me/calendarList/${encodeURIComponent(id)}`);
    expect(entry.body).toMatchObject({ id, summary: 'Project X', accessRole: 'owner' });
    await emu.call('POST', `${path}/events`, { body: timedEvent('in X') });
    expect((await emu.call('DELETE', path)).status).toBe(204);
    expect((await emu.call('GET', path)).status).toBe(404);
    expect((await emu.call('GET', `${path}/events`)).status).toBe(404);
    expect((await emu.call('GET', `/users/me/calendarList/${encodeURIComponent(id)}`)).status).toBe(404);
    expect((await emu.call('DELETE', path)).status).toBe(404);
  });

  it('is invisible to other users (404, as Google answers for calendars you cannot see)', async () => {
    const id = await secondary();
    const reply = await emu.call('GET', `/calendars/${encodeURIComponent(id)}`, { token: 'bo@example.com' });
    expect(reply.status).toBe(404);
  });
});

describe('import and move take only default events (x-event-types)', () => {
  const types = ['outOfOffice', 'focusTime', 'workingLocation'] as const;
  const typeProperties: Record<string, Record<string, unknown>> = {
    outOfOffice: { outOfOfficeProperties: { autoDeclineMode: 'declineNone' } },
    focusTime: { focusTimeProperties: { chatStatus: 'doNotDisturb' } },
    workingLocation: { workingLocationProperties: { type: 'homeOffice', homeOffice: {} } },
  };

  it('the spec drives the rule', () => {
    expect(spec.byId.get('events.import')?.eventTypes).toEqual(['default']);
    expect(spec.byId.get('events.move')?.eventTypes).toEqual(['default']);
    expect(spec.byId.get('events.import')?.deprecatedBehaviors.map((b) => b.name)).toContain(
      'nonDefaultEventTypeFallback',
    );
  });

  it('imports a default event and finds it by iCalUID', async () => {
    const body = {
      ...timedEvent('imported'),
      iCalUID: 'abc-123@example.org',
      organizer: { email: 'x@example.org' },
    };
    const reply = await emu.call('POST', '/calendars/primary/events/import', { body });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      iCalUID: 'abc-123@example.org',
      eventType: 'default',
      organizer: { email: 'x@example.org' },
    });
    expect(reply.headers.get(DEPRECATED_BEHAVIOR_HEADER)).toBeNull();
    // Importing the same UID again updates that copy.
    const again = await emu.call('POST', '/calendars/primary/events/import', {
      body: { ...body, summary: 'changed' },
    });
    expect(again.body.id).toBe(reply.body.id);
    const found = await emu.call('GET', '/calendars/primary/events', {
      query: { iCalUID: 'abc-123@example.org' },
    });
    expect(found.body.items.map((e: { summary: string }) => e.summary)).toEqual(['changed']);
  });

  it.each(types)(
    'imports a %s event as default and drops its type-specific properties (deprecated fallback)',
    async (type) => {
      const body = {
        ...timedEvent(type),
        iCalUID: `${type}@example.org`,
        eventType: type,
        ...typeProperties[type],
      };
      const reply = await emu.call('POST', '/calendars/primary/events/import', { body });
      expect(reply.status).toBe(200);
      expect(reply.body.eventType).toBe('default');
      for (const key of Object.keys(typeProperties[type] ?? {})) expect(reply.body).not.toHaveProperty(key);
      expect(reply.headers.get(DEPRECATED_BEHAVIOR_HEADER)).toBe('nonDefaultEventTypeFallback');
    },
  );

  it.each(types)('refuses to move a %s event with 400', async (type) => {
    const target = await secondary();
    const made = await emu.call('POST', '/calendars/primary/events', {
      body: { ...timedEvent(type), eventType: type, ...typeProperties[type] },
    });
    expect(made.status).toBe(200);
    const reply = await emu.call('POST', `/calendars/primary/events/${made.body.id}/move`, {
      query: { destination: target },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0].reason).toBe('eventTypeRestriction');
    expect((await emu.call('GET', `/calendars/primary/events/${made.body.id}`)).body.status).toBe(
      'confirmed',
    );
  });

  it('moves a default event: gone from the source (cancelled for sync), present in the destination', async () => {
    const target = await secondary('Target');
    const made = await emu.call('POST', '/calendars/primary/events', { body: timedEvent('movable') });
    const moved = await emu.call('POST', `/calendars/primary/events/${made.body.id}/move`, {
      query: { destination: target },
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      id: made.body.id,
      organizer: { email: target, displayName: 'Target' },
    });
    expect(moved.body.etag).not.toBe(made.body.etag);
    expect((await emu.call('GET', '/calendars/primary/events')).body.items).toEqual([]);
    const there = await emu.call('GET', `/calendars/${encodeURIComponent(target)}/events`);
    expect(there.body.items.map((e: { id: string }) => e.id)).toEqual([made.body.id]);
    const missing = await emu.call('POST', `/calendars/primary/events/${made.body.id}/move`, {
      query: { destination: 'nowhere@example.com' },
    });
    expect(missing.status).toBe(404);
  });
});

describe('update replaces the whole event; patch merges', () => {
  it('update clears what it leaves out', async () => {
    const made = await emu.call('POST', '/calendars/primary/events', {
      body: timedEvent('full', 9, {
        description: 'd',
        location: 'l',
        attendees: [{ email: 'x@example.com' }],
      }),
    });
    const reply = await emu.call('PUT', `/calendars/primary/events/${made.body.id}`, {
      body: timedEvent('bare', 10),
    });
    expect(reply.status).toBe(200);
    expect(reply.body.summary).toBe('bare');
    for (const key of ['description', 'location', 'attendees']) expect(reply.body).not.toHaveProperty(key);
    expect(reply.body).toMatchObject({
      id: made.body.id,
      created: made.body.created,
      iCalUID: made.body.iCalUID,
    });
  });

  it.each([
    [
      'a given field replaces the stored value',
      { summary: 'new' },
      { summary: 'new', description: 'keep me' },
    ],
    [
      'an omitted field keeps its value',
      { location: 'Room 2' },
      { summary: 'old', description: 'keep me', location: 'Room 2' },
    ],
    [
      'a given array replaces the whole stored array',
      { attendees: [{ email: 'c@example.com' }] },
      { attendees: [{ email: 'c@example.com' }], description: 'keep me' },
    ],
  ])('patch: %s', async (_rule, patch, expected) => {
    const made = await emu.call('POST', '/calendars/primary/events', {
      body: timedEvent('old', 9, {
        description: 'keep me',
        attendees: [{ email: 'a@example.com' }, { email: 'b@example.com' }],
      }),
    });
    const reply = await emu.call('PATCH', `/calendars/primary/events/${made.body.id}`, { body: patch });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject(expected);
    expect((await emu.call('GET', `/calendars/primary/events/${made.body.id}`)).body).toEqual(reply.body);
  });
});

describe('etags and If-Match', () => {
  it.each([
    ['PUT', timedEvent('again')],
    ['PATCH', { summary: 'again' }],
    ['DELETE', undefined],
  ])('%s with a stale etag gets 412 conditionNotMet and writes nothing', async (method, body) => {
    const made = await emu.call('POST', '/calendars/primary/events', { body: timedEvent('v1') });
    const changed = await emu.call('PATCH', `/calendars/primary/events/${made.body.id}`, {
      body: { summary: 'v2' },
    });
    expect(changed.body.etag).not.toBe(made.body.etag);
    const reply = await emu.call(method, `/calendars/primary/events/${made.body.id}`, {
      headers: { 'if-match': made.body.etag },
      ...(body ? { body } : {}),
    });
    expect(reply.status).toBe(412);
    expect(reply.body.error.errors[0]).toMatchObject({ reason: 'conditionNotMet', location: 'If-Match' });
    expect((await emu.call('GET', `/calendars/primary/events/${made.body.id}`)).body).toEqual(changed.body);
    const fresh = await emu.call(method, `/calendars/primary/events/${made.body.id}`, {
      headers: { 'if-match': changed.body.etag },
      ...(body ? { body } : {}),
    });
    expect(fresh.status).toBe(method === 'DELETE' ? 204 : 200);
  });

  it('every write changes the etag and updated; sequence grows on changes', async () => {
    const made = await emu.call('POST', '/calendars/primary/events', { body: timedEvent('s') });
    expect(made.body.sequence).toBe(0);
    const one = await emu.call('PATCH', `/calendars/primary/events/${made.body.id}`, {
      body: { start: { dateTime: '2026-03-02T08:00:00Z' } },
    });
    const two = await emu.call('PUT', `/calendars/primary/events/${made.body.id}`, {
      body: timedEvent('t', 12),
    });
    const etags = [made, one, two].map((r) => r.body.etag);
    expect(new Set(etags).size).toBe(3);
    expect([made, one, two].map((r) => r.body.sequence)).toEqual([0, 1, 2]);
    expect(Date.parse(two.body.updated)).toBeGreaterThan(Date.parse(made.body.updated));
  });
});

describe('quota: each call costs its x-quota-cost', () => {
  it.each(
    spec.operations
      .filter((op) => op.id.startsWith('events.') || op.id.startsWith('calendars.'))
      .map((op) => [op.id, op.quotaCost] as const),
  )('the spec gives %s a cost of %i, patch 3 and others 1', (id, cost) => {
    expect(cost).toBe(id.endsWith('.patch') ? 3 : 1);
  });

  it('events.patch costs 3 units, events.get 1, in the header and in the control plane', async () => {
    const made = await emu.call('POST', '/calendars/primary/events', { body: timedEvent('q') });
    const before = (await emu.call('GET', '/__emulator/quota')).body;
    const patched = await emu.call('PATCH', `/calendars/primary/events/${made.body.id}`, {
      body: { summary: 'r' },
    });
    expect(patched.headers.get(QUOTA_COST_HEADER)).toBe('3');
    const got = await emu.call('GET', `/calendars/primary/events/${made.body.id}`);
    expect(got.headers.get(QUOTA_COST_HEADER)).toBe('1');
    const after = (await emu.call('GET', '/__emulator/quota')).body;
    expect(after.byUser['ana@example.com'] - before.byUser['ana@example.com']).toBe(4);
    expect(after.byOperation['events.patch']).toEqual({ calls: 1, units: 3 });
  });
});
