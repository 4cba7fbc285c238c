import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';
import OperationReporter from './test/support/operation-reporter.ts';

// Each target writes its own reports, so that `npm test` (scripts/test-targets.mjs: the mock,
// then the emulator) keeps both: reports/vitest.json and reports/junit.xml for the mock (and
// the live services), reports/vitest-emulator.json and reports/junit-emulator.xml for the
// emulator. CI counts every reports/vitest*.json.
const emulator = (process.env.CONTRACT_TARGET ?? '').trim() === 'emulator';
const suffix = emulator ? '-emulator' : '';

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
    },
  }),
);
config.test = { ...config.test, reporters };

export default config;
