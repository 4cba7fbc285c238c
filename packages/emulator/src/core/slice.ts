/**
 * The contract between an API and the databases that keep its state: a `StorageSlice`. The
 * same slice is kept by each store that writes the state down: the embedded SQLite database of
 * `--persist` (storage.ts) and the shared PostgreSQL database of `--store` (postgres.ts).
 *
 * A slice declares its tables once, as data (`TableSpec`: key columns and a JSON body); each
 * store makes them and reads and writes them in its own SQL (sql.ts). A slice never writes
 * SQL: it puts, removes and scans rows by key (`Rows`). Its schema is a list of versions, each
 * the tables it adds; a database is brought up to the last version at start, and one written
 * by a newer emulator is refused.
 *
 * Memory is where every request reads from; the stores commit what changed. The core keeps the
 * state's scalars (epoch, revision, clock: `scalarsOf`) in `emulator_meta`, each slice its part
 * in its tables.
 */
import type { State, StateHolder } from './state.js';

/**
 * One table of a slice: text key columns, in the order of its primary key, and `body`, the
 * record as JSON text (kept as text: PostgreSQL's jsonb would reorder its keys, which the
 * answers show). A table without key columns holds one row. Rows load in the order they were
 * first written, as the state holds them: a row written again keeps its place.
 */
export interface TableSpec {
  readonly name: string;
  readonly key: readonly string[];
}

/**
 * A slice's rows, as each store reads and writes them. Keys are given in the order of the
 * table's key columns.
 */
export interface Rows {
  /** Writes the row of `key` (added, or changed in its place). */
  put(table: string, key: readonly string[], body: string): void;
  /** Deletes the rows whose key starts with `key`: one row with a whole key, or all of a prefix. */
  remove(table: string, key: readonly string[]): void;
  /** Every row of the table in the order they were first written: its key's values, then its body. */
  scan(table: string): Iterable<readonly string[]>;
}

/** A stored row's JSON body, parsed; one that is not JSON throws, naming the database, table and key. */
export type ParseRow = <T>(body: unknown, table: string, key: string) => T;

/**
 * A row another process wrote, as a shared store reads it when it catches up: its columns by
 * name (`body` the JSON text), or, for a row deleted, its key columns.
 */
export type ChangedRow<Column extends string = string> = Readonly<Record<Column, string>>;

/**
 * How one table's rows that another process wrote are applied to the state in memory: `put` a
 * row added or changed, `remove` one deleted.
 */
export interface TableChanges<Key extends string = string> {
  put(state: State, row: ChangedRow<Key | 'body'>, parse: ParseRow): void;
  remove(state: State, key: ChangedRow<Key>): void;
}

/** A table's TableChanges, its key columns named (`tableChanges<'email'>({ put, remove })`). */
export const tableChanges = <Key extends string>(changes: TableChanges<Key>): TableChanges => changes;

/** One API's part of the stored state. */
export interface StorageSlice {
  /** Prefix of its tables and its key in `emulator_schema`. */
  readonly name: string;
  /** Its schema versions in order, each the tables it adds; the version is the list's length. */
  readonly schema: readonly (readonly TableSpec[])[];
  /** Puts its rows into a state that holds the core's scalars and nothing else yet. */
  load(rows: Rows, state: State, parse: ParseRow): void;
  /** Writes the whole of its part of `state` into its emptied tables. */
  writeAll(rows: Rows, state: State): void;
  /** Writes what changed in `state` since the commit that held revision `since`. */
  writeChanges(rows: Rows, state: State, since: number): void;
  /** The commit that held what the last write wrote succeeded: forget it as pending. */
  committed(state: State): void;
  /**
   * How each of its tables' changed and deleted rows are applied to memory (every table named),
   * so that a process of a store several processes share, catching up with another's commits,
   * reads only what was written. Without it, the slice is loaded again whole (`load` on the
   * state as it is) when any of its rows changed.
   */
  readonly changes?: Readonly<Record<string, TableChanges>>;
}

/** Every table of a slice's schema, in the order its versions add them. */
export function tablesOf(slice: Pick<StorageSlice, 'schema'>): readonly TableSpec[] {
  return slice.schema.flat();
}

/** Which state a commit holds: the object (reset and load replace it) and its revision. */
export interface StateMark {
  state: State;
  revision: number;
}

/** The state a store holds now, as a mark. */
export function markOf(store: StateHolder): StateMark {
  return { state: store.state, revision: store.state.revision };
}

/** Whether the state moved since `mark` (a write, a reset or a load). */
export function changedSince(store: StateHolder, mark: StateMark): boolean {
  const now = store.state;
  return mark.state !== now || mark.revision !== now.revision;
}

/** The state's own scalars (epoch, revision, clock...), kept by the core; objects belong to slices. */
export function scalarsOf(state: State): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(state)) if (typeof value !== 'object') out[key] = value;
  return out;
}

/**
 * `state` with its objects taken out (every collection is the slices' to fill) and `scalars`
 * over it. A stored `version` is the state document's of the emulator that wrote the row.
 * Versions 1 and 2 of the document differ in its layout only, not in the rows (the slices
 * read theirs in this emulator's layout; their tables have versions of their own,
 * `emulator_schema`): a row of version 1 is read as this state's version. Any other version is
 * kept, for the state's checks to refuse.
 */
export function scalarsOnly(state: State, scalars: object): State {
  const stored = (scalars as { version?: unknown }).version;
  const fresh = { ...state, ...scalars, ...(stored === 1 ? { version: state.version } : {}) } as State;
  for (const [key, value] of Object.entries(fresh))
    if (typeof value === 'object' && value !== null)
      delete (fresh as unknown as Record<string, unknown>)[key];
  return fresh;
}

/** The map under `key` in `map`, made empty when missing: where a loaded row goes. */
export function slot<T>(map: Record<string, Record<string, T>>, key: string): Record<string, T> {
  let inner = map[key];
  if (!inner) {
    inner = {};
    map[key] = inner;
  }
  return inner;
}
