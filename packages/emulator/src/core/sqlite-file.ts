/**
 * The embedded database's file (`--persist`, core/storage.ts) and the connections to it (for
 * reading only, or held for writing): what marks it as the emulator's, the schema each part is
 * at, the checks that refuse a file that is not ours or holds what a database we wrote cannot,
 * and the rows a state that fails its checks is told by. Every refusal is a PersistError
 * naming the file and what is wrong.
 *
 * A file is only ever written once it is known to be the emulator's: SQLite's application_id
 * in its header marks it (files of emulators before the mark are known by their
 * `emulator_schema` table, and marked when next opened). A database of another program, one
 * of ours that lost its `emulator_meta` 'state' row while its tables hold rows, or one whose
 * rows are not JSON or fail the checks a loaded state gets (`PUT /__emulator/state`'s) is
 * refused with what is wrong and where, and left exactly as it was: all of that is read and
 * checked in the transaction that would first write to it, and rolled back. Only a file that
 * holds no rows (missing, empty, an empty database, or ours never written) starts new, so the
 * full write of a new state empties nothing but the emulator's own empty tables.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import Database from 'libsql';
import { type ParseRow, type Rows, type StorageSlice, scalarsOnly } from './slice.js';
import { type SchemaPart, schemaParts, sqlite } from './sql.js';
import type { State } from './state.js';

export type SyncMode = 'normal' | 'full';

/** A file that cannot be opened, is not an emulator database or holds rows that cannot be read. */
export class PersistError extends Error {
  override name = 'PersistError';
}

export const SQLITE_HEADER = 'SQLite format 3\0';

/** The core's own table: the state's scalars (its schema version 1; it has no other). */
export const CORE_TABLE = 'CREATE TABLE emulator_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT';

/**
 * The emulator's mark in the header of its database files (SQLite's application_id), "gsem"
 * in ASCII: a database marked by another program is never taken for one of ours.
 */
export const APPLICATION_ID = 0x6773656d;

/** The schema of each part of the file: the core's table (emulator_meta), then each slice's in SQLite's SQL. */
export function sqliteSchema(slices: readonly StorageSlice[]): SchemaPart[] {
  return schemaParts(slices, sqlite.create, { tables: ['emulator_meta'], migrations: [CORE_TABLE] });
}

/** The mark in the file's header (SQLite's application_id; 0 when none). */
export function applicationId(db: Database.Database): number {
  return (db.prepare('PRAGMA application_id').raw().get() as [number])[0];
}

/** The first bytes of a file, empty when it does not exist or is empty. */
export function head(file: string, length: number): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw new PersistError(`${file}: cannot read (${(error as Error).message})`);
  }
  try {
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, 0);
    return buffer.subarray(0, read).toString('latin1');
  } catch (error) {
    throw new PersistError(`${file}: cannot read (${(error as Error).message})`);
  } finally {
    closeSync(fd);
  }
}

export const message = (error: unknown) => (error as Error).message;

/** SQLite's error code of an error (`SQLITE_BUSY`), also of the error a PersistError was made from. */
export const sqliteCode = (error: unknown): string | undefined => {
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === 'string') return code;
  return cause === undefined ? undefined : sqliteCode(cause);
};

/** The file (or its disk) cannot be written: it is then opened for reading only. */
export const isReadOnly = (error: unknown): boolean =>
  sqliteCode(error)?.startsWith('SQLITE_READONLY') === true ||
  (!(error instanceof PersistError) && /readonly/i.test(String(message(error))));

export const hex = (id: number) => `0x${(id >>> 0).toString(16).padStart(8, '0')}`;

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Refuses, reading only, a file the emulator cannot take as its own: another program's
 * database (marked by another application_id, or holding tables and no emulator_schema),
 * one whose schema table names tables that are gone, and one of ours that holds rows but no
 * state row (it would be taken as new, and its rows emptied by the first commit). A database
 * without tables is new.
 */
export function inspectFile(
  db: Database.Database,
  file: string,
  /** Each part's schema with the version the database is at (read once emulator_schema is known to be there). */
  parts: () => readonly (SchemaPart & { version: number })[],
  known: readonly string[],
): void {
  const id = applicationId(db);
  if (id !== 0 && id !== APPLICATION_ID)
    throw new PersistError(
      `${file}: not an emulator database: its application_id is ${hex(id)} (the emulator marks its databases ${hex(APPLICATION_ID)})`,
    );
  const objects = new Map(
    (
      db
        .prepare(
          "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
        )
        .raw()
        .all() as [string, string][]
    ).map(([name, type]) => [String(name), String(type)]),
  );
  if (objects.size === 0) return;
  if (!objects.has('emulator_schema')) {
    const names = [...objects.keys()];
    const held = `it holds ${names.length === 1 ? 'table' : 'tables'} ${names.slice(0, 5).join(', ')}${
      names.length > 5 ? ` and ${names.length - 5} more` : ''
    } and no emulator_schema table`;
    throw new PersistError(
      id === APPLICATION_ID
        ? `${file}: marked as an emulator database (application_id ${hex(id)}) but ${held}`
        : `${file}: not an emulator database: ${held}`,
    );
  }
  for (const { name, latest, version, tables } of parts())
    if (version === latest)
      for (const table of tables)
        if (objects.get(table) !== 'table')
          throw new PersistError(
            `${file}: its emulator_schema has the ${name} tables at version ${version}, yet table ${table} is missing`,
          );
  // Tables of an older schema are brought up to date by migrate, rows and all.
  if (objects.get('emulator_meta') !== 'table') return;
  if (db.prepare("SELECT 1 FROM emulator_meta WHERE key = 'state'").raw().get()) return;
  const tables = [
    ...known.filter((table) => objects.get(table) === 'table'),
    ...[...objects.keys()].filter(
      (name) =>
        objects.get(name) === 'table' &&
        !known.includes(name) &&
        name !== 'emulator_schema' &&
        name !== 'emulator_meta',
    ),
  ];
  const held = tables.flatMap((table) => {
    const [count] = db
      .prepare(`SELECT count(*) FROM ${quoted(table)}`)
      .raw()
      .get() as [number];
    return count > 0 ? [`${table} ${count}`] : [];
  });
  if (held.length > 0)
    throw new PersistError(
      `${file}: emulator_meta has no 'state' row, yet its tables hold rows (${held.join(', ')}): a database the emulator wrote has both`,
    );
}

/**
 * A state that failed its checks, told by the rows at fault: each problem (`pointer: what`)
 * is put on the stored row that holds its place, found by reading the rows again with each
 * parsed row (and the objects directly in it, as a slice may spread a row) noted.
 */
export function rowsAtFault(
  file: string,
  problems: readonly string[],
  scalars: Record<string, unknown>,
  load: (parse: ParseRow) => State,
): PersistError {
  const rows = new WeakMap<object, string>();
  const note = (value: unknown, row: string) => {
    if (typeof value === 'object' && value !== null && !rows.has(value)) rows.set(value, row);
  };
  const parse: ParseRow = <T>(body: unknown, table: string, key: string) => {
    const value = JSON.parse(String(body)) as unknown;
    note(value, `${table} ${key}`);
    if (isObject(value)) for (const inner of Object.values(value)) note(inner, `${table} ${key}`);
    return value as T;
  };
  const state = load(parse);
  const byRow = new Map<string, string[]>();
  for (const problem of problems) {
    const end = problem.indexOf(': ');
    const path = problem.startsWith('/') ? problem.slice(1, end < 0 ? undefined : end).split('/') : [];
    let row = 'the stored state';
    const [first] = path;
    if (path.length > 0 && first !== undefined && Object.hasOwn(scalars, first))
      row = "emulator_meta 'state'";
    let at: unknown = state;
    for (const segment of path) {
      if (typeof at !== 'object' || at === null) break;
      at = (at as Record<string, unknown>)[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
      const found = typeof at === 'object' && at !== null ? rows.get(at) : undefined;
      if (found) {
        row = found;
        break;
      }
    }
    byRow.set(row, [...(byRow.get(row) ?? []), problem]);
  }
  return new PersistError(
    [...byRow].map(([row, found]) => `${file}: ${row}: not a valid state (${found.join('; ')})`).join('; '),
  );
}

/**
 * The log is folded into the database file (a checkpoint, which flushes both to the disk) once
 * it holds this many pages, 40 MB at SQLite's 4 KiB pages, instead of SQLite's 1,000. Every
 * checkpoint flushes the disk twice, and under load the same pages (the event index's) are
 * written again and again between two checkpoints. Measured with 20 connections inserting into
 * a calendar of 100,000 events: commit time per insert 48 → 37 µs, persisted throughput 0.45–0.46
 * → 0.53–0.54 of the emulator's without persistence (bench/persist.bench.ts, paired runs).
 */
export const CHECKPOINT_PAGES = 10_000;

/** A connection to the file for reading only (a read-only file or disk). */
export function openReadOnly(file: string): Database.Database {
  try {
    return new Database(file, { readonly: true });
  } catch (error) {
    throw new PersistError(`${file}: cannot open (${message(error)})`, { cause: error });
  }
}

/** A connection to the file that may write, before anything is set or read; or why there is none. */
export function connect(file: string): Database.Database | { code: string | undefined; message: string } {
  try {
    return new Database(file, { timeout: 0 });
  } catch (error) {
    return { code: sqliteCode(error), message: message(error) };
  }
}

/** Sets a connection up for the commits, holding the file; throws when it cannot. */
export function configure(db: Database.Database, sync: SyncMode): void {
  // One process per file: memory is where the state lives, two writers would part ways.
  db.exec('PRAGMA locking_mode = EXCLUSIVE');
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(`PRAGMA synchronous = ${sync === 'full' ? 'FULL' : 'NORMAL'}`);
  db.exec(`PRAGMA wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
  // The log file is reused after a checkpoint; past this size it is cut back.
  db.exec(`PRAGMA journal_size_limit = ${CHECKPOINT_PAGES * 4096}`);
  db.exec('BEGIN IMMEDIATE');
  db.exec('COMMIT');
}

/** The file opened for writing and held by this process, or why it cannot be (a commit's reopening). */
export function openWritable(
  file: string,
  sync: SyncMode,
): Database.Database | { code: string | undefined; message: string } {
  const db = connect(file);
  if (!(db instanceof Database)) return db;
  try {
    configure(db, sync);
    return db;
  } catch (error) {
    db.close();
    return { code: sqliteCode(error), message: message(error) };
  }
}

/**
 * The scalars every emulator_meta 'state' row holds (it holds the state's scalars, as
 * scalarsOf writes them; emulators since the first one wrote these).
 */
const CORE_SCALARS = ['version', 'epoch', 'revision', 'lastTime', 'nextSeq'] as const;

/**
 * The core's scalars from the state row, checked (a JSON object with every one of
 * CORE_SCALARS); undefined when the database holds no state.
 */
export function storedScalars(db: Database.Database, file: string): Record<string, unknown> | undefined {
  const row = db.prepare("SELECT value FROM emulator_meta WHERE key = 'state'").raw().get() as
    | [string]
    | undefined;
  if (!row) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(row[0]);
  } catch (error) {
    throw new PersistError(`${file}: emulator_meta 'state' is not JSON (${message(error)})`);
  }
  const scalars = parsed;
  const invalid = (what: string) =>
    new PersistError(`${file}: emulator_meta 'state': not a valid state (${what})`);
  if (!isObject(scalars)) throw invalid('not a JSON object');
  const missing = CORE_SCALARS.filter((key) => !Object.hasOwn(scalars, key));
  if (missing.length > 0) throw invalid(`lacks ${missing.join(', ')}`);
  return scalars;
}

/**
 * The stored state, read and checked (not put in the store); undefined when there is none. The
 * core's scalars come from the state row, on `current` with its collections taken out; each
 * slice loads its rows into it, then `check` (the checks of a loaded state) runs, and a state
 * that fails them is told by the rows at fault.
 */
export function readStoredState(
  db: Database.Database,
  file: string,
  slices: readonly StorageSlice[],
  rows: Rows,
  current: State,
  check?: (state: State) => State,
): State | undefined {
  const scalars = storedScalars(db, file);
  if (!scalars) return undefined;
  const load = (parse: ParseRow) => {
    const state = scalarsOnly(current, scalars);
    for (const slice of slices) slice.load(rows, state, parse);
    return state;
  };
  let state: State;
  try {
    state = load(<T>(body: unknown, table: string, key: string) => {
      try {
        return JSON.parse(String(body)) as T;
      } catch (error) {
        throw new PersistError(`${file}: ${table} ${key}: not JSON (${message(error)})`);
      }
    });
  } catch (error) {
    throw error instanceof PersistError
      ? error
      : new PersistError(`${file}: ${message(error)}`, { cause: error });
  }
  if (!check) return state;
  try {
    return check(state);
  } catch (error) {
    // StateFileError's problems (core/state-file.ts, which imports the modules that import this).
    const { problems } = error as { problems?: unknown };
    if (!Array.isArray(problems) || problems.length === 0)
      throw new PersistError(`${file}: ${message(error)}`, { cause: error });
    throw rowsAtFault(file, problems.map(String), scalars, load);
  }
}

/** What a failure to open or take a file is told as: PersistError, naming the file. */
export function openingError(file: string, error: unknown): PersistError {
  if (error instanceof PersistError) return error;
  return new PersistError(
    sqliteCode(error) === 'SQLITE_BUSY'
      ? `${file}: in use by another process (an emulator keeps its database to itself)`
      : `${file}: cannot open (${message(error)})`,
    { cause: error },
  );
}

/**
 * Lets go of a file. libsql closes a connection only once its statements are collected, and
 * until then an exclusive lock would stay: so the log is folded into the file first
 * (journal_mode DELETE, which also removes it) and the lock made a normal one, which a read
 * then drops, before the connection is closed. A connection for reading only is just closed.
 */
export function releaseFile(
  db: Database.Database,
  file: string,
  readOnly: boolean,
  onError: (message: string) => void,
): void {
  if (!readOnly) {
    try {
      db.exec('PRAGMA journal_mode = DELETE');
      db.exec('PRAGMA locking_mode = NORMAL');
      db.prepare('SELECT count(*) FROM emulator_schema').raw().get();
    } catch (error) {
      onError(`The emulator could not release ${file}: ${message(error)}`);
    }
  }
  db.close();
}
