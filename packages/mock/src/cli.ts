#!/usr/bin/env node
/**
 * gspec-mock: serves both APIs at their live base paths on one origin.
 *
 *   gspec-mock [--port N] [--host HOST] [--allowed-hosts NAMES] [--docs DIR] [--faults FILE] [--specs DIR]
 *              [--verbose] [--outlive-npm]
 *   gspec-mock --proxy [URL] [--record FILE.har] [--report FILE] [--fail-on-violation] [--port N] ...
 *   gspec-mock --replay FILE.har [--port N] [--host HOST] [--allowed-hosts NAMES] [--docs DIR] [--verbose]
 *
 * The port comes from --port, else PORT, else 4010; 0 picks a free port. The specs come from
 * --specs, else GSPEC_MOCK_SPECS, else the bundled specs/dist.
 */
import { existsSync, readFileSync } from 'node:fs';
import {
  AllowedHosts,
  type CommandValues,
  commandHelp,
  type HarEntry,
  HarError,
  HarWriter,
  readCommandLine,
  readHarFile,
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
  replay: {
    type: 'string',
    value: 'FILE',
    description:
      'Answer from a HAR recording instead of the specs, with no upstream (see the README); not with --faults or --specs.',
  },
  proxy: {
    type: 'string',
    value: 'URL',
    description:
      'Forward every request to the live services (--proxy alone, or --proxy live) or to the base URL given, and check each request and answer against the specs; violations go to stderr.',
  },
  record: {
    type: 'string',
    value: 'FILE',
    description:
      'With --proxy: record every exchange to FILE as HAR 1.2, every credential redacted (a new file).',
  },
  report: {
    type: 'string',
    value: 'FILE',
    description:
      'With --proxy: on stop, write the violations as JSON to FILE and a Markdown summary next to it.',
  },
  'fail-on-violation': {
    type: 'boolean',
    description: 'With --proxy: exit with status 1 on stop when any violation was found.',
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
  const values = readCommandLine('gspec-mock', OPTIONS, HELP, withProxyValue(process.argv.slice(2)));
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
  if (values.proxy !== undefined) {
    await proxy(values.proxy, Number(portText), host, values);
    return;
  }
  for (const option of ['record', 'report', 'fail-on-violation'] as const)
    if (values[option] !== undefined)
      fail(`--${option} needs --proxy: it is about the exchanges the proxy passes on`);
  if (values.replay !== undefined) {
    await replay(values.replay, Number(portText), host, hosts, values);
    return;
  }

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
    failToListen(error, portText, host);
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

function failToListen(error: unknown, portText: string, host: string): never {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    fail(`port ${portText} on ${host} is already in use; choose another with --port or PORT`);
  if (code === 'EACCES') fail(`no permission to listen on port ${portText}`);
  fail(`cannot listen on ${host}:${portText}: ${(error as Error).message}`);
}

/** `--replay FILE`: answers from a recording, without Prism or the specs. */
async function replay(
  file: string,
  port: number,
  host: string,
  hosts: AllowedHosts,
  values: CommandValues<typeof OPTIONS>,
): Promise<void> {
  for (const option of ['faults', 'specs'] as const)
    if (values[option] !== undefined)
      fail(`--replay and --${option} cannot be used together: a replay answers from the recording alone`);
  const { createReplay } = await import('./replay.js');
  let entries: HarEntry[];
  try {
    entries = readHarFile(file);
  } catch (error) {
    if (error instanceof HarError) fail(`cannot replay ${error.message}`);
    throw error;
  }
  const server = createReplay({
    entries,
    source: file,
    ...(values.docs ? { docsDir: values.docs } : {}),
    ...(values['allowed-hosts'] !== undefined ? { allowedHosts: values['allowed-hosts'] } : {}),
    verbose: values.verbose ?? false,
  });
  stopGateway = () => server.close();
  let origin: string;
  try {
    origin = await server.listen(port, host);
  } catch (error) {
    failToListen(error, String(port), host);
  }
  const lines = [
    `gspec mock listening on ${origin}`,
    `Replaying ${file} (${entries.length} exchange${entries.length === 1 ? '' : 's'}) with no upstream`,
    ...(values.docs ? [`  API reference  ${origin}/`] : []),
    `  Health         ${origin}/healthz`,
    `Answers requests addressed to ${hosts.describe()}; a request not in the recording gets 404`,
    'Press Ctrl-C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `--proxy` without a URL (last, or before another option) means the live services. */
function withProxyValue(argv: string[]): string[] {
  return argv.flatMap((arg, i) =>
    arg === '--proxy' && (i === argv.length - 1 || (argv[i + 1] ?? '').startsWith('-'))
      ? [arg, 'live']
      : [arg],
  );
}

/** Whether a file may be written as the report: new, or a report the proxy wrote earlier. */
function isOwnReport(file: string): boolean {
  if (!existsSync(file)) return true;
  try {
    const earlier = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    return typeof earlier.upstream === 'string' && Array.isArray(earlier.violations);
  } catch {
    return false;
  }
}

/** `--proxy [URL]`: the validating proxy (proxy.ts) before the live services or the URL. */
async function proxy(
  upstreamText: string,
  port: number,
  host: string,
  values: CommandValues<typeof OPTIONS>,
): Promise<void> {
  for (const option of ['faults', 'replay', 'docs'] as const)
    if (values[option] !== undefined)
      fail(`--proxy and --${option} cannot be used together: the proxy answers what the upstream answers`);
  let upstream: string | undefined;
  if (upstreamText !== 'live') {
    const url = URL.canParse(upstreamText) ? new URL(upstreamText) : undefined;
    if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash || url.username || url.password)
      fail(
        `--proxy ${JSON.stringify(upstreamText)}: expected an http(s) base URL without query, fragment or credentials (such as http://127.0.0.1:4011), or nothing for the live services`,
      );
    upstream = url.href.replace(/\/+$/, '');
  }
  if (values.report && !isOwnReport(values.report))
    fail(`--report ${values.report}: the file exists and is no report of the proxy; choose a new file`);
  const [
    { loadApis, MockSetupError, resolveSpecDir },
    { createProxy, LIVE_TOKEN_ORIGIN },
    { ViolationReport },
  ] = await Promise.all([import('./apis.js'), import('./proxy.js'), import('./violations.js')]);
  let apis: Awaited<ReturnType<typeof loadApis>>;
  try {
    apis = await loadApis(resolveSpecDir(values.specs));
  } catch (error) {
    if (error instanceof MockSetupError) fail(`invalid spec: ${error.message}`);
    throw error;
  }
  const report = new ViolationReport(upstream ?? 'live', (line) =>
    process.stderr.write(`gspec-mock: ${line}\n`),
  );
  let recorder: HarWriter | undefined;
  if (values.record) {
    try {
      recorder = new HarWriter(values.record, { name: '@gspec/mock', version: ownVersion() });
    } catch (error) {
      if (error instanceof HarError) fail(`--record ${error.message}`);
      throw error;
    }
  }
  let server: ReturnType<typeof createProxy>;
  try {
    server = createProxy({
      apis,
      ...(upstream ? { upstream } : {}),
      report,
      ...(recorder ? { record: recorder } : {}),
      ...(values['allowed-hosts'] !== undefined ? { allowedHosts: values['allowed-hosts'] } : {}),
      verbose: values.verbose ?? false,
    });
  } catch (error) {
    fail((error as Error).message);
  }
  stopGateway = async () => {
    await server.close();
    recorder?.close();
    const found = report.report();
    const exchanges = Object.values(found.exchanges).reduce((a, b) => a + b, 0);
    process.stderr.write(
      `gspec-mock: ${exchanges} exchange(s) checked, ${found.violations.length} kind(s) of violation${
        recorder ? `; ${recorder.count} recorded in ${recorder.file}` : ''
      }\n`,
    );
    if (values.report) {
      const files = report.write(values.report);
      process.stderr.write(`gspec-mock: report written to ${files.json} and ${files.markdown}\n`);
    }
    if (values['fail-on-violation'] && found.violations.length > 0) process.exitCode = 1;
  };
  let origin: string;
  try {
    origin = await server.listen(port, host);
  } catch (error) {
    failToListen(error, String(port), host);
  }
  const width = Math.max(...apis.map((api) => api.title.length), 'Token endpoint'.length) + 2;
  const where = (api: (typeof apis)[number]) =>
    upstream ? `${upstream}${api.basePath}` : `${new URL(api.server as string).origin}${api.basePath}`;
  const lines = [
    `gspec mock proxy listening on ${origin}`,
    'Every request and answer is checked against the specs; violations are printed here.',
    ...apis.map((api) => `  ${api.title.padEnd(width)}${origin}${api.basePath} -> ${where(api)}`),
    `  ${'Token endpoint'.padEnd(width)}${origin}/token -> ${upstream ?? LIVE_TOKEN_ORIGIN}/token`,
    ...(recorder ? [`Recording to ${recorder.file} (credentials redacted)`] : []),
    ...(values.report ? [`Report on stop: ${values.report}`] : []),
    'Press Ctrl-C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** This package's version, for the recording's creator. */
function ownVersion(): string {
  try {
    return (
      JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
    ).version;
  } catch {
    return 'unknown';
  }
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));
