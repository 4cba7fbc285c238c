/**
 * The seed's rules for Search Ads 360, checked in the form the tools read them (the
 * bundled searchads360@v2 document), not in prose:
 *
 * - conversion.get and conversion.getByCustomerId are deprecated since Q3 2025, with the
 *   migration to a report on the conversion resource of the Search Ads 360 Reporting API in
 *   the description and in `x-deprecation`; every other operation is not deprecated;
 * - the ID mapping download is text/csv, a string schema, with a CSV example whose header
 *   line lists the columns the operation documents;
 * - both conversion reads take the four required query parameters with their bounds;
 * - every operation needs the doubleclicksearch scope and costs one quota unit;
 * - the retired reporting operations are not described.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { OpenApiDocument } from '@gspec/scripts/apis';
import { beforeAll, describe, expect, it } from 'vitest';
import { deref, loadSpec, type OperationRef, operationsOf } from './support.ts';

const API = 'searchads360@v2';
const SCOPE = 'https://www.googleapis.com/auth/doubleclicksearch';

interface SeedOperation {
  operationId: string;
  method: string;
  path: string;
  deprecated: boolean;
}

const seed = (
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, 'fixtures/seed-operations.json'), 'utf8')) as {
    apis: Record<string, SeedOperation[]>;
  }
).apis[API] as SeedOperation[];

const DEPRECATED = ['conversion.get', 'conversion.getByCustomerId'];
const SUPPORTED = seed.map((op) => op.operationId).filter((id) => !DEPRECATED.includes(id));

const REQUIRED_QUERY = [
  { name: 'startDate', minimum: 20091101, maximum: 99991231 },
  { name: 'endDate', minimum: 20091101, maximum: 99991231 },
  { name: 'rowCount', minimum: 1, maximum: 1000 },
  { name: 'startRow', minimum: 0, maximum: undefined },
] as const;

const RETIRED = [
  { operationId: 'reports.generate', path: '/reports/generate' },
  { operationId: 'reports.request', path: '/reports' },
  { operationId: 'reports.get', path: '/reports/{reportId}' },
  { operationId: 'reports.getFile', path: '/reports/{reportId}/files/{reportFragment}' },
] as const;

let doc: OpenApiDocument;
let ops: Map<string, OperationRef>;

beforeAll(async () => {
  doc = await loadSpec(API);
  ops = new Map(operationsOf(API, doc).map((op) => [op.operationId, op]));
});

function op(operationId: string): OperationRef {
  const found = ops.get(operationId);
  if (!found) throw new Error(`${operationId} is not in the spec`);
  return found;
}

// biome-ignore lint/suspicious/noExplicitAny: raw OpenAPI parameter objects.
function parametersOf(ref: OperationRef): Record<string, any>[] {
  // biome-ignore lint/suspicious/noExplicitAny: raw OpenAPI parameter objects.
  const merged = new Map<string, Record<string, any>>();
  for (const raw of [...(ref.pathItem.parameters ?? []), ...(ref.operation.parameters ?? [])]) {
    // biome-ignore lint/suspicious/noExplicitAny: raw OpenAPI parameter objects.
    const param = deref<Record<string, any>>(doc, raw);
    merged.set(`${param.in}:${param.name}`, param);
  }
  return [...merged.values()];
}

/** Splits one CSV line into its fields (RFC 4180 quoting, no line breaks inside fields). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return fields;
}

describe('searchads360@v2 seed operations', () => {
  it.each(seed)('$operationId is $method $path', (expected) => {
    const actual = op(expected.operationId);
    expect(actual.method).toBe(expected.method.toLowerCase());
    expect(actual.path).toBe(expected.path);
  });
});

describe('deprecation of the conversion reads', () => {
  it.each(DEPRECATED)('%s is deprecated', (id) => {
    expect(op(id).operation.deprecated).toBe(true);
  });

  it.each(DEPRECATED)('%s says since when and where conversion data is read now', (id) => {
    const description: string = op(id).operation.description ?? '';
    expect(description).toMatch(/deprecated/i);
    expect(description).toMatch(/third quarter of 2025|Q3 2025|2025-Q3/);
    expect(description).toContain('Search Ads 360 Reporting API');
    expect(description).toMatch(/report on\s+the\s+`?conversion`?\s+resource/);
  });

  it.each(DEPRECATED)('%s carries x-deprecation with the quarter and the replacement', (id) => {
    const deprecation = op(id).operation['x-deprecation'];
    expect(deprecation).toMatchObject({
      since: '2025-Q3',
      replacement: { api: 'Search Ads 360 Reporting API', resource: 'conversion' },
    });
    expect(typeof deprecation.replacement.migration).toBe('string');
    expect(deprecation.replacement.migration.length).toBeGreaterThan(0);
  });

  it.each(SUPPORTED)('%s is not deprecated', (id) => {
    const operation = op(id).operation;
    expect(operation.deprecated ?? false).toBe(false);
    expect(operation['x-deprecation']).toBeUndefined();
  });

  it('deprecates exactly the operations the seed marks deprecated', () => {
    const deprecated = [...ops.values()]
      .filter((o) => o.operation.deprecated === true)
      .map((o) => o.operationId);
    expect(deprecated.sort()).toEqual(
      seed
        .filter((s) => s.deprecated)
        .map((s) => s.operationId)
        .sort(),
    );
  });
});

describe('the ID mapping download', () => {
  const response = () => op('reports.getIdMappingFile').operation.responses?.['200'];

  it('answers text/csv and nothing else', () => {
    expect(Object.keys(deref(doc, response()).content ?? {})).toEqual(['text/csv']);
  });

  it('has a string schema', () => {
    const schema = deref(doc, deref(doc, response()).content['text/csv'].schema);
    expect(schema.type).toBe('string');
  });

  it('has a CSV example whose header line lists the documented columns', () => {
    const description: string = op('reports.getIdMappingFile').operation.description ?? '';
    const documented = [...description.matchAll(/^\| ([^|`]+?) \| [^|]+ \|$/gm)]
      .map((m) => (m[1] ?? '').trim())
      .filter((name) => name !== 'Column' && !/^-+$/.test(name));
    expect(documented.length).toBeGreaterThan(0);

    const examples = deref(doc, response()).content['text/csv'].examples ?? {};
    const first = deref(doc, Object.values(examples)[0]);
    expect(typeof first?.value).toBe('string');
    const lines = (first.value as string).trim().split('\n');
    expect(csvFields(lines[0] ?? '')).toEqual(documented);
    for (const line of lines.slice(1)) expect(csvFields(line), line).toHaveLength(documented.length);
  });
});

describe('the four required query parameters of the conversion reads', () => {
  const cases = DEPRECATED.flatMap((id) => REQUIRED_QUERY.map((p) => ({ id, ...p })));

  it.each(cases)(
    '$id requires $name as an integer from $minimum to $maximum',
    ({ id, name, minimum, maximum }) => {
      const param = parametersOf(op(id)).find((p) => p.name === name && p.in === 'query');
      expect(param, `${id} ${name}`).toBeDefined();
      expect(param?.required).toBe(true);
      const schema = deref(doc, param?.schema);
      expect(schema.type).toBe('integer');
      expect(schema.minimum).toBe(minimum);
      expect(schema.maximum).toBe(maximum);
    },
  );

  it.each(DEPRECATED)('%s requires no other query parameter', (id) => {
    const required = parametersOf(op(id))
      .filter((p) => p.in === 'query' && p.required === true)
      .map((p) => p.name)
      .sort();
    expect(required).toEqual(REQUIRED_QUERY.map((p) => p.name).sort());
  });
});

describe('scope and quota of every operation', () => {
  it('defines the doubleclicksearch scope in the OAuth2 scheme', () => {
    const scheme = doc.components?.securitySchemes?.OAuth2;
    expect(Object.keys(scheme?.flows?.authorizationCode?.scopes ?? {})).toContain(SCOPE);
  });

  it.each(seed.map((s) => s.operationId))('%s needs the doubleclicksearch scope', (id) => {
    const security: Record<string, string[]>[] = op(id).operation.security ?? doc.security ?? [];
    expect(security.length).toBeGreaterThan(0);
    for (const requirement of security) expect(requirement.OAuth2 ?? []).toContain(SCOPE);
  });

  it.each(seed.map((s) => s.operationId))('%s costs one quota unit', (id) => {
    expect(op(id).operation['x-quota-cost']).toBe(1);
  });
});

describe('retired reporting operations', () => {
  it.each(RETIRED)('$operationId is not described', ({ operationId, path: route }) => {
    expect(ops.has(operationId)).toBe(false);
    expect(Object.keys(doc.paths ?? {})).not.toContain(route);
  });

  it('describes no other reports operation than the ID mapping download', () => {
    const reports = [...ops.keys()].filter((id) => id.startsWith('reports.'));
    expect(reports).toEqual(['reports.getIdMappingFile']);
  });
});
