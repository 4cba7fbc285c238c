/**
 * What the contract tests run against, from the environment:
 *
 * - `CONTRACT_TARGET` unset or `mock`: the mock CLI, started and stopped by the run;
 * - `CONTRACT_TARGET=emulator`: the emulator CLI (`packages/emulator`), started and stopped by
 *   the run; stateful, so the rules' behaviour checks run, for both APIs;
 * - `CONTRACT_TARGET=emulator-shared`: the emulator as a shared sandbox, three CLIs on one
 *   PostgreSQL database (`--store`) behind a front that sends each request to the next of them
 *   in turn; all started and stopped by the run. To the suite it is the emulator (kind
 *   `emulator`, `shared` set): every case must pass whichever process answers;
 * - `CONTRACT_TARGET=<base URL>` (`https://www.googleapis.com`) with `CONTRACT_TOKEN`: the
 *   live services, at that origin plus the live base paths (`/calendar/v3`, ...). Writes
 *   only with `CONTRACT_ALLOW_WRITES=1`, and then only in a secondary calendar the run
 *   creates and deletes itself; conversions are never touched.
 */
export type TargetKind = 'mock' | 'emulator' | 'live';

export interface Target {
  kind: TargetKind;
  /** The origin (and optional path prefix) the APIs' base paths are appended to; set later for the mock and the emulator. */
  origin?: string;
  /** The bearer token sent by the positive cases. */
  token: string;
  /** Whether the run may write (live: only inside its own secondary calendar). */
  allowWrites: boolean;
  /**
   * The server itself, when the suite reaches it through the mock's validating proxy (the
   * emulator's run): the cases about the local servers' own HTTP layer (413, 415) go there, as
   * they test the server, not the specs. Else the same as `origin`.
   */
  directOrigin?: string;
  /** The emulator only: served by several processes on one shared store (`emulator-shared`). */
  shared?: boolean;
}

/** How many emulators serve the `emulator-shared` target. */
export const SHARED_INSTANCES = 3;

/** The token the suite sends to the mock, which accepts any bearer token. */
export const MOCK_TOKEN = 'contract-test-token';

/**
 * The token the suite sends to the emulator. The emulator takes any bearer token and a token
 * that is an email address is that user: the run works as this user, whose primary calendar
 * is created on first sight.
 */
export const EMULATOR_TOKEN = 'contract-tests@example.com';

export class TargetConfigError extends Error {
  override name = 'TargetConfigError';
}

export function targetFromEnv(env: Record<string, string | undefined> = process.env): Target {
  const value = (env.CONTRACT_TARGET ?? '').trim();
  const allowWrites = env.CONTRACT_ALLOW_WRITES === '1';
  if (value === '' || value === 'mock') return { kind: 'mock', token: MOCK_TOKEN, allowWrites: true };
  if (value === 'emulator') return { kind: 'emulator', token: EMULATOR_TOKEN, allowWrites: true };
  if (value === 'emulator-shared')
    return { kind: 'emulator', token: EMULATOR_TOKEN, allowWrites: true, shared: true };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TargetConfigError(
      `CONTRACT_TARGET must be "mock", "emulator", "emulator-shared" or an http(s) base URL such as https://www.googleapis.com; got ${JSON.stringify(value)}`,
    );
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash) {
    throw new TargetConfigError(
      `CONTRACT_TARGET must be an http(s) URL without query or fragment; got ${JSON.stringify(value)}`,
    );
  }
  const token = env.CONTRACT_TOKEN ?? '';
  if (token === '') {
    throw new TargetConfigError(
      `CONTRACT_TARGET=${url.origin} needs an OAuth 2 access token in CONTRACT_TOKEN (the live services refuse anonymous calls)`,
    );
  }
  return {
    kind: 'live',
    origin: `${url.origin}${url.pathname.replace(/\/+$/, '')}`,
    token,
    allowWrites,
  };
}

/** Whether the target keeps state, so that a rule can be checked by its behaviour. */
export function isStateful(target: Target): boolean {
  return target.kind !== 'mock';
}

export const SKIP = {
  stateless: 'needs a stateful target',
  mockOnly: 'Prefer is a mock feature',
  liveReadOnly: 'writes on the live services need CONTRACT_ALLOW_WRITES=1',
  localOnly: 'the HTTP layer of the local servers (413 and 415 are theirs, not documented answers)',
  liveOwnCalendarOnly:
    'on the live services the suite writes only inside the secondary calendar it creates itself',
  liveNoConversions: 'the suite never touches conversions on the live services',
  livePrimary: 'would change the primary calendar of the live account',
} as const;
