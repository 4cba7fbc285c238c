/**
 * The crash test of `--persist FILE`: the built CLI under many concurrent writes (events.insert
 * with distinct ids and summaries, events.patch of a counter per worker, events.delete of an
 * event the worker made), killed with SIGKILL at random moments and started again on the same
 * database each round. After every kill SQLite's integrity check must pass, the database must
 * load, every write answered 2xx before the kill must be there, a write still in flight may or
 * may not be, and nothing else may appear, vanish or be duplicated.
 *
 * The moments are counted, not timed: a round kills the server once a drawn number of writes
 * (12 to 51) has been answered, in odd rounds after a drawn number (0 to 30) of turns of this
 * process's event loop more. So the test asks the same of a slow machine as of a fast one. The
 * numbers come from a seeded generator; the seed is printed with the counts, and
 * CRASH_SEED=<seed> repeats a schedule (CRASH_SEED=random draws one).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopAll } from '@gspec/scripts/child-process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../src/emulator.ts';
import { type CliRun, requireBuiltCli, startCli } from './support/cli-process.ts';
import { spec } from './support/harness.ts';

const ROUNDS = 20;
const WORKERS = 16;
const INITIAL_EVENTS = 1500;
const USER = 'ana@example.com';
const HEADERS = { authorization: `Bearer ${USER}`, 'content-type': 'application/json' };

const dir = mkdtempSync(path.join(tmpdir(), 'gspec-emulator-crash-'));
const file = path.join(dir, 'state.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A fixed seed by default, so that CI runs one schedule; CRASH_SEED=random draws one.
const seed =
  process.env.CRASH_SEED === 'random' ? Date.now() % 1_000_000 : Number(process.env.CRASH_SEED ?? 20_261_122);
/** mulberry32: a small seeded generator, so that a failing run can be repeated. */
const random = (() => {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
})();

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const counterId = (worker: number) => `counter${pad(worker, 2)}`;
const summaryOf = (id: string) => `crash test ${id}`;
const event = (id: string, description: string) => ({
  id,
  summary: summaryOf(id),
  description,
  start: { dateTime: '2026-03-02T09:00:00Z' },
  end: { dateTime: '2026-03-02T10:00:00Z' },
});

interface Write {
  kind: 'insert' | 'patch' | 'delete';
  worker: number;
  /** The event id written (insert) or the counter value set (patch). */
  id: string;
  value: number;
  /** Answered 2xx: the server said it is saved. */
  acked: boolean;
  /** The revision in the answer's etag. */
  revision?: number;
}

interface EventRecord {
  revision: number;
  resource: { summary?: string; description?: string; status?: string };
}
interface DumpedState {
  revision: number;
  calendar: { events: Record<string, Record<string, EventRecord>> };
}

afterEach(() => stopAll('SIGKILL'));

async function start(): Promise<{ run: CliRun; origin: string }> {
  const run = startCli(['--persist', file]);
  return { run, origin: await run.ready };
}

/** SQLite's own check of the whole file, from another process (as any tool would open it). */
function integrity(): string {
  return execFileSync(
    process.execPath,
    [
      '-e',
      "const D = require('libsql'); const db = new D(process.argv[1]); console.log(db.prepare('PRAGMA integrity_check').raw().all().flat().join(' '))",
      file,
    ],
    { cwd: path.join(import.meta.dirname, '..'), encoding: 'utf8' },
  ).trim();
}

async function dump(origin: string): Promise<DumpedState> {
  return (await (await fetch(`${origin}/__emulator/state`)).json()) as DumpedState;
}

const revisionOfEtag = (etag: string) => Number(etag.replace(/"/g, '').slice(-10));

describe('--persist survives kill -9', () => {
  beforeAll(async () => {
    requireBuiltCli();
    // A state of a few MB, written in-process into the database the CLI then keeps.
    const emulator = createEmulator({ specs: { calendar: spec }, persist: file });
    const padding = 'x'.repeat(600);
    for (let i = 0; i < INITIAL_EVENTS; i++)
      emulator.invoke(USER, 'events.insert', {
        path: { calendarId: 'primary' },
        body: event(`initial${pad(i, 5)}`, `${i} ${padding}`),
      });
    for (let w = 0; w < WORKERS; w++)
      emulator.invoke(USER, 'events.insert', {
        path: { calendarId: 'primary' },
        body: event(counterId(w), '0'),
      });
    await emulator.close();
  });

  it(`loses at most the writes in flight, over ${ROUNDS} rounds`, async () => {
    // What the file must hold: every event id, and each counter's value (or the value in flight).
    const expectedIds = new Set<string>();
    for (let i = 0; i < INITIAL_EVENTS; i++) expectedIds.add(`initial${pad(i, 5)}`);
    const counters = Array.from({ length: WORKERS }, () => 0);
    for (let w = 0; w < WORKERS; w++) expectedIds.add(counterId(w));
    const cancelled = new Set<string>();
    const totals = { acked: 0, inFlight: 0, inFlightKept: 0, deletes: 0 };
    let written: Write[] = [];

    /** Checks the restarted state against the writes of the round before, then carries it forward. */
    const verify = (state: DumpedState, round: number) => {
      const where = `round ${round} (CRASH_SEED=${seed})`;
      const events = state.calendar.events[USER] ?? {};
      const present = new Set(Object.keys(events));
      const maxAcked = Math.max(0, ...written.filter((w) => w.acked).map((w) => w.revision ?? 0));
      expect(state.revision, `${where}: the revision of an answered write`).toBeGreaterThanOrEqual(maxAcked);
      for (const write of written.filter((w) => w.kind === 'insert')) {
        if (write.acked) {
          expect(present.has(write.id), `${where}: answered insert ${write.id} lost`).toBe(true);
          expectedIds.add(write.id);
        } else if (present.has(write.id)) {
          totals.inFlightKept += 1;
          expectedIds.add(write.id);
        }
      }
      expect(
        [...present].filter((id) => !expectedIds.has(id)),
        `${where}: events nobody wrote`,
      ).toEqual([]);
      expect(
        [...expectedIds].filter((id) => !present.has(id)),
        `${where}: events lost`,
      ).toEqual([]);
      for (const write of written.filter((w) => w.kind === 'delete')) {
        const status = events[write.id]?.resource.status;
        if (write.acked) {
          expect(status, `${where}: answered delete of ${write.id} lost`).toBe('cancelled');
          cancelled.add(write.id);
        } else if (status === 'cancelled') {
          totals.inFlightKept += 1;
          cancelled.add(write.id);
        }
      }
      const summaries = Object.values(events).map((e) => e.resource.summary);
      expect(new Set(summaries).size, `${where}: duplicated summaries`).toBe(summaries.length);
      for (const [id, record] of Object.entries(events)) {
        expect(record.resource.summary, `${where}: ${id}`).toBe(summaryOf(id));
        expect(record.resource.status, `${where}: ${id}`).toBe(cancelled.has(id) ? 'cancelled' : 'confirmed');
      }
      for (let w = 0; w < WORKERS; w++) {
        const patches = written.filter((x) => x.kind === 'patch' && x.worker === w);
        const acked = patches.filter((x) => x.acked).map((x) => x.value);
        const last = acked.length > 0 ? Math.max(...acked) : counters[w];
        const inFlight = patches.filter((x) => !x.acked).map((x) => x.value);
        const value = Number(events[counterId(w)]?.resource.description);
        expect([last, ...inFlight], `${where}: counter ${w}`).toContain(value);
        if (value !== last) totals.inFlightKept += 1;
        counters[w] = value;
      }
    };

    for (let round = 1; round <= ROUNDS; round++) {
      if (round > 1) expect(integrity(), `round ${round} (CRASH_SEED=${seed}): integrity_check`).toBe('ok');
      const { run, origin } = await start();
      verify(await dump(origin), round);

      written = [];
      let killed = false;
      const unexpected: string[] = [];
      // The kill comes after this many answered writes in the round (so at least 12 a round).
      const target = 12 + Math.floor(random() * 40);
      let ackedInRound = 0;
      let reached: () => void = () => undefined;
      const enough = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const work = async (worker: number) => {
        let n = 0;
        let value = counters[worker] ?? 0;
        // This worker's answered inserts of this round, the next one to delete first.
        const mine: string[] = [];
        while (!killed) {
          n += 1;
          const kind = n % 3 === 0 ? 'patch' : n % 5 === 0 && mine.length > 0 ? 'delete' : 'insert';
          const id =
            kind === 'patch'
              ? counterId(worker)
              : kind === 'delete'
                ? (mine.shift() as string)
                : `e${pad(round, 2)}${pad(worker, 2)}${pad(n, 5)}`;
          if (kind === 'patch') value += 1;
          const write: Write = { kind, worker, id, value, acked: false };
          written.push(write);
          try {
            const response = await fetch(
              `${origin}/calendar/v3/calendars/primary/events${kind === 'insert' ? '' : `/${id}`}`,
              {
                method: kind === 'patch' ? 'PATCH' : kind === 'delete' ? 'DELETE' : 'POST',
                headers: HEADERS,
                ...(kind === 'delete'
                  ? {}
                  : {
                      body: JSON.stringify(
                        kind === 'patch' ? { description: String(value) } : event(id, `round ${round}`),
                      ),
                    }),
              },
            );
            // The status line is sent only after the save: from here on the write must survive.
            if (response.ok) {
              write.acked = true;
              if (kind === 'insert') mine.push(id);
              ackedInRound += 1;
              if (ackedInRound >= target) reached();
            } else {
              unexpected.push(`${write.kind} ${id}: ${response.status}`);
              reached(); // no need to wait for a count that a failing server may never reach
            }
            const text = await response.text();
            const body = (text ? JSON.parse(text) : {}) as { etag?: string };
            if (body.etag) write.revision = revisionOfEtag(body.etag);
          } catch {
            // The connection died with the server: in flight at the kill (or its body cut off).
          }
        }
      };
      const workers = Array.from({ length: WORKERS }, (_, w) => work(w));

      // A server that dies on its own ends the wait too; the checks below then say so.
      void run.exited.then(reached);
      await enough;
      // In odd rounds, a few turns of this process's loop later (answers arrive meanwhile).
      if (round % 2 === 1) {
        const turns = Math.floor(random() * 31);
        for (let t = 0; t < turns; t++) await new Promise((r) => setImmediate(r));
      }
      killed = true;
      run.child.kill('SIGKILL');
      expect(await run.exited).toBeNull();
      await Promise.all(workers);
      expect(unexpected, `round ${round} (CRASH_SEED=${seed}): answers that are not 2xx`).toEqual([]);
      totals.acked += written.filter((w) => w.acked).length;
      totals.inFlight += written.filter((w) => !w.acked).length;
      totals.deletes += written.filter((w) => w.kind === 'delete' && w.acked).length;
    }

    // The last round's kill, checked by one more start; then a clean stop.
    expect(integrity(), `after round ${ROUNDS} (CRASH_SEED=${seed}): integrity_check`).toBe('ok');
    const { run, origin } = await start();
    verify(await dump(origin), ROUNDS + 1);
    expect(await run.stop('SIGTERM')).toBe(0);

    console.log(
      `crash test (CRASH_SEED=${seed}): ${ROUNDS} kills, ${totals.acked} answered writes all kept ` +
        `(${totals.deletes} of them deletes), ${totals.inFlight} in flight at the kills (${totals.inFlightKept} of them kept), ` +
        'integrity_check ok after every kill',
    );
    // Each round killed after its count of answered writes (12 or more); writes were in flight at the kills.
    expect(totals.inFlight).toBeGreaterThanOrEqual(ROUNDS);
    expect(totals.deletes).toBeGreaterThan(0);
  });
});
