/**
 * Watch channels and push notifications, received by a local HTTP receiver on 127.0.0.1.
 * Waits are bounded: a poll with a deadline for what must arrive, and the notifier's own
 * `idle()` (every queued delivery done or given up) before checking that nothing arrived.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, timedEvent, useEmulator } from './support/harness.ts';

// The receivers' address is listed: a shared store (EMULATOR_TEST_STORE) delivers only there.
const emu = useEmulator({
  notifications: { retryDelaysMs: [5, 10], timeoutMs: 1000, allow: ['127.0.0.1'] },
});

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver that records every POST and answers with the next status of `statuses` (then 200). */
class Receiver {
  received: Received[] = [];
  statuses: number[] = [];
  server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      this.received.push({ path: request.url ?? '/', headers: request.headers, body });
      response.writeHead(this.statuses.shift() ?? 200);
      response.end();
    });
  });
  origin = '';

  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  on(path: string) {
    return this.received.filter((message) => message.path === path);
  }

  /** Waits (at most `ms`) until `count` messages have reached `path`. */
  async waitFor(path: string, count: number, ms = 3000) {
    const deadline = Date.now() + ms;
    while (this.on(path).length < count) {
      if (Date.now() > deadline)
        throw new Error(`expected ${count} notifications on ${path}, got ${this.on(path).length}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return this.on(path);
  }
}

const receiver = new Receiver();
beforeAll(() => receiver.start());
afterAll(() => new Promise<void>((resolve) => receiver.server.close(() => resolve())));
beforeEach(async () => {
  await emu.reset();
  receiver.received = [];
  receiver.statuses = [];
});

/** Every delivery under way finished (after the request's own turn of the event loop). */
async function settled(harness: Harness) {
  await new Promise((resolve) => setImmediate(resolve));
  await harness.emulator.notifier.idle();
}

let counter = 0;
async function watch(path: string, extra: Record<string, unknown> = {}, token?: string) {
  counter += 1;
  const hook = `/hook-${counter}`;
  const reply = await emu.call('POST', path, {
    ...(token ? { token } : {}),
    body: { id: `channel-${counter}`, type: 'web_hook', address: `${receiver.origin}${hook}`, ...extra },
  });
  return { reply, hook };
}

const state = (message: Received) => message.headers['x-goog-resource-state'];

async function secondary() {
  return (await emu.call('POST', '/calendars', { body: { summary: 'Watched' } })).body.id as string;
}

describe('watch: sync first, then exists on changes', () => {
  const cases: [string, () => Promise<string>, (path: string) => Promise<unknown>][] = [
    [
      'events.watch',
      async () => '/calendars/primary/events/watch',
      () => emu.call('POST', '/calendars/primary/events', { body: timedEvent('new') }),
    ],
    [
      'acl.watch',
      async () => '/calendars/primary/acl/watch',
      () =>
        emu.call('POST', '/calendars/primary/acl', { body: { role: 'reader', scope: { type: 'default' } } }),
    ],
    [
      'calendarList.watch',
      async () => '/users/me/calendarList/watch',
      () => emu.call('POST', '/calendars', { body: { summary: 'new' } }),
    ],
    [
      'calendarList.watch (a calendar on the list renamed)',
      async () => '/users/me/calendarList/watch',
      () => emu.call('PATCH', '/calendars/primary', { body: { summary: 'renamed' } }),
    ],
  ];

  it.each(cases)('%s', async (_name, path, change) => {
    const { reply, hook } = await watch(await path(), { token: 'secret-1', params: { ttl: '3600' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ kind: 'api#channel', id: expect.any(String), token: 'secret-1' });
    const [sync] = await receiver.waitFor(hook, 1);
    expect(sync?.headers).toMatchObject({
      'x-goog-channel-id': reply.body.id,
      'x-goog-channel-token': 'secret-1',
      'x-goog-channel-expiration': new Date(Number(reply.body.expiration)).toUTCString(),
      'x-goog-resource-id': reply.body.resourceId,
      'x-goog-resource-uri': reply.body.resourceUri,
      'x-goog-resource-state': 'sync',
      'x-goog-message-number': '1',
    });
    expect(sync?.body).toBe('');
    expect(Number(reply.body.expiration) - Date.now()).toBeGreaterThan(3590_000);
    expect(Number(reply.body.expiration) - Date.now()).toBeLessThanOrEqual(3600_000);
    await change('');
    const messages = await receiver.waitFor(hook, 2);
    expect(messages.map(state)).toEqual(['sync', 'exists']);
    expect(messages[1]?.headers['x-goog-message-number']).toBe('2');
    expect(messages[1]?.headers['x-goog-resource-id']).toBe(reply.body.resourceId);
  });

  it('settings.watch says sync (settings never change)', async () => {
    const { reply, hook } = await watch('/users/me/settings/watch');
    expect(reply.body.resourceUri).toBe(`${emu.base}/users/me/settings?alt=json`);
    expect((await receiver.waitFor(hook, 1)).map(state)).toEqual(['sync']);
  });

  it('the resourceUri and resourceId name the watched collection; a change elsewhere says nothing', async () => {
    const other = await secondary();
    const { reply, hook } = await watch('/calendars/primary/events/watch');
    expect(reply.body.resourceUri).toBe(`${emu.base}/calendars/primary/events?alt=json`);
    const again = await watch('/calendars/ana%40example.com/events/watch');
    expect(again.reply.body.resourceId).toBe(reply.body.resourceId);
    await receiver.waitFor(hook, 1);
    await emu.call('POST', `/calendars/${encodeURIComponent(other)}/events`, {
      body: timedEvent('elsewhere'),
    });
    await settled(emu);
    expect(receiver.on(hook).map(state)).toEqual(['sync']);
  });

  it('a deleted calendar says not_exists to its watchers, and the channel closes', async () => {
    const id = await secondary();
    const { reply, hook } = await watch(`/calendars/${encodeURIComponent(id)}/events/watch`);
    await receiver.waitFor(hook, 1);
    await emu.call('DELETE', `/calendars/${encodeURIComponent(id)}`);
    expect((await receiver.waitFor(hook, 2)).map(state)).toEqual(['sync', 'not_exists']);
    const stop = await emu.call('POST', '/channels/stop', {
      body: { id: reply.body.id, resourceId: reply.body.resourceId },
    });
    expect(stop.status).toBe(404);
  });

  it('a user with a shared calendar can watch it; events.watch needs to see it, acl.watch to own it', async () => {
    const id = await secondary();
    const path = `/calendars/${encodeURIComponent(id)}`;
    expect((await watch(`${path}/events/watch`, {}, 'bo@example.com')).reply.status).toBe(404);
    await emu.call('POST', `${path}/acl`, {
      body: { role: 'reader', scope: { type: 'user', value: 'bo@example.com' } },
    });
    const { reply, hook } = await watch(`${path}/events/watch`, {}, 'bo@example.com');
    expect(reply.status).toBe(200);
    expect((await watch(`${path}/acl/watch`, {}, 'bo@example.com')).reply.status).toBe(403);
    await emu.call('POST', `${path}/events`, { body: timedEvent('by Ana') });
    expect((await receiver.waitFor(hook, 2)).map(state)).toEqual(['sync', 'exists']);
  });
});

describe('channels', () => {
  it('channels.stop ends delivery; an unknown channel or resource is 404', async () => {
    const { reply, hook } = await watch('/calendars/primary/events/watch');
    await receiver.waitFor(hook, 1);
    const pair = { id: reply.body.id, resourceId: reply.body.resourceId };
    for (const wrong of [
      { ...pair, resourceId: 'other' },
      { ...pair, id: 'nope' },
    ]) {
      expect((await emu.call('POST', '/channels/stop', { body: wrong })).status).toBe(404);
    }
    expect((await emu.call('POST', '/channels/stop', { body: pair, token: 'bo@example.com' })).status).toBe(
      404,
    );
    expect((await emu.call('POST', '/channels/stop', { body: pair })).status).toBe(204);
    await emu.call('POST', '/calendars/primary/events', { body: timedEvent('unheard') });
    await settled(emu);
    expect(receiver.on(hook).map(state)).toEqual(['sync']);
    expect((await emu.call('POST', '/channels/stop', { body: pair })).status).toBe(404);
  });

  it('expiration is honoured: an expired channel sends nothing more', async () => {
    const expiration = Date.now() + 150;
    const { reply, hook } = await watch('/calendars/primary/events/watch', {
      expiration: String(expiration),
    });
    expect(reply.body.expiration).toBe(String(expiration));
    await receiver.waitFor(hook, 1);
    while (Date.now() <= expiration) await new Promise((resolve) => setTimeout(resolve, 10));
    await emu.call('POST', '/calendars/primary/events', { body: timedEvent('too late') });
    await settled(emu);
    expect(receiver.on(hook).map(state)).toEqual(['sync']);
  });

  it.each([
    ['a taken channel id', 'taken', 'channelIdNotUnique'],
    ['an address that is no URL', { address: 'not a url' }, 'push.webhookUrlNoHostOrAddress'],
    ['an address that is not http(s)', { address: 'ftp://127.0.0.1/x' }, 'push.webhookUrlNotHttps'],
    ['a type other than web_hook', { type: 'email' }, 'invalid'],
  ])('refuses %s with 400', async (_name, variant, reason) => {
    const first = await watch('/calendars/primary/events/watch');
    const extra: Record<string, unknown> =
      typeof variant === 'string' ? { id: first.reply.body.id } : variant;
    const { reply } = await watch('/calendars/primary/events/watch', extra);
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0].reason).toBe(reason);
  });

  it('reset closes every channel', async () => {
    const { hook } = await watch('/calendars/primary/events/watch');
    await receiver.waitFor(hook, 1);
    await emu.reset();
    await emu.call('POST', '/calendars/primary/events', { body: timedEvent('after reset') });
    await settled(emu);
    expect(receiver.on(hook)).toHaveLength(1);
  });
});

describe('failed deliveries never block the API and are retried a bounded number of times', () => {
  it.each([
    ['503 then 502 then 200: delivered on the third attempt', [503, 502], 3],
    ['500 three times: given up after the retries', [500, 500, 500, 500], 3],
    ['404: dropped at once, not retried', [404], 1],
  ])('%s', async (_name, statuses, attempts) => {
    receiver.statuses = [...statuses];
    const { hook } = await watch('/calendars/primary/events/watch');
    await settled(emu);
    const messages = receiver.on(hook);
    expect(messages).toHaveLength(attempts);
    expect(new Set(messages.map((m) => m.headers['x-goog-message-number']))).toEqual(new Set(['1']));
  });

  it('an unreachable address: the API answers at once, the deliveries give up', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const started = Date.now();
    const reply = await emu.call('POST', '/calendars/primary/events/watch', {
      body: { id: 'unreachable', type: 'web_hook', address: `http://127.0.0.1:${port}/gone` },
    });
    expect(reply.status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect(
        (await emu.call('POST', '/calendars/primary/events', { body: timedEvent(`e${i}`) })).status,
      ).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    await settled(emu);
  });
});
