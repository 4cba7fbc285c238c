/** Partial responses (`fields`) and conditional reads (`ifNoneMatch`, 304) in the resource methods. */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  isNotModified,
  type NotModified,
  type PageIterator,
  type Selected,
  type Trimmed,
} from '../src/index.ts';
import { type Thing, testClient } from './fixture.ts';
import { scriptedFetch } from './support.ts';

const ids = { ownerId: 'o', thingId: 't' };

describe('a conditional read', () => {
  it('sends If-None-Match and answers NotModified for a 304, with the ETag header', async () => {
    const { fetch, requests } = scriptedFetch(new Response(null, { status: 304, headers: { etag: '"e2"' } }));
    const answer = await testClient({ fetch }).things.get({ ...ids, ifNoneMatch: '*' });
    expect(requests[0]?.headers['if-none-match']).toBe('*');
    expect(answer).toEqual({ notModified: true, etag: '"e2"' });
    expect(isNotModified(answer)).toBe(true);
  });

  it('takes the tag it sent when the 304 carries no ETag', async () => {
    const { fetch } = scriptedFetch(new Response(null, { status: 304 }));
    const answer = await testClient({ fetch }).things.get({ ...ids, ifNoneMatch: '"e1"' });
    expect(answer).toEqual({ notModified: true, etag: '"e1"' });
  });

  it('answers the resource when it changed, which is not NotModified', async () => {
    const { fetch } = scriptedFetch(Response.json({ id: 't', etag: '"e3"' }));
    const answer = await testClient({ fetch }).things.get({ ...ids, ifNoneMatch: '"e1"' });
    expect(answer).toEqual({ id: 't', etag: '"e3"' });
    expect(isNotModified(answer)).toBe(false);
  });

  it('is not retried: a 304 is an answer', async () => {
    const { fetch, requests } = scriptedFetch(new Response(null, { status: 304 }));
    await testClient({ fetch }).things.get({ ...ids, ifNoneMatch: '"e1"' });
    expect(requests).toHaveLength(1);
  });

  it.each([
    ['a resource that has a notModified field and more', { notModified: true, etag: 'x', id: 't' }],
    ['null', null],
    ['a string', 'notModified'],
  ])('isNotModified is false for %s', (_title, value) => {
    expect(isNotModified(value)).toBe(false);
  });
});

describe('the answer types follow what the call asks for', () => {
  const client = testClient({ fetch: scriptedFetch(Response.json({})).fetch });

  it('is the whole resource with neither fields nor ifNoneMatch', () => {
    expectTypeOf(client.things.get(ids)).resolves.toEqualTypeOf<Thing>();
  });

  it('has exactly the properties a literal mask selects, at any depth', () => {
    const get = <const Mask extends string>(fields: Mask) => client.things.get({ ...ids, fields });
    expectTypeOf(get('name')).resolves.toEqualTypeOf<{ name?: string }>();
    expectTypeOf(get('id,name')).resolves.toEqualTypeOf<{ id?: string; name?: string }>();
    // A parent selected for what is inside it may be left out; what is selected whole keeps its type.
    expectTypeOf(get('owner/email')).resolves.toEqualTypeOf<{ owner?: { email: string } }>();
    expectTypeOf(get('id,owner(name)')).resolves.toEqualTypeOf<{ id?: string; owner?: { name?: string } }>();
    expectTypeOf(get('owner/email,owner/name')).resolves.toEqualTypeOf<{
      owner?: { email: string; name?: string };
    }>();
    expectTypeOf(get('owner,owner/email')).resolves.toEqualTypeOf<{
      owner?: { email: string; name?: string };
    }>();
    expectTypeOf(get(' id , owner( email ) ')).resolves.toEqualTypeOf<{
      id?: string;
      owner?: { email: string };
    }>();
    expectTypeOf(get('tags')).resolves.toEqualTypeOf<{ tags?: string[] }>();
    expectTypeOf(get('*')).resolves.toEqualTypeOf<Thing>();
    expectTypeOf(get('owner(*)')).resolves.toEqualTypeOf<{ owner?: { email: string; name?: string } }>();
    expectTypeOf(get('*/email')).resolves.toEqualTypeOf<{
      id?: string;
      etag?: string;
      name?: string;
      tags?: string[];
      owner?: { email: string };
    }>();
  });

  it('applies a mask to every element of an array, on a page and on the pages and items of a list', async () => {
    const page = client.things.list({ ownerId: 'o', fields: 'nextPageToken,items(id,owner/name)' });
    type Item = { id?: string; owner?: { name?: string } };
    expectTypeOf(page).resolves.toEqualTypeOf<{ nextPageToken?: string; items?: Item[] }>();
    expectTypeOf(client.things.list.pages({ ownerId: 'o', fields: 'items/id' })).toEqualTypeOf<
      PageIterator<{ items?: { id?: string }[] }>
    >();
    expectTypeOf(client.things.list.items({ ownerId: 'o', fields: 'nextPageToken,items/id' })).toEqualTypeOf<
      PageIterator<{ id?: string }>
    >();
  });

  it('makes a property the mask did not select a type error', async () => {
    const slim = await client.things.get({ ...ids, fields: 'id,owner/email' });
    expect(slim).toEqual({});
    // @ts-expect-error name was not selected
    void slim.name;
    // @ts-expect-error owner/name was not selected
    void slim.owner?.name;
    void [slim.id, slim.owner?.email];
  });

  it('is Trimmed when the mask is known only at run time or does not parse; whole when it is empty', () => {
    const mask: string = process.env.NO_SUCH_VARIABLE ?? 'id';
    expectTypeOf(client.things.get({ ...ids, fields: mask })).resolves.toEqualTypeOf<Trimmed<Thing>>();
    expectTypeOf(client.things.get({ ...ids, fields: 'id(((' })).resolves.toEqualTypeOf<Trimmed<Thing>>();
    expectTypeOf(client.things.get({ ...ids, fields: '' })).resolves.toEqualTypeOf<Thing>();
    expectTypeOf<Trimmed<Thing>['owner']>().toEqualTypeOf<{ email?: string; name?: string } | undefined>();
    expectTypeOf<Selected<Thing, 'id' | 'name'>>().toEqualTypeOf<{ id?: string } | { name?: string }>();
  });

  it('may be NotModified with a tag', () => {
    expectTypeOf(client.things.get({ ...ids, ifNoneMatch: '"e1"' })).resolves.toEqualTypeOf<
      Thing | NotModified
    >();
    expectTypeOf(client.things.get({ ...ids, fields: 'id', ifNoneMatch: '"e1"' })).resolves.toEqualTypeOf<
      { id?: string } | NotModified
    >();
  });

  it('is the union when fields or the tag are known only at run time', () => {
    const maybe = process.env.NO_SUCH_VARIABLE;
    expectTypeOf(client.things.get({ ...ids, fields: maybe })).resolves.toEqualTypeOf<
      Trimmed<Thing> | NotModified
    >();
    expectTypeOf(client.things.get({ ...ids, ifNoneMatch: maybe })).resolves.toEqualTypeOf<
      Thing | NotModified
    >();
    expectTypeOf(client.things.get({ ...ids, fields: 'id', ifNoneMatch: maybe })).resolves.toEqualTypeOf<
      { id?: string } | NotModified
    >();
  });

  it('offers no ifNoneMatch where the operation has no 304, nor fields where it has no mask', () => {
    // @ts-expect-error things.update cannot answer 304
    client.things.update({ ...ids, ifNoneMatch: '"e1"' }).catch(() => undefined);
    // @ts-expect-error things.patch takes no fields
    client.things.patch({ ...ids, fields: 'id' }).catch(() => undefined);
  });
});
