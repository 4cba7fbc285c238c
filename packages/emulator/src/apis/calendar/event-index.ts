/**
 * A time index of one calendar's events, so that events.list with timeMin/timeMax looks at
 * the events near the window instead of every event of the calendar.
 *
 * Single events with a start and an end are kept sorted by start; a window [min, max) needs
 * those that start before max and end after min, which are among those starting in
 * [min - longest duration, max): two binary searches. Recurring events (whose instances can
 * fall anywhere) and events without both times are always candidates. The index holds ids and
 * times only; the records are read from the calendar's events, so a status change (cancel,
 * clear) needs no update. A write that changes an event's times or adds an event must call
 * `update` (storeEvent and cancelEvent do); the index of a replaced events object (a reset,
 * a loaded state, a deleted calendar) is simply never used again.
 *
 * Candidates are a superset of the events in the window: the caller still filters them.
 *
 * Both indexes place times by `instantOfEventTime` (time.ts) in the zone of their calendar,
 * given when they are built: an all-day date is its midnight there. The store builds an index
 * again when the calendar's zone is no longer the one it was built in (Store.timeIndex).
 */
import { own } from '../../core/own.js';
import { isObject, type JsonObject } from '../../core/spec.js';
import type { EventRecord } from './records.js';
import { instantOfEventTime } from './time.js';
import { compare, type SortKey } from './tokens.js';

/** A start or end as milliseconds, placed in the calendar's zone; undefined when it names no instant. */
function instantOf(value: unknown, zone: string): number | undefined {
  if (!isObject(value)) return undefined;
  const time = instantOfEventTime(value, zone);
  return Number.isFinite(time) ? time : undefined;
}

type Placement = { kind: 'timed'; start: number; end: number } | { kind: 'always' };

function placementOf(event: JsonObject, zone: string): Placement {
  const recurrence = event.recurrence;
  if (Array.isArray(recurrence) && recurrence.length > 0) return { kind: 'always' };
  const start = instantOf(event.start, zone);
  const end = instantOf(event.end, zone);
  if (start === undefined || end === undefined) return { kind: 'always' };
  return { kind: 'timed', start, end };
}

export class EventTimeIndex {
  /** Timed events sorted by start, then id. */
  private starts: number[] = [];
  private ids: string[] = [];
  private readonly placed = new Map<string, Placement>();
  private readonly always = new Set<string>();
  /** The longest duration ever placed: a bound, never lowered until a rebuild. */
  private longest = 0;

  /** `zone`: the calendar's time zone, where its all-day dates are placed. */
  constructor(
    events: Record<string, EventRecord>,
    readonly zone: string,
  ) {
    const timed: { start: number; id: string }[] = [];
    for (const [id, record] of Object.entries(events)) {
      const placement = placementOf(record.resource, zone);
      this.placed.set(id, placement);
      if (placement.kind === 'always') this.always.add(id);
      else {
        timed.push({ start: placement.start, id });
        this.longest = Math.max(this.longest, placement.end - placement.start);
      }
    }
    timed.sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.starts = timed.map((t) => t.start);
    this.ids = timed.map((t) => t.id);
  }

  /** How many events the index holds. */
  get size(): number {
    return this.placed.size;
  }

  /** The first position whose (start, id) is not before (start, id). */
  private position(start: number, id: string): number {
    let low = 0;
    let high = this.starts.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const s = this.starts[mid] as number;
      if (s < start || (s === start && (this.ids[mid] as string) < id)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The first position whose start is at or after `start`. */
  private firstAtOrAfter(start: number): number {
    let low = 0;
    let high = this.starts.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.starts[mid] as number) < start) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private remove(id: string): void {
    const placement = this.placed.get(id);
    if (!placement) return;
    this.placed.delete(id);
    if (placement.kind === 'always') {
      this.always.delete(id);
      return;
    }
    const at = this.position(placement.start, id);
    if (this.ids[at] === id) {
      this.starts.splice(at, 1);
      this.ids.splice(at, 1);
    }
  }

  /** Puts (or moves) an event after a write; `undefined` takes it out. */
  update(id: string, event: JsonObject | undefined): void {
    const before = this.placed.get(id);
    const after = event ? placementOf(event, this.zone) : undefined;
    if (
      before &&
      after &&
      before.kind === after.kind &&
      (before.kind === 'always' ||
        (after.kind === 'timed' && before.start === after.start && before.end === after.end))
    )
      return;
    this.remove(id);
    if (!after) return;
    this.placed.set(id, after);
    if (after.kind === 'always') {
      this.always.add(id);
      return;
    }
    this.longest = Math.max(this.longest, after.end - after.start);
    const at = this.position(after.start, id);
    this.starts.splice(at, 0, after.start);
    this.ids.splice(at, 0, id);
  }

  /**
   * The ids of the events that may overlap [min, max) (either bound may be missing): every
   * timed event that does, and every recurring or untimed event.
   */
  candidates(min?: number, max?: number): string[] {
    const from = min === undefined ? 0 : this.firstAtOrAfter(min - this.longest);
    const to = max === undefined ? this.starts.length : this.firstAtOrAfter(max);
    const out: string[] = [];
    for (let i = from; i < to; i++) {
      const id = this.ids[i] as string;
      if (min !== undefined) {
        const placement = this.placed.get(id) as { kind: 'timed'; end: number };
        if (placement.end <= min) continue;
      }
      out.push(id);
    }
    for (const id of this.always) out.push(id);
    return out;
  }
}

/**
 * The events of one calendar in events.list's default order (`creationOrder`), so that a page of a list without a time window is read from its
 * position on instead of sorting every event for every page. Like the time index, it is built
 * on first use and told of every event write (`update`); it holds ids and keys only.
 */
/**
 * The default order of events.list: creation, then start, then id (instances share their
 * recurring event's seq). A time that cannot be read counts as 0, so the order stays total.
 * `zone` is the calendar's, where all-day dates are placed.
 */
export const creationOrder = (event: EventRecord, zone: string): SortKey => [
  event.seq,
  instantOf(event.resource.start, zone) ?? 0,
  event.id,
];

export class EventOrderIndex {
  /** Keys in order, and the id of each. */
  private keys: SortKey[] = [];
  private ids: string[] = [];
  private readonly keyOfId = new Map<string, SortKey>();

  private readonly keyOf = (record: EventRecord): SortKey => creationOrder(record, this.zone);

  /** `zone`: the calendar's time zone, where its all-day dates are placed. */
  constructor(
    private readonly events: Record<string, EventRecord>,
    readonly zone: string,
  ) {
    const entries = Object.values(events).map((record) => ({
      id: record.id,
      key: creationOrder(record, zone),
    }));
    entries.sort((a, b) => compare(a.key, b.key));
    for (const { id, key } of entries) {
      this.keys.push(key);
      this.ids.push(id);
      this.keyOfId.set(id, key);
    }
  }

  /** The first position whose key is after `key` (or not before it, with `orEqual`). */
  private position(key: SortKey, orEqual = false): number {
    let low = 0;
    let high = this.keys.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const order = compare(this.keys[mid] as SortKey, key);
      if (order < 0 || (order === 0 && !orEqual)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The key of an event in the index (its creationOrder when it was last told of it). */
  keyFor(id: string): SortKey | undefined {
    return this.keyOfId.get(id);
  }

  /** Puts (or moves) an event after a write; `undefined` takes it out. */
  update(id: string, record: EventRecord | undefined): void {
    const before = this.keyOfId.get(id);
    const after = record ? this.keyOf(record) : undefined;
    if (before && after && compare(before, after) === 0) return;
    if (before) {
      const at = this.position(before, true);
      if (this.ids[at] === id) {
        this.keys.splice(at, 1);
        this.ids.splice(at, 1);
      }
      this.keyOfId.delete(id);
    }
    if (!after) return;
    const at = this.position(after);
    this.keys.splice(at, 0, after);
    this.ids.splice(at, 0, id);
    this.keyOfId.set(id, after);
  }

  /**
   * Visits the events in key order, from the first one whose key is after `after`, until
   * `visit` returns false. (A callback rather than a generator: a page is read on every list
   * request, and resuming a generator for each event cost more than the rest of the page.)
   */
  each(after: SortKey | undefined, visit: (record: EventRecord) => boolean): void {
    const { ids, events } = this;
    for (let i = after ? this.position(after) : 0; i < ids.length; i++) {
      const record = own(events, ids[i] as string);
      if (record !== undefined && !visit(record)) return;
    }
  }
}
