/**
 * The dialect layer (src/core/sql.ts): a table declared once (`TableSpec`) is made and read and
 * written in SQLite's and PostgreSQL's SQL, both run here on real databases (libsql; PostgreSQL
 * when the machine has it): the same rows, in the order first written, a row written again
 * keeping its place, a prefix removing its rows, and values that SQL quoting must survive.
 */
import Database from 'libsql';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { StorageSlice, TableSpec } from '../src/core/slice.ts';
import { checkTable, keyedTable, postgres, sqlite, tableMap } from '../src/core/sql.ts';
import { havePostgres, usePostgres } from './support/postgres.ts';

const EVENTS: TableSpec = { name: 'notes_events', key: ['calendar_id', 'event_id'] };
const WORLD: TableSpec = { name: 'notes_world', key: [] };

/** Values SQL quoting must carry as they are: quotes, a backslash, a newline, non-ASCII, JSON. */
const AWKWARD = [
  "it's",
  'back\\slash',
  'two\nlines',
  'Zürich 東京 🎉',
  '{"a":"b\'c"}',
  "'; DROP TABLE x; --",
];

/** What each store does with a table: the writes, then the rows as a scan reads them. */
const WRITES: [
  string,
  (t: { put: (k: string[], b: string) => void; remove: (k: string[]) => void }) => void,
  string[][],
][] = [
  [
    'rows in the order first written; a row written again keeps its place with its new body',
    ({ put }) => {
      put(['c1', 'e2'], 'first e2');
      put(['c1', 'e1'], 'e1');
      put(['c1', 'e2'], 'second e2');
    },
    [
      ['c1', 'e2', 'second e2'],
      ['c1', 'e1', 'e1'],
    ],
  ],
  [
    'a prefix removes every row under it, a whole key one row',
    ({ put, remove }) => {
      put(['c1', 'e1'], 'a');
      put(['c2', 'e1'], 'b');
      put(['c2', 'e2'], 'c');
      put(['c3', 'e1'], 'd');
      remove(['c2']);
      remove(['c3', 'e1']);
    },
    [['c1', 'e1', 'a']],
  ],
  [
    'values with quotes, backslashes, newlines and non-ASCII come back as written',
    ({ put }) => {
      for (const [i, value] of AWKWARD.entries()) put([value, String(i)], value);
    },
    AWKWARD.map((value, i) => [value, String(i), value]),
  ],
];

describe('tables declared once', () => {
  it.each(WRITES)('SQLite: %s', (_name, write, expected) => {
    const db = new Database(':memory:');
    db.exec(sqlite.create(EVENTS));
    write({
      put: (key, body) => db.prepare(sqlite.put(EVENTS)).run(...key, body),
      remove: (key) => db.prepare(sqlite.remove(EVENTS, key.length)).run(...key),
    });
    expect(db.prepare(sqlite.scan(EVENTS)).raw().all()).toEqual(expected);
    db.close();
  });

  it('SQLite: a table of one row', () => {
    const db = new Database(':memory:');
    db.exec(sqlite.create(WORLD));
    db.prepare(sqlite.put(WORLD)).run('one');
    db.prepare(sqlite.put(WORLD)).run('two');
    expect(db.prepare(sqlite.scan(WORLD)).raw().all()).toEqual([['two']]);
    db.close();
  });

  it.each([
    [{ name: 'Events', key: ['id'] }, '"Events" is not a name'],
    [{ name: 'notes', key: ['body'] }, '"body" is not a name'],
    [{ name: 'notes', key: ['a;b'] }, '"a;b" is not a name'],
    [{ name: 'notes', key: ['written'] }, '"written" is not a name'],
    [{ name: 'notes', key: ['a', 'a'] }, 'a key column is named twice'],
  ])('refuses the declaration %j', (table, message) => {
    expect(() => checkTable(table)).toThrow(message);
  });

  it.each([
    [
      'a put without its whole key',
      'notes_events',
      ['c1'],
      true,
      'notes_events: a put gave 1 key values; its key is calendar_id, event_id',
    ],
    ['a remove longer than the key', 'notes_events', ['c1', 'e1', 'x'], false, 'a remove gave 3 key values'],
    ['a key for a table of one row', 'notes_world', ['1'], true, 'its key is empty (one row)'],
    ['a table no slice declares', 'notes_other', [], false, 'no slice declares a table notes_other'],
  ])('refuses %s, naming the table', (_name, table, key, whole, message) => {
    const tables = new Map([EVENTS, WORLD].map((t) => [t.name, t]));
    expect(() => keyedTable(tables, table, key, whole)).toThrow(message);
  });

  it('refuses a table two slices declare, or one of the core’s names', () => {
    const slice = (name: string, table: string): StorageSlice => ({
      name,
      schema: [[{ name: table, key: ['id'] }]],
      load: () => undefined,
      writeAll: () => undefined,
      writeChanges: () => undefined,
      committed: () => undefined,
    });
    expect(() => tableMap([slice('a', 'a_rows'), slice('b', 'a_rows')])).toThrow(
      'the b API declares a table a_rows that is already taken',
    );
    expect(() => tableMap([slice('a', 'emulator_meta')])).toThrow('emulator_meta that is already taken');
    expect([...tableMap([slice('a', 'a_rows')]).keys()]).toEqual(['a_rows']);
  });
});

const database = havePostgres() ? usePostgres('sql') : undefined;

describe.skipIf(!database)('tables declared once, on PostgreSQL', () => {
  async function withTable<T>(table: TableSpec, work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: database?.url });
    await client.connect();
    try {
      await client.query(`DROP TABLE IF EXISTS ${table.name}`);
      await client.query(postgres.create(table));
      return await work(client);
    } finally {
      await client.end();
    }
  }

  it.each(WRITES)('%s', async (_name, write, expected) => {
    const rows = await withTable(EVENTS, async (client) => {
      // As a commit sends them: the puts in a row to one table as one statement, all one text.
      const statements: string[] = [];
      let batch = new Map<string, string[]>();
      const flush = () => {
        if (batch.size > 0) statements.push(postgres.putRows(EVENTS, [...batch.values()], pg.escapeLiteral));
        batch = new Map();
      };
      write({
        put: (key, body) => batch.set(JSON.stringify(key), [...key, body]),
        remove: (key) => {
          flush();
          statements.push(postgres.remove(EVENTS, key, pg.escapeLiteral));
        },
      });
      flush();
      await client.query(statements.join(';\n'));
      return (await client.query({ text: postgres.scan(EVENTS), rowMode: 'array' })).rows;
    });
    expect(rows).toEqual(expected);
  });

  it('a table of one row', async () => {
    const rows = await withTable(WORLD, async (client) => {
      await client.query(postgres.putRows(WORLD, [['one']], pg.escapeLiteral));
      await client.query(postgres.putRows(WORLD, [["two's"]], pg.escapeLiteral));
      return (await client.query({ text: postgres.scan(WORLD), rowMode: 'array' })).rows;
    });
    expect(rows).toEqual([["two's"]]);
  });
});
