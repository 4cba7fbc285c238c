/**
 * A shared store (`--store postgres://…`): several emulator processes keep one state in one
 * PostgreSQL database, with memory as each one's cache (decision 0049).
 *
 * The database is the point where the processes' writes are put in order. The requests an
 * emulator receives in one turn of the event loop are run as one transaction: it takes a
 * transaction-level advisory lock (one holder at a time, across every process), reads the shared
 * version numbers, and catches up with what another process changed since this one last saw it
 * (postgres-catch-up.ts); then the handlers run on memory, synchronously, as without a store;
 * then what they changed is written (postgres-commit.ts: each API's `StorageSlice`, many rows
 * to a statement, in PostgreSQL's dialect), the versions bumped, and the transaction committed,
 * in one round trip, before any of the answers goes out. So a write answered by one process is
 * seen by the next request at any other, etags, sequences, sync and page tokens, ids and quota
 * counts are one series across processes, and two writers with If-Match cannot both win.
 *
 * A turn of requests that only read takes no lock while memory is current: one round trip
 * learns that no process committed since, the requests run on memory, and their calls are added
 * to the quota's counts in place (decision 0065).
 *
 * Besides the slices' tables, `emulator_meta` holds the state's scalars (`state`), the number of
 * the last commit that changed the state (`state_commit`), and as JSON the rate limit's
 * setting and spends and the open watch channels with their message counters: each process
 * reloads those it has not seen; `emulator_quota` holds the quota's counts. A channel is told of
 * a change by the process that commits the change (its messages are numbered in the transaction
 * and sent after the commit), and a stopped channel is gone from the row, so no process sends to
 * it again.
 *
 * A turn whose transaction fails (the database unreachable, the commit refused) is answered
 * 503 whole: what it changed in memory is undone by reloading the state from the database
 * before the next request runs.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { SharedLoader, type SharedMemory } from './postgres-catch-up.js';
import { type CommitPlan, planCommit, SHARED_KEYS, sharedText } from './postgres-commit.js';
import { SharedConnection } from './postgres-connection.js';
import {
  describeStore,
  type Outcome,
  parseStoreUrl,
  type SharedParts,
  type SharedStats,
  SharedStoreError,
  type SharedStoreOptions,
} from './postgres-options.js';
import { migrateShared, QUOTA_QUERY, quotaRows, quotaWrites, SCHEMA_LOCK } from './postgres-schema.js';
import { type Done, notRun, type Queued, runAll, settle, TurnQueue } from './postgres-turns.js';
import { changedSince, markOf, type StateMark, type TableSpec } from './slice.js';
import { tableMap } from './sql.js';
import type { StartContext, StateStore, TurnEffect, TurnOutcome } from './state-store.js';

/** The advisory lock every process takes per turn that writes: the order of all writes. */
export const TURN_LOCK = 0x67_73_70_63;

/** What a turn reads first: the versions and shared rows, and the quota's counts. */
const READ_SHARED = `SELECT key, value FROM emulator_meta; ${QUOTA_QUERY}`;

const message = (error: unknown) => (error as Error).message;
const noop = () => undefined;
const metaOf = (result: pg.QueryResult | undefined) =>
  new Map((result?.rows ?? []).map((row: { key: string; value: string }) => [row.key, row.value]));

/** A read turn's answers, held until its calls are added to the quota's counts (`writes`). */
interface Held {
  batch: Queued[];
  done: Done[];
  writes: string[];
  began: number;
}

export class SharedStore implements StateStore {
  readonly sharedByProcesses = true;
  /** Where the database is (no password), for messages. */
  readonly where: string;
  /** The database held a state when this process started (it was not made from --state or --seed). */
  restored = false;
  readonly stats: SharedStats = { commits: 0, reads: 0, failures: 0, reloads: 0, catchUps: 0, lastMs: 0 };

  private readonly onError: (message: string) => void;
  private readonly connection: SharedConnection;
  private opening: Promise<void> | undefined;
  private readonly turns = new TurnQueue(() => this.drain());
  /** What memory holds of the database's: the rows of emulator_meta, the state. */
  private readonly memory: SharedMemory = { seen: new Map(), durable: undefined };
  /**
   * Another process committed before this one's last turn: the next turn asks for the rows
   * written since with its lock, in the same round trip.
   */
  private othersWrite = false;
  /** What the commit under way makes the database hold (`write`), memory's once it is done. */
  private pending: CommitPlan | undefined;
  private readonly loader: SharedLoader;
  /** This process's name among the counters of the quota (`quotaWrites`). */
  private readonly process = randomUUID();
  /** The slices' tables by name. */
  private readonly tables: ReadonlyMap<string, TableSpec>;

  constructor(
    private readonly parts: SharedParts,
    options: SharedStoreOptions,
  ) {
    const url = parseStoreUrl(options.url);
    this.where = describeStore(url);
    this.onError = options.onError ?? noop;
    this.connection = new SharedConnection(options.url, this.where, this.onError);
    try {
      this.tables = tableMap(parts.slices);
    } catch (error) {
      throw new SharedStoreError(message(error));
    }
    parts.quota.track();
    this.loader = new SharedLoader(parts, this.tables, this.where, options.catchUp ?? 'changes');
  }

  mark(): StateMark {
    return markOf(this.parts.store);
  }

  /** Whether the state moved since `mark` (a write, a reset or a load). */
  changedSince(mark: StateMark): boolean {
    return changedSince(this.parts.store, mark);
  }

  /** Memory holds nothing the database does not: it is read again before the next request runs. */
  private forget(): void {
    this.memory.seen.clear();
    this.memory.durable = undefined;
    this.pending = undefined;
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
    const client = await this.connection.get();
    let starting: unknown;
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      await migrateShared(client, this.parts.slices, this.where);
      const answers = (await client.query(READ_SHARED)) as unknown as pg.QueryResult[];
      const meta = metaOf(answers[0]);
      if (meta.has('state')) {
        this.pending = undefined;
        this.othersWrite = await this.loader.catchUp(client, this.memory, this.stats, meta, answers[1]);
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
      await this.connection.abandon(client);
      this.forget();
      throw error instanceof SharedStoreError || error === starting
        ? error
        : new SharedStoreError(`PostgreSQL at ${this.where}: ${message(error)}`);
    }
    this.afterCommit();
  }

  /**
   * A request's handling in a turn of this store (StateStore.turn); a failed turn is undone, not
   * kept. A request that only `read`s may run without the turn lock (`readTurn`).
   */
  turn<T>(
    work: (effect: TurnEffect) => T,
    done: (outcome: TurnOutcome<T>) => void,
    threw: (error: unknown) => void,
    read = false,
  ): void {
    this.turns
      .push(() => work({ wrote: false }), read)
      .then((outcome) => done(outcome.ran ? { ...outcome, kept: false } : outcome), threw);
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
    return this.turns.push(work, false);
  }

  private async drain(): Promise<void> {
    let held: Held | undefined;
    while (this.turns.length > 0 || held) {
      const batch = this.turns.take();
      const { durable } = this.memory;
      // With a rate limit every request spends from the shared windows: those turns take the lock.
      const free =
        batch.length > 0 &&
        durable !== undefined &&
        !this.changedSince(durable) &&
        this.parts.access.limiter === undefined &&
        batch.every((item) => item.read);
      if (free) {
        held = await this.readTurn(batch, held);
        continue;
      }
      if (held) await this.countAlone(held);
      held = undefined;
      if (batch.length > 0) await this.transaction(batch);
    }
  }

  /** Runs a batch's work; the notifier holds what it tells until `release`. */
  private runAll(batch: Queued[]): Done[] {
    this.parts.notifier.hold();
    return runAll(batch);
  }

  private settle(batch: Queued[], done: Done[], failure: SharedStoreError | undefined, began: number): void {
    this.stats.lastMs = performance.now() - began;
    settle(batch, done, failure);
  }

  private unreachable(batch: Queued[], client: pg.Client | undefined, error: unknown): void {
    if (client) this.connection.drop(client);
    notRun(batch, this.failed(error, 'cannot reach'));
  }

  /**
   * A turn of requests that only read, while memory holds the last commit this process knows:
   * one round trip without the lock reads the versions. If no process committed since, the
   * requests run on memory as it is (the answer a turn with the lock would have given at that
   * moment), and their calls are added to the quota's counts in place; their answers wait for
   * that. When more requests wait, the counts go with the next turn's first round trip (the
   * turn is returned, `held`, and `held` given here is that of the turn before). If a process
   * committed, the turn takes the lock and catches up (`transaction`). A request that wrote
   * after all (say a first call that makes a user's calendar) is committed with the lock when
   * no process committed meanwhile; otherwise memory is read again and the turn runs again.
   */
  private async readTurn(batch: Queued[], held: Held | undefined): Promise<Held | undefined> {
    const began = performance.now();
    let client: pg.Client | undefined;
    let answers: pg.QueryResult[];
    const counts = held?.writes ?? [];
    try {
      client = await this.connection.get();
      answers = (await client.query([...counts, READ_SHARED].join(';\n'))) as unknown as pg.QueryResult[];
    } catch (error) {
      if (client) this.connection.drop(client);
      const failure = this.failed(error, 'cannot reach');
      // The turn before ran, but its calls were not counted: its answers are 503s too.
      if (held) this.settle(held.batch, held.done, failure, held.began);
      notRun(batch, failure);
      return undefined;
    }
    if (held) this.settle(held.batch, held.done, undefined, held.began);
    const meta = metaOf(answers[counts.length]);
    if (!this.current(meta)) {
      await this.transaction(batch);
      return undefined;
    }
    const { quota, notifier } = this.parts;
    quota.restore(quotaRows(answers[counts.length + 1]));
    const done = this.runAll(batch);
    if (this.changedSince(this.memory.durable as StateMark) || this.sharedChanged()) {
      await this.commitRead(client, batch, done, meta, began);
      return undefined;
    }
    notifier.release(true);
    this.stats.reads += 1;
    const writes = quotaWrites(this.process, quota.take());
    const turn = { batch, done, writes, began };
    if (writes.length > 0 && this.turns.length > 0) return turn;
    await this.countAlone(turn);
    return undefined;
  }

  /** Adds a read turn's calls to the quota's counts in a round trip of their own, then answers. */
  private async countAlone(turn: Held): Promise<void> {
    let failure: SharedStoreError | undefined;
    let client: pg.Client | undefined;
    try {
      client = await this.connection.get();
      if (turn.writes.length > 0) await client.query(turn.writes.join(';\n'));
    } catch (error) {
      if (client) this.connection.drop(client);
      failure = this.failed(error, 'could not count the quota in');
    }
    this.settle(turn.batch, turn.done, failure, turn.began);
  }

  /**
   * A turn run without the lock that wrote: committed with the lock if no process committed
   * since it read the versions (`meta`); otherwise memory is read again and it runs again.
   */
  private async commitRead(
    client: pg.Client,
    batch: Queued[],
    done: Done[],
    meta: Map<string, string>,
    began: number,
  ): Promise<void> {
    let failure: SharedStoreError | undefined;
    try {
      const locked = (await client.query(
        `BEGIN; SELECT pg_advisory_xact_lock(${TURN_LOCK}); SELECT key, value FROM emulator_meta`,
      )) as unknown as pg.QueryResult[];
      if (!this.current(metaOf(locked[2]))) {
        await client.query('ROLLBACK');
        this.parts.notifier.release(false);
        this.forget();
        return this.transaction(batch);
      }
      await client.query([...this.write(meta), 'COMMIT'].join(';\n'));
    } catch (error) {
      await this.connection.abandon(client);
      failure = this.failed(error, 'could not commit to');
    }
    this.finish(failure);
    this.settle(batch, done, failure, began);
  }

  /** Whether memory holds what `meta` says the database does: no process committed since. */
  private current(meta: Map<string, string>): boolean {
    return (
      this.memory.durable !== undefined &&
      meta.get('state_commit') === this.memory.seen.get('state_commit') &&
      SHARED_KEYS.every((key) => meta.get(key) === this.memory.seen.get(key))
    );
  }

  /** One transaction: lock, catch up, run the work of the turn, write, commit. */
  private async transaction(batch: Queued[]): Promise<void> {
    const began = performance.now();
    let client: pg.Client | undefined;
    try {
      await this.open();
      client = await this.connection.get();
      // When others are writing, the rows written since this process's last commit are asked
      // for in the same round trip as the lock: what they read is what the lock let in.
      const since =
        this.othersWrite &&
        this.memory.durable &&
        !this.changedSince(this.memory.durable) &&
        this.memory.seen.get('state_commit');
      const answers = (await client.query(
        `BEGIN; SELECT pg_advisory_xact_lock(${TURN_LOCK}); ${READ_SHARED}${since ? `;\n${this.loader.changesQuery(Number(since))}` : ''}`,
      )) as unknown as pg.QueryResult[];
      const changes = since ? { since: Number(since), answers: answers.slice(4) } : undefined;
      this.pending = undefined;
      this.othersWrite = await this.loader.catchUp(
        client,
        this.memory,
        this.stats,
        metaOf(answers[2]),
        answers[3],
        changes,
      );
    } catch (error) {
      if (client) await this.connection.abandon(client);
      this.unreachable(batch, undefined, error);
      return;
    }
    const done = this.runAll(batch);
    let failure: SharedStoreError | undefined;
    try {
      await client.query([...this.write(), 'COMMIT'].join(';\n'));
    } catch (error) {
      await this.connection.abandon(client);
      failure = this.failed(error, 'could not commit to');
    }
    this.finish(failure);
    this.settle(batch, done, failure, began);
  }

  /** After a turn's commit, or its failure: then memory holds what the database does not. */
  private finish(failure: SharedStoreError | undefined): void {
    if (failure) {
      this.parts.notifier.release(false);
      this.forget();
    } else {
      this.afterCommit();
      this.parts.notifier.release(true);
    }
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

  /** The statements of the turn's commit (planCommit), kept to apply once it is committed. */
  private write(meta?: Map<string, string>): string[] {
    this.pending = planCommit(this.parts, this.tables, {
      durable: this.memory.durable,
      mark: this.mark(),
      last: Number(meta?.get('state_commit') ?? this.memory.seen.get('state_commit') ?? 0),
      process: this.process,
      seen: this.memory.seen,
    });
    return this.pending.statements;
  }

  /** Whether memory holds a shared row other than the database's. */
  private sharedChanged(): boolean {
    return SHARED_KEYS.some((key) => {
      const text = sharedText(this.parts, key);
      return text !== undefined && text !== this.memory.seen.get(key);
    });
  }

  private afterCommit(): void {
    const { pending } = this;
    if (pending?.mark) {
      for (const slice of this.parts.slices) slice.committed(pending.mark.state);
      this.memory.durable = pending.mark;
    }
    for (const [key, value] of pending?.seen ?? []) this.memory.seen.set(key, value);
    this.pending = undefined;
    this.stats.commits += 1;
  }

  /** Waits for the turns under way, then closes the connection. */
  async close(): Promise<void> {
    await this.turns.idle();
    await this.connection.close();
  }
}
