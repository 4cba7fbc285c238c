/**
 * Resolves the target of the contract tests (`test/support/target.ts`) before any test runs.
 * For the mock, the default, and for the emulator (`CONTRACT_TARGET=emulator`) it starts the
 * server as a user starts it (its CLI, on a free port) and stops it afterwards. The live
 * services are only pointed at.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '@gspec/scripts/child-process';
import type { TestProject } from 'vitest/node';
import { targetFromEnv } from './target.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    targetOrigin: string;
    /** Why the target could not be started (then targetOrigin is empty). */
    targetError: string;
  }
}

const require = createRequire(import.meta.url);
const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The built CLI of the mock, resolved as the dependency it is. */
export function mockCli(): string {
  return path.join(path.dirname(require.resolve('@gspec/mock/package.json')), 'dist', 'cli.js');
}

/**
 * The built CLI of the emulator, by path (`../emulator/dist/cli.js`): the workspace package
 * next to this one, so that it is found with or without a dependency entry.
 */
export function emulatorCli(): string {
  return path.resolve(packageDir, '..', 'emulator', 'dist', 'cli.js');
}

/**
 * Starts a CLI with `--port 0` and resolves to the origin it prints (`... listening on http://...`).
 * It waits as long as the start takes (a loaded machine is slow, not broken); a server that
 * exits first, or hangs, fails the run with what it printed, and is never left running.
 */
export async function startCli(
  name: string,
  cli: string,
): Promise<{ origin: string; stop: () => Promise<void> }> {
  if (!existsSync(cli)) {
    throw new Error(
      `the ${name} is not built: ${cli} is missing. Build it first: npx turbo run build --filter=@gspec/${name}`,
    );
  }
  const server = await startServer(`the ${name} (${cli} --port 0)`, [cli, '--port', '0']);
  return {
    origin: server.origin,
    stop: async () => {
      await server.stop();
    },
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const target = targetFromEnv();
  if (target.kind === 'live') {
    project.provide('targetOrigin', target.origin as string);
    project.provide('targetError', '');
    return async () => {};
  }
  try {
    const server =
      target.kind === 'mock' ? await startCli('mock', mockCli()) : await startCli('emulator', emulatorCli());
    project.provide('targetOrigin', server.origin);
    project.provide('targetError', '');
    return server.stop;
  } catch (error) {
    // Thrown here, vitest would first say "No test files found" and only then why. Handed to
    // the tests instead, every test that needs the target fails with the reason.
    project.provide('targetOrigin', '');
    project.provide('targetError', (error as Error).message);
    return async () => {};
  }
}
