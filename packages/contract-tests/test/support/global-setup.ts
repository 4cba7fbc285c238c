/**
 * Resolves the target of the contract tests (`test/support/target.ts`) before any test runs.
 * For the mock, the default, and for the emulator (`CONTRACT_TARGET=emulator`) it starts the
 * server as a user starts it (its CLI, on a free port) and stops it afterwards; the emulator is
 * reached through the mock's validating proxy, which fails the run when it finds a violation. For the shared
 * emulator (`CONTRACT_TARGET=emulator-shared`) it starts a PostgreSQL server, three emulator
 * CLIs on one database of it (`--store`) and a round-robin front before them, and stops them
 * all (and removes the server's folder) afterwards. The live services are only pointed at.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ChildRun, startServer } from '@gspec/scripts/child-process';
import { databaseName, startPostgres } from '@gspec/scripts/postgres';
import { startRoundRobin } from '@gspec/scripts/round-robin';
import type { TestProject } from 'vitest/node';
import { SHARED_INSTANCES, targetFromEnv } from './target.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    targetOrigin: string;
    /** The server itself when the suite reaches it through the validating proxy; else targetOrigin. */
    targetDirectOrigin: string;
    /** Why the target could not be started (then targetOrigin is empty). */
    targetError: string;
  }
}

const require = createRequire(import.meta.url);
const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The built CLI of the mock, resolved as the dependency it is. */
export function mockCli(): string {
  return path.join(path.dirname(require.resolve('@gspec/mock/package.json')), 'dist', 'cli.js');
}

/**
 * The built CLI of the emulator, by path (`../emulator/dist/cli.js`): the workspace package
 * next to this one, so that it is found with or without a dependency entry.
 */
export function emulatorCli(): string {
  return path.resolve(packageDir, '..', 'emulator', 'dist', 'cli.js');
}

/**
 * Starts a CLI with `--port 0` and resolves to the origin it prints (`... listening on http://...`).
 * It waits as long as the start takes (a loaded machine is slow, not broken); a server that
 * exits first, or hangs, fails the run with what it printed, and is never left running.
 */
export async function startCli(
  name: string,
  cli: string,
): Promise<{ origin: string; stop: () => Promise<void> }> {
  if (!existsSync(cli)) {
    throw new Error(
      `the ${name} is not built: ${cli} is missing. Build it first: npx turbo run build --filter=@gspec/${name}`,
    );
  }
  const server = await startServer(`the ${name} (${cli} --port 0)`, [cli, '--port', '0']);
  return {
    origin: server.origin,
    stop: async () => {
      await server.stop();
    },
  };
}

/**
 * The emulator as a shared sandbox: a PostgreSQL server of the run's own (@gspec/scripts/postgres),
 * `count` emulator CLIs with `--port 0 --store <its database> --notify-allow 127.0.0.1` (the
 * first makes the database's state, the others then load it) and a round-robin front
 * (@gspec/scripts/round-robin) whose origin is the target's. Whatever fails on the way, what was started is stopped again.
 */
export async function startSharedEmulators(
  count = SHARED_INSTANCES,
): Promise<{ origin: string; stop: () => Promise<void> }> {
  const cli = emulatorCli();
  if (!existsSync(cli)) {
    throw new Error(
      `the emulator is not built: ${cli} is missing. Build it first: npx turbo run build --filter=@gspec/emulator`,
    );
  }
  // Stopped in the reverse order of their start: the front, the emulators, then PostgreSQL.
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    const problems: string[] = [];
    for (const one of stops.splice(0).reverse()) {
      await one().catch((error: unknown) => problems.push((error as Error).message));
    }
    if (problems.length > 0) throw new Error(`stopping the shared emulator: ${problems.join('; ')}`);
  };
  try {
    const postgres = await startPostgres();
    stops.push(() => postgres.stop());
    const url = await postgres.createDatabase(databaseName('contract_tests'));
    // A shared store is a shared sandbox: watch channels deliver only where --notify-allow says
    // (decision 0053), and the cases' receiver listens on loopback.
    const start = (n: number) =>
      startServer(`the emulator ${n} of ${count} (${cli} --port 0 --store ${url} --notify-allow 127.0.0.1)`, [
        cli,
        '--port',
        '0',
        '--store',
        url,
        '--notify-allow',
        '127.0.0.1',
      ]);
    const track = (server: ChildRun) => stops.push(() => server.stop());
    const first = await start(1);
    track(first);
    const others = await Promise.allSettled(Array.from({ length: count - 1 }, (_, i) => start(i + 2)));
    for (const other of others) if (other.status === 'fulfilled') track(other.value);
    const refused = others.find((other) => other.status === 'rejected');
    if (refused) throw refused.reason;
    const front = await startRoundRobin([
      first.origin,
      ...others.map((other) => (other as PromiseFulfilledResult<{ origin: string }>).value.origin),
    ]);
    stops.push(() => front.close());
    return { origin: front.origin, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/**
 * The mock's validating proxy (`gspec-mock --proxy`) before a running server: the suite then
 * talks to the proxy, which checks every request and answer against the specs with checkers of
 * its own (Prism's request validation, server-kit's strict answer checker) and writes what it
 * found to reports/proxy-<name>.json and .md. Stopping it fails when it found any violation:
 * a request the specs call invalid that the server accepted, or an answer that breaks them.
 */
export async function startProxyBefore(
  name: string,
  server: { origin: string; stop: () => Promise<void> },
): Promise<{ origin: string; direct: string; stop: () => Promise<void> }> {
  const report = path.join(packageDir, 'reports', `proxy-${name}.json`);
  let proxy: ChildRun & { origin: string };
  try {
    proxy = await startServer(
      `the validating proxy before the ${name} (gspec-mock --proxy ${server.origin})`,
      [mockCli(), '--proxy', server.origin, '--port', '0', '--report', report, '--fail-on-violation'],
    );
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    origin: proxy.origin,
    direct: server.origin,
    stop: async () => {
      const code = await proxy.stop();
      await server.stop();
      if (code !== 0) {
        const summary = existsSync(report.replace(/\.json$/, '.md'))
          ? readFileSync(report.replace(/\.json$/, '.md'), 'utf8')
          : proxy.output().err;
        throw new Error(
          `the validating proxy before the ${name} found violations (exit ${code}):\n${summary}`,
        );
      }
    },
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const target = targetFromEnv();
  if (target.kind === 'live') {
    project.provide('targetOrigin', target.origin as string);
    project.provide('targetDirectOrigin', target.origin as string);
    project.provide('targetError', '');
    return async () => {};
  }
  try {
    const server =
      target.kind === 'mock'
        ? await startCli('mock', mockCli())
        : target.shared
          ? await startSharedEmulators()
          : await startProxyBefore('emulator', await startCli('emulator', emulatorCli()));
    project.provide('targetOrigin', server.origin);
    project.provide('targetDirectOrigin', (server as { direct?: string }).direct ?? server.origin);
    project.provide('targetError', '');
    return server.stop;
  } catch (error) {
    // Thrown here, vitest would first say "No test files found" and only then why. Handed to
    // the tests instead, every test that needs the target fails with the reason.
    project.provide('targetOrigin', '');
    project.provide('targetDirectOrigin', '');
    project.provide('targetError', (error as Error).message);
    return async () => {};
  }
}
