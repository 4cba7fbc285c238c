/**
 * Where the state is kept, behind one interface: `StateStore`. There are three adapters.
 * - Memory, the default (`MemoryStore`, here).
 * - An embedded SQLite file, `persist` (`Persistence`, storage.ts).
 * - A PostgreSQL database that several emulators share, `store` (`SharedStore`, postgres.ts).
 *
 * The state itself is always in memory, where every request reads it (store.ts). A store opens
 * (it loads what it holds, or writes the starting state), runs each request in its turns,
 * commits what the turns changed, and closes. The server, the control plane and the CLI use
 * only this interface. `createStateStore` (wiring.ts) is the one place that picks the adapter.
 */
import type { Outcome } from './postgres-options.js';
import type { StateMark } from './slice.js';
import { changedSince, markOf } from './slice.js';
import type { StateHolder } from './state.js';

/** A commit that failed (a full disk, a read-only file): what it held stays pending in memory. */
export class StateNotSaved extends Error {
  override name = 'StateNotSaved';
}

/** What a request's handling tells its turn: whether it changed the state. */
export interface TurnEffect {
  wrote: boolean;
}

/**
 * How a request ended in its store's turn. It ran, and what it changed is held, or `failure`
 * says the commit did not hold it. With `kept`, the change stays in memory and the next commit
 * that works saves it. Without `kept`, the request was undone. Or it never ran (`ran: false`).
 */
export type TurnOutcome<T> =
  | { ran: true; value: T; failure?: Error; kept: boolean }
  | { ran: false; failure: Error };

/** What the start-up lines say of the state's beginning (the CLI's files). */
export interface StartContext {
  revision: number;
  /** The seed file given, when one was. */
  seedFile?: string;
  /** The option that gave it (`--seed`, `--seed-from`). */
  seedOption?: string;
  /** The `--state` file given, when one was. */
  stateFile?: string;
}

export interface StateStore {
  /** Where the state is kept, for messages: `memory`, the file, or the database (no password). */
  readonly where: string;
  /** It held a state when opened. That state was loaded, and the starting one was not written. */
  readonly restored: boolean;
  /**
   * Other processes keep the same state. A starting state given to every one of them is written
   * by the first to open, and ignored by the others.
   */
  readonly sharedByProcesses: boolean;
  /**
   * Loads the state the store holds. When it holds none, `initialize` makes the starting state
   * (a `--state` file, a seed), which is written before anything is answered. The starting
   * state is made once: a later call waits for the first. Without `initialize`, a store in
   * memory or a file writes nothing yet, and a shared database that holds no state is written
   * with the emulator's empty one. Throws the store's error (PersistError, SharedStoreError,
   * StateNotSaved) or initialize's.
   */
  open(initialize?: () => void): Promise<void>;
  /** The state as it is now, to tell later whether it moved. */
  mark(): StateMark;
  /** Whether the state moved since `mark` (a write, a reset or a load). */
  changedSince(mark: StateMark): boolean;
  /**
   * Runs a request's handling (`work`, synchronous) in the store's turn, and gives `done` its
   * outcome once the store holds what it changed. `threw` gets what the work threw. `read`
   * says the request only reads (GET, HEAD, OPTIONS): a hint that a shared store may run it
   * without its lock while it holds the latest state; it still commits whatever it changed.
   */
  turn<T>(
    work: (effect: TurnEffect) => T,
    done: (outcome: TurnOutcome<T>) => void,
    threw: (error: unknown) => void,
    read?: boolean,
  ): void;
  /** Runs in-process work (a seed, `invoke`) as a turn of its own: resolves once it is committed. */
  run<T>(work: () => T): Promise<Outcome<T>>;
  /** What the start-up lines say of it (nothing in memory). */
  startLines(context: StartContext): string[];
  /** Commits what is pending (a failure is told to its onError) and lets go of what it holds. */
  close(): void | Promise<void>;
}

/**
 * The turns of a store this process keeps by itself (memory, a SQLite file). A request runs as
 * soon as it is read, in the order requests come. The answers of one turn of the event loop go
 * out together after one commit (group commit). So an answer never shows a change that a
 * restart would lose: neither the request's own writes nor the writes of others it reads. When
 * the commit fails, each request that wrote gets the failure; a read that only showed the
 * change is answered as it is.
 *
 * Even in memory the answers wait for the end of the turn. Under load this is most of the
 * throughput: each write to a client that waits in its own turn has to wake it, and on a busy
 * machine waking costs more than building the answer; answers written together wake it once
 * (decision 0033). An answer waits at most for the other requests of the same turn.
 */
export class LocalTurns {
  private readonly ready: [done: (outcome: TurnOutcome<unknown>) => void, value: unknown, wrote: boolean][] =
    [];

  constructor(private readonly commit: () => void) {}

  turn<T>(
    work: (effect: TurnEffect) => T,
    done: (outcome: TurnOutcome<T>) => void,
    threw: (error: unknown) => void,
  ): void {
    const effect = { wrote: false };
    let value: T;
    try {
      value = work(effect);
    } catch (error) {
      threw(error);
      return;
    }
    if (this.ready.length === 0) setImmediate(() => this.send());
    this.ready.push([done as (outcome: TurnOutcome<unknown>) => void, value, effect.wrote]);
  }

  private send(): void {
    const ready = this.ready.splice(0);
    let failure: Error | undefined;
    try {
      this.commit();
    } catch (error) {
      failure = error as Error;
    }
    for (const [done, value, wrote] of ready)
      done(failure && wrote ? { ran: true, value, failure, kept: true } : { ran: true, value, kept: true });
  }

  /** In-process work: run, then committed at once (a failed commit is the outcome's failure). */
  run<T>(work: () => T): Promise<Outcome<T>> {
    let value: T;
    try {
      value = work();
    } catch (error) {
      return Promise.reject(error);
    }
    try {
      this.commit();
    } catch (error) {
      return Promise.resolve({ ran: true, value, failure: error as Error });
    }
    return Promise.resolve({ ran: true, value });
  }
}

/**
 * A store this process keeps by itself (memory, a SQLite file): its requests run in LocalTurns,
 * whose commit is the store's `commit`.
 */
export abstract class LocalStore {
  private readonly turns = new LocalTurns(() => this.commit());

  constructor(private readonly holder: StateHolder) {}

  /** Makes what changed since the last commit durable (nothing to do in memory); throws when it cannot. */
  abstract commit(): void;

  mark(): StateMark {
    return markOf(this.holder);
  }

  /** Whether the state moved since `mark` (a write, a reset or a load). */
  changedSince(mark: StateMark): boolean {
    return changedSince(this.holder, mark);
  }

  turn<T>(
    work: (effect: TurnEffect) => T,
    done: (outcome: TurnOutcome<T>) => void,
    threw: (error: unknown) => void,
  ): void {
    this.turns.turn(work, done, threw);
  }

  run<T>(work: () => T): Promise<Outcome<T>> {
    return this.turns.run(work);
  }
}

/** The state in memory only: nothing outlives the process. */
export class MemoryStore extends LocalStore implements StateStore {
  readonly where = 'memory';
  readonly restored = false;
  readonly sharedByProcesses = false;
  private opening: Promise<void> | undefined;

  open(initialize?: () => void): Promise<void> {
    if (!initialize) return this.opening ?? Promise.resolve();
    this.opening ??= new Promise<void>((resolve) => {
      initialize();
      resolve();
    }).catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }

  commit(): void {}

  startLines(): string[] {
    return [];
  }

  close(): void {}
}
