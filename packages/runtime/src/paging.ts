/**
 * The walks behind the iteration helpers of list operations (`pages`, `items`, `sync`):
 * methods.ts loads this module through import() on their first call, so that a program that
 * uses none of them does not load it. It imports nothing at run time (methods.ts passes what
 * it needs), so that a bundler that splits code makes it a chunk of its own that shares no
 * chunk with the program.
 */
import type { CallOptions, OperationDescriptor } from './call.js';
import type { GoogleApiError } from './errors.js';
import type { Caller, SyncOptions, SyncResult } from './methods.js';

type Args = Record<string, unknown>;
type Page = Record<string, unknown>;
type Report = (syncToken: unknown) => void;

/** Every page, following `nextPageToken`; `report` gets the sync token of each page of an operation that syncs. */
export async function* pages(
  call: Caller,
  id: string,
  op: OperationDescriptor,
  args: Args = {},
  options: CallOptions | undefined,
  report: Report,
): AsyncGenerator<Page> {
  const { pageTokenParameter, nextPageTokenField } = op.pagination as NonNullable<typeof op.pagination>;
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
}

/** Every item of every page, in order. */
export async function* items(
  call: Caller,
  id: string,
  op: OperationDescriptor,
  args: Args | undefined,
  options: CallOptions | undefined,
  report: Report,
): AsyncGenerator<unknown> {
  const { itemsField } = op.pagination as NonNullable<typeof op.pagination>;
  for await (const page of pages(call, id, op, args, options, report)) {
    yield* (page[itemsField] as unknown[] | undefined) ?? [];
  }
}

/** The incremental sync of `Syncing.sync` (methods.ts). */
export async function sync(
  call: Caller,
  id: string,
  op: OperationDescriptor,
  args: Args,
  options: SyncOptions<unknown>,
  isFullSyncRequired: (error: unknown) => error is GoogleApiError,
): Promise<SyncResult> {
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
    let nextSyncToken: string | undefined;
    const report: Report = (given) => {
      nextSyncToken = typeof given === 'string' ? given : undefined;
    };
    try {
      for await (const page of pages(call, id, op, request, options.call, report)) {
        await options.onItems((page[itemsField] as unknown[] | undefined) ?? [], { fullSync });
      }
    } catch (error) {
      if (!token || !isFullSyncRequired(error)) throw error;
      await options.onFullSyncRequired?.(error);
      token = undefined;
      continue;
    }
    if (!nextSyncToken) throw new Error(`${id}: the last page of the sync carried no nextSyncToken`);
    // A full sync that was given a token is one that restarted.
    return { nextSyncToken, fullSync, restarted: fullSync && !!options.syncToken };
  }
}
