import { defineConfig } from 'vitest/config';

/**
 * The one vitest configuration every workspace extends. Each run writes a JSON report to
 * reports/vitest.json, which scripts/test-summary.ts adds up into the CI's closing line.
 *
 * - Workers: `npm test` (scripts/run-tests.ts) runs as many turbo tasks as there are cores and
 *   sets GSPEC_TEST_WORKERS (default 1), so that the suite does not overload the machine it
 *   runs on. Run alone (`npx vitest run` in a package), vitest picks its own number.
 * - Files of a package share one module cache (`isolate: false`): each file still gets its own
 *   servers and state, but the specs, Ajv's compiled validators and the modules under test are
 *   loaded and compiled once per run instead of once per file (the emulator's suite: 76 s -> 52 s).
 *   A test that changes a global puts it back (`vi.useRealTimers()` after `vi.useFakeTimers()`).
 * - Timeouts are hang guards, not speed checks: a test that starts a server waits for the
 *   server to say it is ready (scripts/lib/child-process.ts), however long a loaded machine
 *   takes, and only a test that hangs meets the limit.
 */
const workers = Number(process.env.GSPEC_TEST_WORKERS);

export const sharedTestConfig = defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    isolate: false,
    ...(Number.isInteger(workers) && workers >= 1 ? { maxWorkers: workers } : {}),
    testTimeout: 300_000,
    hookTimeout: 300_000,
    teardownTimeout: 60_000,
  },
});
