/**
 * Resolves the target of the contract tests (`test/support/target.ts`) before any test runs.
 * For the mock, the default, and for the emulator (`CONTRACT_TARGET=emulator`) it starts the
 * server as a user starts it (its CLI, on a free port) and stops it afterwards. The live
 * services are only pointed at.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { targetFromEnv } from './target.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    targetOrigin: string;
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

/** Starts a CLI with `--port 0` and resolves to the origin it prints (`... listening on http://...`). */
export async function startCli(
  name: string,
  cli: string,
): Promise<{ origin: string; stop: () => Promise<void> }> {
  if (!existsSync(cli)) {
    throw new Error(
      `the ${name} is not built: ${cli} is missing. Build it first: npx turbo run build --filter=@gspec/${name}`,
    );
  }
  const child: ChildProcess = spawn(process.execPath, [cli, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the ${name} did not start within 30 s:\n${output}`)),
      30_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the ${name} exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    origin,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const target = targetFromEnv();
  if (target.kind === 'live') {
    project.provide('targetOrigin', target.origin as string);
    return async () => {};
  }
  const server =
    target.kind === 'mock' ? await startCli('mock', mockCli()) : await startCli('emulator', emulatorCli());
  project.provide('targetOrigin', server.origin);
  return server.stop;
}
