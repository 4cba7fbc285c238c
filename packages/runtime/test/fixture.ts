import {
  createApiClient,
  createResourceClient,
  type GoogleClientOptions,
  type Method,
  type ResourceClientOptions,
  type SyncListMethod,
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

/** The resource methods the generator would write for `table`. */
export interface TestResources {
  things: {
    list: SyncListMethod<
      {
        ownerId: string;
        pageToken?: string;
        syncToken?: string;
        q?: string;
        timeMin?: string;
        maxResults?: number;
      },
      ThingPage,
      'items',
      'syncToken',
      'pageToken'
    >;
    get: Method<Ids & { fields?: string; ifNoneMatch?: string }, Thing>;
    insert: Method<
      { ownerId: string; sendUpdates?: string; fields?: string; name?: string; tags?: string[] },
      Thing
    >;
    update: Method<Ids & { ifMatch?: string; sendUpdates?: string; name?: string; tags?: string[] }, Thing>;
    patch: Method<Ids & { name?: string }, Thing>;
    delete: Method<Ids, void>;
    export: Method<{ ownerId: string }, string>;
  };
  colors: { get: Method<{ fields?: string }, { kind?: string }> };
}

export function testClient(options: GoogleClientOptions = {}) {
  return createApiClient<Record<string, never>, TestResources>(BASE, table, options);
}

/** The same resource methods without openapi-fetch's raw methods (`createResourceClient`). */
export function leanTestClient(options: ResourceClientOptions = {}) {
  return createResourceClient<TestResources>(BASE, table, options);
}
