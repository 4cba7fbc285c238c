/**
 * The one place the slices' tables (slice.ts, `TableSpec`) become SQL: each store's dialect
 * makes a table and the statements that put, remove and scan its rows, from the declaration.
 * SQLite (storage.ts) prepares them with `?` parameters. PostgreSQL (postgres.ts) sends a
 * commit's writes as one text, with many rows to a statement and the values written as
 * literals by its client's own quoting, so that a commit is one round trip however many rows
 * it writes; its reads take no value from outside.
 */
import { type StorageSlice, type TableSpec, tablesOf } from './slice.js';

/** A table's or column's name, which only the slices declare: lower-case words. */
const NAME = /^[a-z][a-z0-9_]*$/;

/** Throws for a name that is not a plain SQL identifier (a declaration's mistake, found at start). */
export function checkTable(table: TableSpec): void {
  for (const name of [table.name, ...table.key])
    if (!NAME.test(name) || name === 'body' || name === 'rowid' || name === 'written')
      throw new Error(
        `table ${JSON.stringify(table.name)}: ${JSON.stringify(name)} is not a name a table or key column can have (lower-case letters, digits and _; not body, rowid or written)`,
      );
  if (new Set(table.key).size !== table.key.length)
    throw new Error(`table ${table.name}: a key column is named twice`);
}

/** The columns a statement names: the key's, then the body; a one-row table's are id and body. */
const columnsOf = (table: TableSpec) => (table.key.length === 0 ? ['id', 'body'] : [...table.key, 'body']);

/**
 * The statements made for each table, by kind: a commit puts rows one by one, and each put then
 * finds its prepared statement by the same string instead of building the text again.
 */
const made = new WeakMap<TableSpec, Map<string, string>>();

function once(table: TableSpec, kind: string, make: () => string): string {
  let texts = made.get(table);
  if (!texts) {
    texts = new Map();
    made.set(table, texts);
  }
  let text = texts.get(kind);
  if (text === undefined) {
    text = make();
    texts.set(kind, text);
  }
  return text;
}

export interface Dialect {
  /** The statement that makes the table. */
  create(table: TableSpec): string;
  /** Every row, in the order first written: the key columns, then the body. */
  scan(table: TableSpec): string;
}

export const sqlite = {
  create(table: TableSpec): string {
    if (table.key.length === 0)
      return `CREATE TABLE ${table.name} (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL) STRICT`;
    const keys = table.key.map((column) => `${column} TEXT NOT NULL`).join(', ');
    return `CREATE TABLE ${table.name} (${keys}, body TEXT NOT NULL, PRIMARY KEY (${table.key.join(', ')})) STRICT`;
  },
  scan(table: TableSpec): string {
    return once(table, 'scan', () =>
      table.key.length === 0
        ? `SELECT body FROM ${table.name}`
        : `SELECT ${table.key.join(', ')}, body FROM ${table.name} ORDER BY rowid`,
    );
  },
  /** Writes a row, keeping the place of one already there (an upsert keeps its rowid): `?` per key column, then the body. */
  put(table: TableSpec): string {
    return once(table, 'put', () => {
      const columns = columnsOf(table);
      const values = table.key.length === 0 ? '1, ?' : columns.map(() => '?').join(', ');
      const conflict = table.key.length === 0 ? 'id' : table.key.join(', ');
      return `INSERT INTO ${table.name} (${columns.join(', ')}) VALUES (${values}) ON CONFLICT (${conflict}) DO UPDATE SET body = excluded.body`;
    });
  },
  /** Deletes the rows whose key starts with `?` for each of the first `count` key columns. */
  remove(table: TableSpec, count: number): string {
    return once(table, `remove ${count}`, () => {
      const where = table.key.slice(0, count).map((column) => `${column} = ?`);
      return `DELETE FROM ${table.name}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
    });
  },
} satisfies Dialect & Record<string, unknown>;

/** How a PostgreSQL client writes a value as a literal (pg's `escapeLiteral`). */
export type Literal = (value: string) => string;

export const postgres = {
  /**
   * A table with `rowid`, an identity an upsert keeps, so `ORDER BY rowid` loads rows in the
   * order SQLite's would; a one-row table has none.
   */
  create(table: TableSpec): string {
    if (table.key.length === 0)
      return `CREATE TABLE ${table.name} (id integer PRIMARY KEY CHECK (id = 1), body text NOT NULL)`;
    const keys = table.key.map((column) => `${column} text NOT NULL`).join(', ');
    return `CREATE TABLE ${table.name} (${keys}, body text NOT NULL, rowid bigint GENERATED ALWAYS AS IDENTITY, PRIMARY KEY (${table.key.join(', ')}))`;
  },
  scan: sqlite.scan,
  /** Every row written since commit `since`, all columns (the store's `written` among them). */
  changedSince(table: TableSpec, since: number): string {
    return `SELECT * FROM ${table.name} WHERE written > ${Math.trunc(since)}${table.key.length === 0 ? '' : ' ORDER BY rowid'}`;
  },
  /**
   * One statement that writes every row given (each its key's values, then its body), as
   * literals. A key written twice in one statement would be refused by PostgreSQL: the caller
   * gives each key once, its last body.
   */
  putRows(table: TableSpec, rows: readonly (readonly string[])[], literal: Literal): string {
    const columns = columnsOf(table);
    const values = rows
      .map(
        (row) =>
          `(${table.key.length === 0 ? `1, ${literal(row[0] as string)}` : row.map(literal).join(', ')})`,
      )
      .join(', ');
    const conflict = table.key.length === 0 ? 'id' : table.key.join(', ');
    return `INSERT INTO ${table.name} (${columns.join(', ')}) VALUES ${values} ON CONFLICT (${conflict}) DO UPDATE SET body = excluded.body`;
  },
  /** Deletes the rows whose key starts with `key`, as literals. */
  remove(table: TableSpec, key: readonly string[], literal: Literal): string {
    const where = key.map((value, i) => `${table.key[i]} = ${literal(value)}`);
    return `DELETE FROM ${table.name}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
  },
} satisfies Dialect & Record<string, unknown>;

/** The slices' tables by name, each checked; throws for a bad name or one declared twice. */
export function tableMap(slices: readonly StorageSlice[]): ReadonlyMap<string, TableSpec> {
  const tables = new Map<string, TableSpec>();
  for (const slice of slices)
    for (const table of tablesOf(slice)) {
      checkTable(table);
      if (tables.has(table.name) || table.name.startsWith('emulator_'))
        throw new Error(`the ${slice.name} API declares a table ${table.name} that is already taken`);
      tables.set(table.name, table);
    }
  return tables;
}

/** A table a slice names, which it must have declared. */
export function tableIn(tables: ReadonlyMap<string, TableSpec>, name: string): TableSpec {
  const table = tables.get(name);
  if (!table) throw new Error(`no slice declares a table ${name}`);
  return table;
}

/**
 * A table a slice names with a key it gives, both checked: the table must be declared, a put
 * gives its whole key, a remove at most that many values (a prefix).
 */
export function keyedTable(
  tables: ReadonlyMap<string, TableSpec>,
  name: string,
  key: readonly string[],
  whole: boolean,
): TableSpec {
  const table = tableIn(tables, name);
  const wanted = table.key.length;
  if (whole ? key.length !== wanted : key.length > wanted)
    throw new Error(
      `${name}: a ${whole ? 'put' : 'remove'} gave ${key.length} key values; its key is ${wanted === 0 ? 'empty (one row)' : table.key.join(', ')}`,
    );
  return table;
}

/** The core's or a slice's schema: its last version, its tables, and the SQL from a version to the last. */
export interface SchemaPart {
  name: string;
  latest: number;
  tables: readonly string[];
  upgrade(version: number): readonly string[];
}

/**
 * The schema of each part of a store's database, in the order they are brought up to date: the
 * core's (`core`, the store's own tables and the SQL of each of its versions), then each
 * slice's, its tables made in the store's dialect (`create`).
 */
export function schemaParts(
  slices: readonly StorageSlice[],
  create: (table: TableSpec) => string,
  core: { tables: readonly string[]; migrations: readonly string[] },
): SchemaPart[] {
  return [
    {
      name: 'emulator',
      latest: core.migrations.length,
      tables: core.tables,
      upgrade: (version) => core.migrations.slice(version),
    },
    ...slices.map((slice) => ({
      name: slice.name,
      latest: slice.schema.length,
      tables: tablesOf(slice).map((table) => table.name),
      upgrade: (version: number) => slice.schema.slice(version).flat().map(create),
    })),
  ];
}
