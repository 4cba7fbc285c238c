/**
 * stopOnSignals' watch of the parent: a server whose parent dies without passing a signal on
 * (npm and its shell, killed) stops by itself. Run on the built module, in real processes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startedByNpm } from '../src/signals.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gspec-signals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

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
    const log = path.join(dir, 'server.log');
    const module = path.resolve(import.meta.dirname, '../dist/signals.js');
    writeFileSync(
      server,
      `import { stopOnSignals } from ${JSON.stringify(module)};
stopOnSignals('the test server', () => () => Promise.resolve(), { watchParent: true, intervalMs: 50 });
setInterval(() => {}, 1000);
console.log('ready');
`,
    );
    // A shell between, as npm has: it starts the server, says its pid, and waits.
    const shell = spawn('sh', ['-c', `"${process.execPath}" "${server}" > "${log}" 2>&1 & echo $!; wait`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = await new Promise<number>((resolve) =>
      shell.stdout.once('data', (d) => resolve(Number(String(d)))),
    );
    try {
      while (!(existsSync(log) && readFileSync(log, 'utf8').includes('ready'))) await sleep(50);
      shell.kill('SIGKILL');
      while (alive(pid)) await sleep(50);
      expect(readFileSync(log, 'utf8')).toMatch(/is gone: stopping the test server/);
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});
