/**
 * What CI runs on each supported Node line (decision 0051).
 *
 * The newest line (`all` in .ci/node-lines) runs the whole `npm test`. Every other line runs
 * only the test files below: those whose outcome can change with the Node that runs them,
 * because they lean on a part of Node that differs between the lines. `npm test -- --node-line`
 * (scripts/run-tests.ts) runs the `test:node-line` script of each package named here, and
 * vitest.shared.ts narrows that run to the package's files in this list.
 *
 * A file comes or goes only with the decision record: scripts/test/node-lines.test.ts fails
 * when docs/decisions/0051 does not list exactly these files, each with these reasons.
 */

/** The parts of Node that differ between the supported lines (`process.versions` of each: decision 0051). */
export const DIFFERENCES = {
  install: "npm's engines check and the install of the packed tarballs on that line, require() of ES modules",
  process: 'child processes, signals and exit codes of the commands as a user starts them',
  fetch: 'the global fetch (undici 6.24 on 20, 6.28 on 22, 7.29 on 24)',
  http: 'the node:http server: its parser (llhttp 9.3 on 20, 9.4 on 22 and 24), limits and timeouts',
  streams: "streams' defaults (the default highWaterMark went from 16 to 64 KiB in 22)",
  crypto: 'OpenSSL (3.0 on 20, 3.5 on 22 and 24): key generation, RS256 signatures, digests',
  intl: 'ICU and its time-zone data (tz 2025c on 20, 2026c on 22 and 24)',
  native: 'the native addon of the embedded database (libsql, N-API 9 on 20, 10 on 22 and 24)',
  timers: 'timers and AbortSignal.timeout, real and faked',
} as const;

export type Difference = keyof typeof DIFFERENCES;

export interface NodeLineTest {
  /** The test file, from the repository's root. */
  file: string;
  /** Why its outcome can change with the Node line. */
  differs: Difference[];
}

export const NODE_LINE_TESTS: NodeLineTest[] = [
  {
    file: 'packages/consumer-tests/test/consumer.test.ts',
    differs: ['install', 'process', 'fetch', 'http', 'crypto', 'native'],
  },
  { file: 'packages/runtime/test/node.test.ts', differs: ['fetch', 'http', 'streams', 'timers'] },
  { file: 'packages/runtime/test/call.test.ts', differs: ['fetch', 'timers'] },
  { file: 'packages/runtime/test/auth.test.ts', differs: ['crypto', 'fetch'] },
  { file: 'packages/runtime/test/batch.test.ts', differs: ['fetch', 'http'] },
  { file: 'packages/server-kit/test/http.test.ts', differs: ['http', 'streams'] },
  { file: 'packages/server-kit/test/signals.test.ts', differs: ['process'] },
  { file: 'packages/mock/test/googleapis.test.ts', differs: ['fetch', 'http'] },
  { file: 'packages/emulator/test/oauth.test.ts', differs: ['crypto', 'fetch'] },
  { file: 'packages/emulator/test/google-auth.test.ts', differs: ['crypto', 'fetch', 'process'] },
  { file: 'packages/emulator/test/time-zones.test.ts', differs: ['intl'] },
  { file: 'packages/emulator/test/local-times.test.ts', differs: ['intl'] },
  { file: 'packages/emulator/test/recurrence.test.ts', differs: ['intl'] },
  { file: 'packages/emulator/test/notifications.test.ts', differs: ['http', 'timers'] },
  { file: 'packages/emulator/test/origins.test.ts', differs: ['http'] },
  { file: 'packages/emulator/test/persist.test.ts', differs: ['native', 'process'] },
];

/** The files of one package (its folder from the repository's root) that run on the other lines, from that folder. */
export function nodeLineFiles(packageDir: string, tests: NodeLineTest[] = NODE_LINE_TESTS): string[] {
  const prefix = `${packageDir.replace(/\/+$/, '')}/`;
  return tests.filter((t) => t.file.startsWith(prefix)).map((t) => t.file.slice(prefix.length));
}

/** The packages (folders from the repository's root) with a file that runs on the other lines. */
export function nodeLinePackages(tests: NodeLineTest[] = NODE_LINE_TESTS): string[] {
  return [...new Set(tests.map((t) => t.file.replace(/\/test\/.*$/, '')))].sort();
}

/**
 * Whether this process runs for another Node line's narrowed run: npm names the script it runs,
 * and that run is each package's `test:node-line` script.
 */
export function onAnotherNodeLine(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.npm_lifecycle_event === 'test:node-line';
}
