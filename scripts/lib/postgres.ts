/**
 * A PostgreSQL server of a test file's own, for the tests of the emulator's shared store: Debian's
 * server binaries found (installed with apt-get when missing and the tests run as root),
 * a cluster made by `initdb` in a temporary folder owned by the `postgres` user, the server started
 * on a free port of 127.0.0.1 with its socket in that folder, and a database made per test file.
 * `stop()` stops it (SIGINT: a fast shutdown) and removes the folder; a process that exits
 * without calling it still kills the server. `restart()` stops it and starts it again on the same
 * folder and port.
 *
 * `GSPEC_POSTGRES_URL` (postgres://user@host:port/) points at a server that is already running:
 * then only the databases are made there (`npm test` starts one for the whole run and sets it,
 * scripts/run-tests.ts), unless the caller asks for a server of its own (`{ own: true }`: a test
 * that stops the server). Under CI=true a missing PostgreSQL is an error, not a skip.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = '/usr/lib/postgresql';

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:PORT/ (no database: add one, or use `createDatabase`). */
  url: string;
  /** Makes a database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (when this helper started it) and removes its folder. */
  stop(): Promise<void>;
  /**
   * Stops the server (a fast shutdown) and starts it again on the same folder and port, as an
   * administrator's restart does; only a server of the helper's own (`{ own: true }`).
   */
  restart(): Promise<void>;
}

/** The folder of the newest PostgreSQL server binaries (`PG_BIN`, else /usr/lib/postgresql/N/bin). */
export function findPostgresBin(): string | undefined {
  const given = process.env.PG_BIN;
  if (given) return existsSync(join(given, 'postgres')) ? given : undefined;
  if (!existsSync(ROOT)) return undefined;
  const versions = readdirSync(ROOT)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(ROOT, name, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(ROOT, versions[0], 'bin');
}

/** Installs Debian's server with apt-get (as root only); true when it is there afterwards. */
function install(): boolean {
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) return false;
  console.warn("PostgreSQL not found: installing Debian's postgresql with apt-get");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
  spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], { stdio: 'inherit', env });
  return findPostgresBin() !== undefined;
}

/**
 * Whether the PostgreSQL tests can run: a server URL is given, or the binaries are there (or
 * could be installed). Under CI=true their absence throws; elsewhere it warns and they are skipped.
 */
export function havePostgres(): boolean {
  if (process.env.GSPEC_POSTGRES_URL) return true;
  if (findPostgresBin() !== undefined || install()) return true;
  const why = `no PostgreSQL server binaries under ${ROOT}/*/bin (apt-get install postgresql, set PG_BIN, or GSPEC_POSTGRES_URL to a running server)`;
  if (process.env.CI === 'true') throw new Error(`PostgreSQL is required under CI=true: ${why}`);
  console.warn(`PostgreSQL tests skipped: ${why}`);
  return false;
}

/** A TCP port free on 127.0.0.1 now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The uid and gid of the `postgres` user, when this process is root (initdb refuses root). */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error('running as root, and there is no postgres user to run PostgreSQL as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Runs a PostgreSQL program to its end; throws with its output when it fails. */
function runTool(bin: string, tool: string, args: string[], owner?: { uid: number; gid: number }): void {
  const result = spawnSync(join(bin, tool), args, {
    encoding: 'utf8',
    ...(owner ?? {}),
    env: { ...process.env, LC_ALL: 'C.UTF-8' },
  });
  if (result.status !== 0)
    throw new Error(
      `${tool} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}): ${result.stderr}${result.stdout}`,
    );
}

/** Waits until the server accepts connections, or fails when it exited; patient (a loaded machine). */
async function waitReady(bin: string, port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`PostgreSQL exited while starting (${child.exitCode ?? child.signalCode}):\n${log()}`);
    const ready = spawnSync(
      join(bin, 'pg_isready'),
      ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres'],
      {
        encoding: 'utf8',
      },
    );
    if (ready.status === 0) return;
    if (Date.now() > deadline)
      throw new Error(`PostgreSQL did not accept connections within 120 s:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let counter = 0;

/**
 * Starts a server of its own, or uses GSPEC_POSTGRES_URL's unless `own` is set (for a caller
 * that stops the server, which must not stop one that others use). Call `havePostgres()` first.
 */
export async function startPostgres({ own = false }: { own?: boolean } = {}): Promise<PostgresServer> {
  const given = own ? undefined : process.env.GSPEC_POSTGRES_URL;
  const bin = findPostgresBin();
  if (!bin) throw new Error(`no PostgreSQL server binaries under ${ROOT}/*/bin (see havePostgres)`);
  const createDatabase = async (base: string, name: string) => {
    const url = new URL(base);
    const args = [
      '-h',
      url.hostname,
      '-p',
      url.port || '5432',
      '-U',
      decodeURIComponent(url.username || 'postgres'),
      name,
    ];
    runTool(bin, 'createdb', args);
    url.pathname = `/${name}`;
    return url.toString();
  };
  if (given)
    return {
      url: given,
      createDatabase: (name) => createDatabase(given, name),
      stop: async () => {},
      restart: () =>
        Promise.reject(new Error('restart: only a server of its own ({ own: true }) can be restarted')),
    };

  const owner = postgresUser();
  const dir = mkdtempSync(join(tmpdir(), 'gspec-postgres-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  let child: ChildProcess | undefined;
  const kill = () => child?.kill('SIGKILL');
  process.once('exit', kill);
  try {
    runTool(bin, 'initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'], owner);
    const port = await freePort();
    let output = '';
    const launch = async () => {
      const started = spawn(
        join(bin, 'postgres'),
        [
          '-D',
          data,
          '-p',
          String(port),
          '-k',
          dir,
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          'fsync=off',
          '-c',
          'max_connections=200',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'], ...(owner ?? {}) },
      );
      child = started;
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-20_000);
      };
      started.stdout?.on('data', keep);
      started.stderr?.on('data', keep);
      await waitReady(bin, port, started, () => output);
    };
    /** A fast shutdown, waited for (a minute, then killed). */
    const halt = async () => {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill('SIGINT');
      const timer = setTimeout(() => running.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(timer);
    };
    await launch();
    const url = `postgres://postgres@127.0.0.1:${port}/`;
    return {
      url,
      createDatabase: (name) => createDatabase(url, name),
      async stop() {
        await halt();
        process.removeListener('exit', kill);
        rmSync(dir, { recursive: true, force: true });
      },
      async restart() {
        await halt();
        await launch();
      },
    };
  } catch (error) {
    kill();
    process.removeListener('exit', kill);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** A database name of its own for a test file (letters, digits and underscores). */
export function databaseName(prefix: string): string {
  counter += 1;
  return `${prefix.replace(/\W/g, '_').toLowerCase()}_${process.pid}_${counter}`;
}
