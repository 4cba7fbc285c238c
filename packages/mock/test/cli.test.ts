import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const cli = path.resolve(import.meta.dirname, '../dist/cli.js');
const running: ChildProcessWithoutNullStreams[] = [];

function start(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...env } });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1] as string);
    });
    child.on('exit', () => reject(new Error(`exited before listening: ${stderr}`)));
  });
  listening.catch(() => {}); // the tests that expect an early exit await `exited` instead

  return { child, exited, listening, output: () => ({ stdout, stderr }) };
}

afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

describe('gspec-mock', () => {
  it('prints the URL of both APIs and answers there', async () => {
    const mock = start(['--port', '0']);
    const origin = await mock.listening;
    expect(mock.output().stdout).toContain(`${origin}/calendar/v3`);
    expect(mock.output().stdout).toContain(`${origin}/doubleclicksearch/v2`);
    const response = await fetch(`${origin}/calendar/v3/colors`, { headers: { authorization: 'Bearer t' } });
    expect(response.status).toBe(200);
  });

  it('takes its port from PORT', async () => {
    const mock = start([], { PORT: '0' });
    expect(await mock.listening).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('stops cleanly on %s', async (signal) => {
    const mock = start(['--port', '0']);
    await mock.listening;
    mock.child.kill(signal);
    expect(await mock.exited).toBe(0);
  });

  it('exits with a clear message when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const mock = start(['--port', String(port)]);
      expect(await mock.exited).toBe(1);
      expect(mock.output().stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      blocker.close();
    }
  });

  it.each([
    [['--port', 'abc'], 'invalid port "abc"'],
    [['--docs', '/no/such/folder'], '--docs /no/such/folder does not exist'],
    [['--colour'], "Unknown option '--colour'"],
  ])('refuses %j with a clear message', async (args, message) => {
    const mock = start(args);
    expect(await mock.exited).toBe(1);
    expect(mock.output().stderr).toContain(message);
  });
});
