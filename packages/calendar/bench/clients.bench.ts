/**
 * The clients' benchmarks (`npm run bench -w @gspec/calendar`): the same small program,
 * listing one page of events, written with @gspec/calendar and with @googleapis/calendar.
 * Ours is measured as a Node program would use it (`ours.ts`: `createCalendarWith` and
 * `eventsList`, the resource method without openapi-fetch, over `nodeFetch`), and, for
 * comparison, with the global fetch as a browser or edge program runs it (`ours-fetch.ts`). The
 * goals are judged on the first.
 *
 * 1. Bundle size: esbuild, minified, gzipped (level 9), as one file. Nothing in the runtime is
 *    loaded through import(), so a bundler that splits code loads the same at start. Goal: ours
 *    at most 1/25 of theirs, as the clients promise, for `ours.ts` and for `user.ts`, the program
 *    a user writes from the README's first example. The same program with a client of every
 *    operation (`ours-every-operation.ts`, `createCalendar`) is measured as a reference.
 * 2. Cold start: the bundled program as a whole process against a loopback server, against
 *    `node -e 0`. Goal: at most 1.3 times `node -e 0`.
 * 3. Per request: ours, a bare `fetch` and googleapis against the same loopback server, in
 *    interleaved rounds of one run. Goal: at most 1.05 times the bare fetch.
 *
 * Figures are ratios of medians measured in the same run: absolute times vary on shared
 * machines. Results are printed and written to the `clients` section of docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { calendar_v3 } from '@googleapis/calendar';
import { barChart, median, writeBenchSection } from '@gspec/scripts/bench-report';
import { startServer } from '@gspec/scripts/child-process';
import { build } from 'esbuild';
import { createCalendarWith, eventsList } from '../src/index.ts';
import { nodeFetch } from '../src/node.ts';

const here = import.meta.dirname;
const TOKEN = 'bench-token';
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 100);
const WARMUP = 300;

const round = (value: number, digits = 2) => Number(value.toFixed(digits));

/** theirs ÷ ours that the size goal asks for: what the clients promise. */
const SIZE_GOAL = 25;

/** The bench server (bench/server.ts), ready once it prints its port; killed on every path. */
async function startBenchServer(): Promise<{ port: number; stop: () => Promise<unknown> }> {
  const server = await startServer('the bench server', ['--import', 'tsx', path.join(here, 'server.ts')], {
    ready: /^(\d+)$/m,
  });
  return { port: Number(server.origin), stop: () => server.stop() };
}

async function bundle(
  entry: string,
  outdir: string,
  { commonJs = false } = {},
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
    // googleapis' CommonJS dependencies call require(); give its ESM bundle one. Ours is
    // ESM throughout and needs none.
    ...(commonJs && {
      banner: {
        js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
      },
    }),
    logLevel: 'error',
  });
  const code = readFileSync(file);
  return { file, minified: code.length, gzipped: gzipSync(code, { level: 9 }).length };
}

function timeProcess(args: string[], env: Record<string, string>): number {
  const started = process.hrtime.bigint();
  const out = execFileSync(process.execPath, args, {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 240_000,
  });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (args[0] !== '-e' && out.trim() !== '10')
    throw new Error(`${args[0]} printed ${JSON.stringify(out)} instead of 10 events`);
  return elapsed;
}

async function main() {
  const { port, stop } = await startBenchServer();
  try {
    const origin = `http://127.0.0.1:${port}`;
    const env = { BENCH_TOKEN: TOKEN, BENCH_BASE_URL: `${origin}/calendar/v3`, BENCH_ROOT_URL: `${origin}/` };

    // 1. Bundle size.
    const outdir = mkdtempSync(path.join(tmpdir(), 'gspec-bench-'));
    const ours = await bundle('ours.ts', outdir);
    const oursFetch = await bundle('ours-fetch.ts', outdir);
    const theirs = await bundle('googleapis.ts', outdir, { commonJs: true });
    const bare = await bundle('fetch.ts', outdir);
    const bareHttp = await bundle('http.ts', outdir);
    const user = await bundle('user.ts', outdir);
    const everyOperation = await bundle('ours-every-operation.ts', outdir);
    const sizeRatio = theirs.gzipped / ours.gzipped;
    const sizeRatioUser = theirs.gzipped / user.gzipped;
    const sizeRatioFetch = theirs.gzipped / oursFetch.gzipped;
    const sizeRatioEvery = theirs.gzipped / everyOperation.gzipped;
    /** The most bytes a program may bundle to meet the goal. */
    const sizeLimit = Math.floor(theirs.gzipped / SIZE_GOAL);
    const against = (bytes: number) =>
      bytes <= sizeLimit ? `${sizeLimit - bytes} B under it` : `**${bytes - sizeLimit} B over it**`;

    // 2. Cold start, interleaved so that drift hits all alike.
    const programs = { fetch: bare, http: bareHttp, ours, oursFetch, theirs };
    const cold = Object.fromEntries([
      ['node', []],
      ...Object.keys(programs).map((name) => [name, []]),
    ]) as Record<'node' | keyof typeof programs, number[]>;
    for (const program of Object.values(programs)) timeProcess([program.file], env);
    for (let i = 0; i < COLD_RUNS; i++) {
      cold.node.push(timeProcess(['-e', '0'], env));
      for (const [name, program] of Object.entries(programs)) {
        cold[name as keyof typeof programs].push(timeProcess([program.file], env));
      }
    }
    const coldMs = Object.fromEntries(
      Object.entries(cold).map(([name, times]) => [name, median(times)]),
    ) as Record<keyof typeof cold, number>;
    const coldRatio = (name: keyof typeof cold) => coldMs[name] / coldMs.node;

    // 3. Per request, in one process. Each round runs the variants one after the other, in an
    // order that rotates, and the ratios are taken within a round: drift of the machine then
    // cancels out of them.
    const calendar = createCalendarWith(
      { accessToken: TOKEN, baseUrl: env.BENCH_BASE_URL, fetch: nodeFetch },
      eventsList,
    );
    const calendarFetch = createCalendarWith({ accessToken: TOKEN, baseUrl: env.BENCH_BASE_URL }, eventsList);
    const google = new calendar_v3.Calendar({ rootUrl: env.BENCH_ROOT_URL });
    const url = `${env.BENCH_BASE_URL}/calendars/primary/events?maxResults=10`;
    const headers = { Authorization: `Bearer ${TOKEN}` };
    const bareCall = async (send: typeof fetch | typeof nodeFetch) => {
      const response = await send(url, { headers });
      if (!response.ok) throw new Error(`status ${response.status}`);
      return response.json();
    };
    const variants = {
      fetch: () => bareCall(fetch),
      nodeFetch: () => bareCall(nodeFetch),
      ours: () => calendar.events.list({ calendarId: 'primary', maxResults: 10 }),
      oursFetch: () => calendarFetch.events.list({ calendarId: 'primary', maxResults: 10 }),
      googleapis: () => google.events.list({ calendarId: 'primary', maxResults: 10 }, { headers }),
    } satisfies Record<string, () => Promise<unknown>>;
    type Variant = keyof typeof variants;
    const names = Object.keys(variants) as Variant[];
    for (const name of names) for (let i = 0; i < WARMUP; i++) await variants[name]();
    const perRound = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
      Variant,
      number[]
    >;
    for (let r = 0; r < ROUNDS; r++) {
      // The variant that runs right after another pays for some of its leftovers (measured:
      // up to 10 %), so the order rotates from round to round.
      for (const name of [...names.slice(r % names.length), ...names.slice(0, r % names.length)]) {
        const started = performance.now();
        for (let i = 0; i < PER_ROUND; i++) await variants[name]();
        perRound[name].push(((performance.now() - started) * 1000) / PER_ROUND);
      }
    }
    const perRequestUs = Object.fromEntries(names.map((name) => [name, median(perRound[name])])) as Record<
      Variant,
      number
    >;
    const ratioTo = (name: Variant, reference: Variant) =>
      median(perRound[name].map((us, r) => us / (perRound[reference][r] as number)));
    const requestRatio = {
      ours: ratioTo('ours', 'fetch'),
      oursOverNodeFetch: ratioTo('ours', 'nodeFetch'),
      oursFetch: ratioTo('oursFetch', 'fetch'),
      googleapis: ratioTo('googleapis', 'fetch'),
    };
    const requests = (WARMUP + ROUNDS * PER_ROUND) * names.length;

    const goals = {
      size: sizeRatio >= SIZE_GOAL && sizeRatioUser >= SIZE_GOAL,
      cold: coldMs.ours <= coldMs.node * 1.3,
      request: requestRatio.ours <= 1.05,
    };
    const met = (ok: boolean) => (ok ? 'met' : '**not met**');
    const kib = (bytes: number) => `${round(bytes / 1024, 1)} KiB`;
    const ms = (value: number) => `${round(value, 1)} ms`;
    const us = (value: number) => `${round(value, 1)} µs`;
    const markdown = `## Clients: @gspec/calendar against @googleapis/calendar

The same program, listing one page of events, measured by \`npm run bench -w @gspec/calendar\`
(\`packages/calendar/bench/\`):

- **ours** (\`ours.ts\`), as a Node program uses it: \`createCalendarWith(options, eventsList)\`
  (a client of the operation it names, without openapi-fetch) over \`nodeFetch\` from
  \`@gspec/calendar/node\` (node:http, no undici). The goals are judged on this one.
- **ours, global fetch** (\`ours-fetch.ts\`): the same with the global fetch, as a browser or edge
  program runs it, or a Node program that does not pass \`nodeFetch\`.
- **user** (\`user.ts\`): the program a user writes from the first example of the README: a token
  provider, the global fetch, \`events.list\` with \`timeMin\`, \`singleEvents\` and \`orderBy\`, the
  summaries printed. Bundled only; the size goal holds for it too.
- **every operation** (\`ours-every-operation.ts\`): ours with \`createCalendar(options)\`, a client
  of every operation, which bundles them all with the page walks and the google-auth-library glue.
  Bundled only, as a reference.
- **theirs** (\`googleapis.ts\`): \`@googleapis/calendar\`.

All are bundled alike, as one file (esbuild, minified, ESM, platform node; gzip level 9);
googleapis' bundle also gets the two-line \`require\` shim its CommonJS dependencies need. Nothing
of ours is loaded through \`import()\`, so a bundler that splits code loads the same at start.

| Benchmark | ours | ours, global fetch | theirs | Reference | Ratio | Goal |
|---|---|---|---|---|---|---|
| Bundle, minified + gzip | ${ours.gzipped} B (${kib(ours.minified)} min) | ${oursFetch.gzipped} B (${kib(oursFetch.minified)} min) | ${theirs.gzipped} B (${kib(theirs.minified)} min) | user: ${user.gzipped} B; every operation: ${everyOperation.gzipped} B | theirs ÷ ours = ${round(sizeRatio, 2)}; with global fetch ${round(sizeRatioFetch, 2)}; user ${round(sizeRatioUser, 2)}; every operation ${round(sizeRatioEvery, 2)} | ≥ ${SIZE_GOAL} for ours and user: ${met(goals.size)} |
| Cold start, median of ${COLD_RUNS} processes | ${ms(coldMs.ours)} | ${ms(coldMs.oursFetch)} | ${ms(coldMs.theirs)} | \`node -e 0\` ${ms(coldMs.node)}; the same request with bare node:http ${ms(coldMs.http)} (${round(coldRatio('http'))}×), with a bare \`fetch\` ${ms(coldMs.fetch)} (${round(coldRatio('fetch'))}×) | ours ${round(coldRatio('ours'))}×, with global fetch ${round(coldRatio('oursFetch'))}×, theirs ${round(coldRatio('theirs'))}× | ≤ 1.3×: ${met(goals.cold)} |
| Per request over loopback, ${ROUNDS} rounds of ${PER_ROUND} | ${us(perRequestUs.ours)} | ${us(perRequestUs.oursFetch)} | ${us(perRequestUs.googleapis)} | bare \`fetch\` ${us(perRequestUs.fetch)}, bare \`nodeFetch\` ${us(perRequestUs.nodeFetch)} | median ratio to bare \`fetch\` in a round: ours ${round(requestRatio.ours)}× (${round(requestRatio.oursOverNodeFetch)}× bare \`nodeFetch\`), with global fetch ${round(requestRatio.oursFetch)}×, theirs ${round(requestRatio.googleapis)}× | ≤ 1.05×: ${met(goals.request)} |

\`\`\`
Bundle (KiB, gzipped)
${barChart(
  [
    ['ours', round(ours.gzipped / 1024, 1)],
    ['ours, global fetch', round(oursFetch.gzipped / 1024, 1)],
    ['user', round(user.gzipped / 1024, 1)],
    ['every operation', round(everyOperation.gzipped / 1024, 1)],
    ['@googleapis/calendar', round(theirs.gzipped / 1024, 1)],
  ],
  ' KiB',
)}

Cold start (ms)
${barChart(
  [
    ['node -e 0', round(coldMs.node, 1)],
    ['bare node:http', round(coldMs.http, 1)],
    ['bare fetch', round(coldMs.fetch, 1)],
    ['ours', round(coldMs.ours, 1)],
    ['ours, global fetch', round(coldMs.oursFetch, 1)],
    ['@googleapis/calendar', round(coldMs.theirs, 1)],
  ],
  ' ms',
)}

Per request (µs)
${barChart(
  [
    ['bare fetch', round(perRequestUs.fetch, 1)],
    ['bare nodeFetch', round(perRequestUs.nodeFetch, 1)],
    ['ours', round(perRequestUs.ours, 1)],
    ['ours, global fetch', round(perRequestUs.oursFetch, 1)],
    ['@googleapis/calendar', round(perRequestUs.googleapis, 1)],
  ],
  ' µs',
)}
\`\`\`

${requests} requests to a node:http server on 127.0.0.1 in a process of its own. Node's global
fetch is undici, which Node loads on first use: that is the difference between the bare
\`fetch\` and bare node:http programs, and why \`nodeFetch\` exists. A real call to Google also
loads TLS, which \`nodeFetch\` does on its first https URL (not in these runs; the bare node:http
program does not either), a few ms, and then waits for the network.

Bundle: \`nodeFetch\` adds ${ours.gzipped - oursFetch.gzipped} B gzipped to the program; a client of every operation adds ${everyOperation.gzipped - ours.gzipped} B. ${SIZE_GOAL}× theirs is ${sizeLimit} B gzipped: ours is ${against(ours.gzipped)}, the user's program ${against(user.gzipped)}.`;
    console.log(markdown);
    writeBenchSection('clients', markdown);
  } finally {
    await stop();
  }
}

await main();
