import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startProcess, stopAll } from '../lib/child-process.ts';
import { countFromEnv, processesWith } from '../run-tests.ts';

afterAll(() => stopAll());

describe('countFromEnv (GSPEC_JOBS, GSPEC_TEST_WORKERS)', () => {
  it.each([
    [undefined, 2],
    ['', 2],
    ['3', 3],
    [' 4 ', 4],
  ])('reads %j as %d (default 2)', (value, expected) => {
    expect(countFromEnv('GSPEC_JOBS', value, 2)).toBe(expected);
  });

  it.each(['0', '-1', '1.5', 'two', '2 cores'])('refuses %j, naming the variable', (value) => {
    expect(() => countFromEnv('GSPEC_JOBS', value, 2)).toThrow(
      `GSPEC_JOBS=${JSON.stringify(value)}: expected a whole number of at least 1`,
    );
  });
});

describe.skipIf(!existsSync('/proc/self/environ'))('processesWith', () => {
  it('finds a running process by the marker in its environment, and not once it has exited', async () => {
    const marker = `GSPEC_TEST_RUN=test-${process.pid}-${Date.now()}`;
    const run = startProcess('a marked child', ['-e', "console.log('up'); setInterval(() => {}, 1000);"], {
      env: { ...process.env, GSPEC_TEST_RUN: marker.split('=')[1] },
      ready: /up/,
    });
    await run.ready;
    const found = processesWith(marker);
    expect(found).toEqual([{ pid: run.child.pid, command: expect.stringContaining('setInterval') }]);
    expect(processesWith(`${marker}-other`)).toEqual([]);
    await run.stop();
    expect(processesWith(marker)).toEqual([]);
  });
});
