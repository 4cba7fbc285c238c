/**
 * `turbo` for the project's own npm scripts, with turbo's anonymous telemetry off for these
 * runs only (and so without its first-run notice): turbo has no per-repository setting for it,
 * and `turbo telemetry disable` would change the user's setting for every other project too.
 * Set TURBO_TELEMETRY_DISABLED=0 to let the project's runs report as your other projects do.
 *
 * It also tells turbo which Node runs the tasks (GSPEC_NODE_VERSION, in the `env` of turbo.json's
 * test tasks): a test result cached under one Node line is never replayed for another, so CI's
 * run on each supported line (.ci/run) runs its tests on that line; a build is the same on every
 * line and is built once (decision 0051).
 *
 *   tsx scripts/turbo.ts <turbo arguments...>
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '..');

/**
 * The environment for a turbo run of this project: telemetry off unless the caller said
 * otherwise, and the version of the Node on which the tasks run (this one: the first on PATH).
 */
export function turboEnv(
  env: NodeJS.ProcessEnv = process.env,
  nodeVersion = process.version,
): NodeJS.ProcessEnv {
  return {
    ...env,
    TURBO_TELEMETRY_DISABLED: env.TURBO_TELEMETRY_DISABLED ?? '1',
    GSPEC_NODE_VERSION: nodeVersion,
  };
}

/** The repository's own turbo binary, or one on the PATH. */
export function turboBin(): string {
  const local = path.join(repoRoot, 'node_modules', '.bin', 'turbo');
  return existsSync(local) ? local : 'turbo';
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const turbo = spawn(turboBin(), process.argv.slice(2), {
    stdio: 'inherit',
    env: turboEnv(),
    shell: process.platform === 'win32',
  });
  // Ctrl-C reaches turbo through the terminal's process group; a SIGTERM to this process alone is passed on.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => turbo.kill('SIGTERM'));
  turbo.on('error', (error) => {
    console.error(`cannot start turbo: ${error.message}`);
    process.exit(1);
  });
  turbo.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
