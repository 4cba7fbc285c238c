/**
 * stopOnSignals' watch of the parent: a server whose parent dies without passing a signal on
 * (npm and its shell, killed) stops by itself. Run on the built module, in real processes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAlive, startBehindShell } from '@gspec/scripts/child-process';
import { afterAll, describe, expect, it } from 'vitest';
import { startedByNpm } from '../src/signals.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gspec-signals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('stopOnSignals', () => {
  it.each([
    [{ npm_command: 'exec' }, true],
    [{ npm_command: 'run-script' }, true],
    [{ npm_command: '' }, false],
    [{}, false],
  ])('startedByNpm(%j) is %s', (env, expected) => {
    expect(startedByNpm(env)).toBe(expected);
  });

  it('stops the server when the process that started it is killed', async () => {
    const server = path.join(dir, 'server.mjs');
    const module = path.resolve(import.meta.dirname, '../dist/signals.js');
    writeFileSync(
      server,
      `import { stopOnSignals } from ${JSON.stringify(module)};
stopOnSignals('the test server', () => () => Promise.resolve(), { watchParent: true, intervalMs: 50 });
setInterval(() => {}, 1000);
console.log('ready');
`,
    );
    // A shell between, as npm has; killed as a signal to npm kills it.
    const run = await startBehindShell([process.execPath, server], path.join(dir, 'server.log'));
    try {
      while (!run.printed().includes('ready')) await sleep(50);
      run.orphan();
      while (isAlive(run.pid)) await sleep(50);
      expect(run.printed()).toMatch(/is gone: stopping the test server/);
    } finally {
      run.kill();
    }
  });
});
