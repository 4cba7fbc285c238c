/**
 * Adds up what `npm test` checked and prints one closing line, `N passed, M failed`.
 *
 *   tsx scripts/test-summary.ts [--check NAME=ok|failed ...]
 *
 * It reads the newest turbo run summary (.turbo/runs/*.json, written by `npm test`) and, for
 * every test task of that run, the vitest reports the task wrote (reports/vitest*.json: a
 * task may run vitest more than once, as the contract tests do for each target). A
 * test counts once. A lint or typecheck task counts as one check, and so does a test task
 * that failed without a report (it crashed before running its tests). Extra checks of the
 * CI script are passed with --check. The check of scripts/run-tests.ts that no process started
 * by the tests outlived them (reports/npm-test.json) counts as one more. Exits 1 when anything
 * failed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

function main(): number {
  const { values } = parseArgs({ options: { check: { type: 'string', multiple: true, default: [] } } });
  const rows: [string, number, number, number, string][] = [];
  let passed = 0;
  let failed = 0;
  let skipped = 0;

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
        const passedHere = sum((r) => r.numPassedTests);
        const failedHere = sum((r) => r.numFailedTests);
        const skippedHere = sum((r) => r.numPendingTests + r.numTodoTests);
        rows.push([task.taskId, passedHere, failedHere, skippedHere, ok ? '' : `exit ${exitCode}`]);
        passed += passedHere;
        failed += failedHere + (ok || failedHere > 0 ? 0 : 1);
        skipped += skippedHere;
      } else {
        rows.push([task.taskId, 0, 1, 0, ran ? `exit ${exitCode}, no report` : 'did not run']);
        failed += 1;
      }
    } else if (task.task === 'lint' || task.task === 'typecheck') {
      rows.push([
        task.taskId,
        ok ? 1 : 0,
        ok ? 0 : 1,
        0,
        ran ? (ok ? '' : `exit ${exitCode}`) : 'did not run',
      ]);
      if (ok) passed += 1;
      else failed += 1;
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
    if (ok) passed += 1;
    else failed += 1;
  }
  for (const check of values.check ?? []) {
    const [name, result] = check.split('=');
    const ok = result === 'ok';
    rows.push([`ci#${name}`, ok ? 1 : 0, ok ? 0 : 1, 0, ok ? '' : 'failed']);
    if (ok) passed += 1;
    else failed += 1;
  }

  const width = Math.max(...rows.map((r) => r[0].length), 4);
  console.log(`\n${'task'.padEnd(width)}  passed  failed  skipped  note`);
  for (const [id, p, f, s, note] of rows.sort((a, b) => a[0].localeCompare(b[0]))) {
    console.log(
      `${id.padEnd(width)}  ${String(p).padStart(6)}  ${String(f).padStart(6)}  ${String(s).padStart(7)}  ${note}`,
    );
  }
  console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
  return failed > 0 ? 1 : 0;
}

try {
  process.exit(main());
} catch (error) {
  console.error(`test-summary: ${(error as Error).message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
