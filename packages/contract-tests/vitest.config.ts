import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import { havePostgres } from '../../scripts/lib/postgres.ts';
import { sharedTestConfig } from '../../vitest.shared.ts';
import OperationReporter from './test/support/operation-reporter.ts';

// Each target writes its own reports, so that `npm test` (scripts/test-targets.mjs: the mock,
// the emulator, then the emulator on a shared store) keeps them all: reports/vitest.json and
// reports/junit.xml for the mock (and the live services), reports/vitest-emulator.json and
// reports/junit-emulator.xml for the emulator, reports/vitest-emulator-shared.json and
// reports/junit-emulator-shared.xml for three emulators on one PostgreSQL database.
// CI counts every reports/vitest*.json.
const target = (process.env.CONTRACT_TARGET ?? '').trim();
const emulatorShared = target === 'emulator-shared';
const emulator = target === 'emulator' || emulatorShared;
const suffix = emulator ? `-${target}` : '';
// Without PostgreSQL (and not under CI=true, where havePostgres throws) the shared emulator's
// run warns and runs nothing.
const skipAll = emulatorShared && !havePostgres();

type ReporterEntry = string | [string, Record<string, unknown>];
const shared = (sharedTestConfig.test?.reporters ?? []) as ReporterEntry[];
// The shared reporters (console, the JSON report CI counts) stay, the JSON one under this
// target's name; this package adds the per-operation table and JUnit file.
const reporters = [
  ...shared.map((entry) =>
    Array.isArray(entry) && entry[0] === 'json'
      ? (['json', { ...entry[1], outputFile: `reports/vitest${suffix}.json` }] as const)
      : entry,
  ),
  new OperationReporter(`reports/junit${suffix}.xml`),
];

const config = mergeConfig(
  sharedTestConfig,
  defineConfig({
    test: {
      globalSetup: ['./test/support/global-setup.ts'],
      // One emulator serves the whole run and keeps state: the files take turns, so that no
      // file sees what another writes meanwhile (rules.test.ts clears the primary calendar).
      fileParallelism: !emulator,
      // The workflows start an emulator of their own each, never the target: they run in the
      // emulator's pass only.
      ...(emulatorShared ? { exclude: [...configDefaults.exclude, 'test/workflows.test.ts'] } : {}),
    },
  }),
);
config.test = {
  ...config.test,
  reporters,
  ...(skipAll ? { include: [], passWithNoTests: true } : {}),
};

export default config;
