/**
 * What holds the state for every API: the state itself (replaced whole by a reset or a load),
 * the users, and the watched resources a request changed (for push notifications). Each API
 * builds its own store on this one (`ApiModule.createStore`): Calendar's adds its lookups and
 * indexes, Search Ads 360's reads its part of the state.
 */
import type { ChangeState } from './notifier.js';
import { own } from './own.js';
import type { State, StateHolder, UserRecord } from './state.js';

const NO_CHANGES: ReadonlyMap<string, ChangeState> = new Map();

export class Store implements StateHolder {
  state: State;
  /** The watched resources written by the current request, and whether they still exist. */
  readonly changes = new Map<string, ChangeState>();

  /**
   * Whether a resource (`events:<calendarId>`...) has a channel watching it: changes of others
   * are not recorded. Every change is, unless the emulator says who watches (the notifier).
   */
  watched: (key: string) => boolean = () => true;

  /**
   * Called with each user the state has not seen before, once it is in the state: each API
   * gives the user what a new account starts with (Calendar: settings and a primary calendar).
   */
  onNewUser: (user: UserRecord) => void = () => undefined;

  /** `empty` makes an empty state: the core's fields and every API's empty parts. */
  constructor(readonly empty: () => State) {
    this.state = empty();
  }

  /** Records that a watched resource changed (or is gone) in this request. */
  touch(key: string, change: ChangeState = 'exists'): void {
    if (!this.watched(key)) return;
    if (this.changes.get(key) !== 'not_exists') this.changes.set(key, change);
  }

  /** Forgets the changes recorded (no channel is open to hear of them). */
  dropChanges(): void {
    // Clearing a Map makes it a new table: only when there is something to clear.
    if (this.changes.size > 0) this.changes.clear();
  }

  /** The changes recorded since the last call. */
  drainChanges(): ReadonlyMap<string, ChangeState> {
    if (this.changes.size === 0) return NO_CHANGES;
    const out = new Map(this.changes);
    this.changes.clear();
    return out;
  }

  /** The user of an email, created on first sight (and given what each API starts one with). */
  user(email: string): UserRecord {
    const existing = own(this.state.users, email);
    if (existing) return existing;
    const user: UserRecord = { email };
    this.state.users[email] = user;
    this.onNewUser(user);
    return user;
  }
}
