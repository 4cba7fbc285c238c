import {
  type Batch,
  type BatchBuilder,
  type BoundResources,
  bindOperations,
  type ClientOptions,
  type ConditionalMethod,
  createApiClient,
  createBatchClient,
  createResourceClient,
  type GoogleClientOptions,
  type MaskedMethod,
  type MaskedMethodOptionalArgs,
  type Method,
  type Paged,
  type ResourceClientOptions,
  type Syncing,
  type Walkable,
} from '../src/index.ts';
import { BASE, table } from './support.ts';

export interface Thing {
  id?: string;
  etag?: string;
  name?: string;
  tags?: string[];
  owner?: { email: string; name?: string };
}
export interface ThingPage {
  items?: Thing[];
  nextPageToken?: string;
  nextSyncToken?: string;
}
type Ids = { ownerId: string; thingId: string };
type GetArgs = Ids & { fields?: string; ifNoneMatch?: string };
type InsertArgs = { ownerId: string; sendUpdates?: string; fields?: string; name?: string; tags?: string[] };
type UpdateArgs = Ids & {
  ifMatch?: string;
  sendUpdates?: string;
  fields?: string;
  name?: string;
  tags?: string[];
};
type ListArgs = {
  ownerId: string;
  pageToken?: string;
  syncToken?: string;
  q?: string;
  timeMin?: string;
  maxResults?: number;
  fields?: string;
  ifNoneMatch?: string;
};

type SyncArgs = Omit<ListArgs, 'syncToken' | 'pageToken' | 'fields' | 'ifNoneMatch'>;

/** The `ResourceMethods` the generator would write for `table`. */
export interface TestResourceMethods {
  things: {
    list: ConditionalMethod<ListArgs, ThingPage> & Walkable<ListArgs, ThingPage, Thing, SyncArgs, false>;
    history: MaskedMethod<ListArgs, ThingPage> & Walkable<ListArgs, ThingPage, Thing>;
    get: ConditionalMethod<GetArgs, Thing>;
    insert: MaskedMethod<InsertArgs, Thing>;
    update: MaskedMethod<UpdateArgs, Thing>;
    patch: Method<Ids & { name?: string }, Thing>;
    delete: Method<Ids, void>;
    export: Method<{ ownerId: string }, string>;
  };
  colors: { get: MaskedMethodOptionalArgs<{ fields?: string }, { kind?: string }> };
}

/** The resource methods the generator would write for `table`, with the walks on list methods. */
export interface TestResources {
  things: TestResourceMethods['things'] & {
    list: Paged<ListArgs, ThingPage, Thing> & Syncing<SyncArgs, Thing>;
    history: Paged<ListArgs, ThingPage, Thing>;
  };
  colors: TestResourceMethods['colors'];
}

/** The `OperationTypes` the generator would write for `table`. */
export interface TestOperationTypes {
  'things.list': { args: ListArgs; answer: ThingPage };
  'things.history': { args: ListArgs; answer: ThingPage };
  'things.get': { args: GetArgs; answer: Thing };
  'things.insert': { args: InsertArgs; answer: Thing };
  'things.update': { args: UpdateArgs; answer: Thing };
  'things.patch': { args: Ids & { name?: string }; answer: Thing };
  // biome-ignore lint/suspicious/noConfusingVoidType: the generator writes void for an answer without a body
  'things.delete': { args: Ids; answer: void };
  'things.export': { args: { ownerId: string }; answer: string };
  'colors.get': { args: { fields?: string }; answer: { kind?: string } };
}

/** The resource methods, and a batch function beside them with a limit of 50 calls as Calendar's. */
export type BatchingTestResources = TestResources & { batch: Batch<BatchBuilder<TestOperationTypes>> };

export function batchingTestClient(
  options: ResourceClientOptions = {},
  baseUrl = BASE,
): BatchingTestResources {
  const resources = createResourceClient<TestResources>(baseUrl, table, options);
  return {
    ...resources,
    batch: createBatchClient<BatchBuilder<TestOperationTypes>>(baseUrl, table, { limit: 50 }, options),
  };
}

export function testClient(options: GoogleClientOptions = {}) {
  return createApiClient<Record<string, never>, TestResources>(BASE, table, options);
}

/** The same resource methods without openapi-fetch's raw methods (`createResourceClient`). */
export function leanTestClient(options: ResourceClientOptions = {}) {
  return createResourceClient<TestResources>(BASE, table, options);
}

/**
 * A client bound to some operations of `table` (`bindOperations`, as `createCalendarWith`
 * makes one): every operation unless told which.
 */
export function boundTestClient<Id extends keyof typeof table = keyof typeof table>(
  options: ClientOptions = {},
  ids: readonly Id[] = Object.keys(table) as Id[],
) {
  return bindOperations<BoundResources<TestResourceMethods, Id>>(
    BASE,
    options,
    ids.map((id) => table[id]),
  );
}
