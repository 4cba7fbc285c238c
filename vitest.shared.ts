import { defineConfig } from 'vitest/config';

/**
 * The one vitest configuration every workspace extends. Each run writes a JSON report to
 * reports/vitest.json, which scripts/test-summary.ts adds up into the CI's closing line.
 */
export const sharedTestConfig = defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
