/**
 * The built CLI (dist/cli.js) as a child process, for the tests of the CLI and of --persist:
 * started with `--port 0` unless told otherwise, ready once it prints its origin, its output
 * kept. The test task builds dist first; run by hand, a missing dist fails with the command
 * that builds it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'cli.js');

export function requireBuiltCli(): void {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: build it first with npx turbo run build --filter=@gspec/emulator...`);
}

export interface CliRun {
  child: ChildProcess;
  /** The origin, once it listens; rejects when it exits first. */
  ready: Promise<string>;
  /** Its exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  output(): { out: string; err: string };
}

export interface StartOptions {
  /** More environment (PORT is removed from the test's own). */
  env?: Record<string, string>;
  /** `--port 0` first, so any free port (the default); off for tests of the port options. */
  anyPort?: boolean;
}

export function startCli(args: string[], options: StartOptions = {}): CliRun {
  requireBuiltCli();
  const env = { ...process.env };
  delete env.PORT;
  Object.assign(env, options.env);
  const argv = [CLI, ...(options.anyPort === false ? [] : ['--port', '0']), ...args];
  const child = spawn(process.execPath, argv, { env, stdio: 'pipe' });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', () => {
      // The whole start-up text is printed at once, so the origin line means it is all there.
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1] && out.includes('Press Ctrl-C')) resolve(match[1]);
    });
    exited.then(() => reject(new Error(`the emulator exited: ${err || out}`)));
  });
  // A run expected to exit never waits for `ready`; its rejection is not an error there.
  ready.catch(() => undefined);
  return { child, ready, exited, output: () => ({ out, err }) };
}
