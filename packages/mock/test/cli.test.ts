import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { faultFile, specFolder } from './support/fixtures.ts';

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

  it('exits with a clear message when a spec in --specs is invalid', async () => {
    const broken = specFolder(
      [{ name: 'calendar@v3', title: 'Calendar', basePath: '/calendar/v3', file: 'calendar.json' }],
      '{"openapi": "3.1.0", "paths": ',
    );
    const mock = start(['--port', '0', '--specs', broken]);
    expect(await mock.exited).toBe(1);
    expect(mock.output().stderr).toMatch(/^gspec-mock: invalid spec: .*calendar\.json: not valid JSON/);
  });

  it('reads the spec folder from GSPEC_MOCK_SPECS', async () => {
    const mock = start(['--port', '0'], { GSPEC_MOCK_SPECS: '/no/such/specs' });
    expect(await mock.exited).toBe(1);
    expect(mock.output().stderr).toContain('/no/such/specs/apis.json does not exist');
  });

  it('exits with a clear message naming the field of a bad fault file', async () => {
    const file = faultFile({ operations: { 'events.list': { errorRate: 2 } } });
    const mock = start(['--port', '0', '--faults', file]);
    expect(await mock.exited).toBe(1);
    expect(mock.output().stderr).toContain(
      `gspec-mock: invalid fault file: ${file}: operations["events.list"].errorRate: expected a share from 0 to 1`,
    );
  });

  it('applies the fault file given with --faults and says so at start', async () => {
    const file = faultFile({
      seed: 4,
      operations: { 'colors.get': { sequence: [{ status: 429, retryAfter: 3 }] } },
    });
    const mock = start(['--port', '0', '--faults', file]);
    const origin = await mock.listening;
    expect(mock.output().stdout).toContain(`Faults from ${file} (seed 4) on 1 operation(s): colors.get`);
    const first = await fetch(`${origin}/calendar/v3/colors`, { headers: { authorization: 'Bearer t' } });
    expect([first.status, first.headers.get('retry-after')]).toEqual([429, '3']);
    const second = await fetch(`${origin}/calendar/v3/colors`, { headers: { authorization: 'Bearer t' } });
    expect(second.status).toBe(200);
  });

  it.each([
    ['logs nothing per request by default', [], 0],
    ['logs one line per request with --verbose', ['--verbose'], 1],
  ])('%s', async (_title, flags, lines) => {
    const mock = start(['--port', '0', ...flags]);
    const origin = await mock.listening;
    await (await fetch(`${origin}/calendar/v3/colors`, { headers: { authorization: 'Bearer t' } })).text();
    // The line is written when the answer has gone out; wait for the stream to catch up.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const logged = mock
      .output()
      .stderr.split('\n')
      .filter((line) => line.startsWith('GET /calendar/v3/colors -> 200'));
    expect(logged).toHaveLength(lines);
  });
});
