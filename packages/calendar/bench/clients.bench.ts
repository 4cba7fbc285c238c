/**
 * The clients' benchmarks (`npm run bench -w @gspec/calendar`): the same small program,
 * listing one page of events, written with @gspec/calendar and with @googleapis/calendar.
 *
 * 1. Bundle size: esbuild, minified, gzipped (level 9). Goal: ours at most 1/25 of theirs.
 * 2. Cold start: the bundled program as a whole process against a loopback server, against
 *    `node -e 0`. Goal: at most 1.3 times `node -e 0`.
 * 3. Per request: ours, a bare `fetch` and googleapis against the same loopback server, in
 *    interleaved rounds of one run. Goal: at most 1.05 times the bare fetch.
 *
 * Figures are ratios of medians measured in the same run: absolute times vary on shared
 * machines. Results are printed and written to the `clients` section of docs/benchmarks.md.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { calendar_v3 } from '@googleapis/calendar';
import { barChart, writeBenchSection } from '@gspec/scripts/bench-report';
import { build } from 'esbuild';
import { createCalendarClient } from '../src/index.ts';

const here = import.meta.dirname;
const TOKEN = 'bench-token';
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 100);
const WARMUP = 300;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

async function startServer(): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim())));
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code}`)));
  });
  return { port, child };
}

async function bundle(
  entry: string,
  outdir: string,
): Promise<{ file: string; minified: number; gzipped: number }> {
  const file = path.join(outdir, `${path.basename(entry, '.ts')}.mjs`);
  await build({
    entryPoints: [path.join(here, entry)],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile: file,
    // googleapis' CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: 'error',
  });
  const code = readFileSync(file);
  return { file, minified: code.length, gzipped: gzipSync(code, { level: 9 }).length };
}

function timeProcess(args: string[], env: Record<string, string>): number {
  const started = process.hrtime.bigint();
  const out = execFileSync(process.execPath, args, { env: { ...process.env, ...env }, encoding: 'utf8' });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (args[0] !== '-e' && out.trim() !== '10')
    throw new Error(`${args[0]} printed ${JSON.stringify(out)} instead of 10 events`);
  return elapsed;
}

async function main() {
  const { port, child } = await startServer();
  try {
    const origin = `http://127.0.0.1:${port}`;
    const env = { BENCH_TOKEN: TOKEN, BENCH_BASE_URL: `${origin}/calendar/v3`, BENCH_ROOT_URL: `${origin}/` };

    // 1. Bundle size.
    const outdir = mkdtempSync(path.join(tmpdir(), 'gspec-bench-'));
    const ours = await bundle('ours.ts', outdir);
    const theirs = await bundle('googleapis.ts', outdir);
    const bare = await bundle('fetch.ts', outdir);
    const sizeRatio = theirs.gzipped / ours.gzipped;

    // 2. Cold start, interleaved so that drift hits all three alike.
    const cold = {
      node: [] as number[],
      fetch: [] as number[],
      ours: [] as number[],
      theirs: [] as number[],
    };
    for (const file of [bare.file, ours.file, theirs.file]) timeProcess([file], env);
    for (let i = 0; i < COLD_RUNS; i++) {
      cold.node.push(timeProcess(['-e', '0'], env));
      cold.fetch.push(timeProcess([bare.file], env));
      cold.ours.push(timeProcess([ours.file], env));
      cold.theirs.push(timeProcess([theirs.file], env));
    }
    const coldMs = {
      node: median(cold.node),
      fetch: median(cold.fetch),
      ours: median(cold.ours),
      theirs: median(cold.theirs),
    };

    // 3. Per request, in one process. Each round runs the three one after the other, and the
    // ratios are taken within a round: drift of the machine then cancels out of them.
    const calendar = createCalendarClient({ accessToken: TOKEN, baseUrl: env.BENCH_BASE_URL });
    const google = new calendar_v3.Calendar({ rootUrl: env.BENCH_ROOT_URL });
    const url = `${env.BENCH_BASE_URL}/calendars/primary/events?maxResults=10`;
    const variants: Record<'fetch' | 'ours' | 'googleapis', () => Promise<unknown>> = {
      fetch: async () => {
        const response = await fetch(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
        if (!response.ok) throw new Error(`status ${response.status}`);
        return response.json();
      },
      ours: () => calendar.events.list({ calendarId: 'primary', maxResults: 10 }),
      googleapis: () =>
        google.events.list(
          { calendarId: 'primary', maxResults: 10 },
          { headers: { Authorization: `Bearer ${TOKEN}` } },
        ),
    };
    for (const run of Object.values(variants)) for (let i = 0; i < WARMUP; i++) await run();
    const perRound = { fetch: [] as number[], ours: [] as number[], googleapis: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const [name, run] of Object.entries(variants) as [
        keyof typeof variants,
        () => Promise<unknown>,
      ][]) {
        const started = performance.now();
        for (let i = 0; i < PER_ROUND; i++) await run();
        perRound[name].push(((performance.now() - started) * 1000) / PER_ROUND);
      }
    }
    const perRequestUs = {
      fetch: median(perRound.fetch),
      ours: median(perRound.ours),
      googleapis: median(perRound.googleapis),
    };
    const ratioTo = (name: 'ours' | 'googleapis') =>
      median(perRound[name].map((us, r) => us / (perRound.fetch[r] as number)));
    const requestRatio = { ours: ratioTo('ours'), googleapis: ratioTo('googleapis') };
    const requests = (WARMUP + ROUNDS * PER_ROUND) * 3;

    const goals = {
      size: ours.gzipped * 25 <= theirs.gzipped,
      cold: coldMs.ours <= coldMs.node * 1.3,
      request: requestRatio.ours <= 1.05,
    };
    const met = (ok: boolean) => (ok ? 'met' : '**not met**');
    const markdown = `## Clients: @gspec/calendar against @googleapis/calendar

The same program, listing one page of events (\`packages/calendar/bench/ours.ts\`,
\`googleapis.ts\`), measured by \`npm run bench -w @gspec/calendar\`.

| Benchmark | @gspec/calendar | @googleapis/calendar | Reference | Ratio | Goal |
|---|---|---|---|---|---|
| Bundle, esbuild minified + gzip | ${round(ours.gzipped / 1024, 1)} KiB (${round(ours.minified / 1024, 1)} KiB min) | ${round(theirs.gzipped / 1024, 1)} KiB (${round(theirs.minified / 1024, 1)} KiB min) | | theirs ÷ ours = ${round(sizeRatio, 1)} | ≥ 25: ${met(goals.size)} |
| Cold start, median of ${COLD_RUNS} processes | ${round(coldMs.ours, 1)} ms | ${round(coldMs.theirs, 1)} ms | \`node -e 0\` ${round(coldMs.node, 1)} ms; the same request with a bare \`fetch\` ${round(coldMs.fetch, 1)} ms (${round(coldMs.fetch / coldMs.node)}×) | ours ${round(coldMs.ours / coldMs.node)}×, theirs ${round(coldMs.theirs / coldMs.node)}× | ≤ 1.3×: ${met(goals.cold)} |
| Per request over loopback, ${ROUNDS} rounds of ${PER_ROUND} | ${round(perRequestUs.ours, 1)} µs | ${round(perRequestUs.googleapis, 1)} µs | bare \`fetch\` ${round(perRequestUs.fetch, 1)} µs | median ratio in a round: ours ${round(requestRatio.ours)}×, theirs ${round(requestRatio.googleapis)}× | ≤ 1.05×: ${met(goals.request)} |

\`\`\`
Bundle (KiB, gzipped)
${barChart(
  [
    ['@gspec/calendar', round(ours.gzipped / 1024, 1)],
    ['@googleapis/calendar', round(theirs.gzipped / 1024, 1)],
  ],
  ' KiB',
)}

Cold start (ms)
${barChart(
  [
    ['node -e 0', round(coldMs.node, 1)],
    ['bare fetch', round(coldMs.fetch, 1)],
    ['@gspec/calendar', round(coldMs.ours, 1)],
    ['@googleapis/calendar', round(coldMs.theirs, 1)],
  ],
  ' ms',
)}

Per request (µs)
${barChart(
  [
    ['fetch', round(perRequestUs.fetch, 1)],
    ['@gspec/calendar', round(perRequestUs.ours, 1)],
    ['@googleapis/calendar', round(perRequestUs.googleapis, 1)],
  ],
  ' µs',
)}
\`\`\`

${requests} requests to a node:http server on 127.0.0.1 in a process of its own.`;
    console.log(markdown);
    writeBenchSection('clients', markdown);
  } finally {
    child.kill();
  }
}

await main();
