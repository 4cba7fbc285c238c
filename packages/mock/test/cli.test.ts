/**
 * The built CLI (dist/cli.js) as users start it. The mock takes seconds to start (it loads both
 * specs into Prism), so each way of starting it runs once per file and its tests share it; the
 * refusals exit before they listen.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ChildRun, startProcess, stopAll } from '@gspec/scripts/child-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultFile, specFolder } from './support/fixtures.ts';

const cli = path.resolve(import.meta.dirname, '../dist/cli.js');

function start(args: string[], env: Record<string, string> = {}): ChildRun {
  const base = { ...process.env };
  delete base.PORT;
  return startProcess(`gspec-mock ${args.join(' ')}`, [cli, ...args], { env: { ...base, ...env } });
}

/** The lines the mock logged for one answer of colors.get. */
const colorsLines = (run: ChildRun) =>
  run
    .output()
    .err.split('\n')
    .filter((line) => line.startsWith('GET /calendar/v3/colors -> 200'));

afterAll(() => stopAll());

describe('gspec-mock --port 0', () => {
  let mock: ChildRun;
  let origin: string;
  beforeAll(async () => {
    mock = start(['--port', '0']);
    origin = await mock.ready;
  });

  it('prints the URL of both APIs and answers there', async () => {
    expect(mock.output().out).toContain(`${origin}/calendar/v3`);
    expect(mock.output().out).toContain(`${origin}/doubleclicksearch/v2`);
    const response = await fetch(`${origin}/calendar/v3/colors`, { headers: { authorization: 'Bearer t' } });
    expect(response.status).toBe(200);
  });

  it('logs nothing per request by default', async () => {
    await (await fetch(`${origin}/calendar/v3/colors`, { headers: { authorization: 'Bearer t' } })).text();
    // A line would be written as the answer goes out; a request after it is answered after it.
    await (await fetch(`${origin}/healthz`)).text();
    expect(colorsLines(mock)).toHaveLength(0);
  });

  it('stops cleanly on SIGINT (Ctrl-C)', async () => {
    expect(await mock.stop('SIGINT')).toBe(0);
  });
});

describe('gspec-mock with PORT=0, --verbose and --faults', () => {
  const file = faultFile({
    seed: 4,
    operations: { 'colors.get': { sequence: [{ status: 429, retryAfter: 3 }] } },
  });
  let mock: ChildRun;
  let origin: string;
  beforeAll(async () => {
    mock = start(['--verbose', '--faults', file], { PORT: '0' });
    origin = await mock.ready;
  });

  it('takes its port from PORT', () => {
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('applies the fault file given with --faults and says so at start', async () => {
    expect(mock.output().out).toContain(`Faults from ${file} (seed 4) on 1 operation(s): colors.get`);
    const first = await fetch(`${origin}/calendar/v3/colors`, { headers: { authorization: 'Bearer t' } });
    expect([first.status, first.headers.get('retry-after')]).toEqual([429, '3']);
    const second = await fetch(`${origin}/calendar/v3/colors`, { headers: { authorization: 'Bearer t' } });
    expect(second.status).toBe(200);
    await second.text();
  });

  it('logs one line per request with --verbose', async () => {
    // The line is written as the answer goes out: wait for it (the test's limit guards a hang).
    while (colorsLines(mock).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(colorsLines(mock)).toHaveLength(1);
  });

  it('stops cleanly on SIGTERM', async () => {
    expect(await mock.stop('SIGTERM')).toBe(0);
  });
});

describe('gspec-mock refusals', () => {
  it('exits with a clear message when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const mock = start(['--port', String(port)]);
      expect(await mock.exited).toBe(1);
      expect(mock.output().err).toContain(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      blocker.close();
    }
  });

  it.each([
    [['--port', 'abc'], 'invalid port "abc": expected 0-65535'],
    [['--docs', '/no/such/folder'], '--docs /no/such/folder: no such folder (build the reference first)'],
    [['--colour'], 'unknown option --colour (see gspec-mock --help)'],
    [['--fault', 'x.json'], 'unknown option --fault; did you mean --faults? (see gspec-mock --help)'],
    [['--port'], '--port needs a value (N) (see gspec-mock --help)'],
    [['--verbose=yes'], '--verbose takes no value (see gspec-mock --help)'],
    [['4010'], 'unexpected argument "4010": every argument is an option (see gspec-mock --help)'],
  ])('refuses %j with one line and status 1', async (args, message) => {
    const mock = start(args);
    expect(await mock.exited).toBe(1);
    expect(mock.output().err).toBe(`gspec-mock: ${message}\n`);
  });

  it('lists every option with --help and exits 0', async () => {
    const mock = start(['--help']);
    expect(await mock.exited).toBe(0);
    const options = [...mock.output().out.matchAll(/^ {2}(?:-\w, )? *--([\w-]+)/gm)].map((m) => m[1]);
    expect(options).toEqual([
      'port',
      'host',
      'allowed-hosts',
      'docs',
      'faults',
      'replay',
      'proxy',
      'record',
      'report',
      'fail-on-violation',
      'specs',
      'verbose',
      'outlive-npm',
      'help',
    ]);
  });

  it('exits with a clear message when a spec in --specs is invalid', async () => {
    const broken = specFolder(
      [{ name: 'calendar@v3', title: 'Calendar', basePath: '/calendar/v3', file: 'calendar.json' }],
      '{"openapi": "3.1.0", "paths": ',
    );
    const mock = start(['--port', '0', '--specs', broken]);
    expect(await mock.exited).toBe(1);
    expect(mock.output().err).toMatch(/^gspec-mock: invalid spec: .*calendar\.json:1:31: /);
  });

  it('reads the spec folder from GSPEC_MOCK_SPECS', async () => {
    const mock = start(['--port', '0'], { GSPEC_MOCK_SPECS: '/no/such/specs' });
    expect(await mock.exited).toBe(1);
    expect(mock.output().err).toContain('/no/such/specs/apis.json does not exist');
  });

  it('exits with a clear message naming the field of a bad fault file', async () => {
    const file = faultFile({ operations: { 'events.list': { errorRate: 2 } } });
    const mock = start(['--port', '0', '--faults', file]);
    expect(await mock.exited).toBe(1);
    expect(mock.output().err).toContain(
      `gspec-mock: invalid fault file: ${file}: operations["events.list"].errorRate: expected a share from 0 to 1`,
    );
  });

  it('exits 1 with the file, line and column of a JSON syntax error in the fault file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gspec-mock-broken-'));
    const file = path.join(dir, 'faults.json');
    writeFileSync(file, '{\n  "operations": {\n    "events.list": { "errorRate": 0.5, }\n  }\n}\n');
    try {
      const mock = start(['--port', '0', '--faults', file]);
      expect(await mock.exited).toBe(1);
      expect(mock.output().err).toBe(
        `gspec-mock: invalid fault file: ${file}:3:40: Expected double-quoted property name\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
