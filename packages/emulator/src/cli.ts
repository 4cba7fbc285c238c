#!/usr/bin/env node
/**
 * gspec-emulator: stateful Google Calendar API v3 and Search Ads 360 API v2 on this machine.
 *
 *   gspec-emulator [--port N] [--host H] [--users FILE] [--state FILE] [--seed FILE] [--verbose]
 *
 * The port comes from --port, else PORT, else 4011; 0 picks a free port.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CONTROL_PREFIX } from './control.js';
import { applySeed, readSeedFile, type Seed, SeedError, seedUserMap } from './seed.js';
import { createEmulator, type Emulator } from './server.js';
import { SpecError } from './spec.js';
import { createStateChecker, StateFileError } from './state-file.js';
import { readUserMapFile, type UserMap, UsersFileError } from './users.js';

const API_TITLES: Record<string, string> = {
  calendar: 'Google Calendar API',
  searchads360: 'Search Ads 360 API',
};

const USAGE =
  'usage: gspec-emulator [--port N] [--host H] [--users FILE] [--state FILE] [--seed FILE] [--verbose]';

function fail(message: string): never {
  process.stderr.write(`gspec-emulator: ${message}\n`);
  process.exit(1);
}

let emulator: Emulator | undefined;
let stopping = false;

function onSignal(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: stopping the emulator\n`);
  const done = () => process.exit(0);
  if (emulator) emulator.close().then(done, done);
  else done();
}

async function main(): Promise<void> {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let values: {
    port?: string;
    host?: string;
    users?: string;
    state?: string;
    seed?: string;
    verbose?: boolean;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string', short: 'p' },
        host: { type: 'string' },
        users: { type: 'string' },
        state: { type: 'string' },
        seed: { type: 'string' },
        verbose: { type: 'boolean', short: 'v', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // An empty PORT counts as unset, as shells and CI often export it empty.
  const portText = values.port ?? (process.env.PORT || '4011');
  if (!/^\d+$/.test(portText) || Number(portText) > 65535)
    fail(`invalid port ${JSON.stringify(portText)}: expected 0-65535`);
  const host = values.host ?? '127.0.0.1';
  let users: UserMap = {};
  try {
    if (values.users) users = readUserMapFile(values.users);
    let seed: Seed | undefined;
    if (values.seed) {
      seed = readSeedFile(values.seed);
      users = seedUserMap(seed, users, values.seed);
    }
    emulator = createEmulator({
      users,
      ...(values.verbose ? { log: (line: string) => process.stderr.write(`${line}\n`) } : {}),
    });
    if (values.state) {
      let text: string;
      try {
        text = readFileSync(values.state, 'utf8');
      } catch (error) {
        throw new StateFileError(`${values.state}: cannot read (${(error as Error).message})`);
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw new StateFileError(`${values.state}: not valid JSON (${(error as Error).message})`);
      }
      try {
        emulator.store.state = createStateChecker(emulator.spec)(value);
      } catch (error) {
        throw new StateFileError(`${values.state}: ${(error as Error).message}`);
      }
    }
    // The seed goes on top of the loaded state, if any.
    if (seed && values.seed) applySeed(emulator, seed, values.seed);
  } catch (error) {
    if (error instanceof UsersFileError) fail(`invalid --users file: ${error.message}`);
    if (error instanceof StateFileError) fail(`invalid --state file: ${error.message}`);
    if (error instanceof SeedError) fail(`invalid --seed file: ${error.message}`);
    if (error instanceof SpecError) fail(`invalid spec: ${error.message}`);
    throw error;
  }
  let origin: string;
  try {
    origin = await emulator.listen(Number(portText), host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      fail(`port ${portText} on ${host} is already in use; choose another with --port or PORT`);
    if (code === 'EACCES') fail(`no permission to listen on port ${portText}`);
    fail(`cannot listen on ${host}:${portText}: ${(error as Error).message}`);
  }
  const lines = [
    `gspec emulator listening on ${origin}`,
    ...emulator.services.list.map(
      (s) =>
        `  ${(API_TITLES[s.name] ?? s.name).padEnd(22)}${origin}${s.spec.basePath}${
          s.notImplemented.length > 0 ? ` (${s.notImplemented.length} operations answer 501)` : ''
        }`,
    ),
    `  Control plane         ${origin}${CONTROL_PREFIX}/health`,
    ...(values.users
      ? [`Users from ${values.users} (${Object.keys(users).length}); any other token works too`]
      : []),
    ...(values.state ? [`State loaded from ${values.state}`] : []),
    ...(values.seed ? [`Seeded from ${values.seed}`] : []),
    'Press Ctrl-C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));
