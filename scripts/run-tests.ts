/**
 * `npm test`: every lint, type-check and test task through turbo, sized to the machine, and
 * a check that nothing the tests started is still running when they are done.
 *
 *   tsx scripts/run-tests.ts [--node-line] [turbo options...]
 *
 * - What runs: every lint, type-check and test task; with `--node-line`, only the test files
 *   that can behave differently on another Node line (scripts/lib/node-lines.ts, decision 0051),
 *   through each of their packages' `test:node-line` script. CI runs the whole suite on the
 *   newest supported line and `--node-line` on the others.
 * - PostgreSQL: when the tests that need it will run and the server binaries are there, one
 *   server is started for the whole run (@gspec/scripts/postgres) and handed to every task as
 *   GSPEC_POSTGRES_URL; each test file makes its own database on it. It is stopped, and its
 *   folder removed, when turbo is done. A GSPEC_POSTGRES_URL given by the caller is used as it is.
 *
 * - Parallelism: turbo runs at most GSPEC_JOBS tasks at once (default: the cores this process
 *   may use, os.availableParallelism()), and each vitest run at most GSPEC_TEST_WORKERS test
 *   files at once (default 1: the tasks already fill the cores). So `npm test` runs about as
 *   many heavy processes as there are cores, and a 2-core runner is not overloaded by the suite
 *   itself. Both are whole numbers of at least 1; anything else is refused before turbo starts.
 * - Processes left behind: every process the run starts carries GSPEC_TEST_RUN=<this run> in its
 *   environment. When turbo is done, any process that still carries it outlived the suite: it is
 *   named, killed, and the run fails. (Linux only: elsewhere the check says it did not run.)
 * - The outcome of both goes to reports/npm-test.json, which scripts/test-summary.ts counts.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './lib/apis.ts';
import { nodeLinePackages } from './lib/node-lines.ts';
import { havePostgres, type PostgresServer, startPostgres } from './lib/postgres.ts';
import { turboBin, turboEnv } from './turbo.ts';

export interface Leftover {
  pid: number;
  command: string;
}

export interface TestRunReport {
  jobs: number;
  workers: number;
  /** Whether the check for leftover processes could run here (it reads /proc). */
  processCheck: 'ran' | 'unsupported';
  leftovers: Leftover[];
  turboExitCode: number | null;
}

export const REPORT = path.join(repoRoot, 'reports', 'npm-test.json');

/** A whole number of at least 1 from an environment variable, the default when unset or empty. */
export function countFromEnv(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
    throw new Error(`${name}=${JSON.stringify(value)}: expected a whole number of at least 1`);
  }
  return Number(value);
}

/**
 * The processes whose environment holds `marker` (`NAME=value`), but not this one nor its
 * ancestors: read from /proc. Zombies (exited, not yet reaped) are not running and not listed.
 */
export function processesWith(marker: string, proc = '/proc'): Leftover[] {
  const exclude = new Set<number>();
  for (let pid = process.pid; pid > 1 && !exclude.has(pid); ) {
    exclude.add(pid);
    const stat = readOrEmpty(path.join(proc, String(pid), 'stat'));
    pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  }
  const found: Leftover[] = [];
  for (const entry of readdirSync(proc)) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (exclude.has(pid)) continue;
    const environ = readOrEmpty(path.join(proc, entry, 'environ'));
    if (!environ.split('\0').includes(marker)) continue;
    const stat = readOrEmpty(path.join(proc, entry, 'stat'));
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
    const command = readOrEmpty(path.join(proc, entry, 'cmdline'))
      .split('\0')
      .join(' ')
      .trim();
    found.push({ pid, command });
  }
  return found;
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // gone meanwhile, or not ours to read
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The processes that still carry the marker a few seconds after the run (the dying get time to die). */
async function leftoversOf(marker: string): Promise<Leftover[]> {
  let found = processesWith(marker);
  for (let i = 0; i < 20 && found.length > 0; i++) {
    await sleep(250);
    found = processesWith(marker);
  }
  return found;
}

/**
 * turbo's arguments: every check, or with `--node-line` the `test:node-line` task of the
 * packages scripts/lib/node-lines.ts names; the caller's other arguments go on to turbo.
 */
export function turboArgs(argv: string[], jobs: number): { args: string[]; nodeLine: boolean } {
  const nodeLine = argv.includes('--node-line');
  const rest = argv.filter((arg) => arg !== '--node-line');
  const tasks = nodeLine
    ? ['test:node-line', ...nodeLinePackages().map((dir) => `--filter=./${dir}`)]
    : ['lint', 'typecheck', 'test'];
  return {
    args: [
      'run',
      ...tasks,
      '--continue=dependencies-successful',
      '--summarize',
      `--concurrency=${jobs}`,
      ...rest,
    ],
    nodeLine,
  };
}

/**
 * One PostgreSQL server for the run, when one is wanted and can be had; else nothing. A server
 * that cannot be had fails no more than before: each test file that needs one then starts its
 * own (or skips, or under CI=true fails with its own message).
 */
async function runPostgres(wanted: boolean): Promise<PostgresServer | undefined> {
  if (!wanted || process.env.GSPEC_POSTGRES_URL) return undefined;
  try {
    if (!havePostgres()) return undefined; // warns
    const server = await startPostgres({ own: true });
    console.log(`npm test: PostgreSQL for this run at ${server.url} (GSPEC_POSTGRES_URL)`);
    return server;
  } catch (error) {
    console.warn(
      `npm test: no PostgreSQL for the whole run (${(error as Error).message}); the test files that need one start their own`,
    );
    return undefined;
  }
}

async function main(): Promise<number> {
  const jobs = countFromEnv('GSPEC_JOBS', process.env.GSPEC_JOBS, os.availableParallelism());
  const workers = countFromEnv('GSPEC_TEST_WORKERS', process.env.GSPEC_TEST_WORKERS, 1);
  const marker = `GSPEC_TEST_RUN=${process.pid}-${Date.now()}`;
  const [markerName, markerValue] = marker.split('=') as [string, string];
  const { args, nodeLine } = turboArgs(process.argv.slice(2), jobs);
  console.log(`npm test: turbo ${args.join(' ')} (GSPEC_JOBS=${jobs}, GSPEC_TEST_WORKERS=${workers})`);

  // The whole suite's PostgreSQL tests share one server; the other lines run none of them.
  const postgres = await runPostgres(!nodeLine);
  const turbo = spawn(turboBin(), args, {
    stdio: 'inherit',
    env: {
      ...turboEnv(),
      GSPEC_JOBS: String(jobs),
      GSPEC_TEST_WORKERS: String(workers),
      [markerName]: markerValue,
      ...(postgres ? { GSPEC_POSTGRES_URL: postgres.url } : {}),
    },
    shell: process.platform === 'win32',
  });
  // Ctrl-C reaches turbo through the terminal's process group; a SIGTERM sent to this process
  // alone is passed on, and the leftover check still runs after turbo is gone.
  const forward = (signal: NodeJS.Signals) => () => turbo.kill(signal);
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', forward('SIGTERM'));
  const turboExitCode = await new Promise<number | null>((resolve) => {
    turbo.on('exit', (code) => resolve(code));
    turbo.on('error', (error) => {
      console.error(`npm test: cannot start turbo: ${error.message}`);
      resolve(null);
    });
  });
  await postgres?.stop();

  const supported = existsSync('/proc/self/environ');
  const leftovers = supported ? await leftoversOf(marker) : [];
  if (leftovers.length > 0) {
    console.error(`\nnpm test: ${leftovers.length} process(es) started by the tests outlived them; killing:`);
    for (const { pid, command } of leftovers) {
      console.error(`  pid ${pid}: ${command}`);
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  } else if (!supported) {
    console.log('npm test: no /proc here, so processes left behind by the tests were not looked for');
  }

  const report: TestRunReport = {
    jobs,
    workers,
    processCheck: supported ? 'ran' : 'unsupported',
    leftovers,
    turboExitCode,
  };
  mkdirSync(path.dirname(REPORT), { recursive: true });
  writeFileSync(REPORT, `${JSON.stringify(report, null, 2)}\n`);
  return turboExitCode === 0 && leftovers.length === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`npm test: ${(error as Error).message}`);
      process.exit(1);
    },
  );
}
