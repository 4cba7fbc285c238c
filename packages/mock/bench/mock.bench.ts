/**
 * The mock under load, against a bare Prism on the same spec in the same run:
 *
 * - start-up: time from spawning the process to its first 200 on events.list (goal ≤ 3 s);
 * - throughput and p50/p99 latency of events.list with 20 connections, the mock's
 *   `GET /calendar/v3/calendars/primary/events` against bare Prism's
 *   `GET /calendars/primary/events` (Prism ignores the base path); goal ≥ 0.9× Prism;
 * - soak: 50 connections for 30 s, no error on valid requests, RSS growth of the mock < 50 MB.
 *
 * Rounds alternate between the two servers so that a noisy neighbour slows both alike.
 * Prints the figures and writes the `mock` section of docs/benchmarks.md. Loopback only.
 * BENCH_ROUND_SECONDS, BENCH_ROUNDS and BENCH_SOAK_SECONDS shorten it for a quick look.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { barChart, median, writeBenchSection } from '@gspec/scripts/bench-report';
import { startProcess } from '@gspec/scripts/child-process';
import autocannon, { type Result } from 'autocannon';

const here = import.meta.dirname;
const cli = path.resolve(here, '../dist/cli.js');
const require = createRequire(import.meta.url);
const specFile = path.join(path.dirname(require.resolve('@gspec/specs/apis.json')), 'calendar.json');
const prismCli = require.resolve('@stoplight/prism-cli/dist/index.js');

const HOST = '127.0.0.1';
const AUTH = { authorization: 'Bearer bench-token' };
const CONNECTIONS = 20;
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 30);
const SOAK_CONNECTIONS = 50;
const STARTS = 3;

const GOALS = { ratio: 0.9, startMs: 3000, growthMb: 50 };

interface Target {
  name: string;
  /** The command line, for the report. */
  command: string;
  argv: (port: number) => string[];
  path: string;
}

const targets: Target[] = [
  {
    name: 'gspec mock',
    command: 'node packages/mock/dist/cli.js --port N',
    argv: (port) => [cli, '--port', String(port), '--host', HOST],
    path: '/calendar/v3/calendars/primary/events',
  },
  {
    name: 'bare Prism',
    command: 'prism mock specs/dist/calendar.json -p N -v error',
    // Prism's per-request info logging is turned down, as the mock's is by default, so that
    // the comparison measures serving, not printing.
    argv: (port) => [prismCli, 'mock', specFile, '-p', String(port), '-h', HOST, '-v', 'error'],
    path: '/calendars/primary/events',
  },
];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface Running {
  child: ChildProcess;
  url: string;
  startMs: number;
  stop(): Promise<unknown>;
}

/**
 * Spawns a target and polls until its first 200: the time from spawn to then is its start-up.
 * The process is killed on every path (see @gspec/scripts/child-process); a start that never
 * answers ends at the helper's hang guard, with what the process printed.
 */
async function start(target: Target): Promise<Running> {
  const port = await freePort();
  const url = `http://${HOST}:${port}${target.path}`;
  const began = performance.now();
  // Readiness is the first 200, polled below: no line of output marks it for both targets.
  const run = startProcess(target.name, target.argv(port), { ready: () => undefined });
  const exited = () => run.child.exitCode !== null || run.child.signalCode !== null;
  for (;;) {
    if (exited()) throw new Error(`${target.name} exited before answering: ${run.output().err}`);
    try {
      const response = await fetch(url, { headers: AUTH });
      await response.arrayBuffer();
      if (response.status === 200)
        return { child: run.child, url, startMs: performance.now() - began, stop: () => run.stop() };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function load(url: string, connections: number, seconds: number): Promise<Result> {
  return autocannon({ url, connections, duration: seconds, headers: AUTH, timeout: 10 });
}

/** Resident memory of a process in MB, from /proc (Linux) or ps. */
function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    if (kb > 0) return kb / 1024;
  } catch {
    // not Linux
  }
  const { execFileSync } = require('node:child_process') as typeof import('node:child_process');
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

async function main(): Promise<void> {
  console.log(`events.list, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${ROUND_SECONDS} s`);

  // Start-up, several times each: the first start of a process also pays for a cold disk cache.
  const starts = new Map<string, number[]>();
  for (let i = 0; i < STARTS; i++) {
    for (const target of targets) {
      const running = await start(target);
      starts.set(target.name, [...(starts.get(target.name) ?? []), running.startMs]);
      await running.stop();
    }
  }
  for (const [name, times] of starts)
    console.log(`start-up ${name}: ${times.map((t) => `${Math.round(t)} ms`).join(', ')}`);

  const running = new Map<string, Running>();
  for (const target of targets) running.set(target.name, await start(target));
  const rssAtStart = rssMb((running.get('gspec mock') as Running).child.pid as number);
  try {
    for (const target of targets) await load((running.get(target.name) as Running).url, CONNECTIONS, 3); // warm-up

    const rounds = new Map<string, Result[]>(targets.map((t) => [t.name, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const target of round % 2 ? targets : [...targets].reverse()) {
        const result = await load((running.get(target.name) as Running).url, CONNECTIONS, ROUND_SECONDS);
        rounds.get(target.name)?.push(result);
        console.log(
          `round ${round} ${target.name}: ${Math.round(result.requests.total / result.duration)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}`,
        );
      }
    }
    const summary = targets.map((target) => {
      const results = rounds.get(target.name) as Result[];
      const requests = results.reduce((sum, r) => sum + r.requests.total, 0);
      const seconds = results.reduce((sum, r) => sum + r.duration, 0);
      return {
        target,
        rps: Math.round(requests / seconds),
        p50: median(results.map((r) => r.latency.p50)),
        p99: median(results.map((r) => r.latency.p99)),
        failed: results.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
        startMs: Math.round(median(starts.get(target.name) as number[])),
        startMaxMs: Math.round(Math.max(...(starts.get(target.name) as number[]))),
      };
    });
    const [mock, prism] = summary as [(typeof summary)[0], (typeof summary)[0]];
    const ratio = Math.round((mock.rps / prism.rps) * 100) / 100;
    console.log(`throughput ratio mock / bare Prism: ${ratio} (goal ≥ ${GOALS.ratio})`);

    // Soak: the mock alone, after the rounds above have warmed it up.
    await (running.get('bare Prism') as Running).stop();
    const mockProcess = running.get('gspec mock') as Running;
    const pid = mockProcess.child.pid as number;
    const rssBefore = rssMb(pid);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssMb(pid));
    }, 1000);
    const soak = await load(mockProcess.url, SOAK_CONNECTIONS, SOAK_SECONDS);
    clearInterval(sampler);
    const rssAfter = rssMb(pid);
    rssPeak = Math.max(rssPeak, rssAfter);
    const growth = round1(rssAfter - rssBefore);
    const soakFailures = soak.non2xx + soak.errors + soak.timeouts;
    console.log(
      `soak ${SOAK_CONNECTIONS} connections ${SOAK_SECONDS} s: ${soak.requests.total} requests, ${soakFailures} failed, RSS ${round1(rssBefore)} → ${round1(rssAfter)} MB (peak ${round1(rssPeak)}), growth ${growth} MB`,
    );

    const met = (ok: boolean) => (ok ? 'met' : '**not met**');
    const markdown = `## Mock: gateway against bare Prism

\`npm run bench\` (\`packages/mock/bench/mock.bench.ts\`): events.list with autocannon, ${CONNECTIONS}
connections, ${ROUNDS} alternating rounds of ${ROUND_SECONDS} s after a 3 s warm-up, both servers on
127.0.0.1 in the same run. The mock serves \`GET /calendar/v3/calendars/primary/events\`; bare
Prism (\`${prism.target.command}\`, logging turned down as the mock's is by default) serves
\`GET /calendars/primary/events\` from the same bundled spec. Start-up is the time from spawning
the process to its first 200, the median of ${STARTS} starts.

| | Requests/s | p50 latency | p99 latency | Non-2xx or errors | Start-up (median / max) |
|---|---:|---:|---:|---:|---:|
| gspec mock | ${mock.rps} | ${mock.p50} ms | ${mock.p99} ms | ${mock.failed} | ${mock.startMs} / ${mock.startMaxMs} ms |
| bare Prism | ${prism.rps} | ${prism.p50} ms | ${prism.p99} ms | ${prism.failed} | ${prism.startMs} / ${prism.startMaxMs} ms |

\`\`\`text
${barChart(
  summary.map((s) => [s.target.name, s.rps]),
  ' req/s',
)}
\`\`\`

Soak: ${SOAK_CONNECTIONS} connections for ${SOAK_SECONDS} s on the mock, ${soak.requests.total} requests at
${Math.round(soak.requests.total / soak.duration)} req/s (p99 ${soak.latency.p99} ms), ${soakFailures} non-2xx or errors;
the mock's RSS went from ${round1(rssBefore)} MB to ${round1(rssAfter)} MB (peak ${round1(rssPeak)} MB). The soak
follows the rounds above on the same process, so it measures growth in steady state; right
after its first answer the process held ${round1(rssAtStart)} MB.

Why the gateway outruns bare Prism while using Prism: it routes by its own table and hands
Prism the one matching operation (Prism's router scores every path of the spec per request),
and it skips Prism's response validation unless \`--verbose\` is on, because with
\`errors: false\` that validation only writes log lines. With response validation on, as
before these changes, the two were level (about 1.0×).

| Goal | Measured | |
|---|---|---|
| throughput ≥ ${GOALS.ratio}× bare Prism | ${ratio}× | ${met(ratio >= GOALS.ratio)} |
| first answer ≤ ${GOALS.startMs / 1000} s after start | ${mock.startMaxMs} ms (slowest of ${STARTS}) | ${met(mock.startMaxMs <= GOALS.startMs)} |
| soak: no error on valid requests | ${soakFailures} | ${met(soakFailures === 0)} |
| soak: RSS growth < ${GOALS.growthMb} MB | ${growth} MB | ${met(growth < GOALS.growthMb)} |
`;
    writeBenchSection('mock', markdown);
    console.log('wrote the mock section of docs/benchmarks.md');
  } finally {
    await Promise.all([...running.values()].map((r) => r.stop()));
  }
}

main().catch((error: unknown) => {
  console.error(`bench: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
