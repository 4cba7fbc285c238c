import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';
import OperationReporter from './test/support/operation-reporter.ts';

// The shared reporters (console, reports/vitest.json) stay; mergeConfig appends this one,
// which prints the per-operation table and writes reports/junit.xml.
export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    test: {
      globalSetup: ['./test/support/global-setup.ts'],
      reporters: [new OperationReporter('reports/junit.xml')],
    },
  }),
);
