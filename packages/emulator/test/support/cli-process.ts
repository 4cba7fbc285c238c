/**
 * The built CLI (dist/cli.js) as a child process, for the tests of the CLI and of --persist:
 * started with `--port 0` unless told otherwise, ready once it prints its origin, its output
 * kept, killed on every path. The test task builds dist first; run by hand, a missing dist fails with the command
 * that builds it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ChildRun, LISTENING, startProcess } from '@gspec/scripts/child-process';

export const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'cli.js');

export function requireBuiltCli(): void {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: build it first with npx turbo run build --filter=@gspec/emulator...`);
}

/** The CLI as a child process (see @gspec/scripts/child-process: killed on every path). */
export type CliRun = ChildRun;

export interface StartOptions {
  /** More environment (PORT is removed from the test's own). */
  env?: Record<string, string>;
  /** `--port 0` first, so any free port (the default); off for tests of the port options. */
  anyPort?: boolean;
}

/**
 * Starts the CLI; `ready` resolves to its origin once the whole start-up text is printed (it is
 * printed at once, so the closing "Press Ctrl-C" line means all of it is there), however long
 * that takes, and rejects with what it printed if it exits first.
 */
export function startCli(args: string[], options: StartOptions = {}): CliRun {
  requireBuiltCli();
  const env = { ...process.env };
  delete env.PORT;
  Object.assign(env, options.env);
  const argv = [CLI, ...(options.anyPort === false ? [] : ['--port', '0']), ...args];
  return startProcess(`gspec-emulator ${argv.slice(1).join(' ')}`, argv, {
    env,
    ready: (out) => (out.includes('Press Ctrl-C') ? LISTENING.exec(out)?.[1] : undefined),
  });
}
