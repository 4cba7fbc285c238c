/**
 * How a process of a shared store (core/postgres.ts) brings its memory up to what the database
 * holds: the rows written and deleted since the commit it last saw, each applied by its slice
 * (`StorageSlice.changes`), or the whole state read again; the shared rows of emulator_meta and
 * the quota's counts.
 */
import type pg from 'pg';
import { restoreShared, SHARED_KEYS } from './postgres-commit.js';
import { type SharedParts, type SharedStats, SharedStoreError } from './postgres-options.js';
import { parseRow, quotaRows, scalarsIn } from './postgres-schema.js';
import {
  type ChangedRow,
  changedSince,
  markOf,
  type ParseRow,
  type Rows,
  type StateMark,
  type StorageSlice,
  scalarsOnly,
  type TableChanges,
  type TableSpec,
  tablesOf,
} from './slice.js';
import { postgres, tableIn } from './sql.js';
import type { State } from './state.js';

/** What a process's memory holds of what the database does. */
export interface SharedMemory {
  /** The rows of emulator_meta memory holds (empty: every one is read again). */
  seen: Map<string, string>;
  /** The state as the database holds it (undefined: read it again before the next request). */
  durable: StateMark | undefined;
}

export class SharedLoader {
  private readonly parse: ParseRow;
  private readonly ordered: readonly TableSpec[];

  constructor(
    private readonly parts: SharedParts,
    private readonly tables: ReadonlyMap<string, TableSpec>,
    private readonly where: string,
    /** `reload`: the whole state read again at every catch-up (SharedStoreOptions.catchUp). */
    private readonly catchUpBy: 'changes' | 'reload',
  ) {
    this.parse = (body, table, key) => parseRow(where, body, table, key);
    this.ordered = parts.slices.flatMap(tablesOf);
  }

  /**
   * Brings memory up to what the database holds (`meta`: its emulator_meta rows, `quota`: the
   * quota's counts) when another process, or a failed turn, left it behind: the rows written
   * since its commit (`changes`: those read already, with the lock), or the whole state; then
   * the shared rows it has not seen, and the quota's counts. True when another process had
   * committed since.
   */
  async catchUp(
    client: pg.Client,
    memory: SharedMemory,
    stats: Pick<SharedStats, 'catchUps' | 'reloads'>,
    meta: Map<string, string>,
    quota: pg.QueryResult | undefined,
    changes?: { since: number; answers: pg.QueryResult[] },
  ): Promise<boolean> {
    const { store } = this.parts;
    const commit = meta.get('state_commit');
    const seen = memory.seen.get('state_commit');
    const othersWrote = memory.durable !== undefined && commit !== seen;
    if (!memory.durable || commit !== seen) {
      const scalars = scalarsIn(meta, this.where);
      if (this.canApplyChanges(memory, meta, seen)) {
        const since = Number(seen);
        const answers =
          changes?.since === since
            ? changes.answers
            : ((await client.query(this.changesQuery(since))) as unknown as pg.QueryResult[]);
        // Until it is done memory is not the database's: a failure part way reloads everything.
        memory.durable = undefined;
        await this.applyChanges(client, answers, scalars);
        stats.catchUps += 1;
      } else {
        await this.reload(client, scalars);
        stats.reloads += 1;
      }
      memory.durable = markOf(store);
      if (commit !== undefined) memory.seen.set('state_commit', commit);
    }
    for (const key of SHARED_KEYS) {
      const text = meta.get(key);
      if (text === undefined || text === memory.seen.get(key)) continue;
      try {
        // A rate limit set anew has empty windows: the spends the row holds are restored into it.
        if (restoreShared(this.parts, key, text)) memory.seen.delete('rate_limit');
      } catch (error) {
        throw new SharedStoreError(
          `${this.where}: emulator_meta '${key}' cannot be read (${(error as Error).message})`,
        );
      }
      memory.seen.set(key, text);
    }
    this.parts.quota.restore(quotaRows(quota));
    return othersWrote;
  }

  /**
   * Whether reading the rows written since commit `seen` brings memory up to date: memory holds
   * that commit's state and nothing else (no failed turn, no change outside a transaction), no
   * one emptied the tables since (a reset or a loaded state: `state_full`), and the tombstones
   * since then are all kept.
   */
  private canApplyChanges(
    memory: SharedMemory,
    meta: Map<string, string>,
    seen: string | undefined,
  ): boolean {
    const { durable } = memory;
    if (
      this.catchUpBy === 'reload' ||
      !durable ||
      seen === undefined ||
      changedSince(this.parts.store, durable)
    )
      return false;
    const since = Number(seen);
    return Number(meta.get('state_full') ?? 0) <= since && Number(meta.get('deleted_after') ?? 0) <= since;
  }

  /** How many answers `changesQuery` gives: the tombstones, then each table's rows. */
  get answers(): number {
    return 1 + this.ordered.length;
  }

  /** The queries of the rows deleted and written since commit `since`, as one text. */
  changesQuery(since: number): string {
    return [
      `SELECT tbl, key FROM emulator_deleted WHERE written > ${Math.trunc(since)} ORDER BY id`,
      ...this.ordered.map((table) => postgres.changedSince(table, since)),
    ].join(';\n');
  }

  /**
   * Applies `changesQuery`'s answers to memory, with the state's scalars: each slice removes
   * and puts its rows (`changes`); a slice without them that had a row changed is loaded again
   * whole. The caller marks memory as not the database's until this is done.
   */
  async applyChanges(client: pg.Client, answers: readonly pg.QueryResult[], scalars: object): Promise<void> {
    const { store, slices } = this.parts;
    const deleted = (answers[0]?.rows ?? []) as { tbl: string; key: ChangedRow }[];
    const changed = new Map(
      this.ordered.map((table, i) => [table.name, (answers[i + 1]?.rows ?? []) as ChangedRow[]]),
    );
    Object.assign(store.state, scalars);
    for (const slice of slices) {
      const own = new Set(tablesOf(slice).map((table) => table.name));
      const gone = deleted.filter((row) => own.has(row.tbl));
      if (gone.length === 0 && [...own].every((table) => changed.get(table)?.length === 0)) continue;
      if (!slice.changes) {
        await this.load(client, [slice], () => store.state);
        slice.committed(store.state);
        continue;
      }
      for (const { tbl, key } of gone) this.tableChanges(slice, tbl).remove(store.state, key);
      for (const table of own) {
        const apply = this.tableChanges(slice, table);
        for (const row of changed.get(table) ?? []) apply.put(store.state, row, this.parse);
      }
    }
  }

  private tableChanges(slice: StorageSlice, table: string): TableChanges {
    const changes = slice.changes?.[table];
    if (!changes)
      throw new SharedStoreError(`the ${slice.name} API cannot apply a change of its table ${table}`);
    return changes;
  }

  /** The whole state read again from the database, with its scalars, put in memory. */
  async reload(client: pg.Client, scalars: object): Promise<void> {
    const { store, slices } = this.parts;
    const state = await this.load(client, slices, () => scalarsOnly(store.state, scalars));
    store.state = state;
    for (const slice of slices) slice.committed(state);
  }

  /**
   * Slices loaded from the database into `target()`. A slice reads its rows synchronously, so
   * `load` is run until every table it scans has its rows fetched (a slice may scan more once
   * it has seen the first rows), then once more on them all; returns the state it filled.
   */
  private async load(
    client: pg.Client,
    slices: readonly StorageSlice[],
    target: () => State,
  ): Promise<State> {
    const fetched = new Map<string, string[][]>();
    for (;;) {
      const missing = new Set<string>();
      const rows: Rows = {
        put: () => {
          throw new Error('a slice wrote while loading');
        },
        remove: () => {
          throw new Error('a slice wrote while loading');
        },
        scan: (table) => {
          const found = fetched.get(table);
          if (!found) missing.add(table);
          return found ?? [];
        },
      };
      const state = target();
      for (const slice of slices) slice.load(rows, state, this.parse);
      if (missing.size === 0) return state;
      for (const table of missing) {
        const result = await client.query({
          text: postgres.scan(tableIn(this.tables, table)),
          rowMode: 'array',
        });
        fetched.set(table, result.rows as string[][]);
      }
    }
  }
}
