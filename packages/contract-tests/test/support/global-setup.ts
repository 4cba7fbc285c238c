/**
 * Resolves the target of the contract tests (`test/support/target.ts`) before any test runs.
 * For the mock, the default, it starts the mock as a user starts it (its CLI, on a free
 * port) and stops it afterwards. `CONTRACT_TARGET=emulator` fails the run here, with a
 * message saying that the emulator does not cover every operation yet.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { targetFromEnv } from './target.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    targetOrigin: string;
  }
}

const require = createRequire(import.meta.url);

async function startMock(): Promise<{ origin: string; stop: () => Promise<void> }> {
  const cli = path.join(path.dirname(require.resolve('@gspec/mock/package.json')), 'dist', 'cli.js');
  const mock = spawn(process.execPath, [cli, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the mock did not start within 30 s:\n${output}`)),
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
    mock.stdout.on('data', onData);
    mock.stderr.on('data', onData);
    mock.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the mock exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    origin,
    stop: async () => {
      if (mock.exitCode !== null) return;
      const exited = new Promise((resolve) => mock.on('exit', resolve));
      mock.kill('SIGTERM');
      await exited;
    },
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const target = targetFromEnv();
  if (target.kind !== 'mock') {
    project.provide('targetOrigin', target.origin as string);
    return async () => {};
  }
  const mock = await startMock();
  project.provide('targetOrigin', mock.origin);
  return mock.stop;
}
