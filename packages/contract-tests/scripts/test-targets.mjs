#!/usr/bin/env node
/**
 * `npm test` of the contract tests: the suite once per target.
 *
 * - `CONTRACT_TARGET` unset or empty: against the mock (reports/vitest.json, reports/junit.xml),
 *   then against the emulator (reports/vitest-emulator.json, reports/junit-emulator.xml), then
 *   against three emulators on one PostgreSQL database behind a round-robin front
 *   (reports/vitest-emulator-shared.json, reports/junit-emulator-shared.xml). Every run always
 *   runs; the script fails when any fails.
 * - `CONTRACT_TARGET` set (`mock`, `emulator`, `emulator-shared` or a base URL of the live
 *   services): that target only.
 *
 * Arguments are passed on to each vitest run (`npm test -- -t events.list`).
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';

// Reports of an earlier run (another target) must not be counted with this one's.
rmSync(new URL('../reports/', import.meta.url), { recursive: true, force: true });

const chosen = (process.env.CONTRACT_TARGET ?? '').trim();
const targets = chosen === '' ? ['mock', 'emulator', 'emulator-shared'] : [chosen];
const failed = [];

/** The vitest run under way: a signal to this script is passed on to it, and no target runs after. */
let current;
let stopped = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    stopped = true;
    current?.kill(signal);
  });
}

/** One vitest run against a target: its exit code, or the reason it did not run. */
function runAgainst(target) {
  return new Promise((resolve) => {
    current = spawn('vitest', ['run', ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...process.env, CONTRACT_TARGET: target },
      shell: process.platform === 'win32',
    });
    current.on('error', (error) => resolve({ error }));
    current.on('exit', (code, signal) => resolve({ code, signal }));
  });
}

for (const target of targets) {
  if (stopped) break;
  process.stdout.write(`\n=== contract tests against ${target} ===\n`);
  const run = await runAgainst(target);
  if (run.error) process.stderr.write(`cannot start vitest: ${run.error.message}\n`);
  if (run.code !== 0)
    failed.push(`${target} (${run.error ? 'not started' : `exit ${run.code ?? run.signal}`})`);
}

if (stopped) {
  process.stderr.write('\ncontract tests stopped by a signal\n');
  process.exit(1);
}
if (failed.length > 0) {
  process.stderr.write(`\ncontract tests failed against: ${failed.join(', ')}\n`);
  process.exit(1);
}
