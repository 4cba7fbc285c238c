/**
 * Durable state (`--persist FILE`): the whole state (`store.state`, every API's part of it) is
 * kept in one file, as `GET /__emulator/state` dumps it.
 *
 * Each save is a snapshot: the state is serialised at once (so it is consistent), written to
 * `FILE.tmp` beside FILE, flushed to disk, renamed over FILE and the directory flushed. A
 * rename is atomic, so FILE always holds one whole snapshot, the previous or the new one,
 * whenever the process dies. A request that changed the state is answered only once a
 * snapshot holding its change is on disk, and so is one that only shows changes not saved yet
 * (their etags and tokens must survive a restart); requests that arrive while a snapshot is
 * being written share the next one (group commit). With everything saved, nothing waits.
 * See docs/decisions/0031-durable-state-as-snapshots.md.
 */
import { lstatSync, readFileSync, rmSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { State } from './state.js';
import type { Store } from './store.js';

export interface PersistOptions {
  /** The file the state is kept in; loaded at start when it exists. */
  file: string;
  /** Told of each failed save (the requests that waited for it are answered 503). */
  onError?: (message: string) => void;
}

/** A file that cannot be loaded or a temporary file that cannot be removed, at start. */
export class PersistError extends Error {
  override name = 'PersistError';
}

/** Which state a save holds: the object (reset and load replace it) and its revision. */
export interface StateMark {
  state: State;
  revision: number;
}

export interface PersistStats {
  /** Snapshots written and renamed into place. */
  saves: number;
  failures: number;
  /** Size and duration (serialise, write, flush, rename) of the last snapshot written. */
  lastBytes: number;
  lastMs: number;
}

const noop = () => undefined;

const same = (a: StateMark | undefined, b: StateMark): boolean =>
  a !== undefined && a.state === b.state && a.revision === b.revision;

/** The temporary file a snapshot is written to before it is renamed over `file`. */
export const tempFileOf = (file: string): string => `${file}.tmp`;

export class Persistence {
  readonly file: string;
  readonly temp: string;
  /** The state was read from the file at start (it existed). */
  readonly restored: boolean;
  /** A temporary file left by an interrupted save was found at start and removed. */
  readonly removedTemp: boolean;
  readonly stats: PersistStats = { saves: 0, failures: 0, lastBytes: 0, lastMs: 0 };

  /** What the file holds, once known. */
  private durable: StateMark | undefined;
  /** The snapshot being written. */
  private writing: { mark: StateMark; done: Promise<void> } | undefined;
  /** The snapshot to write once the current one is done, shared by every request waiting for it. */
  private next: Promise<void> | undefined;
  private readonly onError: (message: string) => void;

  /**
   * Loads `options.file` into the store when it exists (checked with `check`); a file that
   * fails to load throws PersistError naming it and is left untouched.
   */
  constructor(
    private readonly store: Store,
    check: (value: unknown) => State,
    options: PersistOptions,
  ) {
    this.file = options.file;
    this.temp = tempFileOf(options.file);
    this.onError = options.onError ?? noop;
    this.removedTemp = removeLeftover(this.temp);
    const text = readIfExists(this.file);
    this.restored = text !== undefined;
    if (text === undefined) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new PersistError(`${this.file}: not valid JSON (${(error as Error).message})`);
    }
    try {
      store.state = check(value);
    } catch (error) {
      throw new PersistError(`${this.file}: ${(error as Error).message}`);
    }
    this.durable = this.mark();
  }

  mark(): StateMark {
    return { state: this.store.state, revision: this.store.state.revision };
  }

  /** Whether the state moved since `mark` (a write, a reset or a load). */
  changedSince(mark: StateMark): boolean {
    return !same(mark, this.mark());
  }

  /** Whether the file holds the state as it is now. */
  isDurable(): boolean {
    return same(this.durable, this.mark());
  }

  /**
   * Resolves once the state as it is now is in the file: at once when it already is, with
   * the snapshot being written when that one holds it, else with the next snapshot. Rejects
   * when that snapshot cannot be written (the state stays in memory; a later save retries).
   */
  flush(): Promise<void> {
    const mark = this.mark();
    if (same(this.durable, mark)) return Promise.resolve();
    if (!this.writing) return this.save(mark);
    if (same(this.writing.mark, mark)) return this.writing.done;
    this.next ??= this.writing.done.then(noop, noop).then(() => {
      this.next = undefined;
      return this.flush();
    });
    return this.next;
  }

  private save(mark: StateMark): Promise<void> {
    const began = performance.now();
    let text: string;
    try {
      // Serialised at once, before any await: the snapshot is the state as of `mark`.
      text = JSON.stringify(mark.state);
    } catch (error) {
      return Promise.reject(this.failed(error));
    }
    const done = this.write(text).then(
      () => {
        this.writing = undefined;
        this.durable = mark;
        this.stats.saves += 1;
        this.stats.lastBytes = Buffer.byteLength(text);
        this.stats.lastMs = performance.now() - began;
      },
      (error: unknown) => {
        this.writing = undefined;
        throw this.failed(error);
      },
    );
    this.writing = { mark, done };
    return done;
  }

  private failed(error: unknown): Error {
    this.stats.failures += 1;
    const failure = new Error(
      `The emulator could not save the state to ${this.file}: ${(error as Error).message}`,
    );
    this.onError(failure.message);
    return failure;
  }

  private async write(text: string): Promise<void> {
    try {
      const handle = await open(this.temp, 'w');
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(this.temp, this.file);
    } catch (error) {
      // The file is untouched; a half-written temporary file must not linger.
      await rm(this.temp, { force: true }).catch(noop);
      throw error;
    }
    await syncDirectory(path.dirname(path.resolve(this.file)));
  }
}

/** Flushes a directory, so that a rename in it survives a power cut; Windows cannot, and needs not. */
async function syncDirectory(directory: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The file's text, undefined when there is no such file. */
function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new PersistError(`${file}: cannot read (${(error as Error).message})`);
  }
}

/**
 * Removes the temporary file of a save that was interrupted (the process died before the
 * rename). It is never needed: no request was answered before its snapshot was renamed.
 */
function removeLeftover(temp: string): boolean {
  if (!lstatSync(temp, { throwIfNoEntry: false })) return false;
  try {
    rmSync(temp);
  } catch (error) {
    throw new PersistError(
      `${temp}: cannot remove this leftover of an interrupted save (${(error as Error).message})`,
    );
  }
  return true;
}
