/** calendars.*, calendarList.*, settings.* and colors.get. */
import { beforeEach, describe, expect, it } from 'vitest';
import { parseQuickAdd } from '../src/apis/calendar/quick-add.ts';
import { useEmulator } from './support/harness.ts';

const emu = useEmulator();
beforeEach(() => emu.reset());

const enc = encodeURIComponent;

describe('calendars', () => {
  it('get, update (replaces), patch (merges), with a new etag each time', async () => {
    const made = await emu.call('POST', '/calendars', {
      body: { summary: 'A', location: 'Bern', timeZone: 'Europe/Zurich' },
    });
    const path = `/calendars/${enc(made.body.id)}`;
    const updated = await emu.call('PUT', path, { body: { summary: 'B' } });
    expect(updated.body).toMatchObject({ summary: 'B', timeZone: 'Europe/Zurich' });
    expect(updated.body).not.toHaveProperty('location');
    const patched = await emu.call('PATCH', path, { body: { location: 'Basel' } });
    expect(patched.body).toMatchObject({ summary: 'B', location: 'Basel' });
    expect(new Set([made.body.etag, updated.body.etag, patched.body.etag]).size).toBe(3);
    expect((await emu.call('GET', path)).body).toEqual(patched.body);
    expect((await emu.call('GET', `/users/me/calendarList/${enc(made.body.id)}`)).body.summary).toBe('B');
  });

  it('the primary calendar is the user: id = email, on the list as primary', async () => {
    const primary = await emu.call('GET', '/calendars/primary');
    expect(primary.body.id).toBe('ana@example.com');
    const entry = await emu.call('GET', '/users/me/calendarList/primary');
    expect(entry.body).toMatchObject({ id: 'ana@example.com', primary: true, accessRole: 'owner' });
  });
});

describe('calendarList', () => {
  it('list, patch colors and hidden, delete and insert again', async () => {
    const made = await emu.call('POST', '/calendars', { body: { summary: 'Side' } });
    const path = `/users/me/calendarList/${enc(made.body.id)}`;
    const colored = await emu.call('PATCH', path, {
      body: { colorId: '7', hidden: true, summaryOverride: 'Mine' },
    });
    expect(colored.body).toMatchObject({
      colorId: '7',
      hidden: true,
      summaryOverride: 'Mine',
      summary: 'Side',
    });
    expect(colored.body.backgroundColor).toMatch(/^#[0-9a-f]{6}$/i);
    const visible = await emu.call('GET', '/users/me/calendarList');
    expect(visible.body.items.map((e: { id: string }) => e.id)).toEqual(['ana@example.com']);
    const all = await emu.call('GET', '/users/me/calendarList', { query: { showHidden: true } });
    expect(all.body.items).toHaveLength(2);
    const rgb = await emu.call('PUT', path, {
      query: { colorRgbFormat: true },
      body: { backgroundColor: '#112233', foregroundColor: '#ffffff' },
    });
    expect(rgb.body).toMatchObject({ backgroundColor: '#112233', foregroundColor: '#ffffff', hidden: false });
    expect((await emu.call('DELETE', path)).status).toBe(204);
    expect((await emu.call('GET', path)).status).toBe(404);
    expect((await emu.call('GET', `/calendars/${enc(made.body.id)}`)).status).toBe(200);
    const back = await emu.call('POST', '/users/me/calendarList', {
      body: { id: made.body.id, selected: false },
    });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ id: made.body.id, selected: false });
    const twice = await emu.call('POST', '/users/me/calendarList', { body: { id: made.body.id } });
    expect(twice.status).toBe(409);
  });

  it.each([
    ['an unknown calendar', 'nobody@example.com', 404],
    ['the primary calendar from delete', 'primary', 400],
  ])('refuses %s', async (_name, id, status) => {
    const reply =
      id === 'primary'
        ? await emu.call('DELETE', '/users/me/calendarList/primary')
        : await emu.call('POST', '/users/me/calendarList', { body: { id } });
    expect(reply.status).toBe(status);
  });

  it('pages', async () => {
    for (const name of ['a', 'b', 'c']) await emu.call('POST', '/calendars', { body: { summary: name } });
    const first = await emu.call('GET', '/users/me/calendarList', { query: { maxResults: 3 } });
    expect(first.body.items).toHaveLength(3);
    const second = await emu.call('GET', '/users/me/calendarList', {
      query: { maxResults: 3, pageToken: first.body.nextPageToken },
    });
    expect(second.body.items).toHaveLength(1);
    expect(second.body.nextSyncToken).toBeTypeOf('string');
  });
});

describe('settings and colors', () => {
  it('settings come from the spec example; get one; sync has nothing new', async () => {
    const list = await emu.call('GET', '/users/me/settings');
    expect(list.body.items.map((s: { id: string }) => s.id)).toContain('timezone');
    const zone = await emu.call('GET', '/users/me/settings/timezone');
    expect(zone.body).toMatchObject({ kind: 'calendar#setting', id: 'timezone', value: 'Europe/Zurich' });
    const sync = await emu.call('GET', '/users/me/settings', {
      query: { syncToken: list.body.nextSyncToken },
    });
    expect(sync.body.items).toEqual([]);
  });

  it('colors.get answers the palettes', async () => {
    const colors = await emu.call('GET', '/colors');
    expect(colors.body.kind).toBe('calendar#colors');
    expect(Object.keys(colors.body.calendar).length).toBeGreaterThan(5);
  });
});

describe('quickAdd grammar', () => {
  const today = new Date('2026-05-10T15:00:00Z');
  it.each([
    [
      'Lunch with Ana tomorrow 12:30-13:30 at Volkshaus',
      {
        summary: 'Lunch with Ana',
        location: 'Volkshaus',
        start: { dateTime: '2026-05-11T12:30:00Z' },
        end: { dateTime: '2026-05-11T13:30:00Z' },
      },
    ],
    [
      'Standup 09:15',
      {
        summary: 'Standup',
        start: { dateTime: '2026-05-10T09:15:00Z' },
        end: { dateTime: '2026-05-10T10:15:00Z' },
      },
    ],
    [
      'Holiday 2026-07-01',
      { summary: 'Holiday', start: { date: '2026-07-01' }, end: { date: '2026-07-02' } },
    ],
    [
      'Party today 23:00-01:00',
      {
        summary: 'Party',
        start: { dateTime: '2026-05-10T23:00:00Z' },
        end: { dateTime: '2026-05-11T01:00:00Z' },
      },
    ],
    ['Think', { summary: 'Think', start: { date: '2026-05-10' }, end: { date: '2026-05-11' } }],
  ])('%s', (text, expected) => {
    expect(parseQuickAdd(text, today)).toEqual(expected);
  });

  it('events.quickAdd stores the parsed event', async () => {
    const reply = await emu.call('POST', '/calendars/primary/events/quickAdd', {
      query: { text: 'Review 14:00 at Room 3' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ summary: 'Review', location: 'Room 3', status: 'confirmed' });
  });
});
