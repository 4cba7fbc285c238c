/**
 * The built CLI (dist/cli.js, which the test task builds first): its port options, the
 * message and status when the port is taken, a clean stop on SIGTERM, and a stop when the npm
 * that started it is gone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, isAlive, LISTENING, startBehindShell, stopAll } from '@gspec/scripts/child-process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CLI, startCli } from './support/cli-process.ts';

afterEach(() => stopAll('SIGKILL'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The built CLI with exactly these arguments (no `--port 0` added), killed after the test. */
function start(args: string[], env: Record<string, string> = {}) {
  return startCli(args, { env, anyPort: false });
}

describe('gspec-emulator CLI', () => {
  it.each([
    ['--port', (port: number) => ({ args: ['--port', String(port)], env: {} })],
    ['PORT', (port: number) => ({ args: [], env: { PORT: String(port) } })],
  ])('listens on the port of %s, prints its URLs and stops on SIGTERM', async (_name, options) => {
    const port = await freePort();
    const { args, env } = options(port);
    const run = start(args, env);
    const origin = await run.ready;
    expect(origin).toBe(`http://127.0.0.1:${port}`);
    expect(run.output().out).toContain(`${origin}/calendar/v3`);
    expect(run.output().out).toContain(`${origin}/__emulator/health`);
    expect(run.output().out).toContain(`  Inspector             ${origin}/__emulator/ui/\n`);
    const reply = await fetch(`${origin}/calendar/v3/colors`, { headers: { authorization: 'Bearer t' } });
    expect(reply.status).toBe(200);
    expect(await run.stop('SIGTERM')).toBe(0);
  });

  it('answers the names of --allowed-hosts, says so, and refuses other names', async () => {
    const run = start(['--port', '0', '--allowed-hosts', 'emulator,.sandbox.test']);
    const origin = await run.ready;
    expect(run.output().out).toContain(
      'Answers requests addressed to IP addresses, localhost, emulator, .sandbox.test\n',
    );
    const port = new URL(origin).port;
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const outgoing = httpRequest(
          { host: '127.0.0.1', port, path: '/__emulator/health', headers: { host }, setHost: false },
          (incoming) => {
            incoming.resume();
            resolve(incoming.statusCode ?? 0);
          },
        );
        outgoing.on('error', reject);
        outgoing.end();
      });
    expect(await status(`emulator:${port}`)).toBe(200);
    expect(await status(`ci.sandbox.test:${port}`)).toBe(200);
    expect(await status(`rebind.test:${port}`)).toBe(403);
    expect(await run.stop('SIGTERM')).toBe(0);
  });

  it('exits 1 with a clear message when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const run = start(['--port', String(port)]);
      expect(await run.exited).toBe(1);
      expect(run.output().err).toContain(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it.each([
    [['--port', 'abc'], 'invalid port "abc": expected 0-65535'],
    [
      ['--port', '0', '--users', '/no/such/file.json'],
      'invalid --users file: /no/such/file.json: no such file',
    ],
    [['--bogus'], 'unknown option --bogus (see gspec-emulator --help)'],
    [['--sede', 'seed.json'], 'unknown option --sede; did you mean --seed? (see gspec-emulator --help)'],
    [
      ['credential', 'user'],
      'unexpected argument "credential": every argument is an option or, first, a command (credentials, seed-from); did you mean the command credentials? (see gspec-emulator --help)',
    ],
    [['--seed'], '--seed needs a value (FILE) (see gspec-emulator --help)'],
    [['--strict=1'], '--strict takes no value (see gspec-emulator --help)'],
    [['--rate-limit-status', '429'], '--rate-limit-status needs --rate-limit N (see gspec-emulator --help)'],
    [
      ['--allowed-hosts', 'http://emulator:4011'],
      '--allowed-hosts: "http://emulator:4011" is not a host name; give the name alone, without scheme, port or path (for example, emulator or .example.test)',
    ],
  ])('refuses %j with one line and status 1', async (args, message) => {
    const run = start(args);
    expect(await run.exited).toBe(1);
    expect(run.output().err).toBe(`gspec-emulator: ${message}\n`);
  });

  it('lists every option with --help and exits 0', async () => {
    const run = start(['--help']);
    expect(await run.exited).toBe(0);
    const options = [...run.output().out.matchAll(/^ {2}(?:-\w, )? *--([\w-]+)/gm)].map((m) => m[1]);
    expect(options).toEqual([
      'port',
      'host',
      'allowed-hosts',
      'seed',
      'seed-from',
      'users',
      'state',
      'persist',
      'persist-sync',
      'store',
      'strict',
      'rate-limit',
      'rate-limit-status',
      'admin-token-file',
      'notify-allow',
      'notify-max-channels',
      'notify-max-attempts',
      'verbose',
      'outlive-npm',
      'help',
    ]);
  });

  // As `npx gspec-emulator &` runs it: npm, then a shell, then the server. Killing the shell
  // (SIGKILL: no signal is passed on) hands the server to another parent.
  it.each([
    ['stops once the npm that started it is gone', [], true],
    ['with --outlive-npm, keeps running when the npm that started it is gone', ['--outlive-npm'], false],
  ])('%s', async (_name, args, stops) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gspec-emulator-parent-'));
    const server = await startBehindShell(
      [process.execPath, CLI, '--port', '0', ...args],
      path.join(dir, 'log'),
      {
        ...process.env,
        npm_command: 'exec',
      },
    );
    try {
      while (!server.printed().includes('Press Ctrl-C')) await sleep(50);
      const origin = LISTENING.exec(server.printed())?.[1];
      server.orphan();
      if (stops) {
        while (isAlive(server.pid)) await sleep(50);
        expect(server.printed()).toMatch(/is gone: stopping the emulator/);
      } else {
        // Four times the half-second of the parent check.
        await sleep(2000);
        expect(isAlive(server.pid)).toBe(true);
        expect((await fetch(`${origin}/__emulator/health`)).status).toBe(200);
      }
    } finally {
      server.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('gspec-emulator --seed', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gspec-emulator-seed-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts with the seed: its tokens, calendars and events', async () => {
    const file = path.join(dir, 'seed.json');
    writeFileSync(
      file,
      JSON.stringify({
        users: [{ email: 'ana@example.com', tokens: ['token-ana'] }],
        calendars: [
          {
            id: 'primary',
            owner: 'ana@example.com',
            events: [
              {
                id: 'seeded001',
                summary: 'Seeded',
                start: { date: '2026-03-03' },
                end: { date: '2026-03-04' },
              },
            ],
          },
        ],
      }),
    );
    const run = start(['--port', '0', '--seed', file]);
    const origin = await run.ready;
    expect(run.output().out).toContain(`Seeded from ${file}`);
    const reply = await fetch(`${origin}/calendar/v3/calendars/primary/events/seeded001`, {
      headers: { authorization: 'Bearer token-ana' },
    });
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as { summary: string }).summary).toBe('Seeded');
    expect(await run.stop('SIGTERM')).toBe(0);
  });

  it('exits 1 naming the entry at fault', async () => {
    const file = path.join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        calendars: [{ id: 'primary', owner: 'ana@example.com', events: [{ summary: 'No times' }] }],
      }),
    );
    const run = start(['--port', '0', '--seed', file]);
    expect(await run.exited).toBe(1);
    expect(run.output().err).toContain(
      `invalid --seed file: ${file}: calendars[0].events[0] ("No times"): 400`,
    );
  });

  it('exits 1 with one line naming the file, line and column of a JSON syntax error', async () => {
    const file = path.join(dir, 'broken.json');
    writeFileSync(
      file,
      '{\n  "users": [\n    { "email": "ana@example.com" }\n    { "email": "bo@example.com" }\n  ]\n}\n',
    );
    const run = start(['--port', '0', '--seed', file]);
    expect(await run.exited).toBe(1);
    expect(run.output().err).toBe(
      `gspec-emulator: invalid --seed file: ${file}:4:5: Expected ',' or ']' after array element\n`,
    );
  });
});

describe('gspec-emulator admin credential', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gspec-emulator-admin-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const ADMIN = 'cli-admin-credential-5f3a9c1e';
  const users = path.join(dir, 'users.json');
  writeFileSync(users, JSON.stringify({ 'token-ana': 'ana@example.com' }));
  const reset = (origin: string, headers: Record<string, string> = {}) =>
    fetch(`${origin}/__emulator/reset`, { method: 'POST', headers }).then((r) => r.status);

  it.each([
    ['the environment', [] as string[], { GSPEC_EMULATOR_ADMIN_TOKEN: ADMIN }],
    ['--admin-token-file', ['--admin-token-file', path.join(dir, 'admin')], {}],
  ])(
    'in strict mode takes it from %s, never prints it, and asks every control request for it',
    async (_from, args, env) => {
      writeFileSync(path.join(dir, 'admin'), `${ADMIN}\n`, { mode: 0o600 });
      const run = startCli(['--strict', '--users', users, ...args], { env });
      const origin = await run.ready;
      expect(run.output().out).toContain(
        `  Control plane         ${origin}/__emulator/health (admin credential required: X-Emulator-Admin-Token, or sign in on the inspector)\n`,
      );
      expect(run.output().out).toContain(`  Inspector             ${origin}/__emulator/ui/\n`);
      expect(await reset(origin)).toBe(401);
      expect(await reset(origin, { 'x-emulator-admin-token': 'cli-admin-credential-wrong' })).toBe(401);
      expect(await reset(origin, { 'x-emulator-admin-token': ADMIN })).toBe(204);
      expect((await fetch(`${origin}/__emulator/health`)).status).toBe(200);
      expect(await run.stop('SIGTERM')).toBe(0);
      expect(`${run.output().out}${run.output().err}`).not.toContain(ADMIN);
    },
  );

  it.each([
    ['--strict', ['--strict', '--users', users]],
    ['--host 0.0.0.0', ['--host', '0.0.0.0']],
  ])(
    'with %s and none given, starts with the control plane locked and says how to open it',
    async (_case, args) => {
      const run = startCli(args);
      const origin = (await run.ready).replace('0.0.0.0', '127.0.0.1');
      expect(run.output().out).toContain(
        '/__emulator/health (locked: no admin credential; set GSPEC_EMULATOR_ADMIN_TOKEN or --admin-token-file FILE)',
      );
      expect(await reset(origin, { 'x-emulator-admin-token': 'anything-at-all-here' })).toBe(401);
      expect((await fetch(`${origin}/__emulator/health`)).status).toBe(200);
      expect(await run.stop('SIGTERM')).toBe(0);
    },
  );

  it.each([
    [['--admin-token-file', '/no/such/admin'], 'invalid --admin-token-file /no/such/admin: cannot read'],
    [['--admin-token-file', 'SHORT'], '--admin-token-file SHORT: the admin credential is 5 characters long'],
  ])('refuses %j with one line and status 1', async (args, message) => {
    writeFileSync(path.join(dir, 'SHORT'), 'short\n');
    const run = startCli(args.map((a) => (a === 'SHORT' ? path.join(dir, 'SHORT') : a)));
    expect(await run.exited).toBe(1);
    expect(run.output().err).toContain(message.replace('SHORT', path.join(dir, 'SHORT')));
  });
});
