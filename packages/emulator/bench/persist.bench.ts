/**
 * `--persist` with a calendar of 100,000 events (BENCH_PERSIST_EVENTS), the emulator's built CLI
 * on 127.0.0.1, in one run:
 *
 * - durable events.insert, one client (one request at a time on a keep-alive connection):
 *   p50 and p99 with `--persist-sync normal` (the default) and `full`, and the same without
 *   persistence; goals p50 ≤ 2 ms and p99 ≤ 10 ms (normal);
 * - durable events.insert, 20 connections (autocannon), alternating rounds with and without
 *   persistence: goal at least half the throughput without;
 * - restart: from spawning the CLI on the database to its first answer (one page of events);
 *   goal within 3 s.
 *
 * The state without persistence is the same one, loaded with --state from the persistent
 * emulator's own dump. Writes the `emulator-persist` section of docs/benchmarks.md.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { barChart, percentile, writeBenchSection } from '@gspec/scripts/bench-report';
import { type ChildRun, startServer } from '@gspec/scripts/child-process';
import autocannon from 'autocannon';
import { createEmulator } from '../src/index.ts';

const here = import.meta.dirname;
const cli = path.resolve(here, '../dist/cli.js');
const EVENTS = Number(process.env.BENCH_PERSIST_EVENTS ?? 100_000);
const SERIES = Number(process.env.BENCH_PERSIST_SERIES ?? 1000);
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = 20;
const USER = 'big@example.com';
const GOALS = { p50Ms: 2, p99Ms: 10, share: 0.5, restartMs: 3000 };

const round2 = (n: number) => Math.round(n * 100) / 100;

const body = (i: number) =>
  JSON.stringify({
    summary: `Insert ${i}`,
    description: 'Written during the benchmark',
    start: { dateTime: new Date(Date.parse('2027-01-04T09:00:00Z') + i * 60_000).toISOString() },
    end: { dateTime: new Date(Date.parse('2027-01-04T09:30:00Z') + i * 60_000).toISOString() },
  });

/** A database holding EVENTS events in USER's primary calendar, written in-process. */
async function makeDatabase(file: string): Promise<number> {
  const emulator = createEmulator({ persist: file });
  const base = Date.parse('2026-01-05T00:00:00Z');
  for (let i = 0; i < EVENTS; i++) {
    const start = new Date(base + i * 600_000);
    emulator.invoke(USER, 'events.insert', {
      path: { calendarId: 'primary' },
      body: {
        summary: `Event ${i}`,
        description: `Bench event number ${i}`,
        location: 'Room 1',
        start: { dateTime: start.toISOString() },
        end: { dateTime: new Date(start.getTime() + 1_800_000).toISOString() },
      },
    });
  }
  const began = performance.now();
  await emulator.close();
  return performance.now() - began;
}

/** One insert after another on one keep-alive connection: the latency of each. */
async function series(origin: string, count: number, offset: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(`${origin}/calendar/v3/calendars/primary/events`);
  const post = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(
        url,
        {
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${USER}`, 'content-type': 'application/json' },
        },
        (response) => {
          response.resume();
          response.on('end', () =>
            response.statusCode === 200
              ? resolve()
              : reject(new Error(`insert answered ${response.statusCode}`)),
          );
        },
      );
      request.on('error', reject);
      request.end(body(i));
    });
  try {
    await post(offset);
    const times: number[] = [];
    for (let i = 1; i <= count; i++) {
      const t = performance.now();
      await post(offset + i);
      times.push(performance.now() - t);
    }
    return times;
  } finally {
    agent.destroy();
  }
}

async function load(origin: string): Promise<number> {
  const result = await autocannon({
    url: `${origin}/calendar/v3/calendars/primary/events`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: ROUND_SECONDS,
    headers: { authorization: `Bearer ${USER}`, 'content-type': 'application/json' },
    body: body(0),
  });
  if (result.non2xx + result.errors > 0) throw new Error(`${result.non2xx + result.errors} inserts failed`);
  return result.requests.average;
}

async function firstAnswer(args: string[]): Promise<{ run: ChildRun & { origin: string }; ms: number }> {
  const began = performance.now();
  const run = await startServer('the emulator', [cli, '--port', '0', ...args]);
  const response = await fetch(`${run.origin}/calendar/v3/calendars/primary/events?maxResults=10`, {
    headers: { authorization: `Bearer ${USER}` },
  });
  if (response.status !== 200) throw new Error(`the first answer was ${response.status}`);
  await response.arrayBuffer();
  return { run, ms: performance.now() - began };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gspec-emulator-persist-bench-'));
  try {
    const file = path.join(dir, 'state.db');
    const dumpFile = path.join(dir, 'state.json');
    console.log(`writing ${EVENTS} events into ${file}`);
    const firstCommitMs = await makeDatabase(file);

    // Restart: spawn to first answer, twice (the first warms the file cache as a restart would find it).
    const restarts: number[] = [];
    for (let i = 0; i < 2; i++) {
      const { run, ms } = await firstAnswer(['--persist', file]);
      restarts.push(ms);
      if (i === 0)
        writeFileSync(
          dumpFile,
          Buffer.from(await (await fetch(`${run.origin}/__emulator/state`)).arrayBuffer()),
        );
      await run.stop('SIGTERM');
    }
    const restartMs = Math.round(Math.min(...restarts));
    console.log(
      `restart with ${EVENTS} events: first answer after ${restarts.map(Math.round).join(' ms, ')} ms`,
    );

    const memory = await startServer('the emulator without persistence', [
      cli,
      '--port',
      '0',
      '--state',
      dumpFile,
    ]);
    const normal = await startServer('the emulator, --persist', [cli, '--port', '0', '--persist', file]);
    const rows: { label: string; p50: number; p99: number }[] = [];
    const throughput = { memory: [] as number[], persisted: [] as number[] };
    try {
      let offset = 0;
      for (const [label, origin] of [
        ['without persistence', memory.origin],
        ['--persist (sync normal)', normal.origin],
      ] as const) {
        const times = await series(origin, SERIES, offset);
        offset += SERIES + 1;
        rows.push({ label, p50: round2(percentile(times, 50)), p99: round2(percentile(times, 99)) });
      }
      for (let round = 0; round < ROUNDS; round++) {
        throughput.memory.push(await load(memory.origin));
        throughput.persisted.push(await load(normal.origin));
      }
    } finally {
      await memory.stop('SIGTERM');
      await normal.stop('SIGTERM');
    }
    const full = await startServer('the emulator, --persist-sync full', [
      cli,
      '--port',
      '0',
      '--persist',
      file,
      '--persist-sync',
      'full',
    ]);
    try {
      const times = await series(full.origin, SERIES, 10 * SERIES);
      rows.push({
        label: '--persist-sync full',
        p50: round2(percentile(times, 50)),
        p99: round2(percentile(times, 99)),
      });
    } finally {
      await full.stop('SIGTERM');
    }
    for (const row of rows)
      console.log(`events.insert, one client, ${row.label}: p50 ${row.p50} ms, p99 ${row.p99} ms`);
    const rps = {
      memory: Math.round(throughput.memory.reduce((a, b) => a + b, 0) / ROUNDS),
      persisted: Math.round(throughput.persisted.reduce((a, b) => a + b, 0) / ROUNDS),
    };
    // Compared unrounded: a share of 0.499 is not 0.5.
    const share = rps.persisted / rps.memory;
    console.log(
      `events.insert, ${CONNECTIONS} connections: ${rps.persisted} req/s persisted, ${rps.memory} without (${share.toFixed(3)}×)`,
    );

    const durable = rows.find((r) => r.label.startsWith('--persist (')) as { p50: number; p99: number };
    const met = (ok: boolean) => (ok ? 'met' : '**not met**');
    const n = EVENTS.toLocaleString('en');
    writeBenchSection(
      'emulator-persist',
      `## Emulator: durable state (\`--persist\`)

\`npm run bench -w @gspec/emulator\` (\`packages/emulator/bench/persist.bench.ts\`). The built CLI on
127.0.0.1 with a database of ${n} events in one calendar (SQLite through libsql, write-ahead log,
decision 0043), written in-process first (its first commit, every row in one transaction, took
${Math.round(firstCommitMs)} ms). Without persistence, the same state loaded with \`--state\` from the
persistent emulator's own dump.

**events.insert into that calendar, one client**: ${SERIES.toLocaleString('en')} inserts one after another on one
keep-alive connection, each answered once its commit is in the database's log.

| Server | p50 | p99 |
|---|---:|---:|
${rows.map((r) => `| ${r.label} | ${r.p50} ms | ${r.p99} ms |`).join('\n')}

**events.insert, ${CONNECTIONS} connections** (autocannon, ${ROUNDS} alternating rounds of ${ROUND_SECONDS} s):
${rps.persisted} req/s with \`--persist\`, ${rps.memory} req/s without (${share.toFixed(3)}×).

\`\`\`text
${barChart(
  [
    ['without persistence', rps.memory],
    ['--persist', rps.persisted],
  ],
  ' req/s',
)}
\`\`\`

**Restart**: from spawning \`gspec-emulator --persist\` on the database to its first answer (a page of
events): ${restarts.map((ms) => `${Math.round(ms)} ms`).join(', ')} (the first start after writing, then again).

| Goal | Measured | |
|---|---|---|
| durable insert into ${n} events, one client: p50 ≤ ${GOALS.p50Ms} ms | ${durable.p50} ms | ${met(durable.p50 <= GOALS.p50Ms)} |
| durable insert into ${n} events, one client: p99 ≤ ${GOALS.p99Ms} ms | ${durable.p99} ms | ${met(durable.p99 <= GOALS.p99Ms)} |
| ${CONNECTIONS} connections: at least ${GOALS.share}× the throughput without persistence | ${share.toFixed(3)}× | ${met(share >= GOALS.share)} |
| restart with ${n} events: first answer within ${GOALS.restartMs / 1000} s | ${restartMs} ms | ${met(restartMs <= GOALS.restartMs)} |

\`--persist-sync full\` flushes the log to the disk at every commit (a power cut then loses no
answered write); what it adds is the disk's flush time, measured above on this machine's
virtual disk; it depends on the disk.
`,
    );
    console.log('wrote the emulator-persist section of docs/benchmarks.md');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
});
