import {
  type ConditionalMethod,
  createApiClient,
  createResourceClient,
  type GoogleClientOptions,
  type MaskedMethod,
  type MaskedMethodOptionalArgs,
  type Method,
  type Paged,
  type ResourceClientOptions,
  type Syncing,
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

/** The resource methods the generator would write for `table`. */
export interface TestResources {
  things: {
    list: ConditionalMethod<ListArgs, ThingPage> &
      Paged<ListArgs, ThingPage, Thing> &
      Syncing<Omit<ListArgs, 'syncToken' | 'pageToken' | 'fields' | 'ifNoneMatch'>, Thing>;
    get: ConditionalMethod<Ids & { fields?: string; ifNoneMatch?: string }, Thing>;
    insert: MaskedMethod<
      { ownerId: string; sendUpdates?: string; fields?: string; name?: string; tags?: string[] },
      Thing
    >;
    update: MaskedMethod<
      Ids & { ifMatch?: string; sendUpdates?: string; fields?: string; name?: string; tags?: string[] },
      Thing
    >;
    patch: Method<Ids & { name?: string }, Thing>;
    delete: Method<Ids, void>;
    export: Method<{ ownerId: string }, string>;
  };
  colors: { get: MaskedMethodOptionalArgs<{ fields?: string }, { kind?: string }> };
}

export function testClient(options: GoogleClientOptions = {}) {
  return createApiClient<Record<string, never>, TestResources>(BASE, table, options);
}

/** The same resource methods without openapi-fetch's raw methods (`createResourceClient`). */
export function leanTestClient(options: ResourceClientOptions = {}) {
  return createResourceClient<TestResources>(BASE, table, options);
}
