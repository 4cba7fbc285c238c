/** Paging with page tokens and incremental sync with sync tokens, as x-pagination and x-sync describe. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { applySeed } from '../src/core/seed.ts';
import { readApiSpec } from '../src/core/spec.ts';
import { parseSeed } from '../src/emulator.ts';
import { spec, timedEvent, useEmulator } from './support/harness.ts';

const emu = useEmulator();
beforeEach(() => emu.reset());

const ids = (reply: { body: { items: { id: string }[] } }) => reply.body.items.map((item) => item.id);

async function insertMany(count: number) {
  const made: string[] = [];
  for (let i = 0; i < count; i++) {
    const reply = await emu.call('POST', '/calendars/primary/events', {
      body: timedEvent(`e${i}`, 1 + ((i * 7) % 20)),
    });
    made.push(reply.body.id);
  }
  return made;
}

/** Every page of a listing; the last one's nextSyncToken. */
async function listAll(query: Record<string, string | number | boolean>) {
  const seen: string[] = [];
  let pageToken: string | undefined;
  let pages = 0;
  for (;;) {
    const reply = await emu.call('GET', '/calendars/primary/events', {
      query: { ...query, ...(pageToken ? { pageToken } : {}) },
    });
    expect(reply.status).toBe(200);
    pages++;
    seen.push(...ids(reply));
    if (!reply.body.nextPageToken) return { seen, pages, syncToken: reply.body.nextSyncToken as string };
    expect(reply.body.nextSyncToken).toBeUndefined();
    pageToken = reply.body.nextPageToken;
  }
}

describe('paging', () => {
  // The live service takes any maxResults of 1 or more and never serves more than its cap on
  // one page (x-pagination.maxPageSize): a larger value is not refused.
  it.each([
    ['events.list', '/calendars/primary/events', 2500, 5000],
    ['calendarList.list', '/users/me/calendarList', 250, 1000],
    ['acl.list', '/calendars/primary/acl', 250, 1000],
  ] as const)('%s (%s): maxResults above the cap is served as %i per page', async (_op, path, cap, asked) => {
    const seedEvents = [
      ...Array.from({ length: cap + 3 }, (_, i) => ({
        summary: `e${i}`,
        start: { dateTime: `2026-03-02T09:00:${String(i % 60).padStart(2, '0')}Z` },
        end: { dateTime: '2026-03-02T10:00:00Z' },
      })),
      {
        id: 'recur00001',
        summary: 'Daily',
        start: { dateTime: '2026-03-02T09:00:00Z', timeZone: 'UTC' },
        end: { dateTime: '2026-03-02T09:30:00Z', timeZone: 'UTC' },
        recurrence: ['RRULE:FREQ=DAILY;COUNT=10'],
      },
    ];
    const acl = Array.from({ length: cap + 3 }, (_, i) => ({
      role: 'reader',
      scope: { type: 'user', value: `u${i}@example.com` },
    }));
    const calendars = [
      { id: 'primary', owner: 'ana@example.com', events: seedEvents, acl },
      ...Array.from({ length: cap + 3 }, (_, i) => ({ owner: 'ana@example.com', summary: `c${i}` })),
    ];
    await emu.reset();
    await emu.inProcess(() => applySeed(emu.emulator, parseSeed({ calendars }, 'seed.json'), 'seed.json'));
    const first = await emu.call('GET', path, { query: { maxResults: asked } });
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(cap);
    expect(first.body.nextPageToken).toBeTypeOf('string');
    const second = await emu.call('GET', path, {
      query: { maxResults: asked, pageToken: first.body.nextPageToken },
    });
    expect(second.status).toBe(200);
    expect(second.body.items.length).toBeGreaterThan(0);
    if (cap === 2500) {
      const instances = await emu.call('GET', '/calendars/primary/events/recur00001/instances', {
        query: { maxResults: asked },
      });
      expect(instances.status).toBe(200);
    }
  });

  it.each([
    [7, 3, 3],
    [6, 3, 2],
    [5, 10, 1],
  ])(
    '%i events by %i per page: %i pages, each once, sync token on the last',
    async (count, maxResults, pages) => {
      const made = await insertMany(count);
      const all = await listAll({ maxResults });
      expect(all.pages).toBe(pages);
      expect(all.seen).toEqual(made);
      expect(all.syncToken).toBeTypeOf('string');
    },
  );

  it('orders by start time (with singleEvents) and by update', async () => {
    const made = await insertMany(4);
    const starts = await emu.call('GET', '/calendars/primary/events', {
      query: { orderBy: 'startTime', singleEvents: true },
    });
    expect(starts.body.items.map((e: { start: { dateTime: string } }) => e.start.dateTime)).toEqual(
      starts.body.items.map((e: { start: { dateTime: string } }) => e.start.dateTime).sort(),
    );
    await emu.call('PATCH', `/calendars/primary/events/${made[0]}`, { body: { summary: 'latest' } });
    const updated = await emu.call('GET', '/calendars/primary/events', { query: { orderBy: 'updated' } });
    expect(ids(updated).at(-1)).toBe(made[0]);
  });

  it('an event written while paging is left out of later pages and comes with the next sync', async () => {
    const made = await insertMany(4);
    const first = await emu.call('GET', '/calendars/primary/events', { query: { maxResults: 2 } });
    await emu.call('PATCH', `/calendars/primary/events/${made[3]}`, {
      body: { summary: 'changed meanwhile' },
    });
    const second = await emu.call('GET', '/calendars/primary/events', {
      query: { maxResults: 2, pageToken: first.body.nextPageToken },
    });
    expect([...ids(first), ...ids(second)]).toEqual(made.slice(0, 3));
    const sync = await emu.call('GET', '/calendars/primary/events', {
      query: { syncToken: second.body.nextSyncToken },
    });
    expect(ids(sync)).toEqual([made[3]]);
  });

  it('refuses a page token that is garbage with 400 on pageToken', async () => {
    await insertMany(3);
    const reply = await emu.call('GET', '/calendars/primary/events', { query: { pageToken: 'not-a-token' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0].location).toBe('pageToken');
  });

  // Google states no refusal for it (decision 0055): the listing goes on from the token's place
  // under the parameters of the request.
  it('serves a page token asked with other parameters from its place on', async () => {
    await insertMany(3);
    const first = await emu.call('GET', '/calendars/primary/events', { query: { maxResults: 1 } });
    const reply = await emu.call('GET', '/calendars/primary/events', {
      query: { maxResults: 5, showDeleted: 'true', pageToken: first.body.nextPageToken },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.items).toHaveLength(2);
    expect(reply.body.items.map((i: { id: string }) => i.id)).not.toContain(first.body.items[0].id);
  });
});

describe('filters', () => {
  it.each([
    ['timeMin', { timeMin: '2026-03-02T10:00:00Z' }, ['b', 'c']],
    ['timeMax', { timeMax: '2026-03-02T10:00:00Z' }, ['a']],
    ['timeMin and timeMax', { timeMin: '2026-03-02T10:30:00Z', timeMax: '2026-03-02T11:30:00Z' }, ['b']],
    ['q over summary and location', { q: 'zurich' }, ['c']],
    ['iCalUID', { iCalUID: 'uid-b@example.org' }, ['b']],
    ['privateExtendedProperty', { privateExtendedProperty: 'team=red' }, ['a']],
  ])('%s', async (_name, query, expected) => {
    await emu.call('POST', '/calendars/primary/events', {
      body: timedEvent('a', 9, { extendedProperties: { private: { team: 'red' } } }),
    });
    await emu.call('POST', '/calendars/primary/events/import', {
      body: { ...timedEvent('b', 11), iCalUID: 'uid-b@example.org' },
    });
    await emu.call('POST', '/calendars/primary/events', {
      body: timedEvent('c', 13, { location: 'Zurich HB' }),
    });
    const reply = await emu.call('GET', '/calendars/primary/events', { query });
    expect(reply.status).toBe(200);
    expect(reply.body.items.map((e: { summary: string }) => e.summary)).toEqual(expected);
  });

  it('showDeleted includes cancelled events; without it they are left out', async () => {
    const [gone, kept] = await insertMany(2);
    expect((await emu.call('DELETE', `/calendars/primary/events/${gone}`)).status).toBe(204);
    expect(ids(await emu.call('GET', '/calendars/primary/events'))).toEqual([kept]);
    const all = await emu.call('GET', '/calendars/primary/events', { query: { showDeleted: true } });
    expect(all.body.items.map((e: { id: string; status: string }) => [e.id, e.status])).toEqual([
      [gone, 'cancelled'],
      [kept, 'confirmed'],
    ]);
    const again = await emu.call('DELETE', `/calendars/primary/events/${gone}`);
    expect(again.status).toBe(410);
    expect(again.body.error.errors[0].reason).toBe('deleted');
  });

  it('orderBy=startTime without singleEvents is refused', async () => {
    const reply = await emu.call('GET', '/calendars/primary/events', { query: { orderBy: 'startTime' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0].location).toBe('orderBy');
  });
});

describe('incremental sync', () => {
  it('a sync token returns exactly the changes since, deletions included', async () => {
    const [a, b, c] = await insertMany(3);
    const { syncToken } = await listAll({});
    const empty = await emu.call('GET', '/calendars/primary/events', { query: { syncToken } });
    expect(empty.body.items).toEqual([]);
    await emu.call('PATCH', `/calendars/primary/events/${a}`, { body: { summary: 'changed' } });
    await emu.call('DELETE', `/calendars/primary/events/${b}`);
    const [d] = await insertMany(1);
    const changes = await emu.call('GET', '/calendars/primary/events', { query: { syncToken } });
    expect(changes.body.items.map((e: { id: string; status: string }) => [e.id, e.status])).toEqual([
      [a, 'confirmed'],
      [b, 'cancelled'],
      [d, 'confirmed'],
    ]);
    expect(ids(changes)).not.toContain(c);
    const next = await emu.call('GET', '/calendars/primary/events', {
      query: { syncToken: changes.body.nextSyncToken },
    });
    expect(next.body.items).toEqual([]);
  });

  it('sync pages like a full listing', async () => {
    const { syncToken } = await listAll({});
    const made = await insertMany(5);
    const all = await listAll({ syncToken, maxResults: 2 });
    expect(all.seen).toEqual(made);
    expect(all.pages).toBe(3);
  });

  const incompatible = spec.byId.get('events.list')?.sync?.incompatibleParameters ?? [];
  const values: Record<string, string> = {
    iCalUID: 'x@example.org',
    orderBy: 'updated',
    q: 'x',
    timeMin: '2026-01-01T00:00:00Z',
    timeMax: '2026-12-01T00:00:00Z',
    updatedMin: '2026-01-01T00:00:00Z',
    privateExtendedProperty: 'a=b',
    sharedExtendedProperty: 'a=b',
  };
  it.each(incompatible)('refuses syncToken with %s (x-sync) with 400 on that parameter', async (name) => {
    const { syncToken } = await listAll({});
    const reply = await emu.call('GET', '/calendars/primary/events', {
      query: { syncToken, [name]: values[name] ?? 'x' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0]).toMatchObject({ reason: 'invalid', location: name });
  });

  it.each([
    ['unknown', async () => 'no-such-token'],
    [
      'from another calendar',
      async () => {
        const made = await emu.call('POST', '/calendars', { body: { summary: 'other' } });
        const list = await emu.call('GET', `/calendars/${encodeURIComponent(made.body.id)}/events`);
        return list.body.nextSyncToken as string;
      },
    ],
    [
      'from before a reset',
      async () => {
        const { syncToken } = await listAll({});
        await emu.reset();
        return syncToken;
      },
    ],
  ])('an %s token gets 410 fullSyncRequired', async (_name, token) => {
    const reply = await emu.call('GET', '/calendars/primary/events', { query: { syncToken: await token() } });
    expect(reply.status).toBe(410);
    expect(reply.body.error.errors[0]).toMatchObject({ reason: 'fullSyncRequired', domain: 'calendar' });
  });

  it('the calendar list syncs too: a deleted calendar comes as deleted', async () => {
    const list = await emu.call('GET', '/users/me/calendarList');
    const made = await emu.call('POST', '/calendars', { body: { summary: 'short-lived' } });
    await emu.call('DELETE', `/calendars/${encodeURIComponent(made.body.id)}`);
    const changes = await emu.call('GET', '/users/me/calendarList', {
      query: { syncToken: list.body.nextSyncToken },
    });
    expect(changes.body.items).toEqual([expect.objectContaining({ id: made.body.id, deleted: true })]);
    const refused = await emu.call('GET', '/users/me/calendarList', {
      query: { syncToken: list.body.nextSyncToken, minAccessRole: 'owner' },
    });
    expect(refused.status).toBe(400);
  });
});

describe('x-pagination.maxPageSize in the spec', () => {
  const withCap = (cap: unknown) => {
    const document = JSON.parse(
      readFileSync(path.resolve(import.meta.dirname, '../../../specs/dist/calendar.json'), 'utf8'),
    );
    document.paths['/users/me/calendarList'].get['x-pagination'].maxPageSize = cap;
    return document;
  };
  it.each([0, -1, 2.5, '250'])('refuses %j, naming where it is', (cap) => {
    expect(() => readApiSpec(withCap(cap), 'calendar.json')).toThrow(
      /calendarList\.list|\/users\/me\/calendarList.*x-pagination\.maxPageSize: expected a whole number above 0/,
    );
  });
  it('reads a whole number', () => {
    const read = readApiSpec(withCap(7), 'calendar.json');
    expect(read.operations.find((op) => op.id === 'calendarList.list')?.pagination?.maxPageSize).toBe(7);
  });
});
