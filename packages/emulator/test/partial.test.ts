/**
 * Partial responses (`fields`) and conditional reads (`If-None-Match`, 304) of the emulator,
 * on both APIs (decision 0038).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { timedEvent, useEmulator } from './support/harness.ts';
import { ADVERTISER, AGENCY, example, sa360 } from './support/searchads360.ts';

const emu = useEmulator();
const call = emu.call;

let calendarId: string;
let eventId: string;

beforeAll(async () => {
  await emu.reset();
  const created = await call('POST', '/calendars', { body: { summary: 'Partial answers' } });
  calendarId = created.body.id;
  for (const [summary, hour] of [
    ['Standup', 9],
    ['Review', 11],
    ['Retro', 14],
  ] as const) {
    const inserted = await call('POST', `/calendars/${calendarId}/events`, {
      body: timedEvent(summary, hour, {
        description: `${summary} notes`,
        attendees: [{ email: 'ben@example.com' }, { email: 'cy@example.com', optional: true }],
      }),
    });
    expect(inserted.status).toBe(200);
    eventId ??= inserted.body.id;
  }
});

const eventPath = () => `/calendars/${encodeURIComponent(calendarId)}/events/${eventId}`;
const listPath = () => `/calendars/${encodeURIComponent(calendarId)}/events`;

describe('fields trims the answer', () => {
  it.each<[string, (id: string) => object]>([
    ['id,summary', (id) => ({ id, summary: 'Standup' })],
    ['start/dateTime', () => ({ start: { dateTime: '2026-03-02T09:00:00Z' } })],
    [
      'summary,attendees(email)',
      () => ({ summary: 'Standup', attendees: [{ email: 'ben@example.com' }, { email: 'cy@example.com' }] }),
    ],
    ['attendees/optional', () => ({ attendees: [{}, { optional: true }] })],
    ['location', () => ({})],
  ])('events.get with fields=%s', async (fields, expected) => {
    const reply = await call('GET', eventPath(), { query: { fields } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(expected(eventId));
  });

  it('trims every element of a list page and keeps the page token', async () => {
    const reply = await call('GET', listPath(), {
      query: {
        fields: 'items(id,summary),nextPageToken',
        maxResults: 2,
        orderBy: 'startTime',
        singleEvents: true,
      },
    });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['items', 'nextPageToken']);
    expect(reply.body.items.map((item: object) => Object.keys(item).sort())).toEqual([
      ['id', 'summary'],
      ['id', 'summary'],
    ]);
    expect(reply.body.items.map((item: { summary: string }) => item.summary)).toEqual(['Standup', 'Review']);
  });

  it('trims the answer of a write but stores the whole write', async () => {
    const inserted = await call('POST', listPath(), {
      query: { fields: 'id' },
      body: timedEvent('Planning', 16, { description: 'kept' }),
    });
    expect(inserted.status).toBe(200);
    expect(Object.keys(inserted.body)).toEqual(['id']);
    const read = await call('GET', `${listPath()}/${inserted.body.id}`);
    expect(read.body).toMatchObject({ summary: 'Planning', description: 'kept' });
    const deleted = await call('DELETE', `${listPath()}/${inserted.body.id}`, { query: { fields: 'id' } });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
  });

  it('sends error answers whole', async () => {
    const reply = await call('GET', `${listPath()}/nosuchevent`, { query: { fields: 'id' } });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(reply.body.error.errors[0].reason).toBe('notFound');
  });

  it('treats an empty mask as no mask', async () => {
    const reply = await call('GET', eventPath(), { query: { fields: '' } });
    expect(reply.body).toMatchObject({ kind: 'calendar#event', id: eventId, summary: 'Standup' });
  });

  it('trims Search Ads 360 answers and leaves the ID-mapping CSV whole', async () => {
    const columns = await sa360(emu)('GET', `/agency/${AGENCY}/advertiser/${ADVERTISER}/savedcolumns`, {
      query: { fields: 'items/savedColumnName' },
    });
    expect(columns.status).toBe(200);
    expect(Object.keys(columns.body)).toEqual(['items']);
    for (const item of columns.body.items) expect(Object.keys(item)).toEqual(['savedColumnName']);
    const csv = await sa360(emu)('GET', `/agency/${AGENCY}/advertiser/${ADVERTISER}/idmapping`, {
      query: { fields: 'id', alt: 'media' },
    });
    expect(csv.status).toBe(200);
    expect(csv.text).toBe(example('IdMappingFile'));
  });
});

describe('fields in-process (invoke)', () => {
  it('trims the answer as over HTTP, and refuses a bad mask with the same 400', () => {
    const path = { calendarId, eventId };
    const trimmed = emu.emulator.invoke('ana@example.com', 'events.get', { path, query: { fields: 'id' } });
    expect(trimmed.body).toEqual({ id: eventId });
    expect(() =>
      emu.emulator.invoke('ana@example.com', 'events.get', { path, query: { fields: 'id(((' } }),
    ).toThrow('Invalid field selection id(((');
  });
});

describe('a bad mask is a 400 naming the selection', () => {
  it.each([
    ['id(((', 'Invalid field selection id(((: expected a field name or * at character 4'],
    ['items(id', 'Invalid field selection items(id: expected "," or ")"'],
    ['id,,summary', 'Invalid field selection id,,summary: expected a field name or * at character 4'],
    ['colour', 'Invalid field selection colour: the answer has no field colour'],
    ['start(dateTime,zone)', 'Invalid field selection start/zone'],
    ['summary/text', 'Invalid field selection summary/text: summary is a plain value'],
  ])('fields=%s', async (fields, message) => {
    const reply = await call('GET', eventPath(), { query: { fields } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe(400);
    expect(reply.body.error.status).toBe('INVALID_ARGUMENT');
    expect(reply.body.error.message).toContain(message);
    expect(reply.body.error.errors).toEqual([
      {
        domain: 'global',
        reason: 'invalidParameter',
        message: reply.body.error.message,
        location: 'fields',
        locationType: 'parameter',
      },
    ]);
  });

  it('refuses a write with a bad mask before it writes anything', async () => {
    const before = await call('GET', listPath(), { query: { fields: 'items/id' } });
    const refused = await call('POST', listPath(), {
      query: { fields: 'id(((' },
      body: timedEvent('Never', 18),
    });
    expect(refused.status).toBe(400);
    const after = await call('GET', listPath(), { query: { fields: 'items/id' } });
    expect(after.body.items).toEqual(before.body.items);
  });
});

describe('If-None-Match answers 304 while the etag is current', () => {
  it('on one event: 304 with no body for its etag, * and the weak tag; 200 for another tag', async () => {
    const read = await call('GET', eventPath());
    const { etag } = read.body;
    for (const tag of [etag, '*', `W/${etag}`, `"other", ${etag}`]) {
      const reply = await call('GET', eventPath(), { headers: { 'if-none-match': tag } });
      expect(reply.status, tag).toBe(304);
      expect(reply.text, tag).toBe('');
      expect(reply.headers.get('etag'), tag).toBe(etag);
    }
    const other = await call('GET', eventPath(), { headers: { 'if-none-match': '"not-the-etag"' } });
    expect(other.status).toBe(200);
    expect(other.body.etag).toBe(etag);
  });

  it('answers 200 with the new version once the event changed', async () => {
    const { etag } = (await call('GET', eventPath())).body;
    const patched = await call('PATCH', eventPath(), { body: { summary: 'Standup (moved)' } });
    expect(patched.body.etag).not.toBe(etag);
    const reply = await call('GET', eventPath(), { headers: { 'if-none-match': etag } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ summary: 'Standup (moved)', etag: patched.body.etag });
  });

  it('still answers 304 when the mask leaves the etag out', async () => {
    const { etag } = (await call('GET', eventPath())).body;
    const reply = await call('GET', eventPath(), {
      query: { fields: 'summary' },
      headers: { 'if-none-match': etag },
    });
    expect(reply.status).toBe(304);
  });

  it.each([
    ['events.list', () => listPath()],
    ['calendars.get', () => `/calendars/${encodeURIComponent(calendarId)}`],
    ['calendarList.list', () => '/users/me/calendarList'],
    ['acl.list', () => `/calendars/${encodeURIComponent(calendarId)}/acl`],
    ['settings.list', () => '/users/me/settings'],
    ['settings.get', () => '/users/me/settings/timezone'],
  ])('%s: 304 for the etag of its answer', async (_name, path) => {
    const first = await call('GET', path());
    expect(first.status).toBe(200);
    const again = await call('GET', path(), { headers: { 'if-none-match': first.body.etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('a list page is 200 again once anything in the list changed', async () => {
    const first = await call('GET', listPath());
    await call('POST', listPath(), { body: timedEvent('Late addition', 19) });
    const again = await call('GET', listPath(), { headers: { 'if-none-match': first.body.etag } });
    expect(again.status).toBe(200);
    expect(again.body.etag).not.toBe(first.body.etag);
  });

  it('is ignored where the answer has no etag (colors.get) and on writes', async () => {
    const colors = await call('GET', '/colors', { headers: { 'if-none-match': '*' } });
    expect(colors.status).toBe(200);
    expect(colors.body.kind).toBe('calendar#colors');
    const patched = await call('PATCH', eventPath(), {
      body: { description: 'x' },
      headers: { 'if-none-match': '*' },
    });
    expect(patched.status).toBe(200);
  });
});
