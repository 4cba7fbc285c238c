/**
 * What the published @gspec/specs package holds (specs/dist, built by scripts/bundle.ts): every
 * form of every document, its entry point's files, loader and lists, and its types.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  type ApiOperationIds,
  type ApiPaths,
  apis,
  loadSpec,
  type OpenApiDocument,
  operationIds,
  paths,
  specFiles,
} from '../dist/index.js';

const dist = path.resolve(import.meta.dirname, '../dist');
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
type Json = Record<string, unknown>;

/** The document with every local $ref replaced by what it points to: the dereferenced form, computed here. */
function resolveRefs(doc: Json): unknown {
  const at = (pointer: string): unknown =>
    pointer
      .replace(/^#\//, '')
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, part) => (node as Json)[part], doc);
  const walk = (node: unknown, seen: string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, seen));
    if (node === null || typeof node !== 'object') return node;
    const ref = (node as Json).$ref;
    if (typeof ref === 'string') {
      if (seen.includes(ref)) throw new Error(`cycle through ${ref}`);
      const { $ref: _, ...siblings } = node as Json;
      const target = walk(at(ref), [...seen, ref]) as Json;
      return Object.keys(siblings).length > 0 ? { ...target, ...(walk(siblings, seen) as Json) } : target;
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, seen)]));
  };
  return walk(doc, []);
}

const refsIn = (text: string) => text.match(/"\$ref"/g)?.length ?? 0;

describe.each(apis.map((api) => [api.id, api] as const))('%s', (id, api) => {
  const files = specFiles[id];
  const bundled = readJson(files.json) as Json;

  it('has every form in dist, named as the index says', () => {
    expect(Object.values(files).map((file) => path.relative(dist, file))).toEqual([
      `${id}.json`,
      `${id}.yaml`,
      `${id}.dereferenced.json`,
      `${id}.dereferenced.yaml`,
    ]);
    expect(api.file).toBe(`${id}.json`);
    expect(bundled.openapi).toMatch(/^3\.1\./);
  });

  it('YAML and JSON forms hold the same document', () => {
    expect(parseYaml(readFileSync(files.yaml, 'utf8'))).toEqual(bundled);
    expect(parseYaml(readFileSync(files.dereferencedYaml, 'utf8'))).toEqual(readJson(files.dereferencedJson));
  });

  it('the dereferenced form has no $ref and equals the bundled one with its $refs resolved', () => {
    expect(refsIn(readFileSync(files.json, 'utf8'))).toBeGreaterThan(0);
    const text = readFileSync(files.dereferencedJson, 'utf8');
    expect(refsIn(text)).toBe(0);
    expect(JSON.parse(text)).toEqual(resolveRefs(bundled));
    expect(readFileSync(files.dereferencedYaml, 'utf8')).not.toMatch(/^\s*(- )?\$ref:|[:-] [&*]\w/m);
  });

  it('lists exactly the paths and operationIds of the document', () => {
    const documentPaths = Object.keys(bundled.paths as Json);
    const documentIds = Object.values(bundled.paths as Record<string, Json>).flatMap((item) =>
      Object.values(item).flatMap((op) =>
        op && typeof op === 'object' && typeof (op as Json).operationId === 'string'
          ? [(op as Json).operationId]
          : [],
      ),
    );
    expect(paths[id]).toEqual(documentPaths);
    expect([...operationIds[id]].sort()).toEqual([...documentIds].sort());
    expect(new Set(operationIds[id]).size).toBe(operationIds[id].length);
  });

  it('loadSpec reads either form, a new object each time', () => {
    const loaded = loadSpec(id);
    expect(loaded).toEqual(bundled);
    expect(loadSpec(id)).not.toBe(loaded);
    expect(loadSpec(id, { dereferenced: true })).toEqual(readJson(files.dereferencedJson));
  });
});

describe('the entry point', () => {
  it('names both APIs with their live servers', () => {
    expect(apis.map(({ id, basePath }) => [id, basePath])).toEqual([
      ['calendar', '/calendar/v3'],
      ['searchads360', '/doubleclicksearch/v2'],
    ]);
    expect(readJson(path.join(dist, 'apis.json'))).toEqual(apis);
  });

  it.each([
    ['gmail', 'loadSpec: unknown API "gmail"; expected one of calendar, searchads360'],
    ['toString', 'loadSpec: unknown API "toString"; expected one of calendar, searchads360'],
    [42, 'loadSpec: unknown API 42; expected one of calendar, searchads360'],
  ])('refuses the API id %j', (id, message) => {
    expect(() => loadSpec(id as 'calendar')).toThrow(new TypeError(message));
  });

  it('refuses options that are not an object', () => {
    expect(() => loadSpec('calendar', true as never)).toThrow(
      'loadSpec: options must be an object such as { dereferenced: true }, not true',
    );
  });

  it('types paths and operationIds as literal unions', () => {
    expectTypeOf(loadSpec('calendar')).toEqualTypeOf<OpenApiDocument<ApiPaths['calendar']>>();
    expectTypeOf<'/calendars/{calendarId}/events'>().toExtend<ApiPaths['calendar']>();
    expectTypeOf<'/conversion'>().toExtend<ApiPaths['searchads360']>();
    expectTypeOf<'/conversion'>().not.toExtend<ApiPaths['calendar']>();
    expectTypeOf<'events.list'>().toExtend<ApiOperationIds['calendar']>();
    expectTypeOf<'events.lists'>().not.toExtend<ApiOperationIds['calendar']>();
    const doc = loadSpec('searchads360');
    expectTypeOf(doc.paths['/conversion'].post?.operationId).toEqualTypeOf<string | undefined>();
    // @ts-expect-error a path the document does not have
    doc.paths['/no/such/path'];
  });
});
