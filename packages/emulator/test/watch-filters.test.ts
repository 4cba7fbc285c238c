/**
 * Watch channels honour the list parameters of their watch (decision 0056): a channel is told
 * of a change only when its list would show it, after the change or before it (a change that
 * takes an event out of the list is its disappearance). The watch's other refusals and what it
 * accepts without evidence of a refusal (a past expiration, a ttl that is no number). And the
 * notifier's filters as the core has them, kept with a channel another process restores.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ChannelFilter, Notifier } from '../src/core/notifier.ts';
import { type Reply, timedEvent, useEmulator } from './support/harness.ts';

const emu = useEmulator({
  notifications: { retryDelaysMs: [5, 10], timeoutMs: 1000, allow: ['127.0.0.1'] },
});

/** A receiver that counts the messages of each path and their states. */
class Receiver {
  states = new Map<string, string[]>();
  server: Server = createServer((request, response) => {
    const path = request.url ?? '/';
    const list = this.states.get(path) ?? [];
    list.push(String(request.headers['x-goog-resource-state']));
    this.states.set(path, list);
    request.resume();
    response.end();
  });
  origin = '';
  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  on(path: string): string[] {
    return this.states.get(path) ?? [];
  }
}

const receiver = new Receiver();
beforeAll(() => receiver.start());
afterAll(() => new Promise<void>((resolve) => receiver.server.close(() => resolve())));
beforeEach(async () => {
  await emu.reset();
  receiver.states.clear();
});

async function settled() {
  await new Promise((resolve) => setImmediate(resolve));
  await emu.emulator.notifier.idle();
}

let counter = 0;
/** Opens a channel on `path` with the list parameters `query`; its messages arrive at the returned hook. */
async function watch(path: string, query: Record<string, string | boolean | string[]> = {}, body = {}) {
  counter += 1;
  const hook = `/filtered-${counter}`;
  const reply = await emu.call('POST', path, {
    query,
    body: { id: `filtered-${counter}`, type: 'web_hook', address: `${receiver.origin}${hook}`, ...body },
  });
  await settled();
  return { reply, hook };
}

const EVENTS = '/calendars/primary/events';
const insert = (body: object): Promise<Reply> => emu.call('POST', EVENTS, { body });
const idOf = (reply: Reply) => reply.body.id as string;

type Step = (made: string[]) => Promise<unknown>;

describe('events.watch: a channel is told of the changes its list would show', () => {
  const cases: [string, Record<string, string | boolean | string[]>, object[], Step, boolean][] = [
    ['no filter: any change', {}, [], () => insert(timedEvent('anything')), true],
    ['q: an event that matches', { q: 'standup' }, [], () => insert(timedEvent('Team standup')), true],
    ['q: an event that does not', { q: 'standup' }, [], () => insert(timedEvent('Lunch')), false],
    [
      'q: an event renamed out of the search (its disappearance)',
      { q: 'standup' },
      [timedEvent('standup')],
      ([id]) => emu.call('PATCH', `${EVENTS}/${id}`, { body: { summary: 'retro' } }),
      true,
    ],
    [
      'q: a matching event deleted (its disappearance)',
      { q: 'standup' },
      [timedEvent('standup')],
      ([id]) => emu.call('DELETE', `${EVENTS}/${id}`),
      true,
    ],
    [
      'q: an event outside the search changed again',
      { q: 'standup' },
      [timedEvent('lunch')],
      ([id]) => emu.call('PATCH', `${EVENTS}/${id}`, { body: { description: 'at noon' } }),
      false,
    ],
    [
      'timeMin/timeMax: an event inside the window',
      { timeMin: '2026-03-02T08:00:00Z', timeMax: '2026-03-02T12:00:00Z' },
      [],
      () => insert(timedEvent('in', 9)),
      true,
    ],
    [
      'timeMin/timeMax: an event outside the window',
      { timeMin: '2026-03-02T08:00:00Z', timeMax: '2026-03-02T12:00:00Z' },
      [],
      () => insert(timedEvent('out', 14)),
      false,
    ],
    [
      'timeMin/timeMax: an event moved out of the window (its disappearance)',
      { timeMin: '2026-03-02T08:00:00Z', timeMax: '2026-03-02T12:00:00Z' },
      [timedEvent('moving', 9)],
      ([id]) =>
        emu.call('PATCH', `${EVENTS}/${id}`, {
          body: { start: { dateTime: '2026-03-02T14:00:00Z' }, end: { dateTime: '2026-03-02T15:00:00Z' } },
        }),
      true,
    ],
    [
      'timeMin/timeMax: an event moved into the window',
      { timeMin: '2026-03-02T08:00:00Z', timeMax: '2026-03-02T12:00:00Z' },
      [timedEvent('moving', 14)],
      ([id]) =>
        emu.call('PATCH', `${EVENTS}/${id}`, {
          body: { start: { dateTime: '2026-03-02T09:00:00Z' }, end: { dateTime: '2026-03-02T10:00:00Z' } },
        }),
      true,
    ],
    [
      'privateExtendedProperty: a matching event',
      { privateExtendedProperty: 'team=a' },
      [],
      () => insert(timedEvent('a', 9, { extendedProperties: { private: { team: 'a' } } })),
      true,
    ],
    [
      'privateExtendedProperty: another value',
      { privateExtendedProperty: 'team=a' },
      [],
      () => insert(timedEvent('b', 9, { extendedProperties: { private: { team: 'b' } } })),
      false,
    ],
    [
      'sharedExtendedProperty: a private property of that name does not match',
      { sharedExtendedProperty: 'team=a' },
      [],
      () => insert(timedEvent('a', 9, { extendedProperties: { private: { team: 'a' } } })),
      false,
    ],
    [
      'iCalUID: the event of that UID',
      { iCalUID: 'one@example.com' },
      [],
      () => insert(timedEvent('uid', 9, { iCalUID: 'one@example.com' })),
      true,
    ],
    [
      'iCalUID: another event',
      { iCalUID: 'one@example.com' },
      [],
      () => insert(timedEvent('other', 9)),
      false,
    ],
    [
      'eventTypes: an event of another type',
      { eventTypes: ['outOfOffice'] },
      [],
      () => insert(timedEvent('meeting', 9)),
      false,
    ],
    [
      'eventTypes: an event of a listed type',
      { eventTypes: ['default', 'focusTime'] },
      [],
      () => insert(timedEvent('meeting', 9)),
      true,
    ],
    [
      'updatedMin in the future: no change is shown',
      { updatedMin: '2999-01-01T00:00:00Z' },
      [],
      () => insert(timedEvent('now', 9)),
      false,
    ],
    [
      'showDeleted: a deleted event outside the search is still not shown',
      { q: 'standup', showDeleted: true },
      [timedEvent('lunch')],
      ([id]) => emu.call('DELETE', `${EVENTS}/${id}`),
      false,
    ],
    [
      'singleEvents with a window: an instance of a shown recurring event deleted',
      { singleEvents: true, timeMin: '2026-03-02T00:00:00Z', timeMax: '2026-03-05T00:00:00Z' },
      [
        {
          summary: 'daily',
          start: { dateTime: '2026-03-02T09:00:00', timeZone: 'UTC' },
          end: { dateTime: '2026-03-02T10:00:00', timeZone: 'UTC' },
          recurrence: ['RRULE:FREQ=DAILY;COUNT=5'],
        },
      ],
      ([id]) => emu.call('DELETE', `${EVENTS}/${id}_20260303T090000Z`),
      true,
    ],
    [
      'singleEvents with a window: a recurring event whose instances are all outside it',
      { singleEvents: true, timeMin: '2026-03-02T00:00:00Z', timeMax: '2026-03-05T00:00:00Z' },
      [],
      () =>
        insert({
          summary: 'later',
          start: { dateTime: '2026-04-01T09:00:00', timeZone: 'UTC' },
          end: { dateTime: '2026-04-01T10:00:00', timeZone: 'UTC' },
          recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
        }),
      false,
    ],
  ];

  it.each(cases)('%s', async (_name, query, before, change, told) => {
    const made: string[] = [];
    for (const body of before) {
      const reply = await insert(body);
      expect(reply.status).toBe(200);
      made.push(idOf(reply));
    }
    const { reply, hook } = await watch(`${EVENTS}/watch`, query);
    expect(reply.status).toBe(200);
    const changed = (await change(made)) as Reply;
    expect(changed.status).toBeLessThan(300);
    await settled();
    expect(receiver.on(hook)).toEqual(told ? ['sync', 'exists'] : ['sync']);
  });

  it('each request is judged on its own changes, several requests in one turn included', async () => {
    const { hook } = await watch(`${EVENTS}/watch`, { q: 'standup' });
    await Promise.all([
      insert(timedEvent('standup one')),
      insert(timedEvent('lunch')),
      insert(timedEvent('standup two')),
    ]);
    await settled();
    expect(receiver.on(hook)).toEqual(['sync', 'exists', 'exists']);
  });

  it('a property filter is read as the list reads it: the watch answers as the list does', async () => {
    const list = await emu.call('GET', EVENTS, { query: { privateExtendedProperty: 'no-equals' } });
    const { reply } = await watch(`${EVENTS}/watch`, { privateExtendedProperty: 'no-equals' });
    expect(reply.status === 200).toBe(list.status === 200);
  });

  it('the calendar deleted is told (not_exists) whatever the filter', async () => {
    const id = (await emu.call('POST', '/calendars', { body: { summary: 'gone' } })).body.id as string;
    const { hook } = await watch(`/calendars/${encodeURIComponent(id)}/events/watch`, {
      q: 'nothing matches',
    });
    await emu.call('DELETE', `/calendars/${encodeURIComponent(id)}`);
    await settled();
    expect(receiver.on(hook)).toEqual(['sync', 'not_exists']);
  });
});

describe('calendarList.watch: a channel is told of the changes its list would show', () => {
  const LIST = '/users/me/calendarList';
  const OTHER = 'other@example.com';
  const entry = (id: string) => `${LIST}/${encodeURIComponent(id)}`;
  const secondary = async (summary: string) =>
    (await emu.call('POST', '/calendars', { body: { summary } })).body.id as string;
  const hide = async () => {
    const id = await secondary('hidden');
    await emu.call('PATCH', entry(id), { body: { hidden: true } });
    return [id];
  };
  const recolor: Step = ([id]) => emu.call('PATCH', entry(id as string), { body: { colorId: '3' } });
  const renameOthers: Step = () =>
    emu.call('PATCH', '/calendars/primary', { token: OTHER, body: { summary: 'theirs' } });
  const none = async () => [];
  const cases: [string, Record<string, string | boolean>, () => Promise<string[]>, Step, boolean][] = [
    [
      'an entry hidden (its disappearance)',
      {},
      async () => [await secondary('x')],
      ([id]) => emu.call('PATCH', entry(id as string), { body: { hidden: true } }),
      true,
    ],
    ['a hidden entry changed again', {}, hide, recolor, false],
    ['a hidden entry changed again, with showHidden', { showHidden: true }, hide, recolor, true],
    [
      'a calendar of the user added, with minAccessRole=owner',
      { minAccessRole: 'owner' },
      none,
      () => secondary('mine'),
      true,
    ],
    [
      'a calendar shared as reader renamed by its owner, with minAccessRole=owner',
      { minAccessRole: 'owner' },
      none,
      renameOthers,
      false,
    ],
    ['the same, with minAccessRole=reader', { minAccessRole: 'reader' }, none, renameOthers, true],
  ];

  it.each(cases)('%s', async (_name, query, before, change, told) => {
    // Ana lists a calendar of other@example.com, shared with her as reader.
    await emu.call('POST', '/calendars/primary/acl', {
      token: OTHER,
      body: { role: 'reader', scope: { type: 'user', value: 'ana@example.com' } },
    });
    expect((await emu.call('POST', LIST, { body: { id: OTHER } })).status).toBe(200);
    const made = await before();
    const { hook } = await watch(`${LIST}/watch`, query);
    const changed = (await change(made)) as Reply | string;
    if (typeof changed !== 'string') expect(changed.status).toBeLessThan(300);
    await settled();
    expect(receiver.on(hook)).toEqual(told ? ['sync', 'exists'] : ['sync']);
  });
});

describe('acl.watch and settings.watch: their lists hide no change', () => {
  it('a deleted rule is told with or without showDeleted', async () => {
    const made = await emu.call('POST', '/calendars/primary/acl', {
      body: { role: 'reader', scope: { type: 'default' } },
    });
    const plain = await watch('/calendars/primary/acl/watch');
    const deleted = await watch('/calendars/primary/acl/watch', { showDeleted: true });
    await emu.call('DELETE', `/calendars/primary/acl/${made.body.id}`);
    await settled();
    expect(receiver.on(plain.hook)).toEqual(['sync', 'exists']);
    expect(receiver.on(deleted.hook)).toEqual(['sync', 'exists']);
  });
});

describe('what a watch accepts and refuses', () => {
  it('an expiration already past is granted as asked: the channel sends nothing', async () => {
    const { reply, hook } = await watch(`${EVENTS}/watch`, {}, { expiration: '1000' });
    expect(reply.status).toBe(200);
    expect(reply.body.expiration).toBe('1000');
    await insert(timedEvent('unheard'));
    await settled();
    expect(receiver.on(hook)).toEqual([]);
  });

  it.each([
    ['a ttl that is no number of seconds', 'soon'],
    ['a negative ttl', '-5'],
  ])('%s is not read: the default week applies', async (_name, ttl) => {
    const before = Date.now();
    const { reply } = await watch(`${EVENTS}/watch`, {}, { params: { ttl } });
    expect(reply.status).toBe(200);
    const granted = Number(reply.body.expiration) - before;
    expect(granted).toBeGreaterThan(7 * 24 * 3600 * 1000 - 60_000);
    expect(granted).toBeLessThanOrEqual(7 * 24 * 3600 * 1000 + 60_000);
  });

  it.each([
    ['an address that is no URL', { address: 'not a url' }, 'push.webhookUrlNoHostOrAddress', 'global'],
    ['an address of another scheme', { address: 'ftp://127.0.0.1/x' }, 'push.webhookUrlNotHttps', 'global'],
    [
      'an address the delivery policy refuses',
      { address: 'http://169.254.169.254/' },
      'push.webhookUrlUnauthorized',
      'global',
    ],
  ])('refuses %s', async (_name, body, reason, domain) => {
    const reply = await emu.call('POST', `${EVENTS}/watch`, {
      body: { id: `refused-${reason.replaceAll('.', '-')}`, type: 'web_hook', ...body },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0]).toMatchObject({ reason, domain, location: 'address' });
  });
});

describe('the notifier: filters by kind, kept with the channel', () => {
  const request = (id: string, filter?: ChannelFilter) => ({
    id,
    address: 'http://127.0.0.1:9/never',
    expiration: Date.now() + 60_000,
    key: 'things:1',
    resourceUri: 'http://127.0.0.1/things',
    owner: 'someone@example.com',
    ...(filter ? { filter } : {}),
  });

  it('asks the predicate of the filter’s kind, which may update its data; a channel restored elsewhere is judged the same', async () => {
    const sent: string[] = [];
    const make = () => {
      const notifier = new Notifier({
        retryDelaysMs: [],
        onDelivery: (report) => sent.push(`${report.channelId}:${report.state}`),
      });
      // Nothing listens at the address: each delivery is reported, then dropped.
      notifier.filterWith('count', (filter) => {
        const data = filter.data as { seen: number };
        filter.data = { seen: data.seen + 1 };
        return data.seen % 2 === 1;
      });
      return notifier;
    };
    const one = make();
    one.open(request('filtered', { kind: 'count', data: { seen: 0 } }));
    one.open(request('plain'));
    one.open(request('unknown kind', { kind: 'nobody', data: {} }));
    const changes = new Map([['things:1', 'exists' as const]]);
    one.dispatch(changes);
    await one.idle();
    expect(sent.filter((line) => line.endsWith(':exists')).sort()).toEqual([
      'plain:exists',
      'unknown kind:exists',
    ]);
    // Another process restores the channels, data included, and judges the next change.
    const other = make();
    other.restore(one.save());
    sent.length = 0;
    other.dispatch(changes);
    await other.idle();
    expect(sent.filter((line) => line.endsWith(':exists')).sort()).toEqual([
      'filtered:exists',
      'plain:exists',
      'unknown kind:exists',
    ]);
    expect(
      JSON.parse(other.save()).find((channel: { id: string }) => channel.id === 'filtered').filter,
    ).toEqual({
      kind: 'count',
      data: { seen: 2 },
    });
    one.reset();
    other.reset();
  });

  it('a collection gone is told whatever the filter, and closes the channel', async () => {
    const sent: string[] = [];
    const notifier = new Notifier({ retryDelaysMs: [], onDelivery: (report) => sent.push(report.state) });
    notifier.filterWith('never', () => false);
    notifier.open(request('gone', { kind: 'never', data: null }));
    notifier.dispatch(new Map([['things:1', 'not_exists' as const]]));
    await notifier.idle();
    expect(sent).toEqual(['sync', 'not_exists']);
    expect(notifier.channels.size).toBe(0);
  });
});
