/**
 * A shared store's schema (core/postgres.ts): the core's tables (emulator_meta; emulator_deleted,
 * the tombstones of deleted rows, and the triggers that mark each row with the commit that
 * wrote it), the slices' tables, the migration that brings a database up to date, and how
 * what it holds is read (the state's scalars, a row's body).
 */
import pg from 'pg';
import { SharedStoreError } from './postgres-options.js';
import type { QuotaCounts, QuotaRow } from './quota.js';
import { type StorageSlice, tablesOf } from './slice.js';
import { postgres, schemaParts } from './sql.js';

const message = (error: unknown) => (error as Error).message;

/** The advisory lock taken while a process brings the schema up to date and starts the state. */
export const SCHEMA_LOCK = 0x67_73_70_64;

const CORE_MIGRATIONS = [
  `CREATE TABLE emulator_meta (key text PRIMARY KEY, value text NOT NULL)`,
  // Catching up with the changes only: every slice table gets a column with the commit that
  // last wrote the row (set by a trigger from the transaction's emulator.commit, so the writes
  // need not name it), and a deleted row leaves a tombstone here (none for a full write,
  // which empties every table: emulator.full). See `track`.
  `CREATE TABLE emulator_deleted (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     tbl text NOT NULL, key jsonb NOT NULL, written bigint NOT NULL);
   CREATE INDEX emulator_deleted_written ON emulator_deleted (written);
   CREATE FUNCTION emulator_mark_written() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     NEW.written := current_setting('emulator.commit')::bigint;
     RETURN NEW;
   END $$;
   CREATE FUNCTION emulator_mark_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF current_setting('emulator.full', true) IS DISTINCT FROM 'on' THEN
       INSERT INTO emulator_deleted (tbl, key, written)
       VALUES (TG_TABLE_NAME, to_jsonb(OLD) - 'body' - 'rowid' - 'written',
               current_setting('emulator.commit')::bigint);
     END IF;
     RETURN OLD;
   END $$;`,
  // The quota's counts: each process adds its calls to its own row per user and operation
  // (`quotaWrites`), so a turn that only reads counts them without the turn lock, and processes
  // counting at once do not wait for each other's rows; the counts are their sums. The counts an
  // older emulator kept as one JSON row (`quota`) held no user by operation: they start again.
  `CREATE TABLE emulator_quota (process text NOT NULL, user_id text NOT NULL, operation text NOT NULL,
     calls bigint NOT NULL, units bigint NOT NULL, PRIMARY KEY (process, user_id, operation));
   DELETE FROM emulator_meta WHERE key = 'quota';`,
] as const;

/** The core's tables (CORE_MIGRATIONS), which no slice's may be named as. */
const CORE_TABLES = ['emulator_meta', 'emulator_deleted', 'emulator_quota'];

/** Reads the quota's shared counts (`quotaRows` reads its answer). */
export const QUOTA_QUERY =
  'SELECT user_id, operation, sum(calls) AS calls, sum(units) AS units FROM emulator_quota GROUP BY user_id, operation';

/** The quota's counts as `QUOTA_QUERY` gave them. */
export function quotaRows(result: pg.QueryResult | undefined): QuotaRow[] {
  return (result?.rows ?? []).map((row: Record<string, unknown>) => ({
    user: String(row.user_id),
    operation: String(row.operation),
    calls: Number(row.calls),
    units: Number(row.units),
  }));
}

/**
 * The statements that add the calls a process (`process`, its own name) counted to its rows of
 * the shared counts; emptied first when they were reset, with TRUNCATE, which waits for the
 * additions under way rather than locking rows one by one.
 */
export function quotaWrites(process: string, { reset, rows }: QuotaCounts): string[] {
  const statements = reset ? ['TRUNCATE emulator_quota'] : [];
  if (rows.length === 0) return statements;
  const values = rows.map(
    ({ user, operation, calls, units }) =>
      `(${pg.escapeLiteral(process)}, ${pg.escapeLiteral(user)}, ${pg.escapeLiteral(operation)}, ${Math.trunc(calls)}, ${Math.trunc(units)})`,
  );
  statements.push(
    `INSERT INTO emulator_quota (process, user_id, operation, calls, units) VALUES ${values.join(', ')} ON CONFLICT (process, user_id, operation) DO UPDATE SET calls = emulator_quota.calls + excluded.calls, units = emulator_quota.units + excluded.units`,
  );
  return statements;
}

/** A slice table made to carry the commit of its rows and leave tombstones (CORE_MIGRATIONS). */
const track = (table: string) =>
  `ALTER TABLE ${table} ADD COLUMN written bigint NOT NULL DEFAULT 0;
   CREATE INDEX ${table}_written ON ${table} (written);
   CREATE TRIGGER ${table}_written BEFORE INSERT OR UPDATE ON ${table}
     FOR EACH ROW EXECUTE FUNCTION emulator_mark_written();
   CREATE TRIGGER ${table}_deleted AFTER DELETE ON ${table}
     FOR EACH ROW EXECUTE FUNCTION emulator_mark_deleted();`;

/**
 * Brings a shared store's schema up to date, in the transaction that holds SCHEMA_LOCK: the
 * core's tables, then each slice's tables of the versions the database lacks, made in
 * PostgreSQL's dialect (sql.ts); then every slice table is made to carry its rows' commits
 * (`track`). A database written by a newer emulator is refused. `where` names it in messages.
 */
export async function migrateShared(
  client: pg.Client,
  slices: readonly StorageSlice[],
  where: string,
): Promise<void> {
  await client.query(
    'CREATE TABLE IF NOT EXISTS emulator_schema (slice text PRIMARY KEY, version integer NOT NULL)',
  );
  const { rows } = await client.query<{ slice: string; version: number }>(
    'SELECT slice, version FROM emulator_schema',
  );
  const versions = new Map(rows.map((row) => [row.slice, row.version]));
  const all = schemaParts(slices, postgres.create, {
    tables: CORE_TABLES,
    migrations: CORE_MIGRATIONS,
  });
  for (const { name, latest, upgrade } of all) {
    const version = versions.get(name) ?? 0;
    if (version > latest)
      throw new SharedStoreError(
        `${where}: written by a newer emulator (${name} schema version ${version}; this one knows up to ${latest})`,
      );
    if (version === latest) continue;
    try {
      for (const sql of upgrade(version)) await client.query(sql);
    } catch (error) {
      throw new SharedStoreError(`${where}: cannot bring the ${name} tables up to date (${message(error)})`);
    }
    await client.query(
      'INSERT INTO emulator_schema (slice, version) VALUES ($1, $2) ON CONFLICT (slice) DO UPDATE SET version = excluded.version',
      [name, latest],
    );
  }
  // Every slice table carries its rows' commits (a table a slice's later version adds too).
  const { rows: columns } = await client.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'written'",
  );
  const done = new Set(columns.map((c) => c.table_name));
  for (const table of slices.flatMap((slice) => tablesOf(slice).map((table) => table.name))) {
    if (done.has(table)) continue;
    try {
      await client.query(track(table));
    } catch (error) {
      throw new SharedStoreError(`${where}: cannot track the changes of ${table} (${message(error)})`);
    }
  }
}

/** The state's scalars as emulator_meta holds them (its 'state' row). */
export function scalarsIn(meta: Map<string, string>, where: string): object {
  const text = meta.get('state');
  if (text === undefined)
    throw new SharedStoreError(`${where}: holds no emulator state (emulator_meta 'state')`);
  try {
    return JSON.parse(text) as object;
  } catch (error) {
    throw new SharedStoreError(`${where}: emulator_meta 'state' is not JSON (${message(error)})`);
  }
}

/** A stored row's JSON body, parsed (ParseRow); one that is not JSON is refused, naming its table and key. */
export function parseRow<T>(where: string, body: unknown, table: string, key: string): T {
  try {
    return JSON.parse(String(body)) as T;
  } catch (error) {
    throw new SharedStoreError(`${where}: ${table} ${key}: not JSON (${message(error)})`);
  }
}
