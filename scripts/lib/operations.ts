/**
 * Walking a bundled spec: its operations with their merged parameters, local $refs, and
 * sample values taken from the spec's own examples. Used by the reference build (code
 * samples, try-it defaults, the search index) and by the mock's and the contract tests'
 * test support, so every tool reads a spec the same way.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { OpenApiDocument } from './apis.ts';

// biome-ignore lint/suspicious/noExplicitAny: bundled OpenAPI documents are arbitrary JSON.
export type Json = any;

export interface SpecOperation {
  operationId: string;
  method: string;
  path: string;
  operation: Json;
  /** Path-level and operation-level parameters merged, $refs resolved, operation-level winning. */
  parameters: Json[];
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * Whether an operation is a batch endpoint (`x-batch`, docs/extensions.md): a transport that
 * carries the API's other operations, not a method of the API. Every walk over "the API's
 * operations" (the generated methods, code samples, the contract tests) leaves it out; the
 * batch clients, the servers' batch handling and the spec's own tests read it.
 */
export const isBatchEndpoint = (operation: Json): boolean =>
  typeof operation === 'object' && operation !== null && operation['x-batch'] !== undefined;

/** A header parameter as the clients' methods name it in their argument: `If-Match` is `ifMatch`. */
export function argumentName(header: string): string {
  return header.toLowerCase().replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * Follows a local `#/...` reference (repeatedly) and says where it ended: the JSON pointer
 * of the last reference followed (none when `node` was no reference) and the value there.
 */
export function follow(doc: OpenApiDocument, node: Json): { pointer?: string; value: Json } {
  let pointer: string | undefined;
  let value = node;
  for (let hops = 0; value && typeof value === 'object' && typeof value.$ref === 'string'; hops++) {
    if (hops > 32) throw new Error(`$ref chain too long at ${value.$ref}`);
    const ref: string = value.$ref;
    if (!ref.startsWith('#/')) throw new Error(`only local $refs can be resolved in a bundled spec: ${ref}`);
    pointer = ref.slice(1);
    value = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((current: Json, key) => current?.[key], doc);
    if (value === undefined) throw new Error(`unresolved $ref ${ref}`);
  }
  return { ...(pointer ? { pointer } : {}), value };
}

/** Follows a local `#/...` reference (repeatedly); other values are returned as they are. */
export function resolve(doc: OpenApiDocument, node: Json): Json {
  return follow(doc, node).value;
}

export interface BundledSpec {
  name: string;
  id: string;
  basePath: string;
  doc: OpenApiDocument;
}

/**
 * Every bundled spec, as `<dir>/apis.json` lists them. The caller names the folder
 * (`path.dirname(require.resolve('@gspec/specs/apis.json'))`): @gspec/specs itself depends
 * on this workspace, so this one cannot depend on it.
 */
export function loadBundledSpecs(dir: string): BundledSpec[] {
  const index = JSON.parse(readFileSync(path.join(dir, 'apis.json'), 'utf8')) as (Omit<BundledSpec, 'doc'> & {
    file: string;
  })[];
  return index.map(({ name, id, basePath, file }) => ({
    name,
    id,
    basePath,
    doc: JSON.parse(readFileSync(path.join(dir, file), 'utf8')),
  }));
}

/**
 * The operations of a document with their merged parameters: the API's methods, and with
 * `batchEndpoints` its batch endpoints (`x-batch`) too, for the tools that show every
 * operation (the reference's pages and search).
 */
export function listOperations(
  doc: OpenApiDocument,
  options: { batchEndpoints?: boolean } = {},
): SpecOperation[] {
  const out: SpecOperation[] = [];
  for (const [route, rawItem] of Object.entries<Json>(doc.paths ?? {})) {
    const item = resolve(doc, rawItem);
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation || (isBatchEndpoint(operation) && !options.batchEndpoints)) continue;
      const merged = new Map<string, Json>();
      for (const raw of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
        const param = resolve(doc, raw);
        merged.set(`${param.in}:${param.name}`, param);
      }
      out.push({
        operationId: operation.operationId,
        method,
        path: route,
        operation,
        parameters: [...merged.values()],
      });
    }
  }
  return out;
}

/** A value for a parameter: its example, else the first of its examples, else what its schema suggests. */
export function sampleValue(doc: OpenApiDocument, param: Json): unknown {
  if (param.example !== undefined) return param.example;
  const named = param.examples && Object.values<Json>(param.examples)[0];
  if (named) return resolve(doc, named).value;
  const schema = resolve(doc, param.schema ?? {});
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1;
  if (schema.type === 'boolean') return true;
  if (schema.type === 'array') return [sampleValue(doc, { schema: schema.items })];
  return schema.format === 'int64' ? '1234567890' : 'example';
}

/** The first named example of the JSON request body, or undefined when there is no JSON body. */
export function sampleBody(doc: OpenApiDocument, op: SpecOperation): unknown {
  if (!op.operation.requestBody) return undefined;
  const media = resolve(doc, op.operation.requestBody).content?.['application/json'];
  const first = media?.examples && Object.values<Json>(media.examples)[0];
  return first ? resolve(doc, first).value : undefined;
}

/** The documented success answer: the first 2xx response, resolved. */
export function successResponse(doc: OpenApiDocument, op: SpecOperation): { status: number; response: Json } {
  const entry = Object.entries<Json>(op.operation.responses ?? {}).find(([code]) => /^2\d\d$/.test(code));
  if (!entry) throw new Error(`${op.operationId}: no 2xx response documented`);
  return { status: Number(entry[0]), response: resolve(doc, entry[1]) };
}

/** Every property name reachable from a schema (refs followed, compositions merged, cycles cut). */
export function fieldNames(doc: OpenApiDocument, schema: Json, seen = new Set<unknown>()): Set<string> {
  const names = new Set<string>();
  const visit = (node: Json) => {
    const value = resolve(doc, node);
    if (!value || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    for (const [name, child] of Object.entries<Json>(value.properties ?? {})) {
      names.add(name);
      visit(child);
    }
    for (const key of ['items', 'additionalProperties'])
      if (typeof value[key] === 'object') visit(value[key]);
    for (const key of ['allOf', 'anyOf', 'oneOf']) for (const part of value[key] ?? []) visit(part);
  };
  visit(schema);
  return names;
}

/**
 * The names an operation's argument must have, as the clients' methods take it: its required
 * path, query and header parameters (headers in camelCase, `If-Match` as `ifMatch`) and the
 * properties its JSON body requires (the schema's own and those an `allOf` member adds),
 * read-only ones left out.
 */
export function requiredArguments(doc: OpenApiDocument, op: SpecOperation): string[] {
  const names = op.parameters
    .filter((p) => p.required)
    .map((p) => (p.in === 'header' ? argumentName(p.name) : p.name));
  if (!op.operation.requestBody) return names;
  const schema = resolve(
    doc,
    resolve(doc, op.operation.requestBody).content?.['application/json']?.schema ?? {},
  );
  const required = new Set<string>();
  const properties: Record<string, Json> = {};
  const visit = (node: Json) => {
    const value = resolve(doc, node);
    for (const name of value.required ?? []) required.add(name);
    Object.assign(properties, value.properties ?? {});
    for (const member of value.allOf ?? []) visit(member);
  };
  visit(schema);
  return [...names, ...[...required].filter((name) => !resolve(doc, properties[name] ?? {}).readOnly)];
}

/**
 * The members a replace requires of its body that its argument leaves optional (decision
 * 0060): for a PUT whose body is its answer's schema with more members required (`allOf`),
 * those members, since the resource read back may lack them and is sent back as it is. The
 * body type (`BodyOf<op>`) still requires them.
 */
export function readBackOptional(doc: OpenApiDocument, op: SpecOperation): string[] {
  if (op.method.toLowerCase() !== 'put' || !op.operation.requestBody) return [];
  const body = resolve(doc, op.operation.requestBody).content?.['application/json']?.schema ?? {};
  const base = body.allOf?.[0]?.$ref;
  const success = Object.keys(op.operation.responses ?? {}).find((status) => /^2\d\d$/.test(status));
  const answer = success
    ? resolve(doc, op.operation.responses[success]).content?.['application/json']?.schema?.$ref
    : undefined;
  if (typeof base !== 'string' || base !== answer) return [];
  const own = new Set<string>(resolve(doc, { $ref: base }).required ?? []);
  const extra = new Set<string>();
  for (const member of body.allOf.slice(1))
    for (const name of resolve(doc, member).required ?? []) extra.add(name);
  return [...extra].filter((name) => !own.has(name));
}
