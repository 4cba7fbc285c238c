/**
 * What a shared store's process writes when its turn commits (core/postgres.ts): the rows its
 * slices changed, many to a statement, the state's scalars and commit number, the rows of
 * `emulator_meta` it shares as JSON, and the quota's counts; as statements sent in one round
 * trip with the COMMIT.
 */
import pg from 'pg';
import type { SharedParts } from './postgres-options.js';
import { quotaWrites } from './postgres-schema.js';
import { changedSince, type Rows, type StateMark, scalarsOf, type TableSpec, tablesOf } from './slice.js';
import { keyedTable, postgres } from './sql.js';

/**
 * Tombstones older than this many commits are dropped (every so many commits); a process
 * that last saw the state before them reloads it whole.
 */
const TOMBSTONE_COMMITS = 1000;

const literal = (value: string) => pg.escapeLiteral(value);

/** Sets a row of emulator_meta (a statement of a commit's text: its values as literals). */
const putMeta = (key: string, value: string) =>
  `INSERT INTO emulator_meta (key, value) VALUES (${literal(key)}, ${literal(value)}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;

/**
 * The rows of `emulator_meta` shared as JSON, each with the part that saves and restores it;
 * `access` (the rate limit's setting) comes before `rate_limit` (its spends), which a new
 * setting empties.
 */
export const SHARED_KEYS = ['access', 'rate_limit', 'channels'] as const;
export type SharedKey = (typeof SHARED_KEYS)[number];

/** A shared row's text as memory holds it (undefined: none, as for the spends of no rate limit). */
export function sharedText(parts: SharedParts, key: SharedKey): string | undefined {
  const { access, notifier } = parts;
  if (key === 'access') return access.saveShared();
  if (key === 'rate_limit') return access.limiter?.save();
  return notifier.save();
}

/**
 * Puts a shared row's text in memory. True when the rate limit was set anew by it: its windows
 * are empty, and the spends the `rate_limit` row holds are to be restored into them.
 */
export function restoreShared(parts: SharedParts, key: SharedKey, text: string): boolean {
  const { access, notifier } = parts;
  if (key === 'access') return access.restoreShared(text);
  if (key === 'rate_limit') access.limiter?.restore(text);
  else notifier.restore(text);
  return false;
}

/** A commit's statements, and what the database holds once they are committed. */
export interface CommitPlan {
  statements: string[];
  /** The rows of emulator_meta written (the commit number, the shared rows). */
  seen: Map<string, string>;
  /** The state written (undefined: nothing but the quota's counts). */
  mark: StateMark | undefined;
}

export interface CommitFrom {
  /** The state the database holds (undefined: not known, everything is written). */
  durable: StateMark | undefined;
  /** The state in memory. */
  mark: StateMark;
  /** The number of the database's last commit. */
  last: number;
  /** The rows of emulator_meta the database holds, as far as this process knows. */
  seen: ReadonlyMap<string, string>;
  /** This process's name among the quota's counters. */
  process: string;
}

/**
 * The statements of the writes since the last commit, then the versions, the shared rows and
 * the quota's counts, to be sent as one text with the COMMIT (none when nothing changed). A
 * slice's puts to one table in a row go in one statement, a key put twice there with its last
 * body. Takes the quota's counts.
 */
export function planCommit(
  parts: SharedParts,
  tables: ReadonlyMap<string, TableSpec>,
  { durable, mark, last, seen, process }: CommitFrom,
): CommitPlan {
  const statements: string[] = [];
  const written = new Map<string, string>();
  /** The puts not yet in a statement: one table's, by key. */
  let batch: { table: TableSpec; rows: Map<string, readonly string[]> } | undefined;
  const flush = () => {
    if (batch) statements.push(postgres.putRows(batch.table, [...batch.rows.values()], literal));
    batch = undefined;
  };
  const rows: Rows = {
    put: (name, key, body) => {
      const table = keyedTable(tables, name, key, true);
      if (batch?.table !== table) {
        flush();
        batch = { table, rows: new Map() };
      }
      batch.rows.set(JSON.stringify(key), [...key, body]);
    },
    remove: (name, key) => {
      flush();
      statements.push(postgres.remove(keyedTable(tables, name, key, false), key, literal));
    },
    scan: () => {
      throw new Error('a slice read while writing');
    },
  };
  if (!durable || changedSince(parts.store, durable)) {
    const number = last + 1;
    const commit = String(number);
    const full = durable?.state !== mark.state;
    // The slice tables' triggers mark each row written with this commit.
    statements.push(
      `SELECT set_config('emulator.commit', ${literal(commit)}, true), set_config('emulator.full', ${literal(full ? 'on' : 'off')}, true)`,
    );
    if (full) {
      // Everything changed: a process behind reloads the whole state, tombstones are moot.
      for (const slice of parts.slices) {
        for (const table of tablesOf(slice)) statements.push(`DELETE FROM ${table.name}`);
        slice.writeAll(rows, mark.state);
        flush();
      }
      statements.push('DELETE FROM emulator_deleted');
      statements.push(putMeta('state_full', commit));
    } else {
      for (const slice of parts.slices) {
        slice.writeChanges(rows, mark.state, (durable as StateMark).revision);
        flush();
      }
      if (number % TOMBSTONE_COMMITS === 0) {
        const kept = String(number - TOMBSTONE_COMMITS);
        statements.push(`DELETE FROM emulator_deleted WHERE written <= ${literal(kept)}`);
        statements.push(putMeta('deleted_after', kept));
      }
    }
    statements.push(putMeta('state', JSON.stringify(scalarsOf(mark.state))));
    statements.push(putMeta('state_commit', commit));
    written.set('state_commit', commit);
  }
  for (const key of SHARED_KEYS) {
    const text = sharedText(parts, key);
    if (text !== undefined && text !== seen.get(key)) {
      statements.push(putMeta(key, text));
      written.set(key, text);
    }
  }
  const plan = { statements, seen: written, mark: statements.length > 0 ? mark : undefined };
  statements.push(...quotaWrites(process, parts.quota.take()));
  return plan;
}
