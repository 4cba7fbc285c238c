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
   * loads it into the store. A file that is not an emulator database, that another process
   * holds or that was written by a newer emulator throws PersistError naming it; the file is
   * left as it is.
   */
  constructor(
    private readonly store: StateHolder,
    private readonly slices: readonly StorageSlice[],
    options: PersistOptions,
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
    const opened = this.openWritable();
    if (opened instanceof Database) this.db = opened;
    else if (
      (opened.code?.startsWith('SQLITE_READONLY') || /readonly/i.test(opened.message)) &&
      start.length > 0
    ) {
      // A read-only file that holds a database: served for reading, writes refused until it can be written.
      try {
        this.db = new Database(this.file, { readonly: true });
      } catch (error) {
        throw new PersistError(`${this.file}: cannot open (${message(error)})`);
      }
      this.readOnlyReason = opened.message;
    } else
      throw new PersistError(
        opened.code === 'SQLITE_BUSY'
          ? `${this.file}: in use by another process (an emulator keeps its database to itself)`
          : `${this.file}: cannot open (${opened.message})`,
      );
    try {
      if (this.readOnlyReason === undefined) this.migrate();
      else this.checkSchema();
      this.restored = this.load();
    } catch (error) {
      this.release();
      throw error instanceof PersistError ? error : new PersistError(`${this.file}: ${message(error)}`);
    }
    if (this.restored) this.durable = this.mark();
  }

  /** The file opened for writing and held by this process, or why it cannot be. */
  private openWritable(): Database.Database | { code: string | undefined; message: string } {
    let db: Database.Database;
    try {
      db = new Database(this.file, { timeout: 0 });
    } catch (error) {
      return { code: (error as { code?: string }).code, message: message(error) };
    }
    try {
      // One process per file: memory is where the state lives, two writers would part ways.
      db.exec('PRAGMA locking_mode = EXCLUSIVE');
      db.exec('PRAGMA journal_mode = WAL');
      db.exec(`PRAGMA synchronous = ${this.sync === 'full' ? 'FULL' : 'NORMAL'}`);
      db.exec(`PRAGMA wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
      // The log file is reused after a checkpoint; past this size it is cut back.
      db.exec(`PRAGMA journal_size_limit = ${CHECKPOINT_PAGES * 4096}`);
      db.exec('BEGIN IMMEDIATE');
      db.exec('COMMIT');
      return db;
    } catch (error) {
      db.close();
      return { code: (error as { code?: string }).code, message: message(error) };
    }
  }

  /** Whether the file is open only for reading (see readOnlyReason); commits try to reopen it. */
  get readOnly(): boolean {
    return this.readOnlyReason !== undefined;
  }

  /** The core's and each slice's migrations, with the schema version the database is at. */
  private schemaVersions(): { name: string; migrations: readonly string[]; version: number }[] {
    const read = this.db.prepare('SELECT version FROM emulator_schema WHERE slice = ?').raw();
    return [{ name: 'emulator', migrations: CORE_MIGRATIONS as readonly string[] }, ...this.slices].map(
      ({ name, migrations }) => ({
        name,
        migrations,
        version: (read.get(name) as [number] | undefined)?.[0] ?? 0,
      }),
    );
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
      this.db.exec('BEGIN');
      try {
        for (const sql of migrations.slice(version)) this.db.exec(sql);
        this.db
          .prepare('INSERT OR REPLACE INTO emulator_schema (slice, version) VALUES (?, ?)')
          .run(name, migrations.length);
        this.db.exec('COMMIT');
      } catch (error) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw new PersistError(
          `${this.file}: cannot bring the ${name} tables up to date (${message(error)})`,
        );
      }
    }
  }

  /** Loads the stored state into the store; false when the database holds none yet. */
  private load(): boolean {
    const row = this.db.prepare("SELECT value FROM emulator_meta WHERE key = 'state'").raw().get() as
      | [string]
      | undefined;
    if (!row) return false;
    let scalars: unknown;
    try {
      scalars = JSON.parse(row[0]);
    } catch (error) {
      throw new PersistError(`${this.file}: emulator_meta 'state' is not JSON (${message(error)})`);
    }
    const state = { ...this.store.state, ...(scalars as object) } as State;
    // Every collection is the slices' to fill.
    for (const [key, value] of Object.entries(state))
      if (typeof value === 'object' && value !== null)
        delete (state as unknown as Record<string, unknown>)[key];
    const parse: ParseRow = <T>(body: unknown, table: string, key: string) => {
      try {
        return JSON.parse(String(body)) as T;
      } catch (error) {
        throw new PersistError(`${this.file}: ${table} ${key}: not JSON (${message(error)})`);
      }
    };
    for (const slice of this.slices) slice.load(this.rows, state, parse);
    this.store.state = state;
    for (const slice of this.slices) slice.committed(state);
    return true;
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
