/**
 * The resource-style method layer: `client.events.list(args)` for every operation of the
 * generated table, with page iteration on list operations (`x-pagination`) and the
 * incremental-sync helper on those that sync (`x-sync`). The types of the methods come from
 * the generated `methods.ts` of each client package; this file only binds the table.
 */
import type { CallOptions, OperationDescriptor, OperationTable } from './call.js';
import { type GoogleApiError, isFullSyncRequired } from './errors.js';
import type { NotModified, Selected, Trimmed } from './partial.js';

/** Neither a mask nor a tag. */
export type Plain = { fields?: undefined; ifNoneMatch?: undefined };
/** A mask and no tag. */
export type Masked = { fields: string; ifNoneMatch?: undefined };
/** A tag and no mask. */
export type Tagged = { fields?: undefined; ifNoneMatch: string };
/** Both. */
export type MaskedAndTagged = { fields: string; ifNoneMatch: string };
/** The mask `Mask` (a string literal, or `string`) and no tag. */
export type MaskedWith<Mask extends string> = { fields: Mask; ifNoneMatch?: undefined };
/** The mask `Mask` and a tag, or a tag that may be undefined. */
export type MaskedWithAndTagged<Mask extends string> = { fields: Mask; ifNoneMatch?: string | undefined };

/*
 * The method types below are plain interfaces with overloads, chosen for each operation by the
 * generator, and computed once per operation rather than at every call: a call without a
 * mask evaluates no conditional type. Their answer follows what the call asks for: with a
 * `fields` mask written as a literal the answer is `Selected` (exactly the selected
 * properties; the one place where a call evaluates conditional types, to read the mask), with
 * a mask of type `string` it is `Trimmed` (every field optional, at any depth), with
 * `ifNoneMatch` it may be `NotModified` (304), and with neither it is the whole resource.
 * Arguments whose `fields` or `ifNoneMatch` may be undefined at run time match none of the
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
  <const Mask extends string>(
    args: Args & MaskedWith<Mask>,
    options?: CallOptions,
  ): Promise<Selected<Answer, Mask>>;
  (args: Args & { ifNoneMatch?: undefined }, options?: CallOptions): Promise<Trimmed<Answer>>;
}

/** {@link MaskedMethod} whose argument may be left out: the operation needs nothing. */
export interface MaskedMethodOptionalArgs<Args, Answer> {
  (args?: Args & Plain, options?: CallOptions): Promise<Answer>;
  <const Mask extends string>(
    args: Args & MaskedWith<Mask>,
    options?: CallOptions,
  ): Promise<Selected<Answer, Mask>>;
  (args?: Args & { ifNoneMatch?: undefined }, options?: CallOptions): Promise<Trimmed<Answer>>;
}

/** A read that takes a `fields` mask and can answer 304 to `ifNoneMatch`, whose argument has required members. */
export interface ConditionalMethod<Args, Answer> {
  (args: Args & Plain, options?: CallOptions): Promise<Answer>;
  <const Mask extends string>(
    args: Args & MaskedWith<Mask>,
    options?: CallOptions,
  ): Promise<Selected<Answer, Mask>>;
  (args: Args & Tagged, options?: CallOptions): Promise<Answer | NotModified>;
  <const Mask extends string>(
    args: Args & MaskedWithAndTagged<Mask>,
    options?: CallOptions,
  ): Promise<Selected<Answer, Mask> | NotModified>;
  (args: Args & { fields?: undefined }, options?: CallOptions): Promise<Answer | NotModified>;
  (args: Args, options?: CallOptions): Promise<Trimmed<Answer> | NotModified>;
}

/** {@link ConditionalMethod} whose argument may be left out. */
export interface ConditionalMethodOptionalArgs<Args, Answer> {
  (args?: Args & Plain, options?: CallOptions): Promise<Answer>;
  <const Mask extends string>(
    args: Args & MaskedWith<Mask>,
    options?: CallOptions,
  ): Promise<Selected<Answer, Mask>>;
  (args?: Args & Tagged, options?: CallOptions): Promise<Answer | NotModified>;
  <const Mask extends string>(
    args: Args & MaskedWithAndTagged<Mask>,
    options?: CallOptions,
  ): Promise<Selected<Answer, Mask> | NotModified>;
  (args?: Args & { fields?: undefined }, options?: CallOptions): Promise<Answer | NotModified>;
  (args?: Args, options?: CallOptions): Promise<Trimmed<Answer> | NotModified>;
}

/** Pages of a list operation: as a `fields` mask selects; never conditional. */
export interface PagesMethod<Args, Out> {
  (args: Args & Plain, options?: CallOptions): PageIterator<Out>;
  <const Mask extends string>(
    args: Args & MaskedWith<Mask>,
    options?: CallOptions,
  ): PageIterator<Selected<Out, Mask>>;
  (args: Args & { ifNoneMatch?: undefined }, options?: CallOptions): PageIterator<Trimmed<Out>>;
}

/** {@link PagesMethod} of an operation whose argument may be left out. */
export interface PagesMethodOptionalArgs<Args, Out> {
  (args?: Args & Plain, options?: CallOptions): PageIterator<Out>;
  <const Mask extends string>(
    args: Args & MaskedWith<Mask>,
    options?: CallOptions,
  ): PageIterator<Selected<Out, Mask>>;
  (args?: Args & { ifNoneMatch?: undefined }, options?: CallOptions): PageIterator<Trimmed<Out>>;
}

/** The member of a list page that holds its items (`items`): the one typed `Item[]`. */
type ItemsKey<Page, Item> = {
  [Key in keyof Page]-?: NonNullable<Page[Key]> extends readonly Item[] ? Key : never;
}[keyof Page];

/** The items of a page as a mask leaves it: none when the mask does not select the items. */
export type ItemsOf<Page, Key extends PropertyKey> = Key extends keyof Page
  ? NonNullable<Page[Key]> extends readonly (infer Item)[]
    ? Item
    : never
  : never;

/**
 * Items of a list operation. The mask applies to the page (`items(id,summary),nextPageToken`),
 * so with a literal mask an item is what the mask leaves of the page's items.
 */
export interface ItemsMethod<Args, Page, Item> {
  (args: Args & Plain, options?: CallOptions): PageIterator<Item>;
  <const Mask extends string>(
    args: Args & MaskedWith<Mask>,
    options?: CallOptions,
  ): PageIterator<ItemsOf<Selected<Page, Mask>, ItemsKey<Page, Item>>>;
  (args: Args & { ifNoneMatch?: undefined }, options?: CallOptions): PageIterator<Trimmed<Item>>;
}

/** {@link ItemsMethod} of an operation whose argument may be left out. */
export interface ItemsMethodOptionalArgs<Args, Page, Item> {
  (args?: Args & Plain, options?: CallOptions): PageIterator<Item>;
  <const Mask extends string>(
    args: Args & MaskedWith<Mask>,
    options?: CallOptions,
  ): PageIterator<ItemsOf<Selected<Page, Mask>, ItemsKey<Page, Item>>>;
  (args?: Args & { ifNoneMatch?: undefined }, options?: CallOptions): PageIterator<Trimmed<Item>>;
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
  items: ItemsMethod<Args, Page, Item>;
}

/** {@link Paged} of a list operation whose argument may be left out. */
export interface PagedOptionalArgs<Args, Page, Item> {
  /**
   * Every page, following `nextPageToken`; an empty page that carries a token is followed too.
   * A `fields` mask must keep `nextPageToken`, or the walk stops after the first page.
   */
  pages: PagesMethodOptionalArgs<Args, Page>;
  /** Every item of every page, in order. */
  items: ItemsMethodOptionalArgs<Args, Page, Item>;
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

/**
 * The walk of a page iterator, done by paging.ts. That module is loaded through import() on
 * the first `pages`, `items` or `sync` call, so that a program that calls none of them does not
 * load it, and a bundler that splits code puts it in a chunk of its own.
 */
function later<T>(
  walk: (paging: typeof import('./paging.js'), report: (syncToken: unknown) => void) => AsyncIterable<T>,
): PageIterator<T> {
  return pageIterator(async function* (report) {
    yield* walk(await import('./paging.js'), report);
  });
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
      method.pages = (args?: Args, options?: CallOptions) =>
        later((paging, report) => paging.pages(call, id, op, args, options, report));
      method.items = (args?: Args, options?: CallOptions) =>
        later((paging, report) => paging.items(call, id, op, args, options, report));
      if (op.sync)
        method.sync = async (args: Args, options: SyncOptions<unknown>) =>
          (await import('./paging.js')).sync(call, id, op, args, options, isFullSyncRequired);
    }
    namespaces[id.slice(0, dot)] ??= {};
    (namespaces[id.slice(0, dot)] as Record<string, unknown>)[id.slice(dot + 1)] = method;
  }
  return namespaces;
}
