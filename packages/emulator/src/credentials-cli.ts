/**
 * `gspec-emulator credentials`: writes credentials for the emulator's token endpoint, and the
 * seed entries that make the emulator accept them (credentials.ts).
 *
 *   gspec-emulator-credentials service-account --email EMAIL --key-file FILE --seed FILE
 *                              [--emulator ORIGIN] [--delegate SCOPES] [--force]
 *   gspec-emulator-credentials user --email EMAIL --file FILE --seed FILE --scopes SCOPES
 *                              [--client-id ID] [--force]
 */
import { commandHelp, didYouMean, readCommandLine } from '@gspec/server-kit';
import {
  CredentialsError,
  DEFAULT_EMULATOR_ORIGIN,
  writeServiceAccount,
  writeUserCredentials,
} from './credentials.js';

const COMMAND = 'gspec-emulator credentials';

const common = {
  email: { type: 'string', value: 'EMAIL', description: 'Whose credentials to write.' },
  seed: {
    type: 'string',
    value: 'FILE',
    description: 'The seed file to register them in (made when missing; its other entries are kept).',
  },
  force: { type: 'boolean', description: 'Replace the credentials file if it exists.' },
} as const;

const SERVICE_ACCOUNT = {
  ...common,
  'key-file': {
    type: 'string',
    value: 'FILE',
    description: 'Where to write the service account key file (JSON).',
  },
  emulator: {
    type: 'string',
    value: 'ORIGIN',
    description: `The emulator's origin, for the key file's token_uri. Default: ${DEFAULT_EMULATOR_ORIGIN}.`,
  },
  delegate: {
    type: 'string',
    value: 'SCOPES',
    description:
      'Grant domain-wide delegation for these comma-separated scopes (calendar,doubleclicksearch): the account may then act as any user of the emulator.',
  },
} as const;

const USER = {
  ...common,
  file: { type: 'string', value: 'FILE', description: 'Where to write the authorized_user file (JSON).' },
  scopes: {
    type: 'string',
    value: 'SCOPES',
    description: 'The comma-separated scopes the user grants (calendar.readonly,doubleclicksearch).',
  },
  'client-id': {
    type: 'string',
    value: 'ID',
    description: 'The OAuth client the refresh token is for (made in the seed when missing).',
  },
} as const;

const USAGE = `usage: ${COMMAND} service-account|user [options]

Writes credentials that the gspec emulator's token endpoint accepts, and registers them in a seed file.

  service-account   a service account key file, as the Cloud console downloads it
  user              an authorized_user file with a refresh token, as gcloud writes for Application Default Credentials

Run ${COMMAND} service-account --help (or user --help) for its options.
`;

function fail(message: string): never {
  process.stderr.write(`${COMMAND}: ${message}\n`);
  process.exit(1);
}

function need<T>(value: T | undefined, option: string, kind: string): T {
  if (value === undefined || value === '') fail(`${kind} needs --${option} (see ${COMMAND} ${kind} --help)`);
  return value;
}

const scopeList = (text: string): string[] =>
  text
    .split(',')
    .map((scope) => scope.trim())
    .filter(Boolean);

function main(args: string[]): void {
  const [kind, ...rest] = args;
  if (kind === '--help' || kind === '-h') {
    process.stdout.write(USAGE);
    return;
  }
  // A mistake: the usage goes where errors go, so a script's output stays clean.
  if (kind === undefined) {
    process.stderr.write(USAGE);
    process.exit(1);
  }
  if (kind === 'service-account') {
    const help = commandHelp(
      `${COMMAND} service-account`,
      'Writes a new service account key file and registers its public key in the seed.',
      SERVICE_ACCOUNT,
      [`Then: GOOGLE_APPLICATION_CREDENTIALS=FILE, and start the emulator with --seed FILE.`],
    );
    const values = readCommandLine(`${COMMAND} service-account`, SERVICE_ACCOUNT, help, rest);
    if (!values) return;
    const keyFile = need(values['key-file'], 'key-file', kind);
    const key = writeServiceAccount({
      email: need(values.email, 'email', kind),
      keyFile,
      seedFile: need(values.seed, 'seed', kind),
      ...(values.emulator ? { origin: values.emulator } : {}),
      ...(values.delegate !== undefined ? { delegate: scopeList(values.delegate) } : {}),
      ...(values.force ? { force: true } : {}),
    });
    process.stdout.write(
      `Wrote ${keyFile} (key ${key.private_key_id} of ${key.client_email}, token_uri ${key.token_uri}) and registered it in ${values.seed}\n`,
    );
    return;
  }
  if (kind === 'user') {
    const help = commandHelp(
      `${COMMAND} user`,
      'Writes an authorized_user file with a new refresh token, and the token and its OAuth client in the seed.',
      USER,
      [`Then: GOOGLE_APPLICATION_CREDENTIALS=FILE, and start the emulator with --seed FILE.`],
    );
    const values = readCommandLine(`${COMMAND} user`, USER, help, rest);
    if (!values) return;
    const file = need(values.file, 'file', kind);
    const written = writeUserCredentials({
      email: need(values.email, 'email', kind),
      file,
      seedFile: need(values.seed, 'seed', kind),
      scopes: scopeList(need(values.scopes, 'scopes', kind)),
      ...(values['client-id'] ? { clientId: values['client-id'] } : {}),
      ...(values.force ? { force: true } : {}),
    });
    process.stdout.write(
      `Wrote ${file} (a refresh token of ${written.account} for ${written.client_id}) and registered it in ${values.seed}\n`,
    );
    return;
  }
  fail(
    `unknown kind ${JSON.stringify(kind)}: expected service-account or user${didYouMean(kind, ['service-account', 'user'])} (see ${COMMAND} --help)`,
  );
}

/** Runs the subcommand with its arguments (those after `credentials`); exits 1 on a mistake. */
export function runCredentials(args: string[]): void {
  try {
    main(args);
  } catch (error) {
    if (error instanceof CredentialsError) fail(error.message);
    fail((error as Error).stack ?? String(error));
  }
}
