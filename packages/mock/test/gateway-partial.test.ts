/**
 * Partial responses (`fields`) and conditional reads (`If-None-Match`) of the mock gateway,
 * applied to Prism's answer (decision 0038).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, loadApis, parseFaults } from '../src/index.ts';

const auth = { authorization: 'Bearer test-token' };
let gateway: Gateway;
let origin: string;

beforeAll(async () => {
  const apis = await loadApis();
  // A scripted answer: acl.get answers its domainRule example, every time.
  const faults = parseFaults(
    { operations: { 'acl.get': { sequence: [{ example: 'domainRule' }], repeat: true } } },
    apis,
  );
  gateway = createGateway({ apis, faults });
  origin = await gateway.listen(0);
});
afterAll(() => gateway.close());

async function get(path: string, query: Record<string, string> = {}, headers: Record<string, string> = {}) {
  const url = new URL(`${origin}${path}`);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const response = await fetch(url, { headers: { ...auth, ...headers } });
  const text = await response.text();
  const json = text !== '' && /json/.test(response.headers.get('content-type') ?? '');
  return {
    status: response.status,
    headers: response.headers,
    text,
    // biome-ignore lint/suspicious/noExplicitAny: answers are read freely here.
    body: json ? (JSON.parse(text) as any) : undefined,
  };
}

const EVENT = '/calendar/v3/calendars/primary/events/evt1';
const EVENTS = '/calendar/v3/calendars/primary/events';

describe('fields trims the mocked answer', () => {
  it.each([
    ['id,summary', ['id', 'summary']],
    ['start/dateTime', ['start']],
    ['kind,attendees(email)', ['attendees', 'kind']],
  ])('events.get with fields=%s keeps only %j', async (fields, keys) => {
    const whole = await get(EVENT);
    const reply = await get(EVENT, { fields });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(keys);
    for (const key of keys.filter((k) => k !== 'start' && k !== 'attendees'))
      expect(reply.body[key]).toEqual(whole.body[key]);
  });

  it('keeps parents of a nested selection with only what is selected', async () => {
    const whole = await get(EVENT);
    const reply = await get(EVENT, { fields: 'start/dateTime,attendees/email' });
    expect(reply.body).toEqual({
      start: { dateTime: whole.body.start.dateTime },
      attendees: whole.body.attendees.map((a: { email: string }) => ({ email: a.email })),
    });
  });

  it('trims every item of a list page', async () => {
    const reply = await get(EVENTS, { fields: 'items(id,summary),nextPageToken' });
    expect(reply.status).toBe(200);
    expect(reply.body.items.length).toBeGreaterThan(0);
    for (const item of reply.body.items) expect(Object.keys(item).sort()).toEqual(['id', 'summary']);
    expect(Object.keys(reply.body).every((key) => ['items', 'nextPageToken'].includes(key))).toBe(true);
  });

  it('trims a scripted example as well', async () => {
    const reply = await get('/calendar/v3/calendars/primary/acl/user:ana@example.com', { fields: 'role' });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(['role']);
  });

  it('sends error answers whole', async () => {
    const reply = await get(EVENT, { fields: 'id', __code: '404' });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe(404);
  });

  it('leaves the ID-mapping CSV whole', async () => {
    const path = '/doubleclicksearch/v2/agency/1/advertiser/2/idmapping';
    const whole = await get(path);
    const reply = await get(path, { fields: 'id' });
    expect(reply.status).toBe(200);
    expect(reply.text).toBe(whole.text);
  });

  it.each([
    ['id(((', 'Invalid field selection id(((: expected a field name or * at character 4'],
    ['colour', 'Invalid field selection colour: the answer has no field colour'],
    ['summary/text', 'Invalid field selection summary/text'],
  ])('refuses fields=%s with 400 naming it', async (fields, message) => {
    const reply = await get(EVENT, { fields });
    expect(reply.status).toBe(400);
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
});

describe("If-None-Match against the example's etag", () => {
  it.each([
    ['events.get', EVENT],
    ['events.list', EVENTS],
    ['calendarList.list', '/calendar/v3/users/me/calendarList'],
    ['settings.get', '/calendar/v3/users/me/settings/timezone'],
  ])('%s: 304 with no body for the etag it answers, * and the weak tag', async (_id, path) => {
    const whole = await get(path);
    expect(typeof whole.body.etag).toBe('string');
    for (const tag of [whole.body.etag, '*', `W/${whole.body.etag}`]) {
      const reply = await get(path, {}, { 'if-none-match': tag });
      expect(reply.status, tag).toBe(304);
      expect(reply.text, tag).toBe('');
      expect(reply.headers.get('etag'), tag).toBe(whole.body.etag);
    }
  });

  it('answers 200 for another tag', async () => {
    const reply = await get(EVENT, {}, { 'if-none-match': '"not-the-example"' });
    expect(reply.status).toBe(200);
    expect(reply.body.kind).toBe('calendar#event');
  });

  it('answers 200 where no 304 is documented (colors.get)', async () => {
    const reply = await get('/calendar/v3/colors', {}, { 'if-none-match': '*' });
    expect(reply.status).toBe(200);
  });
});
