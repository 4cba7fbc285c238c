/**
 * The resource-style method layer: `client.events.list(args)` for every operation of the
 * generated table, with page iteration on list operations (`x-pagination`) and the
 * incremental-sync helper on those that sync (`x-sync`). The types of the methods come from
 * the generated `methods.ts` of each client package; this file only binds the table.
 */
import type { CallOptions, OperationDescriptor, OperationTable } from './call.js';
import { type GoogleApiError, isFullSyncRequired } from './errors.js';
import type { NotModified, Trimmed } from './partial.js';

/** `{ fields: string }` where the operation takes a `fields` mask; never elsewhere. */
type Masked<Args> = 'fields' extends keyof Args ? { fields: string } : never;
/** `{ ifNoneMatch: string }` where the operation can answer 304; never elsewhere. */
type Conditional<Args> = 'ifNoneMatch' extends keyof Args ? { ifNoneMatch: string } : never;
// biome-ignore lint/complexity/noBannedTypes: `{} extends Args` is exactly "Args has no required key".
type AllOptional<Args> = {} extends Args ? true : false;
/** Neither a mask nor a tag given. */
type Plain = { fields?: undefined; ifNoneMatch?: undefined };
/** NotModified where the operation can answer 304. */
type MaybeNotModified<Args> = 'ifNoneMatch' extends keyof Args ? NotModified : never;

/**
 * A resource method; its argument may be left out when the operation needs nothing. Its
 * answer type follows what the call asks for: with a `fields` mask the answer is `Trimmed`
 * (every field optional, at any depth), with `ifNoneMatch` it may be `NotModified` (304), and
 * with neither it is the whole resource. Arguments whose `fields` or `ifNoneMatch` are only
 * known at run time get the union.
 */
export type Method<Args, Answer> = {
  (
    args: Args & Masked<Args> & Conditional<Args>,
    options?: CallOptions,
  ): Promise<Trimmed<Answer> | NotModified>;
  (args: Args & Masked<Args> & { ifNoneMatch?: undefined }, options?: CallOptions): Promise<Trimmed<Answer>>;
  (
    args: Args & Conditional<Args> & { fields?: undefined },
    options?: CallOptions,
  ): Promise<Answer | NotModified>;
} & (AllOptional<Args> extends true
  ? {
      (args?: Args & Plain, options?: CallOptions): Promise<Answer>;
      (args?: Args & { fields?: undefined }, options?: CallOptions): Promise<Answer | MaybeNotModified<Args>>;
      (args?: Args, options?: CallOptions): Promise<Trimmed<Answer> | MaybeNotModified<Args>>;
    }
  : {
      (args: Args & Plain, options?: CallOptions): Promise<Answer>;
      (args: Args & { fields?: undefined }, options?: CallOptions): Promise<Answer | MaybeNotModified<Args>>;
      (args: Args, options?: CallOptions): Promise<Trimmed<Answer> | MaybeNotModified<Args>>;
    });

/** Pages with a `fields` mask are trimmed; pages are never conditional. */
type PagesMethod<Args, Out> = {
  (args: Omit<Args, 'ifNoneMatch'> & Masked<Args>, options?: CallOptions): PageIterator<Trimmed<Out>>;
  (args: Omit<Args, 'ifNoneMatch'> & { fields?: undefined }, options?: CallOptions): PageIterator<Out>;
  (args: Omit<Args, 'ifNoneMatch'>, options?: CallOptions): PageIterator<Trimmed<Out>>;
};

type ItemOf<Page, ItemsKey extends keyof Page> =
  NonNullable<Page[ItemsKey]> extends readonly (infer Item)[] ? Item : never;

/** An async iterable over pages or items that also reports the sync token of the last page. */
export interface PageIterator<T> extends AsyncIterable<T> {
  /** The `nextSyncToken` of the last page, once the iteration has reached it (operations with `x-sync`). */
  readonly nextSyncToken: string | undefined;
}

/** A list operation: call it for one page, or iterate over all pages or all items. */
export type ListMethod<Args, Page, ItemsKey extends keyof Page> = Method<Args, Page> & {
  /**
   * Every page, following `nextPageToken`; an empty page that carries a token is followed too.
   * A `fields` mask must keep `nextPageToken`, or the walk stops after the first page.
   */
  pages: PagesMethod<Args, Page>;
  /** Every item of every page, in order. */
  items: PagesMethod<Args, ItemOf<Page, ItemsKey>>;
};

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

/** A list operation that supports incremental sync. */
export type SyncListMethod<
  Args,
  Page,
  ItemsKey extends keyof Page,
  SyncTokenKey extends PropertyKey,
  PageTokenKey extends PropertyKey,
> = ListMethod<Args, Page, ItemsKey> & {
  /**
   * Full sync without `syncToken`, incremental sync with it; a refused token (410) starts
   * a full sync over, after `onFullSyncRequired`. Parameters that the service refuses
   * together with a sync token (`x-sync` `incompatibleParameters`) are sent on full syncs only.
   */
  sync: (
    args: Omit<Args, SyncTokenKey | PageTokenKey | 'fields' | 'ifNoneMatch'>,
    options: SyncOptions<ItemOf<Page, ItemsKey>>,
  ) => Promise<SyncResult>;
};

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
