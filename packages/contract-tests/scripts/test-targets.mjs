#!/usr/bin/env node
/**
 * `npm test` of the contract tests: the suite once per target.
 *
 * - `CONTRACT_TARGET` unset or empty: against the mock (reports/vitest.json, reports/junit.xml),
 *   then against the emulator (reports/vitest-emulator.json, reports/junit-emulator.xml). Both
 *   runs always run; the script fails when either fails.
 * - `CONTRACT_TARGET` set (`mock`, `emulator` or a base URL of the live services): that target only.
 *
 * Arguments are passed on to each vitest run (`npm test -- -t events.list`).
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

// Reports of an earlier run (another target) must not be counted with this one's.
rmSync(new URL('../reports/', import.meta.url), { recursive: true, force: true });

const chosen = (process.env.CONTRACT_TARGET ?? '').trim();
const targets = chosen === '' ? ['mock', 'emulator'] : [chosen];
const failed = [];

for (const target of targets) {
  process.stdout.write(`\n=== contract tests against ${target} ===\n`);
  const run = spawnSync('vitest', ['run', ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, CONTRACT_TARGET: target },
    shell: process.platform === 'win32',
  });
  if (run.error) process.stderr.write(`cannot start vitest: ${run.error.message}\n`);
  if (run.status !== 0)
    failed.push(`${target} (${run.error ? 'not started' : `exit ${run.status ?? run.signal}`})`);
}

if (failed.length > 0) {
  process.stderr.write(`\ncontract tests failed against: ${failed.join(', ')}\n`);
  process.exit(1);
}
