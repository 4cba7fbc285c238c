/**
 * The comparison behind test/facts.test.ts: the reference facts of a service against its
 * bundled spec, item by item. Kept apart from the test so that it can also be run on a
 * document that does not bundle cleanly yet (a spec being written). The deviations shape
 * is described in test/facts.test.ts and test/fixtures/DEVIATIONS.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { OpenApiDocument } from '@gspec/scripts/apis';
import { deref, operationsOf } from './support.ts';

// ---------------------------------------------------------------------------------------
// Facts and deviations

export interface FactsSchema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
  $ref?: string;
  properties?: Record<string, FactsSchema>;
  items?: FactsSchema;
  additionalProperties?: FactsSchema | boolean;
}

export interface FactsParameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: FactsSchema;
}

export interface FactsOperation {
  operation: string;
  method: string;
  path: string;
  parameters: FactsParameter[];
}

export interface Facts {
  operations: FactsOperation[];
  schemas: Record<string, FactsSchema>;
}

export interface ParameterDeviation {
  operation: string;
  name: string;
  in?: string;
  reason: string;
}

export interface PropertyDeviation {
  path: string;
  reason: string;
}

export interface SchemaDeviation {
  schema: string;
  reason: string;
}

export interface Deviations {
  parameters?: ParameterDeviation[];
  properties?: PropertyDeviation[];
  schemas?: SchemaDeviation[];
}

export const fixturesDir = path.resolve(import.meta.dirname, 'fixtures');

export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

export function loadDeviations(stem: string): Deviations {
  const file = path.join(fixturesDir, `${stem}.deviations.json`);
  return existsSync(file) ? readJson<Deviations>(file) : {};
}

// ---------------------------------------------------------------------------------------
// Comparison helpers

// biome-ignore lint/suspicious/noExplicitAny: raw OpenAPI schema objects.
export type Node = Record<string, any>;

/** A type as one comparable string: `string`, or `integer|null` for a type list. */
export function typeKey(type: unknown): string {
  if (Array.isArray(type)) return [...type].map(String).sort().join('|');
  return type === undefined ? '(none)' : String(type);
}

export function enumKey(values: unknown): string {
  if (!Array.isArray(values)) return '(none)';
  const shown = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).sort();
  return `[${shown.join(', ')}]`;
}

/** The facts' `$ref` (a bare schema name, or a JSON pointer) as a schema name. */
export function factsRefName(ref: string): string {
  return ref.split('/').pop() ?? ref;
}

/**
 * A spec schema with its `$ref`s followed and its `allOf` members merged: the type and
 * format of the first that states one, the properties of all of them.
 */
export function flatten(doc: OpenApiDocument, node: unknown, depth = 0): Node | undefined {
  if (!node || typeof node !== 'object') return undefined;
  const own = deref<Node>(doc, node);
  if (!Array.isArray(own.allOf) || depth > 20) return own;
  const merged: Node = { ...own, properties: { ...(own.properties ?? {}) } };
  delete merged.allOf;
  for (const member of own.allOf) {
    const part = flatten(doc, member, depth + 1);
    if (!part) continue;
    for (const key of [
      'type',
      'format',
      'items',
      'additionalProperties',
      'enum',
      'minimum',
      'maximum',
      'default',
    ]) {
      if (merged[key] === undefined && part[key] !== undefined) merged[key] = part[key];
    }
    Object.assign(merged.properties, { ...(part.properties ?? {}), ...merged.properties });
  }
  return merged;
}

// ---------------------------------------------------------------------------------------
// Parameters

export interface ParameterResult {
  operation: string;
  name: string;
  in: string;
  equal: boolean;
  why: string;
}

export function compareParameters(doc: OpenApiDocument, api: string, facts: Facts): ParameterResult[] {
  const specOps = new Map(operationsOf(api, doc).map((op) => [op.operationId, op]));
  const results: ParameterResult[] = [];
  for (const factsOp of facts.operations) {
    const specOp = specOps.get(factsOp.operation);
    const merged = new Map<string, Node>();
    if (specOp) {
      for (const raw of [...(specOp.pathItem.parameters ?? []), ...(specOp.operation.parameters ?? [])]) {
        const param = deref<Node>(doc, raw);
        merged.set(`${param.in}:${param.name}`, param);
      }
    }
    for (const factsParam of factsOp.parameters) {
      const base = { operation: factsOp.operation, name: factsParam.name, in: factsParam.in };
      const specParam = merged.get(`${factsParam.in}:${factsParam.name}`);
      if (!specOp) {
        results.push({ ...base, equal: false, why: 'the spec has no such operation' });
        continue;
      }
      if (!specParam) {
        results.push({ ...base, equal: false, why: 'the spec operation has no such parameter' });
        continue;
      }
      const problems: string[] = [];
      const factsRequired = factsParam.required ?? false;
      const specRequired = specParam.required ?? false;
      if (factsRequired !== specRequired)
        problems.push(`required: facts ${factsRequired}, spec ${specRequired}`);
      const factsSchema = factsParam.schema ?? {};
      const specSchema = flatten(doc, specParam.schema) ?? {};
      const compare = (label: string, f: FactsSchema, s: Node) => {
        if (typeKey(f.type) !== typeKey(s.type)) {
          problems.push(`${label}type: facts ${typeKey(f.type)}, spec ${typeKey(s.type)}`);
        }
        if (enumKey(f.enum) !== enumKey(s.enum)) {
          problems.push(`${label}enum: facts ${enumKey(f.enum)}, spec ${enumKey(s.enum)}`);
        }
        // Bounds, format and default must match where the facts state them; the spec may add
        // what the snapshot lacks (a date-time format on timeMin), never contradict it.
        for (const key of ['format', 'minimum', 'maximum', 'default'] as const) {
          if (f[key] !== undefined && JSON.stringify(f[key]) !== JSON.stringify(s[key])) {
            problems.push(`${label}${key}: facts ${JSON.stringify(f[key])}, spec ${JSON.stringify(s[key])}`);
          }
        }
      };
      compare('', factsSchema, specSchema);
      if (typeKey(factsSchema.type) === 'array') {
        compare('items ', factsSchema.items ?? {}, flatten(doc, specSchema.items) ?? {});
      }
      results.push({ ...base, equal: problems.length === 0, why: problems.join('; ') });
    }
  }
  return results;
}

// ---------------------------------------------------------------------------------------
// Property paths

export interface FactsPath {
  schema: string;
  path: string;
  type: string;
  format: string;
}

/** Every property path of every facts schema, with the type and format the facts give it. */
export function factsPropertyPaths(facts: Facts): FactsPath[] {
  const out: FactsPath[] = [];
  const resolve = (node: FactsSchema): { node: FactsSchema; ref?: string } => {
    if (!node.$ref) return { node };
    const ref = factsRefName(node.$ref);
    const target = facts.schemas[ref];
    if (!target) throw new Error(`facts $ref to unknown schema ${node.$ref}`);
    return { node: target, ref };
  };
  const visit = (root: string, node: FactsSchema, at: string, stack: string[]) => {
    for (const [name, child] of Object.entries(node.properties ?? {}))
      step(root, child, `${at}.${name}`, stack);
    if (node.items && typeof node.items === 'object') step(root, node.items, `${at}[]`, stack);
    if (node.additionalProperties && typeof node.additionalProperties === 'object') {
      step(root, node.additionalProperties, `${at}{}`, stack);
    }
  };
  const step = (root: string, raw: FactsSchema, at: string, stack: string[]) => {
    const { node, ref } = resolve(raw);
    out.push({ schema: root, path: at, type: typeKey(node.type), format: node.format ?? '(none)' });
    if (ref && stack.includes(ref)) return; // a cycle: the path is recorded, not entered again
    visit(root, node, at, ref ? [...stack, ref] : stack);
  };
  for (const [name, schema] of Object.entries(facts.schemas)) visit(name, schema, name, [name]);
  return out;
}

export interface PropertyResult {
  schema: string;
  path: string;
  equal: boolean;
  why: string;
}

/** The spec node at a property path such as `Event.attendees[].email`, or undefined. */
export function specNodeAt(doc: OpenApiDocument, fullPath: string): Node | undefined {
  const rootName = /^[^.[{]+/.exec(fullPath)?.[0] ?? '';
  let node = flatten(doc, doc.components?.schemas?.[rootName]);
  const segments = fullPath.slice(rootName.length).match(/\.[^.[\]{}]+|\[\]|\{\}/g) ?? [];
  for (const segment of segments) {
    if (!node) return undefined;
    if (segment === '[]') node = flatten(doc, node.items);
    else if (segment === '{}') node = flatten(doc, node.additionalProperties);
    else node = flatten(doc, node.properties?.[segment.slice(1)]);
  }
  return node;
}

export function compareProperties(doc: OpenApiDocument, facts: Facts): PropertyResult[] {
  return factsPropertyPaths(facts).map(({ schema, path: at, type, format }) => {
    if (!doc.components?.schemas?.[schema]) {
      return { schema, path: at, equal: false, why: `the spec has no schema ${schema}` };
    }
    const node = specNodeAt(doc, at);
    if (!node) return { schema, path: at, equal: false, why: 'the spec schema has no such path' };
    const problems: string[] = [];
    if (typeKey(node.type) !== type) problems.push(`type: facts ${type}, spec ${typeKey(node.type)}`);
    const specFormat = node.format ?? '(none)';
    if (specFormat !== format) problems.push(`format: facts ${format}, spec ${specFormat}`);
    return { schema, path: at, equal: problems.length === 0, why: problems.join('; ') };
  });
}
