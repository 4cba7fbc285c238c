/**
 * Durable state (`persist` / `--persist FILE`): a restart on the same file answers as before
 * (etags and sync tokens included), every answered write is in the file when it is answered,
 * concurrent writes share a save, reads never save, a file that fails to load is refused and
 * left as it is, a leftover temporary file is removed, and a failed save is Google's 503.
 * The crash test (kill -9 while writing) is persist-crash.test.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopAll } from '@gspec/scripts/child-process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { notImplementedOperations } from '../src/handlers/index.ts';
import { PersistError, tempFileOf } from '../src/persist.ts';
import { createEmulator, type Emulator, type EmulatorOptions } from '../src/server.ts';
import { type CliRun, startCli } from './support/cli-process.ts';
import { spec, timedEvent } from './support/harness.ts';
import { createResponseCheck } from './support/spec-check.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'gspec-emulator-persist-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => path.join(dir, `state-${++files}.json`);

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
    spec,
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

const onDisk = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

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
    expect(existsSync(tempFileOf(file))).toBe(false);

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

  it('an answered write is in the file when it is answered; a read saves nothing', async () => {
    const file = newFile();
    const { emulator, call } = await start(file);
    const made = await call('POST', '/calendars/primary/events', timedEvent('durable'));
    const saved = onDisk(file);
    expect(saved.events['ana@example.com'][made.body.id].resource.summary).toBe('durable');
    expect(saved.revision).toBe(emulator.store.state.revision);
    const saves = emulator.persistence?.stats.saves;
    const modified = statSync(file).mtimeMs;
    for (let i = 0; i < 5; i++) {
      expect((await call('GET', `/calendars/primary/events/${made.body.id}`)).status).toBe(200);
      expect((await call('GET', '/calendars/primary/events')).status).toBe(200);
    }
    expect(emulator.persistence?.stats.saves).toBe(saves);
    expect(statSync(file).mtimeMs).toBe(modified);
  });

  it('a read that shows a change not saved yet is answered once it is saved (its tokens must hold)', async () => {
    const file = newFile();
    const { emulator, call } = await start(file);
    await call('GET', '/users/me/calendarList'); // ana exists, saved
    // A change made in-process is not saved by itself (see close() and flush()).
    const made = emulator.invoke('ana@example.com', 'events.insert', {
      path: { calendarId: 'primary' },
      body: timedEvent('shown'),
    });
    expect(emulator.persistence?.isDurable()).toBe(false);
    const listed = await call('GET', '/calendars/primary/events');
    expect(listed.body.items.map((item: { id: string }) => item.id)).toContain(made.body?.id);
    // The sync token it carries is of a revision in the file: a restart would honour it.
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

  it('writes made while a save is under way share the next save (group commit)', async () => {
    const file = newFile();
    const { emulator } = await start(file);
    const persistence = emulator.persistence;
    if (!persistence) throw new Error('no persistence');
    const insert = (summary: string) =>
      emulator.invoke('ana@example.com', 'events.insert', {
        path: { calendarId: 'primary' },
        body: timedEvent(summary),
      });
    insert('one');
    const first = persistence.flush();
    insert('two');
    const second = persistence.flush();
    insert('three');
    const third = persistence.flush();
    expect(second).toBe(third);
    await Promise.all([first, second, third]);
    expect(persistence.stats.saves).toBe(2);
    expect(persistence.isDurable()).toBe(true);
    const summaries = Object.values(onDisk(file).events['ana@example.com']).map(
      (event) => (event as { resource: { summary: string } }).resource.summary,
    );
    expect(summaries.sort()).toEqual(['one', 'three', 'two']);
  });

  it('many concurrent inserts over HTTP are all saved, in fewer saves than requests', async () => {
    const file = newFile();
    const { emulator, call } = await start(file);
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call('POST', '/calendars/primary/events', timedEvent(`c${i}`))),
    );
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 200));
    const saved = onDisk(file).events['ana@example.com'];
    for (const reply of replies) expect(saved[reply.body.id]).toBeDefined();
    expect(emulator.persistence?.stats.saves).toBeLessThan(40);
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

  it('reset and load through the control plane are saved', async () => {
    const file = newFile();
    const { call } = await start(file);
    await call('POST', '/calendars/primary/events', timedEvent('before reset'));
    const dump = (await call('GET', '/__emulator/state')).body;
    expect((await call('POST', '/__emulator/reset')).status).toBe(204);
    const reset = onDisk(file);
    expect(reset.users).toEqual({});
    expect(reset.epoch).not.toBe(dump.epoch);
    expect((await call('PUT', '/__emulator/state', dump)).status).toBe(204);
    expect(onDisk(file)).toEqual(dump);
  });
});

describe('persist: start-up', () => {
  it('a file that is not JSON is refused, naming it, and left as it is', () => {
    const file = newFile();
    writeFileSync(file, '{"version": 1, ');
    expect(() => createEmulator({ spec, persist: file })).toThrow(PersistError);
    expect(() => createEmulator({ spec, persist: file })).toThrow(`${file}: not valid JSON`);
    expect(readFileSync(file, 'utf8')).toBe('{"version": 1, ');
  });

  it('a state that breaks the rules is refused with the place at fault', async () => {
    const file = newFile();
    const { call, stop } = await start(file);
    await call('POST', '/calendars/primary/events', timedEvent('x'));
    await stop();
    const state = onDisk(file);
    state.events['nobody@example.com'] = {};
    const text = JSON.stringify(state);
    writeFileSync(file, text);
    expect(() => createEmulator({ spec, persist: file })).toThrow(
      `${file}: invalid state: /events/nobody@example.com: no such calendar`,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('a path that cannot be read is refused', () => {
    const file = newFile();
    mkdirSync(file);
    expect(() => createEmulator({ spec, persist: file })).toThrow(`${file}: cannot read`);
  });

  it('the temporary file of an interrupted save is removed; the file holds the last save', async () => {
    const file = newFile();
    const first = await start(file);
    const made = await first.call('POST', '/calendars/primary/events', timedEvent('last saved'));
    await first.stop();
    writeFileSync(tempFileOf(file), '{"version": 1, "half a snap');
    const second = await start(file);
    expect(second.emulator.persistence?.removedTemp).toBe(true);
    expect(existsSync(tempFileOf(file))).toBe(false);
    expect((await second.call('GET', `/calendars/primary/events/${made.body.id}`)).body.summary).toBe(
      'last saved',
    );
  });
});

describe('persist: failed saves', () => {
  it.each([
    ['the file is a directory (rename fails)', (file: string) => file],
    ['the temporary file is a directory (open fails)', (file: string) => tempFileOf(file)],
  ])(
    '%s: the write is answered 503 in the envelope, told, and saved by the next save that works',
    async (_name, blocked) => {
      const file = newFile();
      const told: string[] = [];
      const { emulator, call } = await start(file, {}, (message) => told.push(message));
      const kept = await call('POST', '/calendars/primary/events', timedEvent('kept'));
      expect(kept.status).toBe(200);
      const good = readFileSync(file, 'utf8');
      // A directory where the save must write: it fails even for root, where chmod would not.
      const obstacle = blocked(file);
      if (obstacle === file) rmSync(file);
      mkdirSync(obstacle);
      writeFileSync(path.join(obstacle, 'keep'), 'x');

      const refused = await call('POST', '/calendars/primary/events', timedEvent('unsaved'));
      expect(refused.status).toBe(503);
      expect(refused.body.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
      expect(refused.body.error.errors[0]).toMatchObject({ domain: 'global', reason: 'backendError' });
      expect(refused.body.error.message).toContain(`could not save the state to ${file}`);
      expect(told).toHaveLength(1);
      expect(told[0]).toContain(file);
      expect(emulator.persistence?.stats.failures).toBe(1);
      if (obstacle !== file) expect(readFileSync(file, 'utf8')).toBe(good);
      // Reads still work, and show the change held in memory.
      const listed = await call('GET', '/calendars/primary/events');
      expect(listed.status).toBe(200);
      expect(listed.body.items.map((item: { summary: string }) => item.summary).sort()).toEqual([
        'kept',
        'unsaved',
      ]);
      // A request that changes nothing is not the one whose save failed: it gets its answer.
      const busy = await call('POST', '/freeBusy', {
        timeMin: '2026-03-02T00:00:00Z',
        timeMax: '2026-03-03T00:00:00Z',
        items: [{ id: 'primary' }],
      });
      expect(busy.status).toBe(200);
      // The control plane's writes alike: the reset is done in memory, its save failed.
      expect((await call('POST', '/__emulator/reset')).status).toBe(503);

      rmSync(obstacle, { recursive: true });
      const later = await call('POST', '/calendars/primary/events', timedEvent('later'));
      expect(later.status).toBe(200);
      expect(existsSync(tempFileOf(file))).toBe(false);
      // The next save that works holds everything in memory: the reset, then the new event.
      const saved = onDisk(file);
      expect(saved.revision).toBe(emulator.store.state.revision);
      const summaries = Object.values(saved.events['ana@example.com']).map(
        (event) => (event as { resource: { summary: string } }).resource.summary,
      );
      expect(summaries).toEqual(['later']);
    },
  );
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
    expect(first.output().out).toContain(`State saved to ${file} (new file)`);
    expect(first.output().out).toContain('watch channels are not kept');
    expect(onDisk(file).events['ana@example.com'].seeded001.resource.summary).toBe('Seeded');
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
    expect(onDisk(file)).toEqual(onDisk(dumped));
    await stop(first);

    const refused = startCli(['--persist', file, '--state', dumped]);
    expect(await refused.exited).toBe(1);
    expect(refused.output().err).toContain(
      `gspec-emulator: --state ${dumped} and --persist ${file}: ${file} holds a state already; drop --state to go on from it, or delete it to start from ${dumped}`,
    );
  });

  it('exits 1 naming the file and the place at fault, and leaves the file as it is', async () => {
    const file = newFile();
    const text = JSON.stringify({
      version: 1,
      epoch: 'not hex',
      revision: 0,
      lastTime: 0,
      nextSeq: 1,
      users: {},
      calendars: {},
      events: {},
      calendarList: {},
    });
    writeFileSync(file, text);
    const run = startCli(['--persist', file]);
    expect(await run.exited).toBe(1);
    expect(run.output().err).toContain(
      `gspec-emulator: invalid --persist file: ${file}: invalid state: /epoch`,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('exits 1 when the file cannot be written at start', async () => {
    const blocked = path.join(dir, 'no-such-directory', 'state.json');
    const run = startCli(['--persist', blocked]);
    expect(await run.exited).toBe(1);
    expect(run.output().err).toContain(`gspec-emulator: The emulator could not save the state to ${blocked}`);
  });
});
