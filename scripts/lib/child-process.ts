/**
 * A server (or any program) as a child process, for the tests and the benchmarks: started,
 * ready when it prints what it prints once it is ready, stopped, and never left behind.
 *
 * - Readiness is a line of output (`listening on http://...`), not a guess of how long a start
 *   takes: a loaded machine may take much longer than an idle one, and a test waits for it.
 *   The only limit, `readyWithinMs` (default {@link DEFAULT_READY_WITHIN_MS}), is a hang guard
 *   far above any real start; when it passes, or the process exits before it is ready, the
 *   error says so with everything the process printed.
 * - Every child started here is killed on every path: by {@link ChildRun.stop}, by
 *   {@link stopAll} (for an `afterAll`), when the readiness guard gives up, and when this
 *   process exits or is stopped by SIGINT, SIGTERM or SIGHUP.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The hang guard of a start: far above any real start-up, under vitest's test timeout. */
export const DEFAULT_READY_WITHIN_MS = 240_000;
/** How long {@link ChildRun.stop} waits after SIGTERM before it sends SIGKILL. */
export const DEFAULT_STOP_WITHIN_MS = 30_000;

/** How much of each output stream is kept (the end of it), for readiness and error messages. */
const KEPT_CHARS = 1 << 20;
const keep = (text: string, chunk: string) => {
  const all = text + chunk;
  return all.length > KEPT_CHARS ? all.slice(-KEPT_CHARS) : all;
};

/** The origin a gspec server prints once it accepts connections. */
export const LISTENING = /listening on (http:\/\/\S+)/;

export interface StartOptions {
  /** The environment of the child; the default is this process's. */
  env?: NodeJS.ProcessEnv;
  /**
   * What the output must show for the process to be ready: a pattern whose first group (or
   * whole match) is the value `ready` resolves to, or a function of everything printed so far
   * (stdout, then stderr) that returns the value once it is there. Default {@link LISTENING}.
   */
  ready?: RegExp | ((out: string, err: string) => string | undefined);
  /** Also look for readiness on stderr (default: stdout only). */
  readyOnStderr?: boolean;
  /** The hang guard, in ms (default {@link DEFAULT_READY_WITHIN_MS}). */
  readyWithinMs?: number;
  /** The working directory of the child. */
  cwd?: string;
}

export interface ChildRun {
  readonly name: string;
  readonly child: ChildProcess;
  /** The value readiness found (the origin, by default); rejects when the process exits first or the guard passes. */
  readonly ready: Promise<string>;
  /** Its exit code, or null when a signal ended it. */
  readonly exited: Promise<number | null>;
  /** What it printed so far (the last MiB of each stream). */
  output(): { out: string; err: string };
  /**
   * Sends `signal` (SIGTERM by default), waits for the exit (SIGKILL after `withinMs`) and
   * resolves to the exit code (null after a signal). Resolves at once when it has exited.
   */
  stop(signal?: NodeJS.Signals, withinMs?: number): Promise<number | null>;
}

/** Every child still running, with the `stop` of its run. */
const live = new Map<ChildProcess, ChildRun['stop']>();
let hooked = false;

/** Kills every child still running, at once (SIGKILL): for process exit and signals. */
function killAllNow(): void {
  for (const child of live.keys()) {
    try {
      child.kill('SIGKILL');
    } catch {
      // gone already
    }
  }
  live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  killAllNow();
  // Alone on the signal, this handler stands in the way of its default action (ending the
  // process): step aside and raise it again. With other handlers, they decide.
  if (process.listenerCount(signal) === 1) {
    process.removeListener(signal, onSignal);
    process.kill(process.pid, signal);
  }
}

function hookProcessExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
}

/** Runs `node <argv>` (or `command` with `argv`) and tracks it until it exits. */
export function startProcess(
  name: string,
  argv: string[],
  options: StartOptions & { command?: string } = {},
): ChildRun {
  hookProcessExit();
  const child = spawn(options.command ?? process.execPath, argv, {
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  const printed = () =>
    [out && `stdout:\n${out.trimEnd()}`, err && `stderr:\n${err.trimEnd()}`].filter(Boolean).join('\n') ||
    '(nothing)';

  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      live.delete(child);
      resolve(code);
    });
    child.on('error', (error) => {
      live.delete(child);
      err += `${error.message}\n`;
      resolve(null);
    });
  });

  const pattern = options.ready ?? LISTENING;
  const find =
    typeof pattern === 'function'
      ? pattern
      : (stdout: string, stderr: string) => {
          const match = pattern.exec(options.readyOnStderr ? `${stdout}\n${stderr}` : stdout);
          return match ? (match[1] ?? match[0]) : undefined;
        };
  const within = options.readyWithinMs ?? DEFAULT_READY_WITHIN_MS;
  const ready = new Promise<string>((resolve, reject) => {
    let settled = false;
    const check = () => {
      if (settled) return;
      const value = find(out, err);
      if (value !== undefined) {
        settled = true;
        clearTimeout(guard);
        resolve(value);
      }
    };
    child.stdout?.on('data', (chunk: string) => {
      out = keep(out, chunk);
      check();
    });
    child.stderr?.on('data', (chunk: string) => {
      err = keep(err, chunk);
      check();
    });
    const guard = setTimeout(() => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      const limit = within >= 1000 ? `${Math.round(within / 1000)} s` : `${within} ms`;
      reject(new Error(`${name} was not ready within ${limit}; it printed:\n${printed()}`));
    }, within);
    guard.unref();
    void exited.then((code) => {
      if (settled) return;
      settled = true;
      clearTimeout(guard);
      reject(
        new Error(
          `${name} exited (${code === null ? `signal ${child.signalCode ?? 'unknown'}` : `code ${code}`}) before it was ready; it printed:\n${printed()}`,
        ),
      );
    });
  });
  // A run that is expected to exit never awaits `ready`; its rejection is no error there.
  ready.catch(() => undefined);

  const stop = async (signal: NodeJS.Signals = 'SIGTERM', withinMs = DEFAULT_STOP_WITHIN_MS) => {
    if (child.exitCode !== null || child.signalCode !== null || !live.has(child)) return exited;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), withinMs);
    timer.unref();
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };

  live.set(child, stop);
  return { name, child, ready, exited, output: () => ({ out, err }), stop };
}

/** Starts a process and waits until it is ready; on failure it is gone and the error says what it printed. */
export async function startServer(
  name: string,
  argv: string[],
  options: StartOptions = {},
): Promise<ChildRun & { origin: string }> {
  const run = startProcess(name, argv, options);
  const origin = await run.ready;
  return Object.assign(run, { origin });
}

/** The children started here that are still running. */
export function runningChildren(): ChildProcess[] {
  return [...live.keys()];
}

/**
 * Stops every child still running, as {@link ChildRun.stop} does (`signal`, then SIGKILL after
 * `withinMs`): for an `afterAll` or `afterEach`.
 */
export async function stopAll(
  signal: NodeJS.Signals = 'SIGTERM',
  withinMs = DEFAULT_STOP_WITHIN_MS,
): Promise<void> {
  await Promise.all([...live.values()].map((stop) => stop(signal, withinMs)));
}

/** A port on 127.0.0.1 that nothing listened on a moment ago, for a server that must be given one. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether a process with this pid is running (signal 0 asks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A program started as npm starts one: behind a shell that waits for it. */
export interface BehindShell {
  /** The program's own pid (not the shell's). */
  pid: number;
  /** What the program printed so far (stdout and stderr, in one file). */
  printed(): string;
  /**
   * Kills the shell with SIGKILL, as a signal to npm ends npm and its shell without passing
   * anything on: the program is handed to another parent.
   */
  orphan(): void;
  /** Kills the program if it still runs (for a `finally`). */
  kill(): void;
}

/**
 * Starts `argv` behind `sh -c '... & wait'`, its output in the file `log`; resolves once the
 * shell has said the program's pid. The program is not one of the children {@link stopAll}
 * stops: call `kill()` in a `finally`.
 */
export async function startBehindShell(
  argv: string[],
  log: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<BehindShell> {
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const shell = spawn('sh', ['-c', `${argv.map(quote).join(' ')} > ${quote(log)} 2>&1 & echo $!; wait`], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env,
  });
  const pid = await new Promise<number>((resolve, reject) => {
    shell.once('error', reject);
    shell.stdout.once('data', (d) => resolve(Number(String(d).trim())));
  });
  return {
    pid,
    printed: () => (existsSync(log) ? readFileSync(log, 'utf8') : ''),
    orphan: () => shell.kill('SIGKILL'),
    kill: () => {
      if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    },
  };
}
