#!/usr/bin/env node
/**
 * gspec-emulator: stateful Google Calendar API v3 and Search Ads 360 API v2 on this machine.
 *
 *   gspec-emulator [--port N] [--host HOST] [--seed FILE | --seed-from FILE.har] [--users FILE] [--state FILE]
 *                  [--persist FILE [--persist-sync normal|full] | --store postgres://…]
 *                  [--strict] [--rate-limit N [--rate-limit-status 403|429]] [--admin-token-file FILE]
 *                  [--allowed-hosts NAMES] [--notify-allow TARGETS]... [--notify-max-channels N]
 *                  [--notify-max-attempts N] [--verbose] [--outlive-npm]
 *
 * `gspec-emulator --help` lists the options (OPTIONS below).
 * The port comes from --port, else PORT, else 4011; 0 picks a free port.
 * `gspec-emulator credentials ...` and `gspec-emulator seed-from FILE.har` are subcommands
 * (credentials-cli.ts, seed-from-cli.ts).
 */
import { readFileSync } from 'node:fs';
import {
  AllowedHosts,
  commandHelp,
  HarError,
  readCommandLine,
  serverOptions,
  startedByNpm,
  stopOnSignals,
} from '@gspec/server-kit';
import { LIVE_RATE_LIMIT_STATUS } from './apis/index.js';
import { ADMIN_TOKEN_ENV, AdminConfigError, checkAdminToken, isLoopback } from './core/admin.js';
import { CONTROL_PREFIX } from './core/control.js';
import { DeliveryPolicyError, parseAllowList } from './core/delivery-policy.js';
import { readJsonFile } from './core/files.js';
import {
  DEFAULT_MAX_ATTEMPTS_PER_CHANGE,
  DEFAULT_MAX_CHANNELS_PER_USER,
  type Notifier,
  type NotifierOptions,
} from './core/notifier.js';
import type { OAuthOptions } from './core/oauth.js';
import { TOKEN_PATH } from './core/oauth.js';
import { SharedStoreError } from './core/postgres-options.js';
import { RecordingError, type RecordingReport, reportLines } from './core/recording.js';
import { applySeed, type Seed, SeedError, seedOAuth, seedScopeMap, seedUserMap } from './core/seed.js';
import type { Emulator } from './core/server.js';
import { SpecError } from './core/spec.js';
import { StateFileError } from './core/state-file.js';
import { StateNotSaved } from './core/state-store.js';
import { PersistError, type SyncMode } from './core/storage.js';
import {
  AccessConfigError,
  type RateLimitOptions,
  type RateLimitStatus,
  unusedScopes,
} from './core/strict.js';
import { readUsersFile, type ScopeMap, type UserMap, UsersFileError } from './core/users.js';
import { createEmulator, readRecordingSeed, readSeedFile } from './emulator.js';

const { port, host, 'allowed-hosts': allowedHosts, verbose, 'outlive-npm': outliveNpm } = serverOptions(4011);
const OPTIONS = {
  port,
  host,
  'allowed-hosts': allowedHosts,
  seed: {
    type: 'string',
    value: 'FILE',
    description: 'Start with the users, calendars, events and conversions of this seed file (JSON).',
  },
  'seed-from': {
    type: 'string',
    value: 'FILE',
    description:
      'Start with the seed a recording makes (a HAR file, as gspec-mock --proxy URL --record FILE writes): what its answers show. Not with --seed.',
  },
  users: {
    type: 'string',
    value: 'FILE',
    description:
      'Map bearer tokens to users (and scopes) from this JSON file; other tokens act as a default user.',
  },
  state: {
    type: 'string',
    value: 'FILE',
    description: 'Start from a state saved earlier (GET /__emulator/state), then apply --seed.',
  },
  persist: {
    type: 'string',
    value: 'FILE',
    description:
      'Keep the state in the SQLite database FILE: restored at start, each change committed before it is answered.',
  },
  'persist-sync': {
    type: 'string',
    value: 'normal|full',
    description:
      'normal (default): a committed change survives the process being killed; full: also a power cut, at a disk flush per commit.',
  },
  store: {
    type: 'string',
    value: 'URL',
    description:
      'Keep the state in the PostgreSQL database URL (postgres://user@host:port/database; the password from PGPASSWORD or the URL), shared with every emulator started on it.',
  },
  strict: {
    type: 'boolean',
    description: 'Accept only the tokens of --users and the seed, with their scopes; refuse unknown ids.',
  },
  'rate-limit': {
    type: 'string',
    value: 'N',
    description: 'Allow N quota units per user per minute and API; over it, answer rateLimitExceeded.',
  },
  'rate-limit-status': {
    type: 'string',
    value: '403|429',
    description:
      'The status of rate-limited answers. Default: the live one (Calendar 403, Search Ads 360 429).',
  },
  'admin-token-file': {
    type: 'string',
    value: 'FILE',
    description: `The control plane's and the inspector's admin credential: the first line of FILE (else ${ADMIN_TOKEN_ENV}). Needed with --strict or a --host beyond loopback, where they are locked without it.`,
  },
  'notify-allow': {
    type: 'string',
    value: 'TARGETS',
    description:
      'Where watch channels may deliver: host names, IPs, CIDR ranges, each with an optional :port ([IPv6]:port), or * for any; repeatable or comma-separated. A shared sandbox (--store, or a --host beyond loopback) delivers only there; link-local and cloud metadata addresses never.',
  },
  'notify-max-channels': {
    type: 'string',
    value: 'N',
    description: `The most watch channels one user may have open at once. Default: ${DEFAULT_MAX_CHANNELS_PER_USER}.`,
  },
  'notify-max-attempts': {
    type: 'string',
    value: 'N',
    description: `The most notification POSTs, retries included, one change may cause over all channels. Default: ${DEFAULT_MAX_ATTEMPTS_PER_CHANGE}.`,
  },
  verbose,
  'outlive-npm': outliveNpm,
} as const;

const HELP = commandHelp(
  'gspec-emulator',
  'A stateful emulator of Google Calendar API v3 and Search Ads 360 API v2 at their live base paths, on one origin.',
  OPTIONS,
  [
    'It prints its URLs when it is ready; GET /__emulator/health answers 200 from then on.',
    'It stops on Ctrl-C (SIGINT) or SIGTERM.',
    'gspec-emulator credentials service-account|user --help: write credentials for its token endpoint.',
    'gspec-emulator seed-from FILE.har [--out FILE]: write the seed a recording makes, without starting.',
  ],
);

/** A --state file read and checked; StateFileError names the file. */
function readStateFile(emulator: Emulator, file: string) {
  const value = readJsonFile(file, (message) => new StateFileError(message));
  try {
    return emulator.checkState(value);
  } catch (error) {
    throw new StateFileError(`${file}: ${(error as Error).message}`);
  }
}

function fail(message: string): never {
  process.stderr.write(`gspec-emulator: ${message}\n`);
  process.exit(1);
}

/**
 * The admin credential: the first line of `--admin-token-file`, else the environment's. Never
 * an argument's value, which any user of the machine can read in the process list.
 */
function adminTokenOption(file: string | undefined): string | undefined {
  try {
    if (file !== undefined) {
      if (file === '') fail('--admin-token-file needs a file name (see gspec-emulator --help)');
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        fail(`invalid --admin-token-file ${file}: cannot read (${(error as Error).message})`);
      }
      return checkAdminToken(text.split(/\r?\n/)[0], `--admin-token-file ${file}`);
    }
    const fromEnv = process.env[ADMIN_TOKEN_ENV];
    return fromEnv === undefined || fromEnv === '' ? undefined : checkAdminToken(fromEnv, ADMIN_TOKEN_ENV);
  } catch (error) {
    if (error instanceof AdminConfigError) fail(error.message);
    throw error;
  }
}

/** What the start-up output says of the control plane's credential (never the credential). */
function adminLine(required: boolean, configured: boolean): string {
  if (!required) return '';
  return configured
    ? ' (admin credential required: X-Emulator-Admin-Token, or sign in on the inspector)'
    : ` (locked: no admin credential; set ${ADMIN_TOKEN_ENV} or --admin-token-file FILE)`;
}

/** `--rate-limit N` and `--rate-limit-status`, checked; exits with the problem named. */
function rateLimitOption(
  units: string | undefined,
  status: string | undefined,
): RateLimitOptions | undefined {
  if (units === undefined) {
    if (status !== undefined) fail('--rate-limit-status needs --rate-limit N (see gspec-emulator --help)');
    return undefined;
  }
  if (!/^\d+$/.test(units) || !Number.isSafeInteger(Number(units)) || Number(units) === 0)
    fail(
      `invalid --rate-limit ${JSON.stringify(units)}: expected a whole number of quota units per user per minute, such as 60`,
    );
  if (status !== undefined && status !== '403' && status !== '429')
    fail(`invalid --rate-limit-status ${JSON.stringify(status)}: expected 403 or 429`);
  return { units: Number(units), ...(status ? { status: Number(status) as RateLimitStatus } : {}) };
}

function strictLines(emulator: Emulator, users: UserMap, scopes: ScopeMap): string[] {
  const limited = Object.keys(scopes).filter((token) => Object.hasOwn(users, token)).length;
  return [
    `Strict mode: only the ${Object.keys(users).length} tokens of --users and the seed are accepted, ${limited} with only the scopes given to them (the others have every scope), and the tokens of the token endpoint with the scopes asked for`,
    ...unusedScopes(emulator.services, scopes).map(
      ({ scope, tokens }) =>
        `  note: scope ${scope} (${tokens} token${tokens === 1 ? '' : 's'}) allows no operation of these APIs`,
    ),
  ];
}

function oauthSummary(emulator: Emulator): string {
  const { serviceAccounts, clients, refreshTokens } = emulator.oauth.counts;
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  return `${count(serviceAccounts, 'service account')}, ${count(clients, 'OAuth client')}, ${count(refreshTokens, 'refresh token')}`;
}

function rateLimitLine(options: RateLimitOptions): string {
  const answer = (api: 'calendar' | 'searchads360') => {
    const status = options.status ?? LIVE_RATE_LIMIT_STATUS[api];
    return `${status} ${status === 403 ? 'rateLimitExceeded' : 'rateLimitExceeded (with Retry-After)'}`;
  };
  return `Rate limit: ${options.units} quota units per user per minute and API; over it Calendar answers ${answer(
    'calendar',
  )}, Search Ads 360 ${answer('searchads360')}`;
}

/** Every value of a string option given more than once (the parser keeps the last only). */
function repeated(name: string, argv: readonly string[]): string[] {
  const values: string[] = [];
  argv.forEach((arg, i) => {
    if (arg === `--${name}` && i + 1 < argv.length) values.push(argv[i + 1] as string);
    else if (arg.startsWith(`--${name}=`)) values.push(arg.slice(name.length + 3));
  });
  return values;
}

/**
 * `--notify-allow` (every one given), `--notify-max-channels` and `--notify-max-attempts`,
 * checked; exits with the problem named.
 */
function notifyOptions(
  allow: readonly string[],
  channels: string | undefined,
  attempts: string | undefined,
): Pick<NotifierOptions, 'allow' | 'maxChannelsPerUser' | 'maxAttemptsPerChange'> {
  for (const value of allow)
    try {
      parseAllowList([value]);
    } catch (error) {
      if (!(error instanceof DeliveryPolicyError)) throw error;
      fail(`invalid --notify-allow ${error.message}`);
    }
  const count = (option: string, text: string | undefined, what: string) => {
    if (text === undefined) return undefined;
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) === 0)
      fail(`invalid --${option} ${JSON.stringify(text)}: expected a whole number of ${what}, at least 1`);
    return Number(text);
  };
  const maxChannelsPerUser = count('notify-max-channels', channels, 'channels per user');
  const maxAttemptsPerChange = count('notify-max-attempts', attempts, 'POSTs per change');
  return {
    ...(allow.length > 0 ? { allow } : {}),
    ...(maxChannelsPerUser !== undefined ? { maxChannelsPerUser } : {}),
    ...(maxAttemptsPerChange !== undefined ? { maxAttemptsPerChange } : {}),
  };
}

/** What the start-up output says of where notifications go and the caps. */
function notifyLine(notifier: Notifier): string {
  const { policy, limits } = notifier;
  const allowed = policy.allowed;
  const where =
    policy.restriction() === undefined
      ? 'to any address but link-local and cloud metadata ones'
      : allowed === undefined || allowed.length === 0
        ? `nowhere: ${policy.restriction()} and no --notify-allow is given, so every watch is refused`
        : `only to ${allowed.join(', ')} (--notify-allow)`;
  return `Notifications go ${where}; at most ${limits.channelsPerUser} channels per user, ${limits.attemptsPerChange} POSTs per change`;
}

let emulator: Emulator | undefined;
async function main(): Promise<void> {
  const values = readCommandLine('gspec-emulator', OPTIONS, HELP, process.argv.slice(2), [
    'credentials',
    'seed-from',
  ]);
  if (!values) return;
  // Installed before anything that waits, so that a signal during start-up is handled like one after it.
  stopOnSignals(
    'the emulator',
    () => {
      const running = emulator;
      return running ? () => running.close() : undefined;
    },
    { watchParent: !values['outlive-npm'] && startedByNpm() },
  );
  // An empty PORT counts as unset, as shells and CI often export it empty.
  const portText = values.port ?? (process.env.PORT || '4011');
  if (!/^\d+$/.test(portText) || Number(portText) > 65535)
    fail(`invalid port ${JSON.stringify(portText)}: expected 0-65535`);
  const host = values.host ?? '127.0.0.1';
  let hosts: AllowedHosts;
  try {
    hosts = AllowedHosts.parse(values['allowed-hosts']);
  } catch (error) {
    fail((error as Error).message);
  }
  const rateLimit = rateLimitOption(values['rate-limit'], values['rate-limit-status']);
  const notifications = notifyOptions(
    repeated('notify-allow', process.argv.slice(2)),
    values['notify-max-channels'],
    values['notify-max-attempts'],
  );
  if (values.persist === '') fail('--persist needs a file name (see gspec-emulator --help)');
  const sync = values['persist-sync'];
  if (sync !== undefined && sync !== 'normal' && sync !== 'full')
    fail(`invalid --persist-sync ${JSON.stringify(sync)}: expected normal or full`);
  if (sync !== undefined && !values.persist)
    fail('--persist-sync needs --persist FILE (see gspec-emulator --help)');
  if (values.store === '') fail('--store needs a URL, such as postgres://user@host:5432/database');
  if (values.store !== undefined && values.persist !== undefined)
    fail('--store and --persist are two places to keep the state: give one');
  const adminToken = adminTokenOption(values['admin-token-file']);
  // Where the control plane asks for the credential (core/admin.ts), and whether it can be had.
  const adminRequired = adminToken !== undefined || values.strict === true || !isLoopback(host);
  // A recording's seed (--seed-from) is a seed file in all but where it comes from.
  if (values.seed !== undefined && values['seed-from'] !== undefined)
    fail(
      "--seed and --seed-from are two seeds: give one (gspec-emulator seed-from FILE.har --out FILE writes the recording's, to merge by hand)",
    );
  if (values['seed-from'] === '') fail('--seed-from needs a file name (see gspec-emulator --help)');
  const seedFile = values.seed || values['seed-from'];
  const seedOption = values['seed-from'] !== undefined ? '--seed-from' : '--seed';
  let recording: RecordingReport | undefined;
  let users: UserMap = {};
  let scopes: ScopeMap = {};
  let oauth: OAuthOptions = {};
  try {
    if (values.users) ({ users, scopes } = readUsersFile(values.users));
    let seed: Seed | undefined;
    if (values.seed) seed = readSeedFile(values.seed);
    else if (values['seed-from']) ({ seed, report: recording } = readRecordingSeed(values['seed-from']));
    if (seed && seedFile) {
      users = seedUserMap(seed, users, seedFile);
      scopes = seedScopeMap(seed, scopes, seedFile);
      oauth = seedOAuth(seed, seedFile);
    }
    const grants = (oauth.serviceAccounts?.length ?? 0) + (oauth.refreshTokens?.length ?? 0);
    if (values.strict && Object.keys(users).length === 0 && grants === 0)
      fail(
        `--strict accepts only the tokens of --users, of the seed's users and of the token endpoint, and none can be had; add --users FILE, "tokens" to the seed's users, or the seed's "serviceAccounts" or users' "refreshTokens"`,
      );
    emulator = createEmulator({
      users,
      oauth,
      ...(values['allowed-hosts'] !== undefined ? { allowedHosts: values['allowed-hosts'] } : {}),
      ...(adminToken !== undefined ? { admin: { token: adminToken } } : {}),
      ...(values.strict ? { strict: true, scopes } : {}),
      ...(rateLimit ? { rateLimit } : {}),
      ...(Object.keys(notifications).length > 0 ? { notifications } : {}),
      // Failed saves are always told: the requests that waited for them were answered 503.
      ...(values.persist
        ? {
            persist: {
              file: values.persist,
              ...(sync ? { sync: sync as SyncMode } : {}),
              onError: (line: string) => process.stderr.write(`${line}\n`),
            },
          }
        : {}),
      ...(values.store
        ? {
            store: {
              url: values.store,
              onError: (line: string) => process.stderr.write(`${line}\n`),
            },
          }
        : {}),
      ...(values.verbose ? { log: (line: string) => process.stderr.write(`${line}\n`) } : {}),
    });
    // The store's state, else the starting one (--state, then --seed on it), saved before
    // listening so that a restart never seeds twice. Emulators started together on a new
    // shared database start it once.
    const { stateStore } = emulator;
    const running = emulator;
    await stateStore.open(() => {
      if (values.state) running.store.state = readStateFile(running, values.state);
      if (seed && seedFile) applySeed(running, seed, seedFile);
    });
    // A file kept by this process alone that holds a state is not replaced by --state: that
    // would lose it (a shared database is started by whichever emulator opens it first).
    if (values.state && stateStore.restored && !stateStore.sharedByProcesses)
      fail(
        `--state ${values.state} and --persist ${values.persist}: ${values.persist} holds a state already; drop --state to go on from it, or delete it to start from ${values.state}`,
      );
  } catch (error) {
    if (error instanceof UsersFileError) fail(`invalid --users file: ${error.message}`);
    if (error instanceof StateFileError) fail(`invalid --state file: ${error.message}`);
    if (error instanceof PersistError) fail(`invalid --persist file: ${error.message} (left as it is)`);
    if (error instanceof SharedStoreError) fail(`--store: ${error.message}`);
    if (error instanceof StateNotSaved) fail(error.message);
    if (error instanceof SeedError) fail(`invalid ${seedOption} file: ${error.message}`);
    if (error instanceof HarError || error instanceof RecordingError)
      fail(`invalid --seed-from file: ${error.message}`);
    if (error instanceof SpecError) fail(`invalid spec: ${error.message}`);
    if (error instanceof AccessConfigError && error.option === 'rateLimit.units')
      fail(`invalid --rate-limit ${values['rate-limit']}: ${error.detail}`);
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
  const { stateStore } = emulator;
  const lines = [
    `gspec emulator listening on ${origin}`,
    ...emulator.services.list.map(
      (s) =>
        `  ${s.module.title.padEnd(22)}${origin}${s.spec.basePath}${
          s.notImplemented.length > 0 ? ` (${s.notImplemented.length} operations answer 501)` : ''
        }`,
    ),
    `  Control plane         ${origin}${CONTROL_PREFIX}/health${adminLine(adminRequired, adminToken !== undefined)}`,
    `  Inspector             ${origin}${CONTROL_PREFIX}/ui/`,
    `  OAuth 2.0 tokens      ${origin}${TOKEN_PATH} (${oauthSummary(emulator)})`,
    `Answers requests addressed to ${hosts.describe()}`,
    ...(values.users
      ? [
          `Users from ${values.users} (${Object.keys(users).length})${values.strict ? '' : '; any other token works too'}`,
        ]
      : []),
    ...(values.strict ? strictLines(emulator, users, scopes) : []),
    ...(!values.strict && Object.keys(scopes).length > 0
      ? [`The scopes given to ${Object.keys(scopes).length} tokens are enforced only with --strict`]
      : []),
    ...(rateLimit ? [rateLimitLine(rateLimit)] : []),
    notifyLine(emulator.notifier),
    ...(values.state ? [`State loaded from ${values.state}`] : []),
    ...(seedFile && !stateStore.restored
      ? recording
        ? [
            `Seeded from ${seedFile} (a recording): ${reportLines(recording)[0]}`,
            `  ${reportLines(recording)[1]}`,
          ]
        : [`Seeded from ${seedFile}`]
      : []),
    ...stateStore.startLines({
      revision: emulator.store.state.revision,
      ...(seedFile ? { seedFile, seedOption } : {}),
      ...(values.state ? { stateFile: values.state } : {}),
    }),
    'Press Ctrl-C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

// `gspec-emulator credentials ...` writes credentials, `gspec-emulator seed-from ...` a
// recording's seed, instead of starting the emulator.
if (process.argv[2] === 'credentials')
  import('./credentials-cli.js').then(({ runCredentials }) => runCredentials(process.argv.slice(3)));
else if (process.argv[2] === 'seed-from')
  import('./seed-from-cli.js').then(({ runSeedFrom }) => runSeedFrom(process.argv.slice(3)));
else main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));
