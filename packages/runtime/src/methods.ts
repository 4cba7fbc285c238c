/**
 * The resource-style method layer: `client.events.list(args)` for every operation of the
 * generated table, with page iteration on list operations (`x-pagination`) and the
 * incremental-sync helper on those that sync (`x-sync`). The types of the methods come from
 * the generated `methods.ts` of each client package; this file only binds the table.
 */
import type { CallOptions, OperationDescriptor, OperationTable } from './call.js';
import { type GoogleApiError, isFullSyncRequired } from './errors.js';
import type { NotModified, Trimmed } from './partial.js';

/** Neither a mask nor a tag. */
export type Plain = { fields?: undefined; ifNoneMatch?: undefined };
/** A mask and no tag. */
export type Masked = { fields: string; ifNoneMatch?: undefined };
/** A tag and no mask. */
export type Tagged = { fields?: undefined; ifNoneMatch: string };
/** Both. */
export type MaskedAndTagged = { fields: string; ifNoneMatch: string };

/*
 * The method types below are plain interfaces with overloads, chosen for each operation by the
 * generator, and computed once per operation rather than at every call: no conditional type
 * is evaluated when a call is checked. Their answer follows what the call asks for: with a
 * `fields` mask the answer is `Trimmed` (every field optional, at any depth), with
 * `ifNoneMatch` it may be `NotModified` (304), and with neither it is the whole resource.
 * Arguments whose `fields` or `ifNoneMatch` are only known at run time match none of the
 * specific overloads, which exclude one another, and get the union from the catch-all ones at
 * the end. The most common call, with neither a mask nor a tag, is resolved by the first
 * overload tried.
 */

/** A resource method without a `fields` mask (a file download), whose argument has required members. */
export type Method<Args, Answer> = (args: Args, options?: CallOptions) => Promise<Answer>;

/** {@link Method} whose argument may be left out: the operation needs nothing. */
export type MethodOptionalArgs<Args, Answer> = (args?: Args, options?: CallOptions) => Promise<Answer>;

/** A resource method that takes a `fields` mask, whose argument has required members. */
export interface MaskedMethod<Args, Answer> {
  (args: Args & Plain, options?: CallOptions): Promise<Answer>;
  (args: Args & Masked, options?: CallOptions): Promise<Trimmed<Answer>>;
  (args: Args & { ifNoneMatch?: undefined }, options?: CallOptions): Promise<Trimmed<Answer>>;
}

/** {@link MaskedMethod} whose argument may be left out: the operation needs nothing. */
export interface MaskedMethodOptionalArgs<Args, Answer> {
  (args?: Args & Plain, options?: CallOptions): Promise<Answer>;
  (args?: Args & Masked, options?: CallOptions): Promise<Trimmed<Answer>>;
  (args?: Args & { ifNoneMatch?: undefined }, options?: CallOptions): Promise<Trimmed<Answer>>;
}

/** A read that takes a `fields` mask and can answer 304 to `ifNoneMatch`, whose argument has required members. */
export interface ConditionalMethod<Args, Answer> {
  (args: Args & Plain, options?: CallOptions): Promise<Answer>;
  (args: Args & Masked, options?: CallOptions): Promise<Trimmed<Answer>>;
  (args: Args & Tagged, options?: CallOptions): Promise<Answer | NotModified>;
  (args: Args & MaskedAndTagged, options?: CallOptions): Promise<Trimmed<Answer> | NotModified>;
  (args: Args & { fields?: undefined }, options?: CallOptions): Promise<Answer | NotModified>;
  (args: Args, options?: CallOptions): Promise<Trimmed<Answer> | NotModified>;
}

/** {@link ConditionalMethod} whose argument may be left out. */
export interface ConditionalMethodOptionalArgs<Args, Answer> {
  (args?: Args & Plain, options?: CallOptions): Promise<Answer>;
  (args?: Args & Masked, options?: CallOptions): Promise<Trimmed<Answer>>;
  (args?: Args & Tagged, options?: CallOptions): Promise<Answer | NotModified>;
  (args?: Args & MaskedAndTagged, options?: CallOptions): Promise<Trimmed<Answer> | NotModified>;
  (args?: Args & { fields?: undefined }, options?: CallOptions): Promise<Answer | NotModified>;
  (args?: Args, options?: CallOptions): Promise<Trimmed<Answer> | NotModified>;
}

/** Pages or items of a list operation: trimmed with a `fields` mask; never conditional. */
export interface PagesMethod<Args, Out> {
  (args: Args & Plain, options?: CallOptions): PageIterator<Out>;
  (args: Args & { ifNoneMatch?: undefined }, options?: CallOptions): PageIterator<Trimmed<Out>>;
}

/** {@link PagesMethod} of an operation whose argument may be left out. */
export interface PagesMethodOptionalArgs<Args, Out> {
  (args?: Args & Plain, options?: CallOptions): PageIterator<Out>;
  (args?: Args & { ifNoneMatch?: undefined }, options?: CallOptions): PageIterator<Trimmed<Out>>;
}

/** An async iterable over pages or items that also reports the sync token of the last page. */
export interface PageIterator<T> extends AsyncIterable<T> {
  /** The `nextSyncToken` of the last page, once the iteration has reached it (operations with `x-sync`). */
  readonly nextSyncToken: string | undefined;
}

/** The iteration helpers of a list operation, on the method itself. */
export interface Paged<Args, Page, Item> {
  /**
   * Every page, following `nextPageToken`; an empty page that carries a token is followed too.
   * A `fields` mask must keep `nextPageToken`, or the walk stops after the first page.
   */
  pages: PagesMethod<Args, Page>;
  /** Every item of every page, in order. */
  items: PagesMethod<Args, Item>;
}

/** {@link Paged} of a list operation whose argument may be left out. */
export interface PagedOptionalArgs<Args, Page, Item> {
  /**
   * Every page, following `nextPageToken`; an empty page that carries a token is followed too.
   * A `fields` mask must keep `nextPageToken`, or the walk stops after the first page.
   */
  pages: PagesMethodOptionalArgs<Args, Page>;
  /** Every item of every page, in order. */
  items: PagesMethodOptionalArgs<Args, Item>;
}

export interface SyncOptions<Item> {
  /** The token of the last sync; left out, a full sync runs. */
  syncToken?: string | undefined;
  /** Called with the items of every page, in order. Deleted items come with `status: 'cancelled'` or `deleted: true`. */
  onItems: (items: Item[], sync: { fullSync: boolean }) => void | Promise<void>;
  /**
   * Called when the service refused the token (410 `fullSyncRequired`), before the full
   * sync that follows: drop what you stored, since the full sync sends everything again.
   */
  onFullSyncRequired?: (error: GoogleApiError) => void | Promise<void>;
  /** Options of every call of the sync. */
  call?: CallOptions;
}

export interface SyncResult {
  /** Store it and pass it as `syncToken` next time. */
  nextSyncToken: string;
  /** Whether this run was a full sync (no token given, or the token was refused). */
  fullSync: boolean;
  /** Whether the given token was refused and a full sync ran instead. */
  restarted: boolean;
}

/** The incremental-sync helper of a list operation that supports it, on the method itself. */
export interface Syncing<Args, Item> {
  /**
   * Full sync without `syncToken`, incremental sync with it; a refused token (410) starts
   * a full sync over, after `onFullSyncRequired`. Parameters that the service refuses
   * together with a sync token (`x-sync` `incompatibleParameters`) are sent on full syncs only.
   * `Args` is the operation's argument without the sync and page tokens, `fields` and
   * `ifNoneMatch` (the generator writes it out).
   */
  sync: (args: Args, options: SyncOptions<Item>) => Promise<SyncResult>;
}

export type Caller = (
  operationId: string,
  op: OperationDescriptor,
  args?: Record<string, unknown>,
  options?: CallOptions,
) => Promise<unknown>;

type Args = Record<string, unknown>;
type Page = Record<string, unknown>;

function pageIterator<T>(walk: (report: (syncToken: unknown) => void) => AsyncIterator<T>): PageIterator<T> {
  const iterator = {
    nextSyncToken: undefined as string | undefined,
    [Symbol.asyncIterator]: () =>
      walk((token) => {
        iterator.nextSyncToken = typeof token === 'string' ? token : undefined;
      }),
  };
  return iterator;
}

function pagesOf(call: Caller, id: string, op: OperationDescriptor, args: Args = {}, options?: CallOptions) {
  const { pageTokenParameter, nextPageTokenField } = op.pagination as NonNullable<typeof op.pagination>;
  return pageIterator<Page>(async function* (report) {
    let token = args[pageTokenParameter];
    const seen = new Set<unknown>();
    do {
      const page = (await call(id, op, { ...args, [pageTokenParameter]: token }, options)) as Page;
      if (op.sync) report(page[op.sync.nextSyncTokenField]);
      yield page;
      token = page[nextPageTokenField];
      // A service that hands out the same token twice would otherwise loop for ever.
      if (seen.has(token)) throw new Error(`${id}: the service sent the page token "${token}" twice`);
      seen.add(token);
    } while (token);
  });
}

function itemsOf(call: Caller, id: string, op: OperationDescriptor, args?: Args, options?: CallOptions) {
  const pages = pagesOf(call, id, op, args, options);
  const { itemsField } = op.pagination as NonNullable<typeof op.pagination>;
  const items = pageIterator<unknown>(async function* (report) {
    for await (const page of pages) {
      report(pages.nextSyncToken);
      yield* (page[itemsField] as unknown[] | undefined) ?? [];
    }
  });
  return items;
}

async function sync(
  call: Caller,
  id: string,
  op: OperationDescriptor,
  args: Args,
  options: SyncOptions<unknown>,
) {
  const spec = op.sync as NonNullable<typeof op.sync>;
  const { itemsField } = op.pagination as NonNullable<typeof op.pagination>;
  let token = options.syncToken;
  for (;;) {
    const fullSync = !token;
    let request = args;
    if (token) {
      request = { ...args, [spec.syncTokenParameter]: token };
      for (const name of spec.incompatibleParameters) delete request[name];
    }
    const pages = pagesOf(call, id, op, request, options.call);
    try {
      for await (const page of pages) {
        await options.onItems((page[itemsField] as unknown[] | undefined) ?? [], { fullSync });
      }
    } catch (error) {
      if (!token || !isFullSyncRequired(error)) throw error;
      await options.onFullSyncRequired?.(error);
      token = undefined;
      continue;
    }
    if (!pages.nextSyncToken) throw new Error(`${id}: the last page of the sync carried no nextSyncToken`);
    // A full sync that was given a token is one that restarted.
    return { nextSyncToken: pages.nextSyncToken, fullSync, restarted: fullSync && !!options.syncToken };
  }
}

/** A resource method, with the iteration helpers of list operations as properties. */
type BoundMethod = ((args?: Args, options?: CallOptions) => Promise<unknown>) & {
  pages?: unknown;
  items?: unknown;
  sync?: unknown;
};

/** The resource namespaces of a table: `{ events: { list, get, ... }, ... }`. */
export function bindMethods(call: Caller, table: OperationTable): Record<string, Record<string, unknown>> {
  const namespaces: Record<string, Record<string, unknown>> = {};
  for (const id in table) {
    const op = table[id] as OperationDescriptor;
    const dot = id.indexOf('.');
    const method: BoundMethod = (args, options) => call(id, op, args, options);
    if (op.pagination) {
      method.pages = (args?: Args, options?: CallOptions) => pagesOf(call, id, op, args, options);
      method.items = (args?: Args, options?: CallOptions) => itemsOf(call, id, op, args, options);
      if (op.sync)
        method.sync = (args: Args, options: SyncOptions<unknown>) => sync(call, id, op, args, options);
    }
    namespaces[id.slice(0, dot)] ??= {};
    (namespaces[id.slice(0, dot)] as Record<string, unknown>)[id.slice(dot + 1)] = method;
  }
  return namespaces;
}
