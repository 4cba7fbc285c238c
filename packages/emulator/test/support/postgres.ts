/**
 * A PostgreSQL database of a test file's own (@gspec/scripts/postgres): a server started for
 * the file (or GSPEC_POSTGRES_URL's), stopped and removed after it. `EMULATOR_TEST_STORE=postgres`
 * runs any suite built on the harness against a shared store on it.
 */
import { databaseName, havePostgres, type PostgresServer, startPostgres } from '@gspec/scripts/postgres';
import { afterAll, beforeAll } from 'vitest';

/** Whether the suites of the harness run on a shared PostgreSQL store. */
export const suitesOnPostgres = process.env.EMULATOR_TEST_STORE === 'postgres';

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
