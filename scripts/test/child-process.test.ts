import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runningChildren, startProcess, startServer, stopAll } from '../lib/child-process.ts';

/** `node -e <code>`, as the helper runs a server: a script of its own. */
const node = (code: string) => ['-e', code];
/** Running: there, and not a zombie waiting to be reaped. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return !existsSync('/proc/self');
  }
};
/** Waits until a killed process is gone: a kill takes effect soon, not at once. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return !alive(pid);
}
const LISTEN = `require('http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () {
  console.log('demo listening on http://127.0.0.1:' + this.address().port);
});`;

afterAll(() => stopAll());

describe('startProcess', () => {
  it('is ready when the output says so, however late, and resolves to what it printed', async () => {
    const server = await startServer('the demo', node(`setTimeout(() => { ${LISTEN} }, 300);`));
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(server.origin)).text()).toBe('ok');
    expect(await server.stop()).toBeNull(); // ended by SIGTERM: no handler, so no exit code
    expect(await gone(server.child.pid as number)).toBe(true);
  });

  it.each([
    ['a pattern', /ready at (\d+)/, '42'],
    ['a function of the output', (out: string) => (out.includes('ready') ? 'yes' : undefined), 'yes'],
  ])('reads readiness with %s', async (_title, ready, value) => {
    const run = startProcess('the demo', node("console.log('ready at 42'); setInterval(() => {}, 1000);"), {
      ready,
    });
    expect(await run.ready).toBe(value);
    await run.stop();
  });

  it('rejects when the process exits before it is ready, with what it printed', async () => {
    const run = startProcess(
      'the demo',
      node("console.log('reading config'); console.error('bad --port'); process.exit(3);"),
    );
    await expect(run.ready).rejects.toThrow(
      /^the demo exited \(code 3\) before it was ready; it printed:\nstdout:\nreading config\nstderr:\nbad --port$/,
    );
    expect(await run.exited).toBe(3);
  });

  it('gives up after its hang guard, kills the process and says what it printed', async () => {
    const run = startProcess('the demo', node("console.log('still loading'); setInterval(() => {}, 1000);"), {
      readyWithinMs: 200,
    });
    // On a busy machine the guard may pass before the process has printed anything.
    await expect(run.ready).rejects.toThrow(
      /^the demo was not ready within 200 ms; it printed:\n(stdout:\nstill loading|\(nothing\))$/,
    );
    expect(await run.exited).toBeNull();
    expect(runningChildren()).not.toContain(run.child);
  });

  it('stops a process that ignores SIGTERM with SIGKILL after the grace period', async () => {
    const run = startProcess(
      'the stubborn demo',
      node(
        "process.on('SIGTERM', () => {}); console.log('listening on http://x'); setInterval(() => {}, 1000);",
      ),
    );
    await run.ready;
    expect(await run.stop('SIGTERM', 200)).toBeNull();
    expect(run.child.signalCode).toBe('SIGKILL');
  });

  it.each(['SIGTERM', 'SIGINT', 'exit'] as const)(
    'kills its children when the process that started them ends (%s)',
    async (how) => {
      // A parent that starts a server through the helper, prints the server's pid, then ends.
      const helper = new URL('../lib/child-process.ts', import.meta.url).pathname;
      const script = `
        import { startProcess } from ${JSON.stringify(helper)};
        const run = startProcess('child', ['-e', ${JSON.stringify(`${LISTEN} setInterval(() => {}, 1000);`)}]);
        await run.ready;
        console.log(run.child.pid);
        ${how === 'exit' ? 'process.exit(0);' : `process.kill(process.pid, '${how}');`}
      `;
      let out = '';
      try {
        out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          encoding: 'utf8',
          timeout: 240_000, // a hang guard: the test's own limit cannot interrupt a synchronous child
        });
      } catch (error) {
        // Ended by the signal: the default action, as without the helper.
        const failed = error as { signal?: string; stdout?: string };
        expect(failed.signal).toBe(how);
        out = failed.stdout ?? '';
      }
      const pid = Number(out.trim());
      expect(pid).toBeGreaterThan(0);
      expect(await gone(pid)).toBe(true);
    },
  );
});
