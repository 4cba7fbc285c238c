/**
 * The emulator's layout holds (README, Architecture): no import circle among src/ (type-only
 * imports count), no API module imports another, and the core reaches into an API's folder
 * only where the list below says so. That list is what is left of the core knowing Calendar
 * and Search Ads 360 by name (issue 19); it may only shrink: a new entry fails this test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = path.resolve(import.meta.dirname, '../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** Each file of src/ (relative) to the files of src/ it imports, type-only imports and re-exports included. */
const graph = new Map(
  sources(src).map((file) => {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) =>
      path.relative(src, path.resolve(path.dirname(file), (m[1] as string).replace(/\.js$/, '.ts'))),
    );
    return [path.relative(src, file), targets] as const;
  }),
);

/** The circles of the graph, each as the path that closes it. */
function circles(): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

const apiOf = (file: string) => /^apis\/([^/]+)\//.exec(file)?.[1];

/** What the core still imports from an API's folder, to be moved behind the module interface. */
const CORE_INTO_APIS = [
  'core/api-module.ts -> apis/calendar/store.ts',
  'core/context.ts -> apis/calendar/store.ts',
  'core/seed.ts -> apis/searchads360/seed.ts',
  'core/seed.ts -> apis/searchads360/state-schema.ts',
  'core/server.ts -> apis/calendar/defaults.ts',
  'core/server.ts -> apis/calendar/store.ts',
  'core/state-file.ts -> apis/searchads360/state-schema.ts',
  'core/state.ts -> apis/searchads360/records.ts',
];

describe('the layout of src/', () => {
  it('reads the files it checks', () => {
    expect(graph.get('core/server.ts')).toContain('core/storage.ts');
    expect(graph.get('apis/index.ts')).toEqual(
      expect.arrayContaining(['apis/calendar/index.ts', 'apis/searchads360/index.ts']),
    );
  });

  it('has no import circle, type-only imports included', () => {
    expect(circles().map((circle) => circle.join(' -> '))).toEqual([]);
  });

  it('no API imports another', () => {
    const crossing = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => apiOf(file) && apiOf(target) && apiOf(target) !== apiOf(file))
        .map((target) => `${file} -> ${target}`),
    );
    expect(crossing).toEqual([]);
  });

  it('the core imports from an API only where the list of what is left says', () => {
    const intoApis = [...graph].flatMap(([file, targets]) =>
      file.startsWith('core/')
        ? targets.filter((target) => target.startsWith('apis/')).map((target) => `${file} -> ${target}`)
        : [],
    );
    expect(intoApis.sort()).toEqual(CORE_INTO_APIS);
  });

  it('the registry is the only place that lists the APIs', () => {
    const importers = [...graph]
      .filter(([, targets]) => targets.some((target) => /^apis\/[^/]+\/index\.ts$/.test(target)))
      .map(([file]) => file);
    expect(importers).toEqual(['apis/index.ts']);
  });
});

/**
 * The handlers read requests through the types generated from the specs (generated/requests.ts)
 * rather than through casts and String(): the type assertions (`as`, not `as const`) and the
 * String() calls left in src/apis, counted on the syntax tree. A ratchet: the counts may only
 * go down; lower the figures when they do. What is left reads stored state (JsonObject
 * resources, database rows) or formats numbers as text.
 */
const APIS_CEILING = { as: 31, String: 48 };

/** The casts (`as` but `as const`, `<T>x`) and the String() calls of one source text. */
function countIn(text: string): { as: number; String: number } {
  const count = { as: 0, String: 0 };
  const source = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (
      (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) &&
      !(ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(source) === 'const')
    )
      count.as++;
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'String')
      count.String++;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return count;
}

function castsAndStrings(dir: string): { as: number; String: number } {
  const counts = sources(dir).map((file) => countIn(readFileSync(file, 'utf8')));
  return {
    as: counts.reduce((sum, c) => sum + c.as, 0),
    String: counts.reduce((sum, c) => sum + c.String, 0),
  };
}

describe('the handlers on generated types', () => {
  it('src/apis has no more casts and String() calls than it had once the handlers were typed', () => {
    const count = castsAndStrings(path.join(src, 'apis'));
    expect(count.as).toBeLessThanOrEqual(APIS_CEILING.as);
    expect(count.String).toBeLessThanOrEqual(APIS_CEILING.String);
  });

  it('counts casts but `as const`, and calls of String itself', () => {
    const text =
      'const a = x as string; const b = [1] as const; const c = y as unknown as number; String(a); s.String(b); f(String(c));';
    expect(countIn(text)).toEqual({ as: 3, String: 2 });
  });
});
