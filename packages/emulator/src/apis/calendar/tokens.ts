/**
 * Page tokens and sync tokens, and the paging of every list.
 *
 * Both tokens are opaque to clients: base64url JSON. A page token holds a cursor (the sort key
 * of the last item sent) and the revision the listing started at. Items written after the listing started are left out of its later pages and
 * come with the next sync instead, so paging while others write never skips nor repeats.
 * A sync token holds the revision it was issued at; it is bound to one list (its scope) and to
 * the state's epoch, so a token of another calendar or of a state before a reset gets 410.
 */
import { refusal, refuse } from '../../core/errors.js';
import type { State } from '../../core/state.js';

/** The lists that page (and, but instances, sync) with these tokens. */
const LISTS = ['events.list', 'events.instances', 'calendarList.list', 'acl.list', 'settings.list'];

/** Calendar's 410: a sync token of an earlier state, or one too old, means starting over. */
export const FULL_SYNC_REQUIRED = refusal({
  id: 'calendar.fullSyncRequired',
  scope: 'calendar',
  operations: ['events.list', 'calendarList.list', 'acl.list', 'settings.list'],
  status: 410,
  reason: 'fullSyncRequired',
  domain: 'calendar',
  when: 'a `syncToken` the list did not issue: malformed, of another list, from before a reset, or past the state',
  evidence: ['fact:conventions:errors/reasons/fullSyncRequired', 'decision:0055'],
});

/** A page token that is none of this list's. */
export const INVALID_PAGE_TOKEN = refusal({
  id: 'calendar.invalidPageToken',
  scope: 'calendar',
  operations: LISTS,
  status: 400,
  reason: 'invalid',
  location: 'pageToken',
  when: 'a `pageToken` the list did not issue: malformed, of another list, or from before a reset',
  evidence: ['fact:conventions:guides/errors/badRequestWhen/invalidValue', 'decision:0055'],
});

const fullSyncRequired = () =>
  refuse(FULL_SYNC_REQUIRED, 'Sync token is no longer valid, a full sync is required.');

export type SortKey = (number | string)[];

interface PageCursor {
  s: string;
  e: string;
  u: number;
  since?: number;
  after: SortKey;
}

interface SyncCursor {
  s: string;
  e: string;
  r: number;
}

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function decode(token: string): unknown {
  try {
    return JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The order of sort keys: element by element, a shorter key first on a tie. */
export function compare(a: SortKey, b: SortKey): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** The revision a sync token was issued at; unknown, foreign or stale tokens get 410. */
export function readSyncToken(state: State, token: string, scope: string): number {
  const cursor = decode(token) as Partial<SyncCursor> | undefined;
  if (
    !cursor ||
    cursor.s !== scope ||
    cursor.e !== state.epoch ||
    typeof cursor.r !== 'number' ||
    cursor.r > state.revision
  )
    throw fullSyncRequired();
  return cursor.r;
}

export interface PageRequest<T> {
  state: State;
  /** What the list is of, such as `events:<calendarId>`; tokens of another list are refused. */
  scope: string;
  /** Every item that matches the query, deleted ones included if the query wants them. */
  items: T[];
  revisionOf(item: T): number;
  keyOf(item: T): SortKey;
  maxResults: number;
  pageToken?: string;
  /** The revision of the sync token, when the list is an incremental sync. */
  since?: number;
  /**
   * The other parameters of the request (`fingerprint`). No longer checked against the
   * token's first page (decision 0055); kept so that the lists that pass it need no change.
   */
  fingerprint?: string;
}

export interface Page<T> {
  items: T[];
  nextPageToken?: string;
  nextSyncToken?: string;
}

/** Where a list request starts: the whole list, or after the last item of the page before. */
interface Position {
  /** Items written after this revision are left out (they come with the next sync). */
  upTo: number;
  since: number | undefined;
  after: SortKey | undefined;
}

function positionOf<T>(request: Omit<PageRequest<T>, 'items'>): Position {
  const { state, scope } = request;
  if (request.pageToken === undefined)
    return { upTo: state.revision, since: request.since, after: undefined };
  const cursor = decode(request.pageToken) as Partial<PageCursor> | undefined;
  if (!cursor || cursor.s !== scope || cursor.e !== state.epoch || !Array.isArray(cursor.after))
    throw refuse(
      INVALID_PAGE_TOKEN,
      'Invalid value for parameter pageToken: not a page token of this list (or of a state before a reset)',
      {
        location: 'pageToken',
      },
    );
  // The other parameters should be those of the first page (Google's paging guide repeats the
  // request with the token); a page asked with others is served under them, from the token's
  // place: the service states no refusal for it (decision 0055).
  return { upTo: cursor.u ?? state.revision, since: cursor.since, after: cursor.after };
}

/** The page's answer: a page token after its last item when more follow, else a sync token. */
function pageOf<T>(
  request: Omit<PageRequest<T>, 'items'>,
  position: Position,
  items: T[],
  more: boolean,
): Page<T> {
  const { state, scope } = request;
  const last = items[items.length - 1];
  if (more && last !== undefined) {
    const cursor: PageCursor = {
      s: scope,
      e: state.epoch,
      u: position.upTo,
      // Only the last item's key is needed: the next page starts after it.
      after: request.keyOf(last),
    };
    if (position.since !== undefined) cursor.since = position.since;
    return { items, nextPageToken: encode(cursor) };
  }
  const sync: SyncCursor = { s: scope, e: state.epoch, r: position.upTo };
  return { items, nextSyncToken: encode(sync) };
}

const written = <T>(request: Omit<PageRequest<T>, 'items'>, position: Position, item: T): boolean => {
  const revision = request.revisionOf(item);
  return revision <= position.upTo && (position.since === undefined || revision > position.since);
};

export function paginate<T>(request: PageRequest<T>): Page<T> {
  const position = positionOf(request);
  const { after } = position;
  const sorted = request.items
    .filter((item) => written(request, position, item))
    .map((item) => ({ item, key: request.keyOf(item) }))
    .sort((a, b) => compare(a.key, b.key));
  const remaining = after ? sorted.filter((entry) => compare(entry.key, after) > 0) : sorted;
  const page = remaining.slice(0, request.maxResults);
  return pageOf(
    request,
    position,
    page.map((entry) => entry.item),
    remaining.length > page.length,
  );
}

/**
 * Visits every item of a list in `keyOf` order, starting after `after` (all of them without
 * it), until `visit` returns false.
 */
export type InOrder<T> = (after: SortKey | undefined, visit: (item: T) => boolean) => void;

/**
 * The same page as `paginate` answers, from items that come sorted (an index): it reads from
 * the position on until the page is full and one more item is found, instead of sorting the
 * whole list. `accepts` says whether an item matches the query (the filters other than paging
 * and sync).
 */
export function paginateInOrder<T>(
  request: Omit<PageRequest<T>, 'items'>,
  each: InOrder<T>,
  accepts: (item: T) => boolean,
): Page<T> {
  const position = positionOf(request);
  const page: T[] = [];
  let more = false;
  each(position.after, (item) => {
    if (!written(request, position, item) || !accepts(item)) return true;
    if (page.length === request.maxResults) {
      more = true;
      return false;
    }
    page.push(item);
    return true;
  });
  return pageOf(request, position, page, more);
}

/** Parameters that may change between the pages of a list. */
const PAGING = new Set(['pageToken', 'maxResults', 'fields', 'prettyPrint', 'quotaUser']);

/** The parameters of a list request other than paging (`ignore`: others left out), as text. */
export function fingerprint(query: Record<string, unknown>, ignore: readonly string[]): string {
  const kept = Object.keys(query).filter((key) => !PAGING.has(key) && !ignore.includes(key));
  if (kept.length === 0) return '[]';
  return JSON.stringify(kept.sort().map((key) => [key, query[key]]));
}
