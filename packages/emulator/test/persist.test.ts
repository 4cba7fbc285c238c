/**
 * Durable state (`persist` / `--persist FILE`, core/storage.ts): a restart on the database
 * answers as before (etags and sync tokens included), every answered write is in the database
 * (and its log) when it is answered, a commit writes only what changed, concurrent writes share
 * a commit, reads never write, a file that is not an emulator database (an older JSON state,
 * a newer schema, a file in use) is refused and left as it is, and a failed commit is Google's
 * 503 while reads go on. The crash test (kill -9 while writing) is persist-crash.test.ts; a
 * real full disk and a read-only file are persist-disk.test.ts.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopAll } from '@gspec/scripts/child-process';
import Database from 'libsql';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { notImplementedOperations } from '../src/apis/calendar/handlers.ts';
import { calendarState } from '../src/apis/calendar/records.ts';
import { worldOf } from '../src/apis/searchads360/state.ts';
import type { Emulator, EmulatorOptions } from '../src/core/server.ts';
import { PersistError } from '../src/core/storage.ts';
import { createEmulator } from '../src/emulator.ts';
import { type CliRun, startCli } from './support/cli-process.ts';
import { openDatabase, onDisk as stored } from './support/database.ts';
import { spec, timedEvent } from './support/harness.ts';
import { example } from './support/searchads360.ts';
import { createResponseCheck } from './support/spec-check.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'gspec-emulator-persist-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => path.join(dir, `state-${++files}.db`);

const check = createResponseCheck(spec, notImplementedOperations(spec));
const violations: string[] = [];
const running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  expect(violations.splice(0), 'answers that break the spec').toEqual([]);
});

interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: test answers are read freely; the spec check types them.
  body: any;
}

/** An emulator kept in `file`, listening, with a caller as user ana. */
async function start(
  file: string,
  options: Omit<EmulatorOptions, 'persist'> = {},
  onError?: (m: string) => void,
) {
  const emulator = createEmulator({
    ...options,
    specs: { calendar: spec },
    persist: { file, ...(onError ? { onError } : {}) },
    onResponse: (exchange) => violations.push(...check(exchange)),
  });
  running.push(emulator);
  const origin = await emulator.listen(0);
  const call = async (
    method: string,
    route: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const url = route.startsWith('/__') ? `${origin}${route}` : `${origin}/calendar/v3${route}`;
    const response = await fetch(url, {
      method,
      headers: {
        authorization: 'Bearer ana@example.com',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const stop = async () => {
    running.splice(running.indexOf(emulator), 1);
    await emulator.close();
  };
  return { emulator, call, stop };
}

/** What the database holds now (as a kill would leave it); a JSON round trip, as a dump is. */
function onDisk(file: string) {
  const state = stored(file);
  if (!state) throw new Error(`${file} holds no state`);
  return JSON.parse(JSON.stringify(state));
}

describe('persist: round trip', () => {
  it('a restart on the file answers as before: events, etags, sync tokens, calendars, rules', async () => {
    const file = newFile();
    const first = await start(file);
    expect(first.emulator.persistence?.restored).toBe(false);
    const made = await first.call('POST', '/calendars/primary/events', timedEvent('kept'));
    expect(made.status).toBe(200);
    const patched = await first.call('PATCH', `/calendars/primary/events/${made.body.id}`, {
      location: 'Volkshaus',
    });
    const team = await first.call('POST', '/calendars', { summary: 'Team' });
    const rule = await first.call('POST', `/calendars/${encodeURIComponent(team.body.id)}/acl`, {
      role: 'reader',
      scope: { type: 'user', value: 'bo@example.com' },
    });
    expect(rule.status).toBe(200);
    const list = await first.call('GET', '/calendars/primary/events');
    const dump = (await first.call('GET', '/__emulator/state')).body;
    await first.stop();

    const second = await start(file);
    expect(second.emulator.persistence?.restored).toBe(true);
    expect((await second.call('GET', '/__emulator/state')).body).toEqual(dump);
    expect((await second.call('GET', `/calendars/primary/events/${made.body.id}`)).body).toEqual(
      patched.body,
    );
    // The etag of before still matches, and the sync token of before still syncs.
    const again = await second.call(
      'PATCH',
      `/calendars/primary/events/${made.body.id}`,
      { description: 'after restart' },
      { 'if-match': patched.body.etag },
    );
    expect(again.status).toBe(200);
    const sync = await second.call(
      'GET',
      `/calendars/primary/events?syncToken=${encodeURIComponent(list.body.nextSyncToken)}`,
    );
    expect(sync.status).toBe(200);
    expect(sync.body.items.map((item: { description?: string }) => item.description)).toEqual([
      'after restart',
    ]);
    const rules = await second.call('GET', `/calendars/${encodeURIComponent(team.body.id)}/acl`);
    expect(rules.body.items.map((item: { id: string }) => item.id).sort()).toEqual([
      'user:ana@example.com',
      'user:bo@example.com',
    ]);
  });

  it('an answered write is in the database when it is answered; a read writes nothing', async () => {
    const file = newFile();
    const { emulator, call } = await start(file);
    const made = await call('POST', '/calendars/primary/events', timedEvent('durable'));
    const saved = onDisk(file);
    expect(saved.calendar.events['ana@example.com'][made.body.id].resource.summary).toBe('durable');
    expect(saved.revision).toBe(emulator.store.state.revision);
    const commits = emulator.persistence?.stats.commits;
    for (let i = 0; i < 5; i++) {
      expect((await call('GET', `/calendars/primary/events/${made.body.id}`)).status).toBe(200);
      expect((await call('GET', '/calendars/primary/events')).status).toBe(200);
    }
    expect(emulator.persistence?.stats.commits).toBe(commits);
  });

  it('once writes pause, the log is folded into the database file (what a power cut can cost stays short)', async () => {
    const file = newFile();
    const { call } = await start(file);
    const inserted = await call('POST', '/calendars/primary/events', timedEvent('folded in'));
    expect(inserted.status).toBe(200);
    // The database file alone (no log beside it), as a power cut would leave it once the log
    // is gone: the row is there after a pause of about a second without commits.
    const alone = `${file}.alone`;
    const inFileAlone = () => {
      copyFileSync(file, alone);
      const db = new Database(alone, { readonly: true });
      try {
        return db
          .prepare('SELECT count(*) FROM calendar_events WHERE event_id = ?')
          .raw()
          .get(inserted.body.id);
      } catch {
        return undefined; // its tables are still only in the log
      } finally {
        db.close();
        rmSync(alone, { force: true });
      }
    };
    const deadline = Date.now() + 60_000;
    while (JSON.stringify(inFileAlone()) !== '[1]' && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(inFileAlone()).toEqual([1]);
  });

  it('a commit writes only what changed: one event into a calendar of 2,000 is one row and the clock', async () => {
    const file = newFile();
    const { emulator, call } = await start(file);
    // The first commit of a new database writes everything; the next ones what changed.
    expect((await call('GET', '/users/me/settings')).status).toBe(200);
    expect(emulator.persistence?.stats.lastFull).toBe(true);
    for (let i = 0; i < 2000; i++)
      emulator.invoke('ana@example.com', 'events.insert', {
        path: { calendarId: 'primary' },
        body: timedEvent(`bulk ${i}`),
      });
    const before = await call('GET', '/users/me/settings');
    expect(before.status).toBe(200);
    expect(emulator.persistence?.stats.lastFull).toBe(false);
    expect(emulator.persistence?.stats.lastStatements).toBe(2000 + 1);
    const made = await call('POST', '/calendars/primary/events', timedEvent('one more'));
    expect(made.status).toBe(200);
    expect(emulator.persistence?.stats.lastStatements).toBe(2);
    const patched = await call('PATCH', `/calendars/primary/events/${made.body.id}`, { location: 'Aula' });
    expect(patched.status).toBe(200);
    expect(emulator.persistence?.stats.lastStatements).toBe(2);
    expect(Object.keys(onDisk(file).calendar.events['ana@example.com'])).toHaveLength(2001);
  });

  it('a read that shows a change not saved yet is answered once it is saved (its tokens must hold)', async () => {
    const file = newFile();
    const { emulator, call } = await start(file);
    await call('GET', '/users/me/calendarList'); // ana exists, saved
    // A change made in-process is not saved by itself (see close() and commit()).
    const made = emulator.invoke('ana@example.com', 'events.insert', {
      path: { calendarId: 'primary' },
      body: timedEvent('shown'),
    });
    expect(emulator.persistence?.isDurable()).toBe(false);
    const listed = await call('GET', '/calendars/primary/events');
    expect(listed.body.items.map((item: { id: string }) => item.id)).toContain(made.body?.id);
    // The sync token it carries is of a revision in the database: a restart would honour it.
    expect(onDisk(file).revision).toBe(emulator.store.state.revision);
    expect(emulator.persistence?.isDurable()).toBe(true);
  });

  it('a request that only creates its user on first sight is saved too (its etags must hold)', async () => {
    const file = newFile();
    const { call } = await start(file);
    const list = await call('GET', '/users/me/calendarList');
    expect(list.status).toBe(200);
    expect(Object.keys(onDisk(file).users)).toEqual(['ana@example.com']);
  });

  it('many concurrent inserts over HTTP are all saved, at most one commit each', async () => {
    const file = newFile();
    const { emulator, call } = await start(file);
    await call('GET', '/users/me/calendarList');
    const before = emulator.persistence?.stats.commits ?? 0;
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call('POST', '/calendars/primary/events', timedEvent(`c${i}`))),
    );
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 200));
    const saved = onDisk(file).calendar.events['ana@example.com'];
    for (const reply of replies) expect(saved[reply.body.id]).toBeDefined();
    expect((emulator.persistence?.stats.commits ?? 0) - before).toBeLessThanOrEqual(40);
  });

  it('close() saves what was changed in-process (invoke)', async () => {
    const file = newFile();
    const first = await start(file);
    const made = first.emulator.invoke('ana@example.com', 'events.insert', {
      path: { calendarId: 'primary' },
      body: timedEvent('in-process'),
    });
    await first.stop();
    const second = await start(file);
    expect((await second.call('GET', `/calendars/primary/events/${made.body?.id}`)).body.summary).toBe(
      'in-process',
    );
  });

  it('reset, load and a deleted calendar are saved, and nothing of before is left', async () => {
    const file = newFile();
    const { call } = await start(file);
    await call('POST', '/calendars/primary/events', timedEvent('before reset'));
    const team = await call('POST', '/calendars', { summary: 'Team' });
    const teamPath = `/calendars/${encodeURIComponent(team.body.id)}`;
    await call('POST', `${teamPath}/events`, timedEvent('team event'));
    expect(onDisk(file).calendar.events[team.body.id]).toBeDefined();
    expect((await call('DELETE', teamPath)).status).toBe(204);
    const afterDelete = onDisk(file);
    expect(afterDelete.calendar.calendars[team.body.id]).toBeUndefined();
    expect(afterDelete.calendar.events[team.body.id]).toBeUndefined();
    expect(afterDelete.calendar.acl[team.body.id]).toBeUndefined();
    const dump = (await call('GET', '/__emulator/state')).body;
    expect(afterDelete).toEqual(dump);
    expect((await call('POST', '/__emulator/reset')).status).toBe(204);
    const reset = onDisk(file);
    expect(reset.users).toEqual({});
    expect(reset.epoch).not.toBe(dump.epoch);
    expect((await call('PUT', '/__emulator/state', dump)).status).toBe(204);
    expect(onDisk(file)).toEqual(dump);
  });

  it('Search Ads 360 writes are saved with the Calendar ones', async () => {
    const file = newFile();
    const first = await start(file);
    const inserted = first.emulator.invoke('ana@example.com', 'conversion.insert', {
      body: example('ConversionBatchInsert'),
    });
    expect(inserted.status).toBe(200);
    const world = structuredClone(worldOf(first.emulator.store.state));
    expect(Object.keys(world?.conversions ?? {})).not.toHaveLength(0);
    expect(stored(file)).toBeUndefined(); // nothing committed yet: invoke is in-process
    await first.stop();
    const second = await start(file);
    expect(worldOf(second.emulator.store.state)).toEqual(world);
    // A second write adds its rows to those stored.
    const batch = example('ConversionBatchInsert') as { conversion: { conversionId: string }[] };
    const again = second.emulator.invoke('ana@example.com', 'conversion.insert', {
      body: {
        ...batch,
        conversion: batch.conversion.map((c) => ({ ...c, conversionId: `${c.conversionId}-2` })),
      },
    });
    expect(again.status).toBe(200);
    expect((await second.call('GET', '/users/me/settings')).status).toBe(200);
    expect(onDisk(file).searchads360).toEqual(
      JSON.parse(JSON.stringify(worldOf(second.emulator.store.state))),
    );
  });
});

describe('persist: start-up', () => {
  it('a JSON state (the format of earlier versions) is refused with the way to start from it, and left as it is', () => {
    const file = newFile();
    writeFileSync(file, '{"version": 1, ');
    expect(() => createEmulator({ specs: { calendar: spec }, persist: file })).toThrow(PersistError);
    expect(() => createEmulator({ specs: { calendar: spec }, persist: file })).toThrow(
      `${file}: a JSON state, not a database (--persist keeps a SQLite database since 0.2); start a database from it with --state ${file} --persist NEW.db`,
    );
    expect(readFileSync(file, 'utf8')).toBe('{"version": 1, ');
  });

  it('a file that is not a database is refused, and left as it is', () => {
    const file = newFile();
    writeFileSync(file, 'hello');
    expect(() => createEmulator({ specs: { calendar: spec }, persist: file })).toThrow(
      `${file}: not an emulator database (not SQLite)`,
    );
    expect(readFileSync(file, 'utf8')).toBe('hello');
  });

  it('a row that is not JSON is refused, naming its table and key', async () => {
    const file = newFile();
    const { call, stop } = await start(file);
    const made = await call('POST', '/calendars/primary/events', timedEvent('x'));
    await stop();
    const db = new Database(file);
    db.prepare('UPDATE calendar_events SET body = ? WHERE event_id = ?').run('{"id": ', made.body.id);
    db.close();
    expect(() => createEmulator({ specs: { calendar: spec }, persist: file })).toThrow(
      `${file}: calendar_events ana@example.com ${made.body.id}: not JSON`,
    );
  });

  it('a database of a newer emulator is refused, naming the schema versions', async () => {
    const file = newFile();
    const { stop } = await start(file);
    await stop();
    const db = new Database(file);
    db.prepare("UPDATE emulator_schema SET version = 99 WHERE slice = 'calendar'").run();
    db.close();
    expect(() => createEmulator({ specs: { calendar: spec }, persist: file })).toThrow(
      `${file}: written by a newer emulator (calendar schema version 99; this one knows up to 1)`,
    );
  });

  it('a database another emulator keeps is refused, and that emulator goes on', async () => {
    const file = newFile();
    const { call } = await start(file);
    await call('POST', '/calendars/primary/events', timedEvent('mine'));
    expect(() => createEmulator({ specs: { calendar: spec }, persist: file })).toThrow(
      `${file}: in use by another process (an emulator keeps its database to itself)`,
    );
    expect((await call('POST', '/calendars/primary/events', timedEvent('still mine'))).status).toBe(200);
  });

  it('a path that cannot be opened is refused', () => {
    const file = newFile();
    mkdirSync(file);
    expect(() => createEmulator({ specs: { calendar: spec }, persist: file })).toThrow(`${file}: cannot`);
  });

  it('a database opened by hand holds the state as rows of its tables', async () => {
    const file = newFile();
    const { call, stop } = await start(file);
    const made = await call('POST', '/calendars/primary/events', timedEvent('in a row'));
    await stop();
    const { store, persistence } = openDatabase(file);
    persistence.close();
    expect(
      calendarState(store.state).calendar.events['ana@example.com']?.[made.body.id]?.resource.summary,
    ).toBe('in a row');
    const db = new Database(file, { readonly: true });
    const row = db.prepare('SELECT body FROM calendar_events WHERE event_id = ?').raw().get(made.body.id) as [
      string,
    ];
    db.close();
    expect(JSON.parse(row[0]).resource.summary).toBe('in a row');
  });
});

describe('persist: failed commits', () => {
  it('a full database answers the write 503 in the envelope, keeps serving reads, and the next commit that works keeps everything', async () => {
    const file = newFile();
    const told: string[] = [];
    const { emulator, call } = await start(file, {}, (message) => told.push(message));
    const kept = await call('POST', '/calendars/primary/events', timedEvent('kept'));
    expect(kept.status).toBe(200);
    // SQLite's own limit on the file's pages: the commit fails as on a full disk (SQLITE_FULL).
    // A real full disk and a read-only file are in persist-disk.test.ts.
    emulator.persistence?.limitPages(emulator.persistence.pageCount());

    const big = 'x'.repeat(6000);
    const refused = await call(
      'POST',
      '/calendars/primary/events',
      timedEvent('unsaved', 9, { description: big }),
    );
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
    expect(refused.body.error.errors[0]).toMatchObject({ domain: 'global', reason: 'backendError' });
    expect(refused.body.error.message).toContain(`could not save the state to ${file}`);
    expect(refused.body.error.message).toContain('full');
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(file);
    expect(emulator.persistence?.stats.failures).toBe(1);
    // Reads still work, and show the change held in memory.
    const listed = await call('GET', '/calendars/primary/events');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((item: { summary: string }) => item.summary).sort()).toEqual([
      'kept',
      'unsaved',
    ]);
    // A request that changes nothing is not the one whose commit failed: it gets its answer.
    const busy = await call('POST', '/freeBusy', {
      timeMin: '2026-03-02T00:00:00Z',
      timeMax: '2026-03-03T00:00:00Z',
      items: [{ id: 'primary' }],
    });
    expect(busy.status).toBe(200);
    expect(
      Object.values(onDisk(file).calendar.events['ana@example.com']).map(
        (e) => (e as { resource: { summary: string } }).resource.summary,
      ),
    ).toEqual(['kept']);

    emulator.persistence?.limitPages(1_073_741_823);
    const later = await call('POST', '/calendars/primary/events', timedEvent('later'));
    expect(later.status).toBe(200);
    const saved = onDisk(file);
    expect(saved.revision).toBe(emulator.store.state.revision);
    const summaries = Object.values(saved.calendar.events['ana@example.com']).map(
      (event) => (event as { resource: { summary: string } }).resource.summary,
    );
    expect(summaries).toEqual(['kept', 'unsaved', 'later']);
  });
});

describe('gspec-emulator --persist', () => {
  afterEach(() => stopAll('SIGKILL'));
  const stop = async (run: CliRun) => {
    expect(await run.stop('SIGTERM')).toBe(0);
  };
  const get = (origin: string, route: string) =>
    fetch(`${origin}/calendar/v3${route}`, { headers: { authorization: 'Bearer token-ana' } });

  const seedFile = path.join(dir, 'seed.json');
  writeFileSync(
    seedFile,
    JSON.stringify({
      users: [{ email: 'ana@example.com', tokens: ['token-ana'] }],
      calendars: [
        {
          id: 'primary',
          owner: 'ana@example.com',
          events: [
            {
              id: 'seeded001',
              summary: 'Seeded',
              start: { date: '2026-03-03' },
              end: { date: '2026-03-04' },
            },
          ],
        },
      ],
    }),
  );

  it('seeds a new file once, saves it before listening, and goes on from it after a restart', async () => {
    const file = newFile();
    const first = startCli(['--persist', file, '--seed', seedFile]);
    const origin = await first.ready;
    expect(first.output().out).toContain(`Seeded from ${seedFile}`);
    expect(first.output().out).toContain(`State saved to ${file} (new database)`);
    expect(first.output().out).toContain('watch channels are not kept');
    expect(onDisk(file).calendar.events['ana@example.com'].seeded001.resource.summary).toBe('Seeded');
    const made = await fetch(`${origin}/calendar/v3/calendars/primary/events`, {
      method: 'POST',
      headers: { authorization: 'Bearer token-ana', 'content-type': 'application/json' },
      body: JSON.stringify(timedEvent('after the seed')),
    });
    expect(made.status).toBe(200);
    const { id } = (await made.json()) as { id: string };
    await stop(first);

    // The seed's event id would be a 409 if it were written again: the restart skips it.
    const second = startCli(['--persist', file, '--seed', seedFile]);
    const again = await second.ready;
    const revision = onDisk(file).revision;
    expect(second.output().out).toContain(
      `State restored from ${file} (revision ${revision}); seed ${seedFile} not written again, its tokens apply`,
    );
    expect(second.output().out).not.toContain('Seeded from');
    expect((await get(again, `/calendars/primary/events/${id}`)).status).toBe(200);
    expect((await get(again, '/calendars/primary/events/seeded001')).status).toBe(200);
  });

  it('--state starts a new file from a dumped state, and is refused once the file exists', async () => {
    const file = newFile();
    const dumped = path.join(dir, 'dumped.json');
    const source = startCli(['--seed', seedFile]);
    const origin = await source.ready;
    writeFileSync(dumped, await (await fetch(`${origin}/__emulator/state`)).text());
    await stop(source);

    const first = startCli(['--persist', file, '--state', dumped]);
    await first.ready;
    expect(first.output().out).toContain(`State loaded from ${dumped}`);
    expect(onDisk(file)).toEqual(JSON.parse(readFileSync(dumped, 'utf8')));
    await stop(first);

    const refused = startCli(['--persist', file, '--state', dumped]);
    expect(await refused.exited).toBe(1);
    expect(refused.output().err).toContain(
      `gspec-emulator: --state ${dumped} and --persist ${file}: ${file} holds a state already; drop --state to go on from it, or delete it to start from ${dumped}`,
    );
  });

  it('exits 1 naming the file when it is a JSON state, and leaves it as it is', async () => {
    const file = newFile();
    const text = JSON.stringify({ version: 1, epoch: 'ab', users: {} });
    writeFileSync(file, text);
    const run = startCli(['--persist', file]);
    expect(await run.exited).toBe(1);
    expect(run.output().err).toContain(
      `gspec-emulator: invalid --persist file: ${file}: a JSON state, not a database (--persist keeps a SQLite database since 0.2); start a database from it with --state ${file} --persist NEW.db (left as it is)`,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('exits 1 when the file cannot be made', async () => {
    const blocked = path.join(dir, 'no-such-directory', 'state.db');
    const run = startCli(['--persist', blocked]);
    expect(await run.exited).toBe(1);
    expect(run.output().err).toContain(`gspec-emulator: invalid --persist file: ${blocked}: cannot open`);
  });

  it('--persist-sync takes normal or full, and only with --persist', async () => {
    const file = newFile();
    const full = startCli(['--persist', file, '--persist-sync', 'full']);
    await full.ready;
    expect(full.output().out).toContain('(--persist-sync full)');
    await stop(full);
    const wrong = startCli(['--persist', file, '--persist-sync', 'always']);
    expect(await wrong.exited).toBe(1);
    expect(wrong.output().err).toContain('invalid --persist-sync "always": expected normal or full');
    const alone = startCli(['--persist-sync', 'full']);
    expect(await alone.exited).toBe(1);
    expect(alone.output().err).toContain('--persist-sync needs --persist FILE');
  });
});
