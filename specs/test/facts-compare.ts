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

/** A constraint the spec adds to what the facts state, at a parameter, property path or request body. */
export interface ConstraintDeviation {
  /** Where, one or more: `events.list query timeMin`, `Event.reminders.overrides`, `events.insert requestBody.id`. */
  at: string[];
  /** The JSON Schema keyword: `pattern`, `maxItems`, `enum`, `required`, ... */
  keyword: string;
  reason: string;
}

export interface Deviations {
  parameters?: ParameterDeviation[];
  properties?: PropertyDeviation[];
  schemas?: SchemaDeviation[];
  constraints?: ConstraintDeviation[];
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

// ---------------------------------------------------------------------------------------
// Constraints the spec adds

export interface ConstraintResult {
  at: string;
  keyword: string;
  /** What the spec says, for the failure message. */
  value: unknown;
}

/**
 * Keywords that narrow what is valid. Where the facts do not state one, the spec may be
 * stricter than the live service (or, for a request, looser than a rule the service
 * enforces that the facts leave out), so each one needs a recorded reason.
 */
const NARROWING = [
  'enum',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'not',
] as const;

/** Formats that only say how a number travels (decision 0001); they narrow nothing. */
const ENCODING_FORMATS = new Set(['int32', 'int64', 'uint32', 'uint64', 'double', 'float']);

function addedConstraints(at: string, facts: FactsSchema, spec: Node, out: ConstraintResult[]): void {
  const factsNode = facts as Record<string, unknown>;
  for (const keyword of NARROWING) {
    if (spec[keyword] === undefined) continue;
    if (keyword === 'enum' && factsNode.enum !== undefined && enumKey(factsNode.enum) === enumKey(spec.enum))
      continue;
    if (keyword !== 'enum' && JSON.stringify(factsNode[keyword]) === JSON.stringify(spec[keyword])) continue;
    out.push({ at, keyword, value: spec[keyword] });
  }
  if (spec.format !== undefined && facts.format === undefined && !ENCODING_FORMATS.has(spec.format)) {
    out.push({ at, keyword: 'format', value: spec.format });
  }
}

/**
 * Every narrowing keyword the spec has and the facts do not, on the facts' parameters, the
 * facts' property paths (and `required` on their objects), and the request bodies of the
 * facts' operations (the `allOf` members that state what an operation needs). `minLength: 1`
 * on a path parameter is left out: an empty path segment cannot name anything.
 */
export function compareConstraints(doc: OpenApiDocument, api: string, facts: Facts): ConstraintResult[] {
  const out: ConstraintResult[] = [];
  const specOps = new Map(operationsOf(api, doc).map((op) => [op.operationId, op]));
  for (const factsOp of facts.operations) {
    const specOp = specOps.get(factsOp.operation);
    if (!specOp) continue;
    const merged = new Map<string, Node>();
    for (const raw of [...(specOp.pathItem.parameters ?? []), ...(specOp.operation.parameters ?? [])]) {
      const param = deref<Node>(doc, raw);
      merged.set(`${param.in}:${param.name}`, param);
    }
    for (const factsParam of factsOp.parameters) {
      const specParam = merged.get(`${factsParam.in}:${factsParam.name}`);
      if (!specParam) continue;
      const schema = { ...(flatten(doc, specParam.schema) ?? {}) };
      if (specParam.in === 'path' && schema.minLength === 1) delete schema.minLength;
      // Parameter enums (and array items' enums) are compared by compareParameters.
      delete schema.enum;
      addedConstraints(
        `${factsOp.operation} ${factsParam.in} ${factsParam.name}`,
        factsParam.schema ?? {},
        schema,
        out,
      );
    }
    const body = specOp.operation.requestBody ? deref<Node>(doc, specOp.operation.requestBody) : undefined;
    const schema = body?.content?.['application/json']?.schema;
    for (const member of Array.isArray(schema?.allOf) ? schema.allOf : []) {
      if (member.$ref) continue;
      const at = `${factsOp.operation} requestBody`;
      if (Array.isArray(member.required)) out.push({ at, keyword: 'required', value: member.required });
      for (const [name, property] of Object.entries((member.properties ?? {}) as Record<string, Node>)) {
        addedConstraints(`${at}.${name}`, {}, property, out);
      }
    }
  }
  // A spec node reached by several paths (EventReminder inside Event and Events) counts once,
  // at the first path that reaches it.
  const seen = new WeakSet<object>();
  const paths = [
    ...Object.keys(facts.schemas).map((schema) => ({ schema, path: schema })),
    ...factsPropertyPaths(facts),
  ];
  for (const { schema, path: at } of paths) {
    const raw = doc.components?.schemas?.[schema] ? rawSpecNodeAt(doc, at) : undefined;
    if (!raw || seen.has(raw)) continue;
    seen.add(raw);
    const node = flatten(doc, raw) ?? {};
    const factsNode = factsNodeAt(facts, at) ?? {};
    // Formats of property paths are compared by compareProperties.
    addedConstraints(at, factsNode, { ...node, format: undefined }, out);
    if (Array.isArray(node.required) && node.required.length > 0)
      out.push({ at, keyword: 'required', value: node.required });
  }
  return out;
}

/** The spec node at a property path with its last `$ref` followed but not flattened: its identity. */
function rawSpecNodeAt(doc: OpenApiDocument, fullPath: string): Node | undefined {
  const cut = fullPath.match(/^(.*?)(\.[^.[\]{}]+|\[\]|\{\})$/);
  if (!cut) return deref<Node>(doc, doc.components?.schemas?.[fullPath]);
  const parent = specNodeAt(doc, cut[1] as string);
  const segment = cut[2] as string;
  if (!parent) return undefined;
  const child =
    segment === '[]'
      ? parent.items
      : segment === '{}'
        ? parent.additionalProperties
        : parent.properties?.[segment.slice(1)];
  return child && typeof child === 'object' ? deref<Node>(doc, child) : undefined;
}

/** The facts node at a property path, facts $refs followed. */
function factsNodeAt(facts: Facts, fullPath: string): FactsSchema | undefined {
  const rootName = /^[^.[{]+/.exec(fullPath)?.[0] ?? '';
  const resolve = (node: FactsSchema | undefined) =>
    node?.$ref ? facts.schemas[factsRefName(node.$ref)] : node;
  let node = resolve(facts.schemas[rootName]);
  const segments = fullPath.slice(rootName.length).match(/\.[^.[\]{}]+|\[\]|\{\}/g) ?? [];
  for (const segment of segments) {
    if (!node) return undefined;
    if (segment === '[]') node = resolve(node.items);
    else if (segment === '{}')
      node = resolve(typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
    else node = resolve(node.properties?.[segment.slice(1)]);
  }
  return node;
}
