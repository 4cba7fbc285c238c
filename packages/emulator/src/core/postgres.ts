/**
 * A shared store (`--store postgres://…`): several emulator processes keep one state in one
 * PostgreSQL database, with memory as each one's cache (decision 0049).
 *
 * The database is the point where the processes' requests are put in order. The requests an
 * emulator receives in one turn of the event loop are run as one transaction: it takes a
 * transaction-level advisory lock (one holder at a time, across every process), reads the shared
 * version numbers, and reloads what another process changed since this one last saw it; then the
 * handlers run on memory, synchronously, as without a store; then what they changed is written
 * (each API's `StorageSlice`, its tables made in PostgreSQL's dialect: sql.ts), the versions
 * bumped, and the transaction committed before any of the answers goes out. The writes and the
 * commit go in one round trip, many rows to a statement. So a write answered by one process
 * is seen by the next request at any other, etags, sequences, sync and page tokens, ids and
 * quota counts are one series across processes, and two writers with If-Match cannot both win.
 *
 * Besides the slices' tables, `emulator_meta` holds the state's scalars (`state`), the number of
 * the last commit that changed the state (`state_commit`), and as JSON the quota counts, the
 * rate limit's spends and the open watch channels with their message counters: each process
 * reloads those it has not seen. A channel is told of a change by the process that commits the
 * change (its messages are numbered in the transaction and sent after the commit), and a
 * stopped channel is gone from the row, so no process sends to it again.
 *
 * A turn whose transaction fails (the database unreachable, the commit refused) is answered
 * 503 whole: what it changed in memory is undone by reloading the state from the database
 * before the next request runs.
 */
import pg from 'pg';
import {
  describeStore,
  type Outcome,
  parseStoreUrl,
  type SharedParts,
  type SharedStats,
  SharedStoreError,
  type SharedStoreOptions,
} from './postgres-options.js';
import { migrateShared, parseRow, SCHEMA_LOCK, scalarsIn } from './postgres-schema.js';
import {
  type ChangedRow,
  changedSince,
  markOf,
  type ParseRow,
  type Rows,
  type StateMark,
  type StorageSlice,
  scalarsOf,
  scalarsOnly,
  type TableChanges,
  type TableSpec,
  tablesOf,
} from './slice.js';
import { keyedTable, postgres, tableIn, tableMap } from './sql.js';
import type { State } from './state.js';
import type { StartContext, StateStore, TurnEffect, TurnOutcome } from './state-store.js';

/** The advisory lock every process takes per turn: the order of all requests. */
const TURN_LOCK = 0x67_73_70_63;
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
const SHARED_KEYS = ['quota', 'access', 'rate_limit', 'channels'] as const;
type SharedKey = (typeof SHARED_KEYS)[number];

const message = (error: unknown) => (error as Error).message;
const noop = () => undefined;

interface Queued {
  work: () => unknown;
  resolve: (outcome: Outcome<unknown>) => void;
  reject: (error: unknown) => void;
}

export class SharedStore implements StateStore {
  readonly sharedByProcesses = true;
  /** Where the database is (no password), for messages. */
  readonly where: string;
  /** The database held a state when this process started (it was not made from --state or --seed). */
  restored = false;
  readonly stats: SharedStats = { commits: 0, failures: 0, reloads: 0, catchUps: 0, lastMs: 0 };

  private readonly url: string;
  private readonly onError: (message: string) => void;
  private readonly catchUpBy: 'changes' | 'reload';
  private client: pg.Client | undefined;
  private opening: Promise<void> | undefined;
  private closed = false;
  private readonly queue: Queued[] = [];
  private running: Promise<void> | undefined;
  /** The values of emulator_meta this process's memory holds (undefined: reload everything). */
  private seen = new Map<string, string>();
  /** The state as the database holds it (undefined: reload it before the next request). */
  private durable: StateMark | undefined;
  /** The slices' tables by name. */
  private readonly tables: ReadonlyMap<string, TableSpec>;

  constructor(
    private readonly parts: SharedParts,
    options: SharedStoreOptions,
  ) {
    const url = parseStoreUrl(options.url);
    this.url = options.url;
    this.where = describeStore(url);
    this.onError = options.onError ?? noop;
    this.catchUpBy = options.catchUp ?? 'changes';
    try {
      this.tables = tableMap(parts.slices);
    } catch (error) {
      throw new SharedStoreError(message(error));
    }
  }

  mark(): StateMark {
    return markOf(this.parts.store);
  }

  /** Whether the state moved since `mark` (a write, a reset or a load). */
  changedSince(mark: StateMark): boolean {
    return changedSince(this.parts.store, mark);
  }

  /** The connection, opened when there is none (the first, or the last one was lost). */
  private async connect(): Promise<pg.Client> {
    if (this.closed) throw new SharedStoreError(`the shared store ${this.where} is closed`);
    if (this.client) return this.client;
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: 15_000,
      application_name: 'gspec-emulator',
    });
    client.on('error', (error) => {
      this.onError(`The emulator lost its connection to ${this.where}: ${message(error)}`);
      this.drop(client);
    });
    try {
      await client.connect();
    } catch (error) {
      client.end().catch(noop);
      throw new SharedStoreError(`cannot connect to PostgreSQL at ${this.where}: ${message(error)}`);
    }
    this.client = client;
    return client;
  }

  /** Forgets a connection whose state is not known (a failed query): the next turn opens another. */
  private drop(client: pg.Client): void {
    if (this.client === client) this.client = undefined;
    client.end().catch(noop);
  }

  /**
   * Connects, brings the schema up to date and loads the state the database holds; when it holds
   * none, `initialize` makes the starting state (a --state file, a seed) and it is written. Done
   * under a lock, so processes started together migrate and seed once. Throws SharedStoreError.
   */
  open(initialize?: () => void): Promise<void> {
    this.opening ??= this.start(initialize).catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }

  private async start(initialize?: () => void): Promise<void> {
    const client = await this.connect();
    let starting: unknown;
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      await migrateShared(client, this.parts.slices, this.where);
      const meta = await this.readMeta(client);
      if (meta.has('state')) {
        await this.catchUp(client, meta);
        this.restored = true;
        await client.query('COMMIT');
      } else {
        try {
          initialize?.();
        } catch (error) {
          // A bad --state or seed: told as it is, nothing written.
          starting = error;
          throw error;
        }
        await client.query([...this.write(meta), 'COMMIT'].join(';\n'));
      }
    } catch (error) {
      await client.query('ROLLBACK').catch(noop);
      this.drop(client);
      this.seen.clear();
      this.durable = undefined;
      throw error instanceof SharedStoreError || error === starting
        ? error
        : new SharedStoreError(`PostgreSQL at ${this.where}: ${message(error)}`);
    }
    this.afterCommit();
  }

  private async readMeta(client: pg.Client): Promise<Map<string, string>> {
    const { rows } = await client.query<{ key: string; value: string }>(
      'SELECT key, value FROM emulator_meta',
    );
    return new Map(rows.map((row) => [row.key, row.value]));
  }

  /** A request's handling in the transaction of this turn (StateStore.turn); a failed turn is undone, not kept. */
  turn<T>(
    work: (effect: TurnEffect) => T,
    done: (outcome: TurnOutcome<T>) => void,
    threw: (error: unknown) => void,
  ): void {
    this.run(() => work({ wrote: false })).then(
      (outcome) => done(outcome.ran ? { ...outcome, kept: false } : outcome),
      threw,
    );
  }

  startLines({ revision, seedFile, seedOption, stateFile }: StartContext): string[] {
    const given =
      seedFile || stateFile ? `; it held a state already, ${seedOption} and --state not written again` : '';
    return [
      this.restored
        ? `State loaded from ${this.where} (revision ${revision})${given}`
        : `State saved to ${this.where} (new database)`,
      'Shared with every emulator on that database: each request is committed there before it is answered',
    ];
  }

  /**
   * Runs `work` (synchronous: a request's handling) in the transaction of this turn, with the
   * state up to date; resolves once the transaction committed or failed. Work that throws
   * rejects, after the commit of the others.
   */
  run<T>(work: () => T): Promise<Outcome<T>> {
    return new Promise<Outcome<T>>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (outcome: Outcome<unknown>) => void, reject });
      this.running ??= new Promise<void>((done) => setImmediate(done))
        .then(() => this.drain())
        .finally(() => {
          this.running = undefined;
        });
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) await this.transaction(this.queue.splice(0));
  }

  /** One transaction: lock, catch up, run the work of the turn, write, commit. */
  private async transaction(batch: Queued[]): Promise<void> {
    const began = performance.now();
    let client: pg.Client | undefined;
    try {
      await this.open();
      client = await this.connect();
      const results = (await client.query(
        `BEGIN; SELECT pg_advisory_xact_lock(${TURN_LOCK}); SELECT key, value FROM emulator_meta`,
      )) as unknown as pg.QueryResult<{ key: string; value: string }>[];
      const meta = new Map((results[2]?.rows ?? []).map((row) => [row.key, row.value]));
      await this.catchUp(client, meta);
    } catch (error) {
      if (client) {
        await client.query('ROLLBACK').catch(noop);
        this.drop(client);
      }
      const failure = this.failed(error, 'cannot reach');
      for (const item of batch) item.resolve({ ran: false, failure });
      return;
    }
    const { notifier } = this.parts;
    notifier.hold();
    const done = batch.map((item) => {
      try {
        return { value: item.work() };
      } catch (error) {
        return { error };
      }
    });
    let failure: SharedStoreError | undefined;
    try {
      await client.query([...this.write(), 'COMMIT'].join(';\n'));
    } catch (error) {
      await client.query('ROLLBACK').catch(noop);
      this.drop(client);
      failure = this.failed(error, 'could not commit to');
    }
    if (failure) {
      notifier.release(false);
      // Memory holds what the database does not: it is reloaded before the next request runs.
      this.seen.clear();
      this.durable = undefined;
    } else {
      this.afterCommit();
      notifier.release(true);
    }
    this.stats.lastMs = performance.now() - began;
    batch.forEach((item, i) => {
      const result = done[i] as { value?: unknown; error?: unknown };
      if ('error' in result) item.reject(result.error);
      else item.resolve({ ran: true, value: result.value, ...(failure ? { failure } : {}) });
    });
  }

  private failed(error: unknown, what: string): SharedStoreError {
    this.stats.failures += 1;
    const failure =
      error instanceof SharedStoreError
        ? error
        : new SharedStoreError(`The emulator ${what} its shared store ${this.where}: ${message(error)}`);
    this.onError(failure.message);
    return failure;
  }

  /**
   * The statements of the writes since the last commit, then the versions and shared rows, to
   * be sent as one text with the COMMIT (none when nothing changed). A slice's puts to one table
   * in a row go in one statement, a key put twice there with its last body.
   */
  private write(meta?: Map<string, string>): string[] {
    const { slices } = this.parts;
    const statements: string[] = [];
    /** The puts not yet in a statement: one table's, by key. */
    let batch: { table: TableSpec; rows: Map<string, readonly string[]> } | undefined;
    const flush = () => {
      if (batch) statements.push(postgres.putRows(batch.table, [...batch.rows.values()], literal));
      batch = undefined;
    };
    const rows: Rows = {
      put: (name, key, body) => {
        const table = keyedTable(this.tables, name, key, true);
        if (batch?.table !== table) {
          flush();
          batch = { table, rows: new Map() };
        }
        batch.rows.set(JSON.stringify(key), [...key, body]);
      },
      remove: (name, key) => {
        flush();
        statements.push(postgres.remove(keyedTable(this.tables, name, key, false), key, literal));
      },
      scan: () => {
        throw new Error('a slice read while writing');
      },
    };
    const mark = this.mark();
    if (!this.durable || this.changedSince(this.durable)) {
      const number = Number(meta?.get('state_commit') ?? this.seen.get('state_commit') ?? 0) + 1;
      const commit = String(number);
      const full = this.durable?.state !== mark.state;
      // The slice tables' triggers mark each row written with this commit.
      statements.push(
        `SELECT set_config('emulator.commit', ${literal(commit)}, true), set_config('emulator.full', ${literal(full ? 'on' : 'off')}, true)`,
      );
      if (full) {
        // Everything changed: a process behind reloads the whole state, tombstones are moot.
        for (const slice of slices) {
          for (const table of tablesOf(slice)) statements.push(`DELETE FROM ${table.name}`);
          slice.writeAll(rows, mark.state);
          flush();
        }
        statements.push('DELETE FROM emulator_deleted');
        statements.push(putMeta('state_full', commit));
      } else {
        for (const slice of slices) {
          slice.writeChanges(rows, mark.state, (this.durable as StateMark).revision);
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
      this.pendingSeen.set('state_commit', commit);
    }
    for (const key of SHARED_KEYS) {
      const text = this.save(key);
      if (text !== undefined && text !== this.seen.get(key)) {
        statements.push(putMeta(key, text));
        this.pendingSeen.set(key, text);
      }
    }
    if (statements.length > 0) this.pendingMark = mark;
    return statements;
  }

  private pendingSeen = new Map<string, string>();
  private pendingMark: StateMark | undefined;

  private afterCommit(): void {
    const { slices } = this.parts;
    if (this.pendingMark) {
      for (const slice of slices) slice.committed(this.pendingMark.state);
      this.durable = this.pendingMark;
    }
    for (const [key, value] of this.pendingSeen) this.seen.set(key, value);
    this.pendingSeen.clear();
    this.pendingMark = undefined;
    this.stats.commits += 1;
  }

  private save(key: SharedKey): string | undefined {
    const { quota, access, notifier } = this.parts;
    if (key === 'quota') return quota.save();
    if (key === 'access') return access.saveShared();
    if (key === 'rate_limit') return access.limiter?.save();
    return notifier.save();
  }

  private restore(key: SharedKey, text: string): void {
    const { quota, access, notifier } = this.parts;
    if (key === 'quota') quota.restore(text);
    else if (key === 'access') {
      // A rate limit set anew here has empty windows: the spends the row holds are restored into it.
      if (access.restoreShared(text)) this.seen.delete('rate_limit');
    } else if (key === 'rate_limit') access.limiter?.restore(text);
    else notifier.restore(text);
  }

  /** Reloads what another process (or a failed turn) left this process's memory behind on. */
  private async catchUp(client: pg.Client, meta: Map<string, string>): Promise<void> {
    this.pendingSeen.clear();
    this.pendingMark = undefined;
    const commit = meta.get('state_commit');
    const seen = this.seen.get('state_commit');
    if (!this.durable || commit !== seen) {
      if (this.canApplyChanges(meta, seen)) await this.applyChanges(client, meta, Number(seen));
      else await this.reload(client, meta);
      if (commit !== undefined) this.seen.set('state_commit', commit);
    }
    for (const key of SHARED_KEYS) {
      const text = meta.get(key);
      if (text !== undefined && text !== this.seen.get(key)) {
        try {
          this.restore(key, text);
        } catch (error) {
          throw new SharedStoreError(
            `${this.where}: emulator_meta '${key}' cannot be read (${message(error)})`,
          );
        }
        this.seen.set(key, text);
      }
    }
  }

  /**
   * Whether reading the rows written since commit `seen` brings memory up to date: memory holds
   * that commit's state and nothing else (no failed turn, no change outside a transaction), no
   * one emptied the tables since (a reset or a loaded state: `state_full`), and the tombstones
   * since then are all kept.
   */
  private canApplyChanges(meta: Map<string, string>, seen: string | undefined): boolean {
    if (this.catchUpBy === 'reload' || !this.durable || seen === undefined || this.changedSince(this.durable))
      return false;
    const since = Number(seen);
    return Number(meta.get('state_full') ?? 0) <= since && Number(meta.get('deleted_after') ?? 0) <= since;
  }

  private readonly parse: ParseRow = (body, table, key) => parseRow(this.where, body, table, key);

  /**
   * Brings memory from commit `since` to the database's: the rows written and deleted since
   * then, read in one round trip, applied by each slice (`changes`); a slice without them that
   * had a row changed is loaded again whole. Until it is done memory is marked as not the
   * database's, so a failure part way makes the next turn reload everything.
   */
  private async applyChanges(client: pg.Client, meta: Map<string, string>, since: number): Promise<void> {
    const { store, slices } = this.parts;
    const scalars = scalarsIn(meta, this.where);
    const tables = slices.flatMap(tablesOf);
    const queries = [
      `SELECT tbl, key FROM emulator_deleted WHERE written > ${Math.trunc(since)} ORDER BY id`,
      ...tables.map((table) => postgres.changedSince(table, since)),
    ];
    const answer = (await client.query(queries.join(';\n'))) as unknown as
      | pg.QueryResult<ChangedRow>
      | pg.QueryResult<ChangedRow>[];
    const results = Array.isArray(answer) ? answer : [answer];
    const deleted = (results[0]?.rows ?? []) as unknown as { tbl: string; key: ChangedRow }[];
    const changed = new Map(tables.map((table, i) => [table.name, results[i + 1]?.rows ?? []]));
    this.durable = undefined;
    Object.assign(store.state, scalars);
    for (const slice of slices) {
      const own = new Set(tablesOf(slice).map((table) => table.name));
      const gone = deleted.filter((row) => own.has(row.tbl));
      if (gone.length === 0 && [...own].every((table) => changed.get(table)?.length === 0)) continue;
      const changes = slice.changes;
      if (!changes) {
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
    this.durable = this.mark();
    this.stats.catchUps += 1;
  }

  private tableChanges(slice: StorageSlice, table: string): TableChanges {
    const changes = slice.changes?.[table];
    if (!changes)
      throw new SharedStoreError(`the ${slice.name} API cannot apply a change of its table ${table}`);
    return changes;
  }

  /** The whole state read again from the database. */
  private async reload(client: pg.Client, meta: Map<string, string>): Promise<void> {
    const { store, slices } = this.parts;
    const scalars = scalarsIn(meta, this.where);
    const state = await this.load(client, slices, () => scalarsOnly(store.state, scalars));
    store.state = state;
    for (const slice of slices) slice.committed(state);
    this.durable = this.mark();
    this.stats.reloads += 1;
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

  /** Waits for the turns under way, then closes the connection. */
  async close(): Promise<void> {
    while (this.running) await this.running;
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(noop);
  }
}
