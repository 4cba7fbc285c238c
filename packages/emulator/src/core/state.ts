/**
 * The emulator's whole state, plain JSON so that it can be dumped and loaded as it is.
 *
 * Every write takes the next `revision` of the state. Revisions order all changes: an etag is
 * made from the revision of the last write of a resource, and a sync token remembers the
 * revision it was issued at, so "what changed since" is "revision greater than the token's".
 * `epoch` changes on reset, so tokens and etags of an earlier state are never mistaken for
 * current ones.
 */
import { randomBytes } from 'node:crypto';

/** A user as the core knows one: an email. What an API keeps for a user is in its own part. */
export interface UserRecord {
  email: string;
}

/** The state's own fields, which every API shares. */
export interface CoreState {
  /** 2 since each API's part has a key of its own; a version-1 document is read too (state-file.ts). */
  version: 2;
  epoch: string;
  revision: number;
  /** The last timestamp handed out (ms since 1970): `updated` grows on every write. */
  lastTime: number;
  nextSeq: number;
  users: Record<string, UserRecord>;
}

/**
 * The whole state: the core's fields and each API's part under the API's name (`calendar`,
 * `searchads360`; `ApiModule.state`). The core reads none of the parts; each API reads its own
 * through its own types.
 */
export interface State extends CoreState {
  [part: string]: unknown;
}

/** What holds the state and may replace it (a reset, a load): the emulator's store. */
export interface StateHolder {
  state: State;
}

export function newEpoch(): string {
  return randomBytes(4).toString('hex');
}

/** A state with the core's fields and no API part (`ApiModule.state.empty` adds those). */
export function emptyCoreState(): State {
  return { version: 2, epoch: newEpoch(), revision: 0, lastTime: 0, nextSeq: 1, users: {} };
}

/** The next revision of the state; call once per written resource. */
export function nextRevision(state: CoreState): number {
  state.revision += 1;
  return state.revision;
}

/** The last time formatted, and the whole second it is in (its text up to the seconds). */
let lastIso = { time: Number.NaN, text: '', second: Number.NaN, prefix: '' };

/**
 * A time (ms since 1970) as RFC 3339 with milliseconds, as Date#toISOString writes it. Every
 * write and every list formats one, mostly in the same second as the one before: the text of
 * that second is kept and only the milliseconds are written.
 */
export function isoTime(time: number): string {
  if (time === lastIso.time) return lastIso.text;
  const second = Math.floor(time / 1000);
  if (second !== lastIso.second || !Number.isInteger(time)) {
    const text = new Date(time).toISOString();
    lastIso = { time, text, second, prefix: text.slice(0, -4) };
    return text;
  }
  const text = `${lastIso.prefix}${String(time - second * 1000).padStart(3, '0')}Z`;
  lastIso.time = time;
  lastIso.text = text;
  return text;
}

/** Now as RFC 3339 with milliseconds, always later than the previous call. */
export function now(state: CoreState): string {
  const time = Math.max(Date.now(), state.lastTime + 1);
  state.lastTime = time;
  return isoTime(time);
}

/** A quoted etag, unique across writes and across resets (the epoch is in it). */
export function etagFor(state: CoreState, revision: number): string {
  return `"${parseInt(state.epoch, 16)}${String(revision).padStart(10, '0')}"`;
}
