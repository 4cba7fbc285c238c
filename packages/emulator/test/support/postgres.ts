/**
 * A PostgreSQL database of a test file's own (@gspec/scripts/postgres): a server started for
 * the file (or GSPEC_POSTGRES_URL's), stopped and removed after it. `EMULATOR_TEST_STORE=postgres`
 * runs any suite built on the harness against a shared store on it (one emulator);
 * `EMULATOR_TEST_STORE=postgres-3` against three emulators on that store, behind a front that
 * sends each request to the next of them in turn (@gspec/scripts/round-robin).
 */
import { databaseName, havePostgres, type PostgresServer, startPostgres } from '@gspec/scripts/postgres';
import { afterAll, beforeAll } from 'vitest';

const mode = (process.env.EMULATOR_TEST_STORE ?? '').trim();
if (mode !== '' && mode !== 'postgres' && mode !== 'postgres-3')
  throw new Error(`EMULATOR_TEST_STORE=${JSON.stringify(mode)}: expected "postgres" or "postgres-3"`);

/** Whether the suites of the harness run on a shared PostgreSQL store. */
export const suitesOnPostgres = mode === 'postgres' || mode === 'postgres-3';

/** How many emulators share the store in those runs: 3 with `postgres-3`, else 1. */
export const instancesOnPostgres = mode === 'postgres-3' ? 3 : 1;

export interface TestDatabase {
  server: PostgresServer;
  /** The database's URL, set once beforeAll ran. */
  url: string;
  /** Another database on the same server. */
  another(prefix: string): Promise<string>;
}

/** Starts the server before the file's tests and stops it after them (called at the file's top level). */
export function usePostgres(prefix: string): TestDatabase {
  const database = {} as TestDatabase;
  beforeAll(async () => {
    database.server = await startPostgres();
    database.another = (name) => database.server.createDatabase(databaseName(name));
    database.url = await database.another(prefix);
  });
  afterAll(async () => {
    await database.server?.stop();
  });
  return database;
}

export { havePostgres, startPostgres };
