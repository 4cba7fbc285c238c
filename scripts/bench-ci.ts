/**
 * The CI budget as a benchmark (issue 39, decision 0051): `.ci/run` on a fresh clone of this
 * repository's HEAD, once on the idle machine and once with two CPU hogs beside it
 * (`sh -c 'while :; do :; done'`, the way the budget was set), each timed from start to end.
 * It writes the `ci-run` section of docs/benchmarks.md: each run's wall time against its
 * budget, each Node line's wall time and counts, and the tasks of the whole-suite line by time.
 *
 *   npm run bench:ci                                   both runs (about 40 minutes on 2 cores)
 *   npm run bench:ci -- --only idle|hogs               one of them
 *   npm run bench:ci -- --idle DIR:SECONDS [--hogs DIR:SECONDS]
 *                                                      report runs made by hand: the clone
 *                                                      where `.ci/run` ran (its output kept in
 *                                                      DIR/reports/ci-run.log, ending with
 *                                                      `rc=<exit code>`), and its wall time
 *
 * Not part of `npm run bench`: it runs the whole CI twice. The clones are removed afterwards
 * (unless given with --idle/--hogs); the hogs are always stopped.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from './lib/apis.ts';
import { writeBenchSection } from './lib/bench-report.ts';
import { minutes, type SavedLine, savedLines } from './test-summary.ts';

/**
 * The tasks of one line of the whole `npm test` before decision 0051, in seconds: Node 20 on the
 * idle machine, from a fresh clone, 2026-11-28 (turbo's run summary); every task of 10 s or more.
 */
export const BEFORE_TASKS: Record<string, number> = {
  '@gspec/emulator#test': 502.2,
  '@gspec/reference#test': 216.5,
  '@gspec/consumer-tests#test': 197.4,
  '@gspec/contract-tests#test': 96.6,
  '@gspec/mock#test': 50.9,
  '@gspec/emulator#typecheck': 42.8,
  '@gspec/mock#typecheck': 31.7,
  '@gspec/calendar#test': 26.2,
  '@gspec/scripts#test': 20.7,
  '@gspec/searchads360#test': 16.1,
  '@gspec/specs#test': 16.0,
  '@gspec/server-kit#test': 13.0,
  '@gspec/contract-tests#typecheck': 12.6,
  '@gspec/emulator#build': 12.5,
  '@gspec/scripts#typecheck': 11.9,
  '@gspec/runtime#typecheck': 11.5,
  '@gspec/runtime#test': 11.0,
  '@gspec/calendar#typecheck': 10.6,
};

/** The budgets of issue 39, in seconds. */
export const BUDGETS = { idle: 15 * 60, hogs: 35 * 60 } as const;
export type Load = keyof typeof BUDGETS;

export interface CiRun {
  load: Load;
  wallSeconds: number;
  /** The closing line `.ci/run` printed (`N passed, M failed, ...`), or what was missing. */
  closing: string;
  exitCode: number | null;
  lines: [name: string, line: SavedLine][];
}

/** Reads what a finished `.ci/run` left in its clone: each line's saved counts and times. */
export function readRun(
  dir: string,
  load: Load,
  wallSeconds: number,
  log: string,
  exitCode: number | null,
): CiRun {
  const linesDir = path.join(dir, 'reports', 'lines');
  // A run cut off before its first line saved nothing: it is reported with no line.
  const lines = existsSync(linesDir) && readdirSync(linesDir).length > 0 ? savedLines(linesDir) : [];
  const closing =
    log
      .split('\n')
      .reverse()
      .find((line) => /^\d+ passed, \d+ failed/.test(line.trim()))
      ?.trim() ?? 'no closing line';
  return { load, wallSeconds, closing, exitCode, lines };
}

/** The markdown of the section. */
export function ciRunSection(runs: CiRun[]): string {
  const md: string[] = [
    '## CI: `.ci/run` on a fresh clone',
    '',
    '`npm run bench:ci` (`scripts/bench-ci.ts`): `CI=true bash .ci/run` in a fresh clone of HEAD,',
    'timed from start to end, once on the idle machine and once with two CPU hogs',
    "(`sh -c 'while :; do :; done'`, twice) running beside it. `.ci/run` installs from the lockfile,",
    'runs the whole `npm test` on the newest Node line and `npm test -- --node-line` on the others',
    '([decision 0051](decisions/0051-what-each-node-line-runs.md)), then the build-cache and',
    '`npm start` checks. CI itself allows 90 minutes.',
    '',
    '| Run | Wall time | Budget | Within | Exit | Closing line |',
    '|---|---:|---:|---|---:|---|',
  ];
  for (const run of runs)
    md.push(
      `| ${run.load === 'idle' ? 'idle machine' : 'two CPU hogs'} | ${minutes(run.wallSeconds)} | ${minutes(BUDGETS[run.load])} | ${run.wallSeconds <= BUDGETS[run.load] ? 'yes' : '**no**'} | ${run.exitCode ?? 'killed'} | ${run.closing} |`,
    );
  md.push(
    '',
    '### Each Node line',
    '',
    '| Run | Line | What it runs | Wall time | Tests passed | Test files |',
    '|---|---|---|---:|---:|---:|',
  );
  for (const run of runs)
    for (const [name, line] of run.lines) {
      const scope = line.tasks.some((t) => t.name.endsWith('#test:node-line'))
        ? '--node-line'
        : 'whole suite';
      const passed = line.rows.reduce((n, row) => n + row[1], 0);
      md.push(
        `| ${run.load} | ${name} | ${scope} | ${line.wallSeconds === undefined ? '?' : minutes(line.wallSeconds)} | ${passed} | ${line.files.length} |`,
      );
    }
  for (const run of runs) {
    const full = run.lines.find(([, line]) => line.tasks.some((t) => t.name.endsWith('#lint')));
    if (!full) continue;
    const seconds = new Map(full[1].tasks.map((t) => [t.name, t.seconds]));
    const names = [...new Set([...Object.keys(BEFORE_TASKS), ...seconds.keys()])]
      .filter((name) => (seconds.get(name) ?? 0) >= 10 || (BEFORE_TASKS[name] ?? 0) >= 10)
      .sort((a, b) => (BEFORE_TASKS[b] ?? seconds.get(b) ?? 0) - (BEFORE_TASKS[a] ?? seconds.get(a) ?? 0));
    md.push(
      '',
      `### Tasks of the whole suite, ${run.load === 'idle' ? 'idle machine' : 'two CPU hogs'}: before (Node 20, idle) and now (${full[0]})`,
      '',
      '| Task | Before (s) | Now (s) |',
      '|---|---:|---:|',
    );
    for (const name of names)
      md.push(
        `| ${name} | ${BEFORE_TASKS[name]?.toFixed(1) ?? '–'} | ${seconds.get(name)?.toFixed(1) ?? '–'} |`,
      );
  }
  md.push(
    '',
    '### Before (the whole suite on every line)',
    '',
    "Measured 2026-11-28 on that day's 2-core machine (2 × AMD EPYC), before decision 0051: on the",
    'idle machine one line of the whole `npm test` (Node 20, from a fresh clone) took 11 min 50 s',
    '(its tasks are in the table above), and `.ci/run` ran three such lines, one per Node line (CI',
    'reported 832 s for the last landing). With two CPU hogs the first line alone was still running',
    'after 27 minutes (the browser tests 407 s, the mock 140 s, the contract targets 47 + 119 + 63 s, the',
    "emulator's suite more than ten minutes) and the whole `.ci/run` had not finished after 55.",
  );
  return md.join('\n');
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      process.stdout.write(chunk);
      output = (output + chunk.toString()).slice(-200_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/** `.ci/run` in a fresh clone of HEAD, with `hogs` busy loops beside it; the clone is removed. */
async function measure(load: Load): Promise<CiRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gspec-bench-ci-'));
  const hogs: ChildProcess[] = [];
  try {
    const clone = await run('git', ['clone', '--quiet', repoRoot, dir], os.tmpdir());
    if (clone.code !== 0) throw new Error(`git clone failed: ${clone.output}`);
    if (load === 'hogs')
      for (let i = 0; i < 2; i++) hogs.push(spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
    const started = performance.now();
    const ci = await run('bash', ['.ci/run'], dir);
    const wall = (performance.now() - started) / 1000;
    return readRun(dir, load, wall, ci.output, ci.code);
  } finally {
    for (const hog of hogs) hog.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

function given(value: string, load: Load): CiRun {
  const match = /^(.+):(\d+(?:\.\d+)?)$/.exec(value);
  if (!match) throw new Error(`--${load} ${JSON.stringify(value)}: expected DIR:SECONDS`);
  const dir = match[1] as string;
  const logFile = path.join(dir, 'reports', 'ci-run.log');
  const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
  const rc = /^rc=(\d+)$/m.exec(log)?.[1];
  return readRun(dir, load, Number(match[2]), log, rc === undefined ? null : Number(rc));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { only: { type: 'string' }, idle: { type: 'string' }, hogs: { type: 'string' } },
  });
  const runs: CiRun[] = [];
  if (values.idle || values.hogs) {
    if (values.idle) runs.push(given(values.idle, 'idle'));
    if (values.hogs) runs.push(given(values.hogs, 'hogs'));
  } else {
    const only = values.only;
    if (only !== undefined && only !== 'idle' && only !== 'hogs')
      throw new Error(`--only ${JSON.stringify(only)}: expected idle or hogs`);
    for (const load of ['idle', 'hogs'] as const) if (!only || only === load) runs.push(await measure(load));
  }
  writeBenchSection('ci-run', ciRunSection(runs));
  for (const r of runs)
    console.log(
      `ci-run ${r.load}: ${minutes(r.wallSeconds)} (budget ${minutes(BUDGETS[r.load])}), ${r.closing}`,
    );
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((error: unknown) => {
    console.error(`bench-ci: ${(error as Error).message}`);
    process.exit(1);
  });
}
