/**
 * The requests a shared store (core/postgres.ts) has yet to run. They wait in a queue from the
 * moment they are read; once the event loop's turn is over the store takes every request queued
 * and runs them as one batch, in one turn of its own, and so on until none is left.
 */
import type { Outcome } from './postgres-options.js';

export interface Queued {
  work: () => unknown;
  /** The request only reads (StateStore.turn's `read`). */
  read: boolean;
  resolve: (outcome: Outcome<unknown>) => void;
  reject: (error: unknown) => void;
}

/** How one request's work ended: its value, or what it threw. */
export type Done = { value: unknown } | { error: unknown };

/** Runs a batch's work, each request's alone: one that throws does not stop the others. */
export function runAll(batch: readonly Queued[]): Done[] {
  return batch.map((item) => {
    try {
      return { value: item.work() };
    } catch (error) {
      return { error };
    }
  });
}

/**
 * Tells each request of a batch that ran how it ended: its value, with `failure` when what it
 * changed was not committed; or, to its `reject`, what its work threw.
 */
export function settle(batch: readonly Queued[], done: readonly Done[], failure?: Error): void {
  batch.forEach((item, i) => {
    const result = done[i] as Done;
    if ('error' in result) item.reject(result.error);
    else item.resolve({ ran: true, value: result.value, ...(failure ? { failure } : {}) });
  });
}

/** Tells each request of a batch that it did not run. */
export function notRun(batch: readonly Queued[], failure: Error): void {
  for (const item of batch) item.resolve({ ran: false, failure });
}

export class TurnQueue {
  private readonly queue: Queued[] = [];
  private running: Promise<void> | undefined;

  /** `drain` takes batches (`take`) until the queue is empty. */
  constructor(private readonly drain: () => Promise<void>) {}

  /** Queues a request's work; resolves with how it ended, or rejects with what it threw. */
  push<T>(work: () => T, read: boolean): Promise<Outcome<T>> {
    return new Promise<Outcome<T>>((resolve, reject) => {
      this.queue.push({ work, read, resolve: resolve as (outcome: Outcome<unknown>) => void, reject });
      this.running ??= new Promise<void>((done) => setImmediate(done))
        .then(() => this.drain())
        .finally(() => {
          this.running = undefined;
        });
    });
  }

  /** Every request queued so far, taken off the queue. */
  take(): Queued[] {
    return this.queue.splice(0);
  }

  /** How many requests wait. */
  get length(): number {
    return this.queue.length;
  }

  /** Resolves once no request waits and none runs. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }
}
