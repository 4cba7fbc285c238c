/**
 * The walks of list operations: `pages(list, args)` (every page, following `nextPageToken`),
 * `items(list, args)` (every item of every page) and `sync(list, args, options)` (an
 * incremental sync). `list` is a list method of any client (`calendar.events.list`); the
 * clients that bind every operation also have them as properties (`list.pages(args)`,
 * `withWalks`). Only a program that uses them bundles this module.
 */
import type { CallOptions, OperationDescriptor } from './call.js';
import { ClientConfigError, isFullSyncRequired } from './errors.js';
import {
  type BoundMethod,
  type Caller,
  type ItemsKey,
  type ItemsOf,
  type MaskedWith,
  type PageIterator,
  type Plain,
  type SyncOptions,
  type SyncResult,
  WALK,
  type Walkable,
  type WalkTypes,
} from './methods.js';
import type { Selected, Trimmed } from './partial.js';

type Args = Record<string, unknown>;
type Page = Record<string, unknown>;

/** Any list method of any client: what `pages`, `items` and `sync` take. */
// biome-ignore lint/suspicious/noExplicitAny: matches every list method, whatever its types.
export type ListMethod = Walkable<any, any, any, any, boolean>;
/** The argument and options of a walk: the argument may be left out when the operation needs nothing. */
type Rest<List, Given> = WalkTypes<List>['optional'] extends true
  ? [args?: Given, options?: CallOptions]
  : [args: Given, options?: CallOptions];
type PageOf<List> = WalkTypes<List>['page'];
type ItemOf<List> = WalkTypes<List>['item'];
type ArgsOf<List> = WalkTypes<List>['args'];

/** What a list method holds for its walks; a clear error for anything else. */
function walkOf(list: unknown, walk: string): readonly [Caller, OperationDescriptor] {
  const held = (list as BoundMethod | undefined)?.[WALK];
  if (!held) {
    throw new ClientConfigError(
      `${walk}() takes a list method of a client, such as calendar.events.list; got ${typeof list === 'function' ? 'a method that does not list' : typeof list}`,
    );
  }
  return held;
}

/** The walk of `pages` and `items`: every page in order, the sync token of the last one reported. */
function walk(list: unknown, args: Args = {}, options: CallOptions | undefined, each: boolean, name: string) {
  const [call, op] = walkOf(list, name);
  const iterator: PageIterator<unknown> & { nextSyncToken: string | undefined } = {
    nextSyncToken: undefined,
    async *[Symbol.asyncIterator]() {
      let token = args.pageToken;
      const seen = new Set<unknown>();
      do {
        const page = (await call(op, { ...args, pageToken: token }, options)) as Page;
        if (Array.isArray(op[4])) {
          const next = page.nextSyncToken;
          iterator.nextSyncToken = typeof next === 'string' ? next : undefined;
        }
        if (each) yield* (page.items as unknown[] | undefined) ?? [];
        else yield page;
        token = page.nextPageToken;
        // A service that hands out the same token twice would otherwise loop for ever.
        if (seen.has(token)) throw new Error(`${op[0]}: the service sent the page token "${token}" twice`);
        seen.add(token);
      } while (token);
    },
  };
  return iterator;
}

/**
 * Every page of a list operation, following `nextPageToken`; an empty page that carries a token
 * is followed too. A `fields` mask must keep `nextPageToken`, or the walk stops after the
 * first page. `for await (const page of pages(calendar.events.list, { calendarId }))`.
 */
export function pages<List extends ListMethod>(
  list: List,
  ...rest: Rest<List, ArgsOf<List> & Plain>
): PageIterator<PageOf<List>>;
export function pages<List extends ListMethod, const Mask extends string>(
  list: List,
  args: ArgsOf<List> & MaskedWith<Mask>,
  options?: CallOptions,
): PageIterator<Selected<PageOf<List>, Mask>>;
export function pages<List extends ListMethod>(
  list: List,
  ...rest: Rest<List, ArgsOf<List> & { ifNoneMatch?: undefined }>
): PageIterator<Trimmed<PageOf<List>>>;
export function pages(list: unknown, args?: Args, options?: CallOptions): PageIterator<unknown> {
  return walk(list, args, options, false, 'pages');
}

/**
 * Every item of every page of a list operation, in order. A `fields` mask applies to the page
 * (`items(id,summary),nextPageToken`). `for await (const event of items(calendar.events.list, { calendarId }))`.
 */
export function items<List extends ListMethod>(
  list: List,
  ...rest: Rest<List, ArgsOf<List> & Plain>
): PageIterator<ItemOf<List>>;
export function items<List extends ListMethod, const Mask extends string>(
  list: List,
  args: ArgsOf<List> & MaskedWith<Mask>,
  options?: CallOptions,
): PageIterator<ItemsOf<Selected<PageOf<List>, Mask>, ItemsKey<PageOf<List>, ItemOf<List>>>>;
export function items<List extends ListMethod>(
  list: List,
  ...rest: Rest<List, ArgsOf<List> & { ifNoneMatch?: undefined }>
): PageIterator<Trimmed<ItemOf<List>>>;
export function items(list: unknown, args?: Args, options?: CallOptions): PageIterator<unknown> {
  return walk(list, args, options, true, 'items');
}

/**
 * The incremental sync of a list operation that syncs (`x-sync`): a full sync without
 * `syncToken`, an incremental one with it; a refused token (410) starts a full sync over,
 * after `onFullSyncRequired`. Parameters the service refuses together with a sync token are
 * sent on full syncs only. `args` is the operation's argument without the sync and page
 * tokens, `fields` and `ifNoneMatch`.
 */
export async function sync<List extends ListMethod>(
  list: List,
  args: WalkTypes<List>['sync'],
  options: SyncOptions<ItemOf<List>>,
): Promise<SyncResult>;
// biome-ignore lint/suspicious/noExplicitAny: the implementation of the typed overload above.
export async function sync(list: unknown, args: any, options: SyncOptions<any>): Promise<SyncResult> {
  const [, op] = walkOf(list, 'sync');
  const incompatible = op[4];
  if (!Array.isArray(incompatible)) throw new ClientConfigError(`sync(): ${op[0]} does not sync`);
  let token = options.syncToken;
  for (;;) {
    const fullSync = !token;
    let request = args;
    if (token) {
      request = { ...args, syncToken: token };
      for (const name of incompatible) delete request[name];
    }
    const pageWalk = walk(list, request, options.call, false, 'sync');
    try {
      for await (const page of pageWalk) {
        await options.onItems(((page as Page).items as unknown[] | undefined) ?? [], { fullSync });
      }
    } catch (error) {
      if (!token || !isFullSyncRequired(error)) throw error;
      await options.onFullSyncRequired?.(error);
      token = undefined;
      continue;
    }
    const { nextSyncToken } = pageWalk;
    if (!nextSyncToken) throw new Error(`${op[0]}: the last page of the sync carried no nextSyncToken`);
    // A full sync that was given a token is one that restarted.
    return { nextSyncToken, fullSync, restarted: fullSync && !!options.syncToken };
  }
}

/**
 * Gives a list method its walks as properties, as the clients that bind every operation have
 * them: `list.pages(args)`, `list.items(args)` and, on one that syncs, `list.sync(args, options)`.
 */
export function withWalks(method: BoundMethod): void {
  method.pages = (args?: Args, options?: CallOptions) => walk(method, args, options, false, 'pages');
  method.items = (args?: Args, options?: CallOptions) => walk(method, args, options, true, 'items');
  if (Array.isArray((method[WALK] as readonly [Caller, OperationDescriptor])[1][4]))
    method.sync = (args: Args, options: SyncOptions<unknown>) =>
      sync(method as never, args, options as never);
}
