/**
 * Durable state (`--persist FILE`): the state is kept in an embedded SQLite database (libsql,
 * decision 0043) with a write-ahead log, one row per stored resource, while memory stays
 * where every request reads from.
 *
 * Each API keeps its own tables through a `StorageSlice`: its migrations, how it loads its part
 * of the state, writes all of it (after a reset or a load replaced the state) and writes only
 * what changed since the last commit. The core keeps the state's scalars (epoch, revision,
 * clock) in `emulator_meta` and each slice's schema version in `emulator_schema`.
 *
 * Commits are synchronous: the server commits once per turn of the event loop, before the
 * answers of that turn go out (group commit), so an answered change is in the log when it is
 * answered. With `sync: 'normal'` (the default) a commit is written to the log but not flushed
 * to the disk: a killed process loses nothing, a power cut can lose the last commits (never the
 * database); `sync: 'full'` flushes every commit. A commit that fails (disk full, read-only
 * file) is rolled back and what it held stays pending for the next one.
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
import type { State, StateHolder } from './state.js';

export type SyncMode = 'normal' | 'full';

export interface PersistOptions {
  /** The database file; made when missing, the state loaded from it when it holds one. */
  file: string;
  /** `normal` (default): survives a killed process; `full`: also a power cut, at a flush per commit. */
  sync?: SyncMode;
  /** Told of each failed commit (the requests that wrote in it are answered 503). */
  onError?: (message: string) => void;
}

/** A file that cannot be opened, is not an emulator database or holds rows that cannot be read. */
export class PersistError extends Error {
  override name = 'PersistError';
}

export type SqlValue = string | number | null;

/** What a slice reads and writes its tables with; statements are prepared once per text. */
export interface Rows {
  run(sql: string, ...params: SqlValue[]): void;
  /** Every row, each as the array of its columns. */
  iterate(sql: string, ...params: SqlValue[]): IterableIterator<unknown[]>;
}

/** A stored row's JSON body, parsed; one that is not JSON throws, naming the file, table and key. */
export type ParseRow = <T>(body: unknown, table: string, key: string) => T;

/**
 * How a shared store (core/postgres.ts) applies to memory one table's rows that another
 * process wrote: `put` a row added or changed (its columns by name, `body` the JSON text),
 * `remove` one deleted (its key columns by name). A slice with `changes` keeps its keys in
 * text columns, so they come as strings. Not used with SQLite.
 */
export type ChangedRow<Column extends string = string> = Readonly<Record<Column, string>>;

export interface TableChanges<Key extends string = string> {
  put(state: State, row: ChangedRow<Key | 'body'>, parse: ParseRow): void;
  remove(state: State, key: ChangedRow<Key>): void;
}

/** A table's TableChanges, its key columns named (`changes<'email'>({ put, remove })`). */
export const tableChanges = <Key extends string>(changes: TableChanges<Key>): TableChanges => changes;

/** One API's part of the stored state. */
export interface StorageSlice {
  /** Prefix of its tables and its key in `emulator_schema`. */
  readonly name: string;
  /** The SQL of each schema version, in order; a database is brought up to the last one at start. */
  readonly migrations: readonly string[];
  /**
   * The same schema for a shared PostgreSQL store (core/postgres.ts), version for version; a
   * slice without it cannot be kept there. Every table has a `rowid` column (an identity, kept
   * by an upsert) so that `ORDER BY rowid` loads rows in the order SQLite's would.
   */
  readonly postgresMigrations?: readonly string[];
  /** Its tables, emptied before a full write. */
  readonly tables: readonly string[];
  /** Puts its rows into a state that holds the core's scalars and nothing else yet. */
  load(rows: Rows, state: State, parse: ParseRow): void;
  /** Writes the whole of its part of `state` into its emptied tables. */
  writeAll(rows: Rows, state: State): void;
  /** Writes what changed in `state` since the commit that held revision `since`. */
  writeChanges(rows: Rows, state: State, since: number): void;
  /** The commit that held what the last write wrote succeeded: forget it as pending. */
  committed(state: State): void;
  /**
   * For a shared store: how each of its tables' changed and deleted rows are applied to the
   * state in memory (every table of `tables` named), so that catching up with another process
   * reads only what it wrote. Without it, the slice is loaded again whole (`load` on the state
   * as it is) when any of its rows changed.
   */
  readonly changes?: Readonly<Record<string, TableChanges>>;
}

/** Which state a commit holds: the object (reset and load replace it) and its revision. */
export interface StateMark {
  state: State;
  revision: number;
}

export interface PersistStats {
  /** Transactions committed. */
  commits: number;
  failures: number;
  /** Duration of the last commit, and whether it wrote everything (a reset, a load, the first save). */
  lastMs: number;
  lastFull: boolean;
  /** Rows written or deleted by the last commit (its statements, the clock's row included). */
  lastStatements: number;
}

const SQLITE_HEADER = 'SQLite format 3\0';

const CORE_MIGRATIONS = [
  `CREATE TABLE emulator_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT`,
] as const;
const CORE_TABLES = ['emulator_meta'] as const;

/**
 * The emulator's mark in the header of its database files (SQLite's application_id), "gsem"
 * in ASCII: a database marked by another program is never taken for one of ours.
 */
export const APPLICATION_ID = 0x6773656d;

/**
 * The scalars every emulator_meta 'state' row holds (it holds the state's scalars, as
 * scalarsOf writes them; emulators since the first one wrote these).
 */
const CORE_SCALARS = ['version', 'epoch', 'revision', 'lastTime', 'nextSeq'] as const;

const noop = () => undefined;

/**
 * The log is folded into the database file (a checkpoint, which flushes both to the disk) once
 * it holds this many pages, 40 MB at SQLite's 4 KiB pages, instead of SQLite's 1,000. Every
 * checkpoint flushes the disk twice, and under load the same pages (the event index's) are
 * written again and again between two checkpoints. Measured with 20 connections inserting into
 * a calendar of 100,000 events: commit time per insert 48 → 37 µs, persisted throughput 0.45–0.46
 * → 0.53–0.54 of the emulator's without persistence (bench/persist.bench.ts, paired runs).
 */
const CHECKPOINT_PAGES = 10_000;

/**
 * After this long without a commit the log is folded in at once: what a power cut can cost
 * (the commits since the last checkpoint, with `sync: 'normal'`) stays within about a second of
 * writes when the emulator is not under load, and within CHECKPOINT_PAGES when it is.
 */
const IDLE_CHECKPOINT_MS = 1000;

/** The map under `key` in `map`, made empty when missing: where a loaded row goes. */
export function slot<T>(map: Record<string, Record<string, T>>, key: string): Record<string, T> {
  let inner = map[key];
  if (!inner) {
    inner = {};
    map[key] = inner;
  }
  return inner;
}

/** The first bytes of a file, empty when it does not exist or is empty. */
function head(file: string, length: number): string {
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

const message = (error: unknown) => (error as Error).message;

/** SQLite's error code of an error (`SQLITE_BUSY`), also of the error a PersistError was made from. */
const sqliteCode = (error: unknown): string | undefined => {
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === 'string') return code;
  return cause === undefined ? undefined : sqliteCode(cause);
};

/** The file (or its disk) cannot be written: it is then opened for reading only. */
const isReadOnly = (error: unknown): boolean =>
  sqliteCode(error)?.startsWith('SQLITE_READONLY') === true ||
  (!(error instanceof PersistError) && /readonly/i.test(String(message(error))));

const hex = (id: number) => `0x${(id >>> 0).toString(16).padStart(8, '0')}`;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The state's own scalars (epoch, revision, clock...), kept by the core; objects belong to slices. */
function scalarsOf(state: State): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(state)) if (typeof value !== 'object') out[key] = value;
  return out;
}

export class Persistence {
  readonly file: string;
  readonly sync: SyncMode;
  /** The state was read from the file at start (it held one). */
  readonly restored: boolean;
  readonly stats: PersistStats = { commits: 0, failures: 0, lastMs: 0, lastFull: false, lastStatements: 0 };

  private db: Database.Database;
  /**
   * The file could not be opened for writing (a read-only file or disk): the state is read from
   * it, reads are served, and every commit tries to open it for writing again until one can.
   */
  private readOnlyReason: string | undefined;
  /** Whether `configure` ran on the connection: letting go of it then is release(). */
  private configured = false;
  private readonly statements = new Map<string, Database.Statement<SqlValue[]>>();
  private readonly rows: Rows;
  private durable: StateMark | undefined;
  private readonly onError: (message: string) => void;
  private closed = false;
  private statementsRun = 0;
  /** The checkpoint due once the commits pause (IDLE_CHECKPOINT_MS). */
  private idleCheckpoint: NodeJS.Timeout | undefined;

  /**
   * Opens (or makes) `options.file`, brings its schema up to date and, when it holds a state,
   * loads it into the store, through `check` when given (the checks of `PUT /__emulator/state`).
   * A file that is not an emulator database, that lost its state row, holds a row that is not
   * JSON or not a valid state, that another process holds or that was written by a newer
   * emulator throws PersistError naming it and what is wrong; the file is left as it is.
   * `check` throws for a state that is not valid, with the error's `problems` (StateFileError's,
   * each `pointer: what is wrong`) told by the stored row at fault.
   */
  constructor(
    private readonly store: StateHolder,
    private readonly slices: readonly StorageSlice[],
    options: PersistOptions,
    private readonly check?: (state: State) => State,
  ) {
    this.file = options.file;
    this.sync = options.sync ?? 'normal';
    this.onError = options.onError ?? noop;
    const start = head(this.file, SQLITE_HEADER.length);
    if (start.length > 0 && start !== SQLITE_HEADER) {
      throw new PersistError(
        start.trimStart().startsWith('{')
          ? `${this.file}: a JSON state, not a database (--persist keeps a SQLite database since 0.2); start a database from it with --state ${this.file} --persist NEW.db`
          : `${this.file}: not an emulator database (not SQLite)`,
      );
    }
    this.rows = {
      run: (sql, ...params) => {
        this.statement(sql).run(...params);
        this.statementsRun += 1;
      },
      iterate: (sql, ...params) =>
        this.statement(sql)
          .raw()
          .iterate(...params) as IterableIterator<unknown[]>,
    };
    const connected = this.connect();
    if (!(connected instanceof Database)) {
      if (!(isReadOnly(connected) && start.length > 0)) throw this.opening(connected);
      this.readOnlyReason = connected.message;
    }
    this.db = connected instanceof Database ? connected : this.openReadOnly();
    let loaded: State | undefined;
    if (this.readOnlyReason === undefined) {
      try {
        loaded = this.take();
      } catch (error) {
        this.abandon();
        if (!(isReadOnly(error) && start.length > 0)) throw this.opening(error);
        this.readOnlyReason = message(error);
        this.db = this.openReadOnly();
      }
    }
    if (this.readOnlyReason !== undefined) {
      // A read-only file that holds a database: served for reading, writes refused until it can be written.
      try {
        this.inspect();
        this.checkSchema();
        loaded = this.read();
      } catch (error) {
        this.db.close();
        throw this.opening(error);
      }
    }
    this.restored = loaded !== undefined;
    if (loaded) {
      this.store.state = loaded;
      for (const slice of this.slices) slice.committed(loaded);
      this.durable = this.mark();
    }
  }

  /**
   * Takes the file for this process: reads and checks it in the transaction that marks it and
   * brings its schema up to date, so a file refused (a throw) is rolled back untouched; then
   * sets it up for writing (configure). The state it holds, undefined when none.
   */
  private take(): State | undefined {
    // Held from the first read on: no other process writes between the checks and the commits.
    this.db.exec('PRAGMA locking_mode = EXCLUSIVE');
    this.db.exec('BEGIN IMMEDIATE');
    this.inspect();
    if (this.applicationId() !== APPLICATION_ID) this.db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
    this.migrate();
    const loaded = this.read();
    this.db.exec('COMMIT');
    this.configure(this.db);
    this.configured = true;
    return loaded;
  }

  /**
   * Lets go of a file that was not taken, rolling back what its transaction wrote. The journal
   * mode stays the file's own (release() sets it): the lock is made a normal one, which a read
   * drops, before the connection is closed (see release). A file in WAL mode (another program's,
   * or ours after a kill) cannot leave exclusive locking without leaving WAL mode: its lock goes
   * once libsql closes the connection, at the latest when the process ends.
   */
  private abandon(): void {
    if (this.configured) {
      this.release();
      return;
    }
    try {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.db.exec('PRAGMA locking_mode = NORMAL');
      this.db.prepare('SELECT count(*) FROM sqlite_schema').raw().get();
    } catch {
      // Rolled back by SQLite itself, or a file that cannot be read: nothing is held then.
    }
    this.statements.clear();
    this.db.close();
  }

  /** What a failure to open or take the file is told as: PersistError, naming the file. */
  private opening(error: unknown): PersistError {
    if (error instanceof PersistError) return error;
    return new PersistError(
      sqliteCode(error) === 'SQLITE_BUSY'
        ? `${this.file}: in use by another process (an emulator keeps its database to itself)`
        : `${this.file}: cannot open (${message(error)})`,
      { cause: error },
    );
  }

  /** A connection to the file for reading only (a read-only file or disk). */
  private openReadOnly(): Database.Database {
    try {
      return new Database(this.file, { readonly: true });
    } catch (error) {
      throw new PersistError(`${this.file}: cannot open (${message(error)})`, { cause: error });
    }
  }

  /** A connection to the file that may write, before anything is set or read; or why there is none. */
  private connect(): Database.Database | { code: string | undefined; message: string } {
    try {
      return new Database(this.file, { timeout: 0 });
    } catch (error) {
      return { code: sqliteCode(error), message: message(error) };
    }
  }

  /** Sets a connection up for the commits, holding the file; throws when it cannot. */
  private configure(db: Database.Database): void {
    // One process per file: memory is where the state lives, two writers would part ways.
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec(`PRAGMA synchronous = ${this.sync === 'full' ? 'FULL' : 'NORMAL'}`);
    db.exec(`PRAGMA wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
    // The log file is reused after a checkpoint; past this size it is cut back.
    db.exec(`PRAGMA journal_size_limit = ${CHECKPOINT_PAGES * 4096}`);
    db.exec('BEGIN IMMEDIATE');
    db.exec('COMMIT');
  }

  /** The file opened for writing and held by this process, or why it cannot be (a commit's reopening). */
  private openWritable(): Database.Database | { code: string | undefined; message: string } {
    const db = this.connect();
    if (!(db instanceof Database)) return db;
    try {
      this.configure(db);
      return db;
    } catch (error) {
      db.close();
      return { code: sqliteCode(error), message: message(error) };
    }
  }

  /** Whether the file is open only for reading (see readOnlyReason); commits try to reopen it. */
  get readOnly(): boolean {
    return this.readOnlyReason !== undefined;
  }

  private applicationId(): number {
    return (this.db.prepare('PRAGMA application_id').raw().get() as [number])[0];
  }

  /**
   * Refuses, reading only, a file the emulator cannot take as its own: another program's
   * database (marked by another application_id, or holding tables and no emulator_schema),
   * one whose schema table names tables that are gone, and one of ours that holds rows but no
   * state row (it would be taken as new, and its rows emptied by the first commit). A database
   * without tables is new.
   */
  private inspect(): void {
    const id = this.applicationId();
    if (id !== 0 && id !== APPLICATION_ID)
      throw new PersistError(
        `${this.file}: not an emulator database: its application_id is ${hex(id)} (the emulator marks its databases ${hex(APPLICATION_ID)})`,
      );
    const objects = new Map(
      (
        this.db
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
          ? `${this.file}: marked as an emulator database (application_id ${hex(id)}) but ${held}`
          : `${this.file}: not an emulator database: ${held}`,
      );
    }
    for (const { name, migrations, version, tables } of this.schemaVersions())
      if (version === migrations.length)
        for (const table of tables)
          if (objects.get(table) !== 'table')
            throw new PersistError(
              `${this.file}: its emulator_schema has the ${name} tables at version ${version}, yet table ${table} is missing`,
            );
    // Tables of an older schema are brought up to date by migrate, rows and all.
    if (objects.get('emulator_meta') !== 'table') return;
    if (this.db.prepare("SELECT 1 FROM emulator_meta WHERE key = 'state'").raw().get()) return;
    const known = this.slices.flatMap((slice) => slice.tables);
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
      const [count] = this.db
        .prepare(`SELECT count(*) FROM ${quoted(table)}`)
        .raw()
        .get() as [number];
      return count > 0 ? [`${table} ${count}`] : [];
    });
    if (held.length > 0)
      throw new PersistError(
        `${this.file}: emulator_meta has no 'state' row, yet its tables hold rows (${held.join(', ')}): a database the emulator wrote has both`,
      );
  }

  /** The core's and each slice's migrations and tables, with the schema version the database is at. */
  private schemaVersions(): {
    name: string;
    migrations: readonly string[];
    tables: readonly string[];
    version: number;
  }[] {
    const read = this.db.prepare('SELECT version FROM emulator_schema WHERE slice = ?').raw();
    return [
      { name: 'emulator', migrations: CORE_MIGRATIONS as readonly string[], tables: CORE_TABLES },
      ...this.slices,
    ].map(({ name, migrations, tables }) => ({
      name,
      migrations,
      tables,
      version: (read.get(name) as [number] | undefined)?.[0] ?? 0,
    }));
  }

  /** A read-only database must already be at this emulator's schema: it cannot be migrated. */
  private checkSchema(): void {
    for (const { name, migrations, version } of this.schemaVersions())
      if (version !== migrations.length)
        throw new PersistError(
          `${this.file}: read-only, and its ${name} tables are at schema version ${version}, not ${migrations.length}`,
        );
  }

  private statement(sql: string): Database.Statement<SqlValue[]> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare<SqlValue[]>(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Brings the schema up to date, in the transaction take() holds. */
  private migrate(): void {
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS emulator_schema (slice TEXT PRIMARY KEY, version INTEGER NOT NULL) STRICT',
    );
    for (const { name, migrations, version } of this.schemaVersions()) {
      if (version > migrations.length)
        throw new PersistError(
          `${this.file}: written by a newer emulator (${name} schema version ${version}; this one knows up to ${migrations.length})`,
        );
      if (version === migrations.length) continue;
      try {
        for (const sql of migrations.slice(version)) this.db.exec(sql);
        this.db
          .prepare('INSERT OR REPLACE INTO emulator_schema (slice, version) VALUES (?, ?)')
          .run(name, migrations.length);
      } catch (error) {
        throw new PersistError(
          `${this.file}: cannot bring the ${name} tables up to date (${message(error)})`,
          { cause: error },
        );
      }
    }
  }

  /**
   * The core's scalars from the state row and the state with them and nothing else yet (every
   * collection is the slices' to fill); undefined when the database holds no state.
   */
  private readScalars(): { scalars: Record<string, unknown>; state: State } | undefined {
    const row = this.db.prepare("SELECT value FROM emulator_meta WHERE key = 'state'").raw().get() as
      | [string]
      | undefined;
    if (!row) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(row[0]);
    } catch (error) {
      throw new PersistError(`${this.file}: emulator_meta 'state' is not JSON (${message(error)})`);
    }
    const scalars = parsed;
    const invalid = (what: string) =>
      new PersistError(`${this.file}: emulator_meta 'state': not a valid state (${what})`);
    if (!isObject(scalars)) throw invalid('not a JSON object');
    const missing = CORE_SCALARS.filter((key) => !Object.hasOwn(scalars, key));
    if (missing.length > 0) throw invalid(`lacks ${missing.join(', ')}`);
    const state = { ...this.store.state, ...scalars } as State;
    for (const [key, value] of Object.entries(state))
      if (typeof value === 'object' && value !== null)
        delete (state as unknown as Record<string, unknown>)[key];
    return { scalars, state };
  }

  /** The stored state, read and checked (not put in the store); undefined when there is none. */
  private read(): State | undefined {
    const start = this.readScalars();
    if (!start) return undefined;
    const { scalars, state } = start;
    const parse: ParseRow = <T>(body: unknown, table: string, key: string) => {
      try {
        return JSON.parse(String(body)) as T;
      } catch (error) {
        throw new PersistError(`${this.file}: ${table} ${key}: not JSON (${message(error)})`);
      }
    };
    try {
      for (const slice of this.slices) slice.load(this.rows, state, parse);
    } catch (error) {
      throw error instanceof PersistError
        ? error
        : new PersistError(`${this.file}: ${message(error)}`, { cause: error });
    }
    if (!this.check) return state;
    try {
      return this.check(state);
    } catch (error) {
      // StateFileError's problems (core/state-file.ts, which imports the modules that import this).
      const { problems } = error as { problems?: unknown };
      if (!Array.isArray(problems) || problems.length === 0)
        throw new PersistError(`${this.file}: ${message(error)}`, { cause: error });
      throw this.invalidRows(problems.map(String), scalars);
    }
  }

  /**
   * A state that failed its checks, told by the rows at fault: each problem (`pointer: what`)
   * is put on the stored row that holds its place, found by reading the rows again with each
   * parsed row (and the objects directly in it, as a slice may spread a row) noted.
   */
  private invalidRows(problems: readonly string[], scalars: Record<string, unknown>): PersistError {
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
    const state = this.readScalars()?.state as State;
    for (const slice of this.slices) slice.load(this.rows, state, parse);
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
      [...byRow]
        .map(([row, found]) => `${this.file}: ${row}: not a valid state (${found.join('; ')})`)
        .join('; '),
    );
  }

  mark(): StateMark {
    return { state: this.store.state, revision: this.store.state.revision };
  }

  /** Whether the state moved since `mark` (a write, a reset or a load). */
  changedSince(mark: StateMark): boolean {
    const now = this.store.state;
    return mark.state !== now || mark.revision !== now.revision;
  }

  /** Whether the database holds the state as it is now. */
  isDurable(): boolean {
    return this.durable !== undefined && !this.changedSince(this.durable);
  }

  /**
   * Writes what changed since the last commit in one transaction: everything when the state
   * was replaced (reset, load, the first save), else each slice's changes. Throws (after a
   * rollback, with onError told) when it cannot; what it held stays pending.
   */
  commit(): void {
    if (this.isDurable()) return;
    if (this.closed) throw new Error(`The emulator's database ${this.file} is closed`);
    if (this.readOnlyReason !== undefined) {
      const opened = this.openWritable();
      if (!(opened instanceof Database)) {
        this.stats.failures += 1;
        const failure = new Error(
          `The emulator could not save the state to ${this.file}: it is read-only (${opened.message})`,
        );
        this.onError(failure.message);
        throw failure;
      }
      this.db.close();
      this.statements.clear();
      this.db = opened;
      this.readOnlyReason = undefined;
    }
    const mark = this.mark();
    const full = this.durable?.state !== mark.state;
    const began = performance.now();
    this.statementsRun = 0;
    try {
      this.db.exec('BEGIN');
      if (full) {
        for (const slice of this.slices) {
          // Only the slices' own tables, and only rows a state of this run replaces: a file whose
          // tables held rows without a state row was refused at start (inspect).
          for (const table of slice.tables) this.db.exec(`DELETE FROM ${table}`);
          slice.writeAll(this.rows, mark.state);
        }
      } else {
        const since = this.durable?.revision ?? 0;
        for (const slice of this.slices) slice.writeChanges(this.rows, mark.state, since);
      }
      this.rows.run(
        "INSERT OR REPLACE INTO emulator_meta (key, value) VALUES ('state', ?)",
        JSON.stringify(scalarsOf(mark.state)),
      );
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) {
        try {
          this.db.exec('ROLLBACK');
        } catch {
          // SQLite rolled it back itself (a full disk does).
        }
      }
      this.stats.failures += 1;
      const failure = new Error(`The emulator could not save the state to ${this.file}: ${message(error)}`);
      this.onError(failure.message);
      throw failure;
    }
    for (const slice of this.slices) slice.committed(mark.state);
    this.durable = mark;
    this.stats.commits += 1;
    if (this.idleCheckpoint) this.idleCheckpoint.refresh();
    else {
      this.idleCheckpoint = setTimeout(() => this.checkpoint(), IDLE_CHECKPOINT_MS);
      this.idleCheckpoint.unref();
    }
    this.stats.lastMs = performance.now() - began;
    this.stats.lastFull = full;
    this.stats.lastStatements = this.statementsRun;
  }

  /** The database's size in pages (SQLite's page_count). */
  pageCount(): number {
    return (this.db.prepare('PRAGMA page_count').raw().get() as [number])[0];
  }

  /**
   * Caps the database's size in pages (SQLite's max_page_count; at least its size now): a
   * commit that would grow it past the cap fails as on a full disk.
   */
  limitPages(pages: number): void {
    this.db.exec(`PRAGMA max_page_count = ${Math.max(1, Math.floor(pages))}`);
  }

  /** Commits, as a promise (the API of earlier versions). */
  flush(): Promise<void> {
    try {
      this.commit();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Folds the log into the database file, flushing both to the disk (see IDLE_CHECKPOINT_MS). */
  private checkpoint(): void {
    this.idleCheckpoint = undefined;
    if (this.closed || this.readOnlyReason !== undefined) return;
    try {
      this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch (error) {
      // The commits are in the log all the same; the next checkpoint folds them in.
      this.onError(`The emulator could not fold the log into ${this.file}: ${message(error)}`);
    }
  }

  /** Commits what is pending (a failure is told to onError) and closes the database. */
  close(): void {
    if (this.closed) return;
    clearTimeout(this.idleCheckpoint);
    try {
      this.commit();
    } catch {
      // Told to onError; the database keeps the last commit that worked.
    }
    this.closed = true;
    this.release();
  }

  /**
   * Lets go of the file. libsql closes a connection only once its statements are collected,
   * and until then an exclusive lock would stay: so the log is folded into the file first
   * (journal_mode DELETE, which also removes it) and the lock made a normal one, which a read
   * then drops, before the connection is closed.
   */
  private release(): void {
    if (this.readOnlyReason !== undefined) {
      this.db.close();
      return;
    }
    try {
      this.db.exec('PRAGMA journal_mode = DELETE');
      this.db.exec('PRAGMA locking_mode = NORMAL');
      this.db.prepare('SELECT count(*) FROM emulator_schema').raw().get();
    } catch (error) {
      this.onError(`The emulator could not release ${this.file}: ${message(error)}`);
    }
    this.statements.clear();
    this.db.close();
  }
}
