/** The control plane: health, reset, dump and load of the state, quota. */
import { describe, expect, it } from 'vitest';
import { notImplementedOperations } from '../src/apis/calendar/handlers.ts';
import { calendarState } from '../src/apis/calendar/records.ts';
import { spec, timedEvent, useEmulator } from './support/harness.ts';

const emu = useEmulator({
  users: { 'token-ana': 'ana@example.com', 'token-bo': 'bo@example.com', 'ya29.listed': 'bo@example.com' },
});

describe('control plane', () => {
  it('health lists what is not implemented yet', async () => {
    const reply = await emu.call('GET', '/__emulator/health');
    expect(reply.body).toMatchObject({
      status: 'ok',
      apis: {
        calendar: { basePath: '/calendar/v3', operations: 37 },
        searchads360: { basePath: '/doubleclicksearch/v2', operations: 7 },
      },
    });
    expect(reply.body.apis.calendar.notImplemented).toEqual(notImplementedOperations(spec));
    expect(reply.body.apis.calendar.notImplemented).toEqual([]);
    expect(reply.body.apis.searchads360.notImplemented).toEqual([]);
  });

  it('reset empties the state and the quota', async () => {
    await emu.call('POST', '/calendars/primary/events', { body: timedEvent('x') });
    await emu.reset();
    expect((await emu.call('GET', '/__emulator/quota')).body).toEqual({
      total: 0,
      byUser: {},
      byOperation: {},
    });
    expect((await emu.call('GET', '/calendars/primary/events')).body.items).toEqual([]);
  });

  it('a dumped state loads back: events, etags and sync tokens survive', async () => {
    await emu.reset();
    const made = await emu.call('POST', '/calendars/primary/events', { body: timedEvent('kept') });
    const list = await emu.call('GET', '/calendars/primary/events');
    const dump = (await emu.call('GET', '/__emulator/state')).body;
    await emu.reset();
    expect((await emu.call('GET', `/calendars/primary/events/${made.body.id}`)).status).toBe(404);
    expect((await emu.call('PUT', '/__emulator/state', { body: dump })).status).toBe(204);
    expect((await emu.call('GET', `/calendars/primary/events/${made.body.id}`)).body).toEqual(made.body);
    const sync = await emu.call('GET', '/calendars/primary/events', {
      query: { syncToken: list.body.nextSyncToken },
    });
    expect(sync.status).toBe(200);
    expect(sync.body.items).toEqual([]);
  });

  it('a dump of 20,000 events (over 10 MB) loads back whole', async () => {
    await emu.reset();
    const description = 'd'.repeat(400);
    for (let i = 0; i < 20_000; i++)
      emu.emulator.invoke('ana@example.com', 'events.insert', {
        path: { calendarId: 'primary' },
        body: timedEvent(`bulk ${i}`, 9, { description }),
      });
    const text = (await emu.call('GET', '/__emulator/state')).text;
    expect(text.length).toBeGreaterThan(10 * 1024 * 1024);
    await emu.reset();
    const loaded = await fetch(`${emu.origin}/__emulator/state`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: text,
    });
    expect(loaded.status).toBe(204);
    expect(Object.keys(calendarState(emu.emulator.store.state).events['ana@example.com'] ?? {})).toHaveLength(
      20_000,
    );
  });

  it("a state dumped before sharing rules existed loads with the owners' rules", async () => {
    await emu.reset();
    await emu.call('POST', '/calendars/primary/acl', {
      body: { role: 'reader', scope: { type: 'user', value: 'bo@example.com' } },
    });
    const dump = (await emu.call('GET', '/__emulator/state')).body;
    delete dump.acl;
    expect((await emu.call('PUT', '/__emulator/state', { body: dump })).status).toBe(204);
    const rules = await emu.call('GET', '/calendars/primary/acl');
    expect(rules.body.items.map((rule: { id: string; role: string }) => [rule.id, rule.role])).toEqual([
      ['user:ana@example.com', 'owner'],
    ]);
  });

  it.each([
    ['not JSON', '{', 'parseError', 'not valid JSON'],
    ['a missing field', { version: 1 }, 'invalid', 'must have required property'],
    ['an event that breaks the spec', 'badEvent', 'invalid', '/events/'],
    ['a calendar of nobody', 'orphan', 'invalid', 'owner'],
  ])('refuses to load %s, naming the place', async (_name, variant, reason, text) => {
    await emu.reset();
    await emu.call('POST', '/calendars/primary/events', { body: timedEvent('x') });
    const dump = (await emu.call('GET', '/__emulator/state')).body;
    let body: unknown = variant;
    if (variant === 'badEvent') {
      const events = Object.values(dump.events['ana@example.com']) as { resource: Record<string, unknown> }[];
      (events[0] as { resource: Record<string, unknown> }).resource.sequence = 'one';
      body = dump;
    } else if (variant === 'orphan') {
      dump.calendars['ana@example.com'].owner = 'nobody@example.com';
      body = dump;
    }
    const reply = await emu.call('PUT', '/__emulator/state', { body });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0].reason).toBe(reason);
    expect(reply.body.error.message).toContain(text);
  });

  it('an unknown control endpoint is 404 listing the endpoints', async () => {
    const reply = await emu.call('GET', '/__emulator/nothing');
    expect(reply.status).toBe(404);
    expect(reply.body.error.message).toContain('/reset');
  });
});

describe('users', () => {
  it('maps tokens to emails; other tokens are users of their own', async () => {
    await emu.reset();
    const ana = await emu.call('GET', '/calendars/primary', { token: 'token-ana' });
    expect(ana.body.id).toBe('ana@example.com');
    const bo = await emu.call('GET', '/calendars/primary', { token: 'token-bo' });
    expect(bo.body.id).toBe('bo@example.com');
    const other = await emu.call('GET', '/calendars/primary', { token: 'some-other-token' });
    expect(other.body.id).toMatch(/^user-[0-9a-f]{10}@example\.com$/);
    const again = await emu.call('GET', '/calendars/primary', { token: 'some-other-token' });
    expect(again.body.id).toBe(other.body.id);
    await emu.call('POST', '/calendars/primary/events', { token: 'token-ana', body: timedEvent('ana only') });
    expect((await emu.call('GET', '/calendars/primary/events', { token: 'token-bo' })).body.items).toEqual(
      [],
    );
    const quota = (await emu.call('GET', '/__emulator/quota')).body;
    expect(quota.byUser['ana@example.com']).toBe(2);
  });

  it('takes a token of the shape the token endpoint issues for the user the users map gives it, and no other (decision 0047)', async () => {
    await emu.reset();
    const listed = await emu.call('GET', '/calendars/primary', { token: 'ya29.listed' });
    expect(listed.body.id).toBe('bo@example.com');
    // Not strict, yet not a made-up user: the token endpoint did not issue it (or forgot it).
    const unknown = await emu.call('GET', '/calendars/primary', { token: 'ya29.something' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.message).toContain('not one this emulator issued');
  });
});
