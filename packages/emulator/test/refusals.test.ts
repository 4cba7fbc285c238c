/**
 * The refusal table (decision 0054): every refusal the emulator can answer is a declared entry
 * (src/core/refusals.ts), every entry cites evidence that resolves (a fact in
 * specs/test/fixtures/, or a decision record naming the entry), every entry is used by a
 * refusal site, and docs/refusals.md is the table of the registry (`npm run refusals`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, KIT_REASONS, refusal } from '../src/core/errors.ts';
import type { Evidence } from '../src/core/refusals.ts';
import '../src/emulator.ts';
import {
  factAt,
  packageDir,
  renderTable,
  repoRoot,
  resolveEvidence,
  servedRefusals,
  tableFile,
} from '../scripts/refusal-table.ts';

// The package's own: a test's API (third-api.test.ts) may share this worker's registry.
const refusals = servedRefusals();
const entries = refusals.map((r) => [r.entry.id, r.entry] as const);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((item) =>
    item.isDirectory()
      ? sourceFiles(path.join(dir, item.name))
      : item.name.endsWith('.ts')
        ? [path.join(dir, item.name)]
        : [],
  );
}
const sources = sourceFiles(path.join(packageDir, 'src')).map((file) => ({
  file: path.relative(packageDir, file),
  text: readFileSync(file, 'utf8'),
}));

const specOperations = (file: string): Set<string> =>
  new Set(
    (
      JSON.parse(readFileSync(path.join(repoRoot, 'specs/test/fixtures', file), 'utf8')) as {
        operations: { operation: string }[];
      }
    ).operations.map((op) => op.operation),
  );
const OPERATIONS: Record<string, Set<string>> = {
  calendar: specOperations('calendar-v3.facts.json'),
  searchads360: specOperations('searchads360-v2.facts.json'),
};

describe('the refusal registry', () => {
  it('has the refusals of every part of the emulator', () => {
    const scopes = new Set(refusals.map((r) => r.entry.scope));
    for (const scope of ['calendar', 'searchads360', 'every API', 'token endpoint', 'control plane'])
      expect(scopes, scope).toContain(scope);
  });

  it.each(entries)('%s cites evidence that resolves', (id, entry) => {
    expect(entry.evidence.length).toBeGreaterThan(0);
    const problems = entry.evidence.map((e) => resolveEvidence(id, e).problem).filter(Boolean);
    expect(problems, `${id}'s evidence`).toEqual([]);
  });

  it.each(entries)('%s is named well and names operations of its API', (id, entry) => {
    expect(id).toMatch(/^[a-z0-9]+(\.[a-zA-Z0-9]+)+$/);
    expect(entry.when.trim(), 'a condition in one line').not.toMatch(/\n/);
    expect(entry.status).toBeGreaterThanOrEqual(400);
    const known = OPERATIONS[entry.scope];
    if (known)
      for (const operation of entry.operations) expect(known, `${id}: ${operation}`).toContain(operation);
    else expect(entry.operations, `${id}: a shared refusal names no operation`).toEqual([]);
  });

  it('has an entry for every refusal of the shared HTTP layer (server-kit)', () => {
    const kit = readdirSync(path.join(repoRoot, 'packages/server-kit/src'))
      .filter((file) => file.endsWith('.ts'))
      .map((file) => readFileSync(path.join(repoRoot, 'packages/server-kit/src', file), 'utf8'))
      .join('\n');
    const reasons = [...kit.matchAll(/new HttpRefusal\([^)]*?reason: '([a-zA-Z]+)'/gs)].map((m) => m[1]);
    expect(reasons.length).toBeGreaterThan(5);
    for (const reason of reasons) expect(KIT_REASONS, reason).toContain(reason);
  });

  it('makes an error only from an entry, and uses every entry it declares', () => {
    // Outside errors.ts, no error item is written by hand: an ApiError takes a declared entry
    // (the compiler holds that), and nothing else builds Google's envelope.
    for (const { file, text } of sources)
      if (!file.endsWith(path.join('core', 'errors.ts'))) expect(text, file).not.toMatch(/googleError\(/);
    const declared = sources.flatMap(({ file, text }) =>
      [
        ...text.matchAll(
          /(?:export )?const ([A-Z][A-Z0-9_]+)\s*=\s*(?:\w+\()?\s*(?:refusal|[a-z][a-zA-Z]*Refusal|control|inspector)\(/g,
        ),
      ].map((m) => ({ file, name: m[1] as string })),
    );
    expect(declared.length).toBeGreaterThan(20);
    const unused = declared.filter(
      ({ name }) =>
        sources.reduce(
          (count, { text }) => count + (text.match(new RegExp(`\\b${name}\\b`, 'g'))?.length ?? 0),
          0,
        ) < 2,
    );
    expect(unused, 'entries declared but used by no refusal site').toEqual([]);
  });

  it('refuses an error without an entry, at compile time (the typecheck runs this file)', () => {
    // @ts-expect-error: a status and items are no entry; `npm run typecheck` fails if this compiles.
    const untyped = () => new ApiError(400, []);
    expect(untyped).toBeTypeOf('function');
  });

  it('refuses a second entry with the same id, and an entry without evidence', () => {
    const first = refusals[0]?.entry;
    if (!first) throw new Error('no refusal is declared');
    expect(() => refusal({ ...first })).toThrow(/declared twice/);
    expect(() =>
      refusal({
        id: 'test.noEvidence',
        scope: 'test',
        operations: [],
        status: 400,
        reason: 'invalid',
        when: 'never',
        evidence: [] as unknown as [Evidence],
      }),
    ).toThrow(/no evidence/);
  });
});

describe('evidence', () => {
  it.each([
    ['fact:calendar-v3:operations/events.list/parameters/maxResults/schema/minimum', true],
    ['fact:searchads360-v2:operations/conversion.get/parameters/rowCount/schema/maximum', true],
    ['fact:conventions:errors/reasons/timeRangeEmpty', true],
    ['fact:calendar-v3:operations/events.list/parameters/noSuchParameter', false],
    ['fact:nowhere:errors', false],
    ['decision:9999', false],
    ['decision:0054', true],
    ['a page somewhere', false],
  ] as const)('%s resolves: %s', (evidence, resolves) => {
    // decision:0054 names `any.noOperation`, as every entry it backs.
    const { problem } = resolveEvidence('any.noOperation', evidence as Evidence);
    expect(problem === undefined).toBe(resolves);
  });

  it('steps into arrays by operation or name', () => {
    expect(factAt('searchads360-v2', 'operations/conversion.get/parameters/rowCount/schema/maximum')).toEqual(
      {
        found: true,
        value: 1000,
      },
    );
  });

  it('fails a decision record that does not name the entry', () => {
    expect(resolveEvidence('calendar.noSuchEntry', 'decision:0054').problem).toMatch(/does not name/);
  });
});

describe('docs/refusals.md', () => {
  it('is the table of the registry (run `npm run refusals` after changing an entry)', () => {
    expect(readFileSync(tableFile, 'utf8')).toBe(renderTable(refusals));
  });
});
