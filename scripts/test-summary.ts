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
 * CI runs `npm test` once per supported Node line (.ci/run). After each, `--save-line NAME`
 * keeps that run's rows in reports/lines/NAME.json (the next run overwrites the reports it read);
 * at the end, `--lines` adds up every saved line, with the CI's checks, into the closing line.
 * Each row is then named after its line (`node-24.21.0 @gspec/mock#test`).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from './lib/apis.ts';
import { REPORT as NPM_TEST_REPORT, type TestRunReport } from './run-tests.ts';

interface TurboTask {
  taskId: string;
  task: string;
  package: string;
  directory: string;
  execution?: { exitCode?: number | null };
  cache?: { status?: string };
}

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}

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

export const LINES_DIR = path.join(repoRoot, 'reports', 'lines');

/** The rows of the newest `npm test` run: its tasks' counts and the leftover-process check. */
function countRun(): Row[] {
  const rows: Row[] = [];
  for (const task of newestRunSummary().tasks) {
    const exitCode = task.execution?.exitCode;
    const ran = exitCode !== undefined && exitCode !== null;
    const ok = exitCode === 0;
    if (task.task === 'test') {
      const reportsDir = path.join(repoRoot, task.directory, 'reports');
      const reportFiles = existsSync(reportsDir)
        ? readdirSync(reportsDir)
            .filter((f) => /^vitest.*\.json$/.test(f))
            .map((f) => path.join(reportsDir, f))
        : [];
      if (ran && reportFiles.length > 0) {
        const reports = reportFiles.map((f) => JSON.parse(readFileSync(f, 'utf8')) as VitestReport);
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
  return rows;
}

/** The rows of every line saved with --save-line, each named after its line. */
export function savedLineRows(dir = LINES_DIR): Row[] {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  if (files.length === 0)
    throw new Error(`no saved Node line in ${dir}; run --save-line after each npm test`);
  return files.sort().flatMap((file) => {
    const line = file.replace(/\.json$/, '');
    const rows = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Row[];
    return rows.map(([id, ...rest]): Row => [`${line} ${id}`, ...rest]);
  });
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
      lines: { type: 'boolean', default: false },
    },
  });
  const line = values['save-line'];
  if (line !== undefined) {
    if (!/^[\w.-]+$/.test(line))
      throw new Error(`--save-line ${JSON.stringify(line)}: letters, digits, . - _ only`);
    const rows = countRun();
    mkdirSync(LINES_DIR, { recursive: true });
    writeFileSync(path.join(LINES_DIR, `${line}.json`), `${JSON.stringify(rows)}\n`);
    return report(rows.map(([id, ...rest]): Row => [`${line} ${id}`, ...rest]));
  }
  const rows = values.lines ? savedLineRows() : countRun();
  return report([...rows, ...checkRows(values.check ?? [])]);
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
