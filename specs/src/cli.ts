#!/usr/bin/env node
/**
 * `gspec-specs`: commands of the @gspec/specs package.
 *
 *   gspec-specs drift --discovery FILE|URL [--api calendar|searchads360] [--json] [--timeout SECONDS]
 *
 * Compares the package's bundled spec of an API with Google's Discovery document of it and
 * prints every difference that drift-allowed.json does not record. Exit status: 0 when none is
 * left, 1 when some are, 2 for bad input (options, file, URL, document), with one line saying
 * what is wrong.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type AllowedEntry, applyAllowed, readAllowed, type Sorted } from './allowed.js';
import { APIS, type ApiId, apiFor, isApiId } from './apis.js';
import { type DiscoveryDocument, discoveryModel, InputError, readDiscovery } from './discovery.js';
import { compareApis, DIFFERENCE_KINDS, describeDifference } from './drift.js';
import { isObject, type Json } from './model.js';
import { openApiModel } from './openapi.js';
import { didYouMean } from './suggest.js';

const COMMAND = 'gspec-specs';

const HELP = `usage: ${COMMAND} drift --discovery FILE|URL [options]

Compares this package's spec of an API with Google's Discovery document of it and prints
every difference that is not a deliberate one (drift-allowed.json, in the package).

Options:
  --discovery FILE|URL   The Discovery document: a file, or an http(s) URL such as
                         https://www.googleapis.com/discovery/v1/apis/calendar/v3/rest
  --api ID               calendar or searchads360. Default: what the document's name and
                         version say (calendar v3, doubleclicksearch v2).
  --json                 Print the result as JSON.
  --timeout SECONDS      How long to wait for a URL. Default: 30.
  -h, --help             Print this help and exit.

Exit status: 0 no difference left, 1 differences left, 2 bad input.
`;

class UsageError extends Error {}

interface DriftOptions {
  discovery: string;
  api?: ApiId;
  json: boolean;
  timeoutMs: number;
}

function parseDriftArgs(argv: string[]): DriftOptions | undefined {
  const hint = `see ${COMMAND} drift --help`;
  const options = {
    discovery: { type: 'string' },
    api: { type: 'string' },
    json: { type: 'boolean' },
    timeout: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const names = Object.keys(options);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false }));
  } catch (error) {
    const code = (error as { code?: string }).code;
    const quoted = /'([^']*)'/.exec((error as Error).message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const typed = quoted.startsWith('--') ? quoted.slice(2) : '';
      throw new UsageError(`unknown option ${quoted}${didYouMean(typed, names, (n) => `--${n}`)} (${hint})`);
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
      throw new UsageError(
        `unexpected argument ${JSON.stringify(quoted)}: every argument is an option${didYouMean(quoted, names, (n) => `--${n}`)} (${hint})`,
      );
    const name = /--([\w-]+)/.exec((error as Error).message)?.[1];
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && name)
      throw new UsageError(
        name === 'json' || name === 'help'
          ? `--${name} takes no value (${hint})`
          : `--${name} needs a value (${hint})`,
      );
    throw new UsageError(`${(error as Error).message} (${hint})`);
  }
  if (values.help) {
    process.stdout.write(HELP);
    return undefined;
  }
  if (typeof values.discovery !== 'string' || values.discovery === '')
    throw new UsageError(`--discovery FILE|URL is required (${hint})`);
  const api = values.api;
  if (api !== undefined && !isApiId(api))
    throw new UsageError(`--api ${JSON.stringify(api)} is not one of ${Object.keys(APIS).join(', ')}`);
  let timeoutMs = 30_000;
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0)
      throw new UsageError(`--timeout ${JSON.stringify(values.timeout)} is not a number of seconds above 0`);
    timeoutMs = seconds * 1000;
  }
  return {
    discovery: values.discovery,
    ...(api ? { api: api as ApiId } : {}),
    json: values.json === true,
    timeoutMs,
  };
}

const packageFile = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

function loadOurSpec(api: ApiId): Json {
  const file = packageFile(`./${api}.json`);
  const doc: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!isObject(doc)) throw new InputError(`${file} is not an OpenAPI document`);
  return doc;
}

/** Entries marked `facts` show only against the reference facts, so they cannot be stale here. */
const staleAgainstGoogle = (entry: AllowedEntry) => entry.only !== 'facts';

function printText(api: ApiId, doc: DiscoveryDocument, source: string, sorted: Sorted): void {
  const lines = [
    `${api}: our spec against ${doc.name} ${doc.version}${doc.revision ? ` (revision ${doc.revision})` : ''} from ${source}`,
  ];
  const recorded = `${sorted.allowed.length} deliberate difference${sorted.allowed.length === 1 ? '' : 's'} recorded in drift-allowed.json`;
  if (sorted.reported.length === 0) lines.push(`no differences left (${recorded})`);
  else {
    lines.push(
      `${sorted.reported.length} difference${sorted.reported.length === 1 ? '' : 's'} (${recorded}):`,
    );
    for (const kind of DIFFERENCE_KINDS) {
      const ofKind = sorted.reported.filter((d) => d.kind === kind);
      if (ofKind.length === 0) continue;
      lines.push('', `${kind} (${ofKind.length})`, ...ofKind.map((d) => `  ${describeDifference(d)}`));
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function drift(argv: string[]): Promise<number> {
  const options = parseDriftArgs(argv);
  if (!options) return 0;
  const doc = await readDiscovery(options.discovery, { timeoutMs: options.timeoutMs });
  const api = apiFor(doc, options.api, options.discovery);
  const allowedFile = packageFile('./drift-allowed.json');
  const entries = readAllowed(allowedFile)[api] ?? [];
  const differences = compareApis(discoveryModel(doc), openApiModel(loadOurSpec(api)));
  const sorted = applyAllowed(differences, entries, staleAgainstGoogle);
  if (options.json) {
    const result = {
      api,
      discovery: { name: doc.name, version: doc.version, revision: doc.revision ?? null },
      differences: sorted.reported,
      allowed: sorted.allowed.length,
      stale: sorted.stale,
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else printText(api, doc, options.discovery, sorted);
  for (const s of sorted.stale)
    process.stderr.write(
      `${COMMAND} drift: warning: stale entry in drift-allowed.json: ${s.kind} at ${s.at}${s.aspect ? ` (${s.aspect})` : ''}, backed by ${s.decision}: no such difference is left; remove it from the file\n`,
    );
  return sorted.reported.length > 0 ? 1 : 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '-h' || command === '--help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (command === undefined) {
    process.stderr.write(HELP);
    return 2;
  }
  if (command !== 'drift') {
    process.stderr.write(
      `${COMMAND}: unknown command ${JSON.stringify(command)}; the only command is drift${didYouMean(command, ['drift'])}\n`,
    );
    return 2;
  }
  try {
    return await drift(rest);
  } catch (error) {
    if (error instanceof InputError || error instanceof UsageError) {
      process.stderr.write(`${COMMAND} drift: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(
      `${COMMAND}: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 2;
  },
);
