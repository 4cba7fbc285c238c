import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import { havePostgres } from '../../scripts/lib/postgres.ts';
import { sharedTestConfig } from '../../vitest.shared.ts';

/**
 * The suites `npm test` runs a second time through three emulators on one PostgreSQL database,
 * behind a front that sends each request to the next (`vitest run --mode postgres-3`; issue 24):
 * sync and page tokens, etags and If-Match (the rules and 20 concurrent writers), notifications.
 */
export const SHARED_STORE_SUITES = [
  'test/paging-sync.test.ts',
  'test/rules.test.ts',
  'test/concurrency.test.ts',
  'test/notifications.test.ts',
];

const packageDir = path.dirname(fileURLToPath(import.meta.url));

/** Removes reports/vitest-<store>.json (and its times-<store>.json) of earlier runs. */
function dropStoreReports(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // no reports yet
  }
  for (const name of names)
    if (/^(vitest|times)-.+\.json$/.test(name)) rmSync(path.join(dir, name), { force: true });
}

type ReporterEntry = string | [string, Record<string, unknown>];

export default defineConfig(({ mode }) => {
  // `--mode postgres-3`: the suites above, three emulators on a shared store. Else the store of
  // EMULATOR_TEST_STORE (`postgres`, `postgres-3`) for the files given, or memory.
  const store = mode === 'postgres-3' ? 'postgres-3' : (process.env.EMULATOR_TEST_STORE ?? '').trim();
  // Each store writes its own JSON report, so that the second run of `npm test` does not
  // overwrite the first: CI counts every reports/vitest*.json. The run in memory (the first)
  // drops the stores' reports of an earlier run, so that a run that stops before the second
  // one is not counted with stale results.
  const suffix = store === '' ? '' : `-${store}`;
  if (store === '') dropStoreReports(path.join(packageDir, 'reports'));
  // Without PostgreSQL (and not under CI=true, where havePostgres throws) the store's run warns
  // and runs nothing.
  const skip = store !== '' && !havePostgres();
  const shared = (sharedTestConfig.test?.reporters ?? []) as ReporterEntry[];
  const reporters = shared.map((entry) =>
    Array.isArray(entry) && entry[0] === 'json'
      ? (['json', { ...entry[1], outputFile: `reports/vitest${suffix}.json` }] as const)
      : entry,
  );
  // Set, not merged: mergeConfig would add the lists to the shared ones.
  const config = mergeConfig(sharedTestConfig, {});
  // The longest task of `npm test`: its files share nothing (each has its own servers, databases
  // and folders) and many wait on processes they start, so two run at a time for each worker
  // GSPEC_TEST_WORKERS gives the others (decision 0051).
  const workers = Number(process.env.GSPEC_TEST_WORKERS);
  config.test = {
    ...config.test,
    ...(Number.isInteger(workers) && workers >= 1 ? { maxWorkers: 2 * workers } : {}),
    reporters,
    ...(mode === 'postgres-3'
      ? { include: SHARED_STORE_SUITES, env: { EMULATOR_TEST_STORE: 'postgres-3' } }
      : {}),
    ...(skip ? { include: [], passWithNoTests: true } : {}),
  };
  return config;
});
