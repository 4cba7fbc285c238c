/**
 * Durable state (`--persist FILE`): the state is kept in an embedded SQLite database (libsql,
 * decision 0043) with a write-ahead log, one row per stored resource, while memory stays
 * where every request reads from.
 *
 * Each API keeps its own tables through a `StorageSlice` (slice.ts): the tables it declares,
 * made here in SQLite's dialect (sql.ts), how it loads its part of the state, writes all of it
 * (after a reset or a load replaced the state) and writes only what changed since the last
 * commit. The core keeps the state's scalars (epoch, revision, clock) in `emulator_meta` and
 * each slice's schema version in `emulator_schema`.
 *
 * Commits are synchronous: the server commits once per turn of the event loop, before the
 * answers of that turn go out (group commit), so an answered change is in the log when it is
 * answered. With `sync: 'normal'` (the default) a commit is written to the log but not flushed
 * to the disk: a killed process loses nothing, a power cut can lose the last commits (never the
 * database); `sync: 'full'` flushes every commit. A commit that fails (disk full, read-only
 * file) is rolled back and what it held stays pending for the next one.
 *
 * A file is only ever written once it is known to be the emulator's (sqlite-file.ts).
 */
import Database from 'libsql';
import {
  type Rows,
  type StateMark,
  type StorageSlice,
  scalarsOf,
  type TableSpec,
  tablesOf,
} from './slice.js';
import { keyedTable, type SchemaPart, sqlite, tableIn, tableMap } from './sql.js';
import {
  APPLICATION_ID,
  applicationId,
  configure,
  connect,
  head,
  inspectFile,
  isReadOnly,
  message,
  openingError,
  openReadOnly,
  openWritable,
  PersistError,
  readStoredState,
  releaseFile,
  SQLITE_HEADER,
  type SyncMode,
  sqliteSchema,
} from './sqlite-file.js';
import type { State, StateHolder } from './state.js';
import { LocalStore, type StartContext, StateNotSaved, type StateStore } from './state-store.js';

export interface PersistOptions {
  /** The database file; made when missing, the state loaded from it when it holds one. */
  file: string;
  /** `normal` (default): survives a killed process; `full`: also a power cut, at a flush per commit. */
  sync?: SyncMode;
  /** Told of each failed commit (the requests that wrote in it are answered 503). */
  onError?: (message: string) => void;
}

export { APPLICATION_ID, PersistError, type SyncMode } from './sqlite-file.js';

type SqlValue = string | number | null;

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

const noop = () => undefined;

/**
 * After this long without a commit the log is folded in at once: what a power cut can cost
 * (the commits since the last checkpoint, with `sync: 'normal'`) stays within about a second of
 * writes when the emulator is not under load, and within CHECKPOINT_PAGES when it is.
 */
const IDLE_CHECKPOINT_MS = 1000;

export class Persistence extends LocalStore implements StateStore {
  readonly file: string;
  readonly sharedByProcesses = false;
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
  /** The slices' tables by name. */
  private readonly tables: ReadonlyMap<string, TableSpec>;
  private durable: StateMark | undefined;
  private readonly onError: (message: string) => void;
  private closed = false;
  private statementsRun = 0;
  /** The checkpoint due once the commits pause (IDLE_CHECKPOINT_MS). */
  private idleCheckpoint: NodeJS.Timeout | undefined;
  private started: Promise<void> | undefined;

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
    // The requests of a turn run at once and are answered after one commit (LocalStore).
    super(store);
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
    this.tables = tableMap(slices);
    this.rows = {
      put: (table, key, body) => {
        this.statement(sqlite.put(keyedTable(this.tables, table, key, true))).run(...key, body);
        this.statementsRun += 1;
      },
      remove: (table, key) => {
        this.statement(sqlite.remove(keyedTable(this.tables, table, key, false), key.length)).run(...key);
        this.statementsRun += 1;
      },
      scan: (table) =>
        this.statement(sqlite.scan(tableIn(this.tables, table)))
          .raw()
          .iterate() as IterableIterator<string[]>,
    };
    const connected = connect(this.file);
    if (!(connected instanceof Database)) {
      if (!(isReadOnly(connected) && start.length > 0)) throw this.opening(connected);
      this.readOnlyReason = connected.message;
    }
    this.db = connected instanceof Database ? connected : openReadOnly(this.file);
    let loaded: State | undefined;
    if (this.readOnlyReason === undefined) {
      try {
        loaded = this.take();
      } catch (error) {
        this.abandon();
        if (!(isReadOnly(error) && start.length > 0)) throw this.opening(error);
        this.readOnlyReason = message(error);
        this.db = openReadOnly(this.file);
      }
    }
    if (this.readOnlyReason !== undefined) {
      // A read-only file that holds a database: served for reading, writes refused until it can be written.
      try {
        inspectFile(this.db, this.file, () => this.schemaVersions(), [...this.tables.keys()]);
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
    inspectFile(this.db, this.file, () => this.schemaVersions(), [...this.tables.keys()]);
    if (applicationId(this.db) !== APPLICATION_ID) this.db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
    this.migrate();
    const loaded = this.read();
    this.db.exec('COMMIT');
    configure(this.db, this.sync);
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

  /** What a failure to open or take the file is told as (sqlite-file.ts). */
  private opening(error: unknown): PersistError {
    return openingError(this.file, error);
  }

  /** Whether the file is open only for reading (see readOnlyReason); commits try to reopen it. */
  get readOnly(): boolean {
    return this.readOnlyReason !== undefined;
  }

  /** The core's and each slice's schema: its last version, its tables, and the version the database is at. */
  private schemaVersions(): (SchemaPart & { version: number })[] {
    const read = this.db.prepare('SELECT version FROM emulator_schema WHERE slice = ?').raw();
    return sqliteSchema(this.slices).map((part) => ({
      ...part,
      version: (read.get(part.name) as [number] | undefined)?.[0] ?? 0,
    }));
  }

  /** A read-only database must already be at this emulator's schema: it cannot be migrated. */
  private checkSchema(): void {
    for (const { name, latest, version } of this.schemaVersions())
      if (version !== latest)
        throw new PersistError(
          `${this.file}: read-only, and its ${name} tables are at schema version ${version}, not ${latest}`,
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
    for (const { name, latest, version, upgrade } of this.schemaVersions()) {
      if (version > latest)
        throw new PersistError(
          `${this.file}: written by a newer emulator (${name} schema version ${version}; this one knows up to ${latest})`,
        );
      if (version === latest) continue;
      try {
        for (const sql of upgrade(version)) this.db.exec(sql);
        this.db
          .prepare('INSERT OR REPLACE INTO emulator_schema (slice, version) VALUES (?, ?)')
          .run(name, latest);
      } catch (error) {
        throw new PersistError(
          `${this.file}: cannot bring the ${name} tables up to date (${message(error)})`,
          { cause: error },
        );
      }
    }
  }

  /** The stored state, read and checked (not put in the store); undefined when there is none. */
  private read(): State | undefined {
    return readStoredState(this.db, this.file, this.slices, this.rows, this.store.state, this.check);
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
      const opened = openWritable(this.file, this.sync);
      if (!(opened instanceof Database)) {
        this.stats.failures += 1;
        const failure = new StateNotSaved(
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
          for (const table of tablesOf(slice)) this.db.exec(`DELETE FROM ${table.name}`);
          slice.writeAll(this.rows, mark.state);
        }
      } else {
        const since = this.durable?.revision ?? 0;
        for (const slice of this.slices) slice.writeChanges(this.rows, mark.state, since);
      }
      this.statement("INSERT OR REPLACE INTO emulator_meta (key, value) VALUES ('state', ?)").run(
        JSON.stringify(scalarsOf(mark.state)),
      );
      this.statementsRun += 1;
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
      const failure = new StateNotSaved(
        `The emulator could not save the state to ${this.file}: ${message(error)}`,
      );
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

  /** The file. */
  get where(): string {
    return this.file;
  }

  /**
   * The file was read when this was made: with no state in it, the starting state `initialize`
   * makes is saved at once (StateStore.open). Without `initialize`, nothing is written until a
   * change is.
   */
  open(initialize?: () => void): Promise<void> {
    if (this.restored || !initialize) return Promise.resolve();
    this.started ??= this.run(initialize).then((outcome) => {
      if (outcome.ran && outcome.failure) throw outcome.failure;
    });
    this.started.catch(() => {
      this.started = undefined;
    });
    return this.started;
  }

  startLines({ revision, seedFile }: StartContext): string[] {
    const { file } = this;
    return [
      this.restored
        ? `State restored from ${file} (revision ${revision})${seedFile ? `; seed ${seedFile} not written again, its tokens apply` : ''}`
        : `State saved to ${file} (new database)`,
      `Every change is committed there before it is answered (--persist-sync ${this.sync}); watch channels are not kept`,
      ...(this.readOnly
        ? [`${file} is read-only: reads are served, writes answered 503 until it can be written`]
        : []),
    ];
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

  /** Lets go of the file (sqlite-file.ts, releaseFile). */
  private release(): void {
    this.statements.clear();
    releaseFile(this.db, this.file, this.readOnlyReason !== undefined, this.onError);
  }
}
