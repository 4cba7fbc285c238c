/**
 * The resource-style method layer: `client.events.list(args)` for every operation it is
 * given. A list method (`x-pagination`) carries what the walks of paging.ts (`pages`, `items`,
 * `sync`) need, under a symbol; the clients that bind every operation also give it the walks
 * as properties (`list.pages(args)`, `withWalks`). The types of the methods come from the
 * generated `methods.ts` of each client package; this file only binds the descriptors.
 */
import type { CallOptions, OperationDescriptor } from './call.js';
import type { GoogleApiError } from './errors.js';
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
export type ItemsKey<Page, Item> = {
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

declare const walkTypes: unique symbol;

/**
 * Types only, on every list method: what the walks `pages(list, args)`, `items(list, args)`
 * and `sync(list, args, options)` take and give for it. `Args` is the method's argument,
 * `Page` its answer, `Item` an item of a page, `SyncArgs` the argument of `sync` (`never`
 * when the operation does not sync), `Optional` whether the argument may be left out.
 */
export interface Walkable<Args, Page, Item, SyncArgs = never, Optional extends boolean = false> {
  readonly [walkTypes]?: { args: Args; page: Page; item: Item; sync: SyncArgs; optional: Optional };
}

/** The types a list method's walks take and give. */
export type WalkTypes<List> =
  NonNullable<List[typeof walkTypes & keyof List]> extends {
    args: infer Args;
    page: infer Page;
    item: infer Item;
    sync: infer SyncArgs;
    optional: infer Optional;
  }
    ? { args: Args; page: Page; item: Item; sync: SyncArgs; optional: Optional }
    : never;

/**
 * The resource namespaces of a client bound to the operations `Id`: `{ events: { list } }` for
 * `'events.list'`, picked from `Methods` (a package's `ResourceMethods`) with their documentation.
 */
export type BoundResources<Methods, Id extends string> = {
  [R in keyof Methods as R extends (Id extends `${infer Name}.${string}` ? Name : never) ? R : never]: Pick<
    Methods[R],
    (Id extends `${R & string}.${infer Name}` ? Name : never) & keyof Methods[R]
  >;
};

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

export type Caller = (op: OperationDescriptor, args?: Args, options?: CallOptions) => Promise<unknown>;

type Args = Record<string, unknown>;

/**
 * The key under which a list method holds `[caller, descriptor]` for the walks of paging.ts.
 * A registered symbol, so that two copies of the runtime in one program read each other's.
 */
export const WALK: unique symbol = /* @__PURE__ */ Symbol.for('@gspec/runtime walk') as never;

/** A resource method as bound; a list method also holds what its walks need. */
export type BoundMethod = ((args?: Args, options?: CallOptions) => Promise<unknown>) & {
  [WALK]?: readonly [Caller, OperationDescriptor];
  pages?: unknown;
  items?: unknown;
  sync?: unknown;
};

/**
 * The resource namespaces of some operations: `{ events: { list, get, ... }, ... }`. `decorate`
 * is given every list method, to add properties to it (`withWalks`).
 */
export function bindMethods(
  call: Caller,
  ops: Iterable<OperationDescriptor>,
  decorate?: (method: BoundMethod) => void,
): Record<string, Record<string, BoundMethod>> {
  const namespaces: Record<string, Record<string, BoundMethod>> = {};
  for (const op of ops) {
    const id = op[0];
    const dot = id.indexOf('.');
    const method: BoundMethod = (args, options) => call(op, args, options);
    if (op[4]) {
      method[WALK] = [call, op];
      decorate?.(method);
    }
    const resource = id.slice(0, dot);
    namespaces[resource] ??= {};
    (namespaces[resource] as Record<string, BoundMethod>)[id.slice(dot + 1)] = method;
  }
  return namespaces;
}
