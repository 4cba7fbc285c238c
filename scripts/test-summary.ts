/**
 * Adds up what `npm test` checked and prints one closing line, `N passed, M failed`.
 *
 *   tsx scripts/test-summary.ts [--check NAME=ok|failed ...]
 *   tsx scripts/test-summary.ts --save-line NAME     (after `npm test` on one Node line)
 *   tsx scripts/test-summary.ts --lines [--check NAME=ok|failed ...]
 *
 * It reads the newest turbo run summary (.turbo/runs/*.json, written by `npm test`) and, for
 * every test task of that run, the vitest reports the task wrote (reports/vitest*.json: a
 * task may run vitest more than once, as the contract tests do for each target). A
 * test counts once. A lint or typecheck task counts as one check, and so does a test task
 * that failed without a report (it crashed before running its tests). Extra checks of the
 * CI script are passed with --check. The check of scripts/run-tests.ts that no process started
 * by the tests outlived them (reports/npm-test.json) counts as one more. Exits 1 when anything
 * failed.
 *
 * CI runs `npm test` once per supported Node line (.ci/run; what each line runs: decision 0051).
 * After each, `--save-line NAME [--wall SECONDS]` keeps that run's rows and times in
 * reports/lines/NAME.json (the next run overwrites the reports it read): the line's wall time,
 * each task's time (from turbo's summary) and each test file's (from the vitest reports). At the
 * end, `--lines` adds up every saved line, with the CI's checks, into the closing line, each row
 * named after its line (`node-v24.21.0 @gspec/mock#test`); before it, it prints each line's wall
 * time, the twenty slowest test files and every test that failed with the first line of its
 * error, and writes them all to reports/test-times.md.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from './lib/apis.ts';
import type { FileTimes } from './lib/file-times-reporter.ts';
import { REPORT as NPM_TEST_REPORT, type TestRunReport } from './run-tests.ts';

interface TurboTask {
  taskId: string;
  task: string;
  package: string;
  directory: string;
  execution?: { exitCode?: number | null; startTime?: number; endTime?: number };
  cache?: { status?: string };
}

export interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults?: {
    name: string;
    status?: string;
    message?: string;
    assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

/** One test that failed, or a file that failed before its tests ran, with what it said first. */
export interface Failure {
  /** `packages/reference/test/browser.test.ts > the portal in a browser > opens /` */
  test: string;
  /** The first line of its error, cut to 300 characters. */
  message: string;
}

/** The tasks whose vitest reports are counted: `test`, and `test:node-line` on the other lines. */
const TEST_TASKS = new Set(['test', 'test:node-line']);

function newestRunSummary(): { tasks: TurboTask[] } {
  const dir = path.join(repoRoot, '.turbo', 'runs');
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  if (files.length === 0) throw new Error('no turbo run summary in .turbo/runs; run `npm test` first');
  const newest = files
    .map((f) => path.join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0] as string;
  return JSON.parse(readFileSync(newest, 'utf8'));
}

/** One row of the table: what one task or check counted. */
export type Row = [id: string, passed: number, failed: number, skipped: number, note: string];

/** How long something took, in seconds. */
export interface Timed {
  name: string;
  seconds: number;
}

/** What one Node line's `npm test` counted and how long it took (reports/lines/NAME.json). */
export interface SavedLine {
  rows: Row[];
  /** The whole `npm test` on this line, as .ci/run timed it (absent when not given). */
  wallSeconds?: number;
  /** Each turbo task that ran (cached ones take no time and are left out). */
  tasks: Timed[];
  /** Each test file, per vitest run, imports and hooks included (`packages/mock/test/cli.test.ts`, `... [emulator]`). */
  files: Timed[];
  /** Each test that failed (absent in lines saved before it was kept). */
  failures?: Failure[];
}

export const LINES_DIR = path.join(repoRoot, 'reports', 'lines');
export const TIMES_REPORT = path.join(repoRoot, 'reports', 'test-times.md');

const seconds = (start?: number, end?: number) =>
  start !== undefined && end !== undefined && end >= start ? Math.round(end - start) / 1000 : undefined;

/**
 * The test files of one run's times (reports/times*.json, scripts/lib/file-times-reporter.ts),
 * named from the repository's root, with the run's suffix (`[emulator]` for times-emulator.json).
 */
export function fileTimes(times: FileTimes, timesFile: string, packageDir: string): Timed[] {
  const suffix = /^times-(.+)\.json$/.exec(path.basename(timesFile))?.[1];
  return times.files.map(({ file, seconds }) => {
    const name = path.posix.join(packageDir.split(path.sep).join('/'), file);
    return { name: suffix ? `${name} [${suffix}]` : name, seconds };
  });
}

const firstLine = (text: string | undefined) => {
  const line =
    (text ?? '')
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? 'no message';
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
};

/**
 * The tests of one vitest report that failed, named from the repository's root: each failed
 * test with its first error line, and a file that failed with no failed test (it did not load,
 * or a hook threw) with the file's own message.
 */
export function failuresOf(report: VitestReport, packageDir: string): Failure[] {
  const failures: Failure[] = [];
  for (const file of report.testResults ?? []) {
    const name = path.posix.join(
      packageDir.split(path.sep).join('/'),
      path.relative(path.join(repoRoot, packageDir), file.name).split(path.sep).join('/'),
    );
    const failed = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of failed)
      failures.push({ test: `${name} > ${t.fullName}`, message: firstLine(t.failureMessages?.[0]) });
    if (failed.length === 0 && file.status === 'failed')
      failures.push({ test: name, message: firstLine(file.message) });
  }
  return failures;
}

/** The rows and times of the newest `npm test` run: its tasks' counts and the leftover-process check. */
function countRun(): SavedLine {
  const rows: Row[] = [];
  const tasks: Timed[] = [];
  const files: Timed[] = [];
  const failures: Failure[] = [];
  for (const task of newestRunSummary().tasks) {
    const exitCode = task.execution?.exitCode;
    const ran = exitCode !== undefined && exitCode !== null;
    const ok = exitCode === 0;
    const took = seconds(task.execution?.startTime, task.execution?.endTime);
    if (ran && took !== undefined && task.cache?.status !== 'HIT')
      tasks.push({ name: task.taskId, seconds: took });
    if (TEST_TASKS.has(task.task)) {
      const reportsDir = path.join(repoRoot, task.directory, 'reports');
      const reportFiles = existsSync(reportsDir)
        ? readdirSync(reportsDir)
            .filter((f) => /^vitest.*\.json$/.test(f))
            .map((f) => path.join(reportsDir, f))
        : [];
      if (ran && reportFiles.length > 0) {
        const reports = reportFiles.map((f) => JSON.parse(readFileSync(f, 'utf8')) as VitestReport);
        for (const r of reports) failures.push(...failuresOf(r, task.directory));
        for (const f of readdirSync(reportsDir).filter((name) => /^times.*\.json$/.test(name))) {
          const times = JSON.parse(readFileSync(path.join(reportsDir, f), 'utf8')) as FileTimes;
          files.push(...fileTimes(times, f, task.directory));
        }
        const sum = (pick: (r: VitestReport) => number) => reports.reduce((n, r) => n + pick(r), 0);
        const failedHere = sum((r) => r.numFailedTests);
        rows.push([
          task.taskId,
          sum((r) => r.numPassedTests),
          // A task that failed with every test passing (a crash after them) counts one failure.
          failedHere + (ok || failedHere > 0 ? 0 : 1),
          sum((r) => r.numPendingTests + r.numTodoTests),
          ok ? '' : `exit ${exitCode}`,
        ]);
      } else {
        rows.push([task.taskId, 0, 1, 0, ran ? `exit ${exitCode}, no report` : 'did not run']);
      }
    } else if (task.task === 'lint' || task.task === 'typecheck') {
      rows.push([
        task.taskId,
        ok ? 1 : 0,
        ok ? 0 : 1,
        0,
        ran ? (ok ? '' : `exit ${exitCode}`) : 'did not run',
      ]);
    }
  }
  if (existsSync(NPM_TEST_REPORT)) {
    const report = JSON.parse(readFileSync(NPM_TEST_REPORT, 'utf8')) as TestRunReport;
    const ok = report.processCheck === 'ran' && report.leftovers.length === 0;
    rows.push([
      'npm-test#no-process-outlives-the-tests',
      ok ? 1 : 0,
      ok ? 0 : 1,
      0,
      report.processCheck === 'ran'
        ? report.leftovers.map((p) => `left running: pid ${p.pid} ${p.command}`).join('; ')
        : 'could not look (no /proc)',
    ]);
  }
  return { rows, tasks, files, failures };
}

/** Every line saved with --save-line, by name, in name order. */
export function savedLines(dir = LINES_DIR): [name: string, line: SavedLine][] {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  if (files.length === 0)
    throw new Error(`no saved Node line in ${dir}; run --save-line after each npm test`);
  return files.sort().map((file) => {
    const saved = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as SavedLine;
    if (!Array.isArray(saved.rows))
      throw new Error(`${path.join(dir, file)}: no rows (saved by an older version?)`);
    return [file.replace(/\.json$/, ''), saved];
  });
}

/** The rows of every saved line, each named after its line. */
export function savedLineRows(dir = LINES_DIR): Row[] {
  return savedLines(dir).flatMap(([line, saved]) =>
    saved.rows.map(([id, ...rest]): Row => [`${line} ${id}`, ...rest]),
  );
}

/** Seconds as `M min SS s`, rounded to the second. */
export function minutes(seconds: number): string {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`;
}

/**
 * reports/test-times.md: each line's wall time and what it ran, the twenty slowest test files
 * over every line, and each line's tasks by time. Returns the summary printed at the end of CI.
 */
export function timesReport(
  lines: [string, SavedLine][],
  slowest = 20,
): { markdown: string; summary: string[] } {
  const summary: string[] = [];
  const md: string[] = [
    '# Test times',
    '',
    'Written by `scripts/test-summary.ts --lines` at the end of `.ci/run`.',
    '',
  ];
  md.push(
    '## Each Node line',
    '',
    '| line | wall time | tasks run | test files | tests passed |',
    '|---|---:|---:|---:|---:|',
  );
  summary.push('Each Node line:');
  for (const [name, line] of lines) {
    const passed = line.rows.reduce((n, row) => n + row[1], 0);
    const wall = line.wallSeconds === undefined ? 'not timed' : minutes(line.wallSeconds);
    md.push(`| ${name} | ${wall} | ${line.tasks.length} | ${line.files.length} | ${passed} |`);
    summary.push(
      `  ${name.padEnd(16)} ${wall.padStart(14)}  ${String(passed).padStart(6)} tests passed in ${line.files.length} test files`,
    );
  }
  const files = lines
    .flatMap(([name, line]) => line.files.map((f) => ({ ...f, line: name })))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, slowest);
  md.push('', `## The ${slowest} slowest test files`, '', '| seconds | file | line |', '|---:|---|---|');
  summary.push(`The ${files.length} slowest test files:`);
  for (const f of files) {
    md.push(`| ${f.seconds.toFixed(1)} | \`${f.name}\` | ${f.line} |`);
    summary.push(`  ${f.seconds.toFixed(1).padStart(7)} s  ${f.name}  (${f.line})`);
  }
  const failures = lines.flatMap(([name, line]) => (line.failures ?? []).map((f) => ({ ...f, line: name })));
  if (failures.length > 0) {
    md.push('', '## Failed tests', '');
    summary.push(`Failed tests (${failures.length}):`);
    for (const f of failures) {
      md.push(`- ${f.line}: \`${f.test}\`: ${f.message}`);
      summary.push(`  ${f.line}  ${f.test}`, `      ${f.message}`);
    }
  }
  for (const [name, line] of lines) {
    md.push('', `## Tasks on ${name}`, '', '| seconds | task |', '|---:|---|');
    for (const t of [...line.tasks].sort((a, b) => b.seconds - a.seconds))
      md.push(`| ${t.seconds.toFixed(1)} | ${t.name} |`);
  }
  return { markdown: `${md.join('\n')}\n`, summary };
}

/** Prints the table and the closing line; 1 when anything failed. */
export function report(rows: Row[], log: (line: string) => void = console.log): number {
  const total = (i: 1 | 2 | 3) => rows.reduce((n, row) => n + row[i], 0);
  const width = Math.max(...rows.map((r) => r[0].length), 4);
  log(`\n${'task'.padEnd(width)}  passed  failed  skipped  note`);
  for (const [id, p, f, s, note] of [...rows].sort((a, b) => a[0].localeCompare(b[0]))) {
    log(
      `${id.padEnd(width)}  ${String(p).padStart(6)}  ${String(f).padStart(6)}  ${String(s).padStart(7)}  ${note}`,
    );
  }
  const [passed, failed, skipped] = [total(1), total(2), total(3)];
  log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
  return failed > 0 ? 1 : 0;
}

function checkRows(checks: string[]): Row[] {
  return checks.map((check): Row => {
    const [name, result] = check.split('=');
    const ok = result === 'ok';
    return [`ci#${name}`, ok ? 1 : 0, ok ? 0 : 1, 0, ok ? '' : 'failed'];
  });
}

function main(): number {
  const { values } = parseArgs({
    options: {
      check: { type: 'string', multiple: true, default: [] },
      'save-line': { type: 'string' },
      wall: { type: 'string' },
      lines: { type: 'boolean', default: false },
    },
  });
  const line = values['save-line'];
  if (line !== undefined) {
    if (!/^[\w.-]+$/.test(line))
      throw new Error(`--save-line ${JSON.stringify(line)}: letters, digits, . - _ only`);
    const wall = values.wall;
    if (wall !== undefined && !/^\d+(\.\d+)?$/.test(wall))
      throw new Error(`--wall ${JSON.stringify(wall)}: expected the line's wall time in seconds`);
    const saved: SavedLine = { ...countRun(), ...(wall === undefined ? {} : { wallSeconds: Number(wall) }) };
    mkdirSync(LINES_DIR, { recursive: true });
    writeFileSync(path.join(LINES_DIR, `${line}.json`), `${JSON.stringify(saved)}\n`);
    return report(saved.rows.map(([id, ...rest]): Row => [`${line} ${id}`, ...rest]));
  }
  if (!values.lines) return report([...countRun().rows, ...checkRows(values.check ?? [])]);
  const lines = savedLines();
  const times = timesReport(lines);
  mkdirSync(path.dirname(TIMES_REPORT), { recursive: true });
  writeFileSync(TIMES_REPORT, times.markdown);
  console.log(`\n${times.summary.join('\n')}\n(all times: ${path.relative(repoRoot, TIMES_REPORT)})`);
  return report([...savedLineRows(), ...checkRows(values.check ?? [])]);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  try {
    process.exit(main());
  } catch (error) {
    console.error(`test-summary: ${(error as Error).message}`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}
