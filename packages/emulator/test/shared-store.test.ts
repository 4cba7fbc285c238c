/**
 * The shared store (`store: postgres://…`, core/postgres.ts) on a PostgreSQL server the test
 * starts itself (@gspec/scripts/postgres; required under CI=true). One emulator: restart on the
 * database, bad URLs and unreachable servers. Three emulators on one database, a client sending
 * each request to the next one in turn: etags, sequences and sync tokens are one series, a
 * write is seen by the next read anywhere, 20 writers with If-Match lose no update, ids are
 * unique, a watch channel is told exactly once of each change made at any emulator and
 * stopped everywhere, quota and the rate limit count across them. Then three built CLIs, one
 * killed with SIGKILL under load: the others keep answering and no acknowledged write is lost.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SharedStoreError } from '../src/core/postgres.ts';
import type { Emulator, EmulatorOptions } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';
import { startCli } from './support/cli-process.ts';
import { timedEvent } from './support/harness.ts';
import { havePostgres, startPostgres, usePostgres } from './support/postgres.ts';

const run = havePostgres();
const database = run ? usePostgres('shared') : undefined;
const TOKEN = 'ana@example.com';

interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: test answers are read freely.
  body: any;
  headers: Headers;
}

async function call(
  origin: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${origin}${path.startsWith('/__') ? '' : '/calendar/v3'}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : undefined,
    headers: response.headers,
  } as Reply;
}

/** Emulators on one database, and a client that sends each request to the next one in turn. */
function useCluster(size: number, options: EmulatorOptions = {}) {
  const cluster = { emulators: [] as Emulator[], origins: [] as string[], next: 0, url: '' };
  beforeAll(async () => {
    cluster.url = await (database as NonNullable<typeof database>).another('cluster');
    for (let i = 0; i < size; i++) {
      const emulator = createEmulator({ ...options, store: cluster.url });
      cluster.emulators.push(emulator);
      cluster.origins.push(await emulator.listen(0));
    }
  });
  afterAll(async () => {
    for (const emulator of cluster.emulators) await emulator.close();
  });
  return {
    cluster,
    /** The request, at the next emulator. */
    call(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
      const origin = cluster.origins[cluster.next++ % cluster.origins.length] as string;
      return call(origin, method, path, body, headers);
    },
    at(i: number, method: string, path: string, body?: unknown, headers?: Record<string, string>) {
      return call(cluster.origins[i] as string, method, path, body, headers);
    },
  };
}

describe.skipIf(!run)('a shared store on PostgreSQL', () => {
  describe('one emulator', () => {
    it('keeps the state across a restart on the same database', async () => {
      const url = await (database as NonNullable<typeof database>).another('restart');
      const first = createEmulator({ store: url });
      const origin = await first.listen(0);
      const made = await call(origin, 'POST', '/calendars/primary/events', timedEvent('Kept'));
      expect(made.status).toBe(200);
      await first.close();
      const second = createEmulator({ store: url });
      const again = await second.listen(0);
      try {
        expect(second.shared?.restored).toBe(true);
        const read = await call(again, 'GET', `/calendars/primary/events/${made.body.id}`);
        expect(read.status).toBe(200);
        expect(read.body.etag).toBe(made.body.etag);
        const next = await call(again, 'POST', '/calendars/primary/events', timedEvent('Next'));
        expect(next.body.etag).not.toBe(made.body.etag);
      } finally {
        await second.close();
      }
    });

    it('refuses a URL that is not postgres://, naming what it expects', () => {
      expect(() => createEmulator({ store: 'mysql://x/y' })).toThrow(/expected postgres:\/\//);
      expect(() => createEmulator({ store: 'not a url' })).toThrow(SharedStoreError);
      expect(() => createEmulator({ store: 'postgres://x/y', persist: '/tmp/x.db' })).toThrow(/not both/);
    });

    it('says where it could not connect, without the password, and stays closed', async () => {
      const unused = createServer();
      await new Promise<void>((resolve) => unused.listen(0, '127.0.0.1', resolve));
      const { port } = unused.address() as AddressInfo;
      await new Promise<void>((resolve) => unused.close(() => resolve()));
      const emulator = createEmulator({ store: `postgres://ana:secret@127.0.0.1:${port}/nowhere` });
      const failure = await emulator.listen(0).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      expect(failure).toBeInstanceOf(SharedStoreError);
      expect(failure?.message).toContain(`postgres://ana@127.0.0.1:${port}/nowhere`);
      expect(failure?.message).not.toContain('secret');
      await emulator.close();
    });

    it('answers the health check 503 naming the database once it is gone, and nothing crashes', async () => {
      const own = await startPostgres();
      const emulator = createEmulator({ store: await own.createDatabase('going') });
      try {
        const origin = await emulator.listen(0);
        expect((await call(origin, 'GET', '/__emulator/health')).status).toBe(200);
        await own.stop();
        const health = await call(origin, 'GET', '/__emulator/health');
        expect(health.status).toBe(503);
        expect(health.body.error.errors[0].reason).toBe('backendError');
        expect(health.body.error.message).toContain(emulator.shared?.where);
        const write = await call(origin, 'POST', '/calendars/primary/events', timedEvent('Refused'));
        expect(write.status).toBe(503);
      } finally {
        await emulator.close();
        await own.stop();
      }
    });

    it('names a database that does not exist', async () => {
      const url = new URL((database as NonNullable<typeof database>).server.url);
      url.pathname = '/no_such_database';
      const emulator = createEmulator({ store: url.toString() });
      await expect(emulator.listen(0)).rejects.toThrow(/no_such_database.*does not exist/);
      await emulator.close();
    });
  });

  describe('three emulators on one database', () => {
    const {
      cluster,
      call: next,
      at,
    } = useCluster(3, {
      notifications: { retryDelaysMs: [5, 10], timeoutMs: 2000 },
    });

    it('share etags, sequences, sync tokens and page tokens; a write is read back anywhere', async () => {
      const made = await next('POST', '/calendars/primary/events', timedEvent('Shared'));
      expect(made.status).toBe(200);
      const path = `/calendars/primary/events/${made.body.id}`;
      for (let i = 0; i < 3; i++) {
        const read = await at(i, 'GET', path);
        expect(read.body.etag).toBe(made.body.etag);
      }
      const patched = await next('PATCH', path, { summary: 'Changed' });
      expect(patched.body.sequence).toBe(made.body.sequence + 1);
      expect(patched.body.etag).not.toBe(made.body.etag);
      const seen = await next('GET', path);
      expect(seen.body.summary).toBe('Changed');
      expect(seen.body.sequence).toBe(patched.body.sequence);
      expect(seen.body.etag).toBe(patched.body.etag);
      const notModified = await next('GET', path, undefined, { 'if-none-match': patched.body.etag });
      expect(notModified.status).toBe(304);

      const full = await next('GET', '/calendars/primary/events');
      const token = full.body.nextSyncToken;
      expect(token).toBeTruthy();
      const added = await next('POST', '/calendars/primary/events', timedEvent('After the token'));
      await next('DELETE', path);
      const since = await next('GET', `/calendars/primary/events?syncToken=${encodeURIComponent(token)}`);
      expect(since.status).toBe(200);
      expect(since.body.items.map((e: { id: string; status: string }) => [e.id, e.status]).sort()).toEqual(
        [
          [added.body.id, 'confirmed'],
          [made.body.id, 'cancelled'],
        ].sort(),
      );
      const after = await next(
        'GET',
        `/calendars/primary/events?syncToken=${encodeURIComponent(since.body.nextSyncToken)}`,
      );
      expect(after.body.items).toEqual([]);

      for (let i = 0; i < 5; i++) await next('POST', '/calendars/primary/events', timedEvent(`Page ${i}`));
      const ids: string[] = [];
      let page = await next('GET', '/calendars/primary/events?maxResults=2');
      for (;;) {
        ids.push(...page.body.items.map((e: { id: string }) => e.id));
        if (!page.body.nextPageToken) break;
        page = await next(
          'GET',
          `/calendars/primary/events?maxResults=2&pageToken=${encodeURIComponent(page.body.nextPageToken)}`,
        );
        expect(page.status).toBe(200);
      }
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(6);
    });

    it('give unique ids to 30 inserts sent at once across them', async () => {
      const made = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          next('POST', '/calendars/primary/events', timedEvent(`Burst ${i}`)),
        ),
      );
      expect(made.map((r) => r.status)).toEqual(Array(30).fill(200));
      const ids = new Set(made.map((r) => r.body.id));
      const etags = new Set(made.map((r) => r.body.etag));
      expect(ids.size).toBe(30);
      expect(etags.size).toBe(30);
      for (const reply of made)
        expect((await next('GET', `/calendars/primary/events/${reply.body.id}`)).status).toBe(200);
    });

    it('lose no update of 20 writers with If-Match on one event', async () => {
      const made = await next(
        'POST',
        '/calendars/primary/events',
        timedEvent('Contended', 9, { description: '' }),
      );
      const path = `/calendars/primary/events/${made.body.id}`;
      let conflicts = 0;
      let accepted = 0;
      const writer = async (w: number) => {
        for (let attempt = 1; ; attempt++) {
          expect(attempt, `writer ${w} never got through`).toBeLessThan(500);
          const read = await next('GET', path);
          const write = await next(
            'PATCH',
            path,
            { description: `${read.body.description} w${w}`.trim() },
            {
              'if-match': read.body.etag,
            },
          );
          if (write.status === 412) {
            conflicts++;
            continue;
          }
          expect(write.status).toBe(200);
          accepted++;
          return;
        }
      };
      await Promise.all(Array.from({ length: 20 }, (_, w) => writer(w)));
      const final = await next('GET', path);
      const words = String(final.body.description).split(' ').sort();
      expect(words).toEqual(Array.from({ length: 20 }, (_, w) => `w${w}`).sort());
      expect(accepted).toBe(20);
      expect(conflicts).toBeGreaterThan(0);
    });

    it('tell a watch channel exactly once of each change made at any of them; stopped at one, stopped at all', async () => {
      const received: IncomingHttpHeaders[] = [];
      const receiver = createServer((request, response) => {
        received.push(request.headers);
        request.resume();
        request.on('end', () => response.writeHead(200).end());
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const address = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const idle = () => Promise.all(cluster.emulators.map((e) => e.notifier.idle()));
      const waitFor = async (count: number) => {
        const deadline = Date.now() + 60_000;
        while (received.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        await idle();
      };
      try {
        const watch = await at(0, 'POST', '/calendars/primary/events/watch', {
          id: 'shared-channel',
          type: 'web_hook',
          address,
        });
        expect(watch.status).toBe(200);
        await waitFor(1);
        await at(1, 'POST', '/calendars/primary/events', timedEvent('Told once'));
        await at(2, 'POST', '/calendars/primary/events', timedEvent('Told once more'));
        await at(0, 'GET', '/calendars/primary/events');
        await waitFor(3);
        // Every emulator has caught up and none sends again.
        for (let i = 0; i < 3; i++) await at(i, 'GET', '/calendars/primary/events');
        await idle();
        expect(received.map((h) => [h['x-goog-resource-state'], h['x-goog-message-number']])).toEqual([
          ['sync', '1'],
          ['exists', '2'],
          ['exists', '3'],
        ]);
        const stop = await at(2, 'POST', '/channels/stop', {
          id: 'shared-channel',
          resourceId: watch.body.resourceId,
        });
        expect(stop.status).toBe(204);
        for (let i = 0; i < 3; i++)
          await at(i, 'POST', '/calendars/primary/events', timedEvent(`After stop ${i}`));
        await idle();
        expect(received.length).toBe(3);
        for (const emulator of cluster.emulators) expect(emulator.notifier.channels.size).toBe(0);
      } finally {
        await new Promise<void>((resolve) => receiver.close(() => resolve()));
      }
    });

    it('count quota across them', async () => {
      await next('POST', '/__emulator/quota/reset');
      for (let i = 0; i < 6; i++) await next('GET', '/users/me/calendarList');
      const reports = await Promise.all([0, 1, 2].map((i) => at(i, 'GET', '/__emulator/quota')));
      for (const report of reports) {
        expect(report.body.byUser[TOKEN]).toBe(6);
        expect(report.body.total).toBe(6);
      }
    });
  });

  describe('three emulators with a rate limit', () => {
    const { call: next } = useCluster(3, { rateLimit: { units: 5 } });

    it('count the limit across them', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await next('GET', '/users/me/calendarList')).status);
      expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      expect(statuses.slice(5)).toEqual([403, 403]);
    });
  });

  describe('three CLIs, one killed with SIGKILL under load', () => {
    const started: ReturnType<typeof startCli>[] = [];
    afterEach(async () => {
      for (const cli of started.splice(0)) await cli.stop();
    });

    it('the others keep answering, and no acknowledged write is lost', async () => {
      const url = await (database as NonNullable<typeof database>).another('killed');
      for (let i = 0; i < 3; i++) started.push(startCli(['--store', url]));
      const origins = await Promise.all(started.map((cli) => cli.ready));
      const alive = [true, true, true];
      const acknowledged: string[] = [];
      let refusedByDead = 0;
      let n = 0;
      const writer = async (w: number) => {
        for (let r = 0; r < 25; r++) {
          const i = n++ % 3;
          try {
            const made = await call(
              origins[i] as string,
              'POST',
              '/calendars/primary/events',
              timedEvent(`w${w}r${r}`),
            );
            expect(made.status).toBe(200);
            acknowledged.push(made.body.id);
          } catch (error) {
            // Only the killed one may fail to answer.
            expect(alive[i], `emulator ${i} failed: ${(error as Error).message}`).toBe(false);
            refusedByDead++;
          }
        }
      };
      const load = Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
      while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 10));
      alive[1] = false;
      started[1]?.child.kill('SIGKILL');
      await load;
      expect(refusedByDead).toBeGreaterThan(0);
      for (const i of [0, 2]) {
        const ids = new Set<string>();
        let page = await call(origins[i] as string, 'GET', '/calendars/primary/events?maxResults=2500');
        for (const event of page.body.items) ids.add(event.id);
        while (page.body.nextPageToken) {
          page = await call(
            origins[i] as string,
            'GET',
            `/calendars/primary/events?maxResults=2500&pageToken=${encodeURIComponent(page.body.nextPageToken)}`,
          );
          for (const event of page.body.items) ids.add(event.id);
        }
        for (const id of acknowledged) expect(ids.has(id), `acknowledged ${id} at emulator ${i}`).toBe(true);
      }
    });
  });
});
