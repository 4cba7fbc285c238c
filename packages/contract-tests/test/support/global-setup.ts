/**
 * Starts the target of the contract tests before any test runs and stops it afterwards.
 * The target is the mock, started as a user starts it (its CLI, on a free port).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    targetOrigin: string;
  }
}

const require = createRequire(import.meta.url);

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
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
  project.provide('targetOrigin', origin);
  return async () => {
    const exited = new Promise((resolve) => mock.on('exit', resolve));
    mock.kill('SIGTERM');
    await exited;
  };
}
