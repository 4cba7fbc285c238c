#!/usr/bin/env node
/**
 * gspec-mock: serves both APIs at their live base paths on one origin.
 *
 *   gspec-mock [--port N] [--host HOST] [--allowed-hosts NAMES] [--docs DIR] [--faults FILE] [--specs DIR]
 *              [--verbose] [--outlive-npm]
 *
 * The port comes from --port, else PORT, else 4010; 0 picks a free port. The specs come from
 * --specs, else GSPEC_MOCK_SPECS, else the bundled specs/dist.
 */
import { existsSync } from 'node:fs';
import {
  AllowedHosts,
  commandHelp,
  readCommandLine,
  serverOptions,
  startedByNpm,
  stopOnSignals,
} from '@gspec/server-kit';
import type { FaultConfig } from './faults.js';

const { port, host, 'allowed-hosts': allowedHosts, verbose, 'outlive-npm': outliveNpm } = serverOptions(4010);
const OPTIONS = {
  port,
  host,
  'allowed-hosts': allowedHosts,
  docs: {
    type: 'string',
    value: 'DIR',
    description: 'Also serve the static API reference built in DIR at / (as `npm start` does).',
  },
  faults: {
    type: 'string',
    value: 'FILE',
    description: 'Answer some requests with errors or delays, as the fault file says (see the README).',
  },
  specs: {
    type: 'string',
    value: 'DIR',
    description:
      'Serve the bundled specs in DIR (apis.json and the files it names). Default: $GSPEC_MOCK_SPECS, else those of @gspec/specs.',
  },
  verbose,
  'outlive-npm': outliveNpm,
} as const;

const HELP = commandHelp(
  'gspec-mock',
  'A contract mock of Google Calendar API v3 and Search Ads 360 API v2 on one origin, at the live base paths, answering from the examples of the specs.',
  OPTIONS,
  ['It prints its URLs when it is ready, and stops on Ctrl-C (SIGINT) or SIGTERM.'],
);

function fail(message: string): never {
  process.stderr.write(`gspec-mock: ${message}\n`);
  process.exit(1);
}

/** Set once the server exists; a signal before that simply ends the process. */
let stopGateway: (() => Promise<void>) | undefined;

async function main(): Promise<void> {
  const values = readCommandLine('gspec-mock', OPTIONS, HELP);
  if (!values) return;
  // Installed before anything that waits, so that a signal during start-up is handled like one after it.
  stopOnSignals('the mock', () => stopGateway, { watchParent: !values['outlive-npm'] && startedByNpm() });
  // An empty PORT counts as unset, as shells and CI often export it empty.
  const portText = values.port ?? (process.env.PORT || '4010');
  if (!/^\d+$/.test(portText) || Number(portText) > 65535)
    fail(`invalid port ${JSON.stringify(portText)}: expected 0-65535`);
  const host = values.host ?? '127.0.0.1';
  let hosts: AllowedHosts;
  try {
    hosts = AllowedHosts.parse(values['allowed-hosts']);
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.docs && !existsSync(values.docs))
    fail(`--docs ${values.docs}: no such folder (build the reference first)`);

  // Prism and the specs are loaded only now, so that --help and a mistyped option answer at once.
  const [
    { loadApis, MockSetupError, resolveSpecDir },
    { FaultConfigError, readFaultFile },
    { createGateway },
  ] = await Promise.all([import('./apis.js'), import('./faults.js'), import('./gateway.js')]);
  let apis: Awaited<ReturnType<typeof loadApis>>;
  let faults: FaultConfig | undefined;
  try {
    apis = await loadApis(resolveSpecDir(values.specs));
    if (values.faults) faults = readFaultFile(values.faults, apis);
  } catch (error) {
    if (error instanceof MockSetupError) fail(`invalid spec: ${error.message}`);
    if (error instanceof FaultConfigError) fail(`invalid fault file: ${error.message}`);
    throw error;
  }
  const gateway = createGateway({
    apis,
    ...(values.docs ? { docsDir: values.docs } : {}),
    ...(faults ? { faults } : {}),
    ...(values['allowed-hosts'] !== undefined ? { allowedHosts: values['allowed-hosts'] } : {}),
    verbose: values.verbose ?? false,
  });
  stopGateway = () => gateway.close();
  let origin: string;
  try {
    origin = await gateway.listen(Number(portText), host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      fail(`port ${portText} on ${host} is already in use; choose another with --port or PORT`);
    if (code === 'EACCES') fail(`no permission to listen on port ${portText}`);
    fail(`cannot listen on ${host}:${portText}: ${(error as Error).message}`);
  }

  const width = Math.max(...apis.map((api) => api.title.length), 'API reference'.length) + 2;
  const lines = [
    `gspec mock listening on ${origin}`,
    ...apis.map((api) => `  ${api.title.padEnd(width)}${origin}${api.basePath}`),
    ...(values.docs ? [`  ${'API reference'.padEnd(width)}${origin}/`] : []),
    `  ${'Health'.padEnd(width)}${origin}/healthz`,
    `Answers requests addressed to ${hosts.describe()}`,
    ...(faults
      ? [
          `Faults from ${faults.source} (seed ${faults.seed}${faults.seeded ? '' : ', drawn; set "seed" to repeat this run'}) on ${
            faults.operations.size
          } operation(s): ${[...faults.operations.keys()].slice(0, 5).join(', ')}${faults.operations.size > 5 ? ', ...' : ''}`,
        ]
      : []),
    'Press Ctrl-C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));
