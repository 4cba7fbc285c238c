/**
 * Ids that are names of Object.prototype's properties (`__proto__`, `constructor`, ...). The
 * state keeps records in plain objects keyed by id, so a lookup of such an id must not find the
 * prototype's property: found by the fuzz test, `calendarList.patch` of `__proto__` wrote
 * `resource` and `revision` onto Object.prototype, and every object of the process had them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { timedEvent, useEmulator } from './support/harness.ts';

const harness = useEmulator();
const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

/** Enumerable properties Object.prototype gained, which every object would then show. */
function pollution(): string[] {
  const found: string[] = [];
  for (const key in {}) found.push(key);
  return found;
}

afterEach(() => {
  expect(pollution(), 'properties written onto Object.prototype').toEqual([]);
});

describe.each(NAMES)('the id %s', (name) => {
  const id = encodeURIComponent(name);

  it('is an unknown calendar, list entry, event, rule and setting', async () => {
    await harness.reset();
    const event = await harness.call('POST', '/calendars/primary/events', { body: timedEvent('Real') });
    expect(event.status).toBe(200);
    const refused: [string, string, unknown?][] = [
      ['GET', `/calendars/${id}`],
      ['PATCH', `/calendars/${id}`, { summary: 'x' }],
      ['DELETE', `/calendars/${id}`],
      ['GET', `/calendars/${id}/events`],
      ['GET', `/users/me/calendarList/${id}`],
      ['PATCH', `/users/me/calendarList/${id}`, { hidden: true }],
      ['PUT', `/users/me/calendarList/${id}`, { hidden: true }],
      ['DELETE', `/users/me/calendarList/${id}`],
      ['GET', `/calendars/primary/events/${id}`],
      ['PATCH', `/calendars/primary/events/${id}`, { summary: 'x' }],
      ['PUT', `/calendars/primary/events/${id}`, timedEvent('x')],
      ['DELETE', `/calendars/primary/events/${id}`],
      ['GET', `/calendars/primary/events/${id}/instances`],
      ['POST', `/calendars/primary/events/${id}/move?destination=primary`],
      ['GET', `/calendars/primary/acl/${id}`],
      ['PATCH', `/calendars/primary/acl/${id}`, { role: 'reader' }],
      ['DELETE', `/calendars/primary/acl/${id}`],
      ['GET', `/users/me/settings/${id}`],
    ];
    for (const [method, path, body] of refused) {
      const reply = await harness.call(method, path, body === undefined ? {} : { body });
      expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBe(404);
    }
    const listed = await harness.call('POST', '/users/me/calendarList', { body: { id: name } });
    expect(listed.status).toBe(404);
    const moved = await harness.call('POST', `/calendars/primary/events/${event.body.id}/move`, {
      query: { destination: name },
    });
    expect(moved.status).toBe(404);
  });

  it('is answered as its own entry by freebusy.query', async () => {
    const reply = await harness.call('POST', '/freeBusy', {
      body: { timeMin: '2026-03-02T00:00:00Z', timeMax: '2026-03-03T00:00:00Z', items: [{ id: name }] },
    });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body.calendars)).toEqual([name]);
    expect(reply.body.calendars[name].errors).toEqual([{ domain: 'global', reason: 'notFound' }]);
  });

  it('is a token like any other', async () => {
    const reply = await harness.call('GET', '/users/me/calendarList', { token: name });
    expect(reply.status).toBe(200);
    expect(reply.body.items).toHaveLength(1);
  });
});

describe('an event id that names a property of Object.prototype', () => {
  // `constructor` is a valid event id (a-v and 0-9, five or more): it must be free, then taken.
  it('can be inserted, read, moved and is then taken', async () => {
    await harness.reset();
    const made = await harness.call('POST', '/calendars/primary/events', {
      body: { id: 'constructor', ...timedEvent('Named') },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.id).toBe('constructor');
    const again = await harness.call('POST', '/calendars/primary/events', {
      body: { id: 'constructor', ...timedEvent('Again') },
    });
    expect(again.status).toBe(409);
    const other = await harness.call('POST', '/calendars', { body: { summary: 'Other' } });
    const moved = await harness.call('POST', '/calendars/primary/events/constructor/move', {
      query: { destination: other.body.id },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const there = await harness.call(
      'GET',
      `/calendars/${encodeURIComponent(other.body.id)}/events/constructor`,
    );
    expect(there.body.summary).toBe('Named');
  });
});
