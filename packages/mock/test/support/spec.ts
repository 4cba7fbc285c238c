/**
 * The bundled specs as the tests read them: every operation with its parameters, and the
 * request values and body its examples give. Tests derive what to send from the specs, so a
 * new operation is covered without a test change.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
export const specDir = path.dirname(require.resolve('@gspec/specs/apis.json'));

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents are arbitrary JSON.
export type Json = any;

export interface ApiSpec {
  id: string;
  basePath: string;
  doc: Json;
}

export interface SpecOperation {
  api: ApiSpec;
  operationId: string;
  method: string;
  path: string;
  operation: Json;
  parameters: Json[];
}

export function loadSpecs(): ApiSpec[] {
  const index = JSON.parse(readFileSync(path.join(specDir, 'apis.json'), 'utf8')) as {
    id: string;
    basePath: string;
    file: string;
  }[];
  return index.map((entry) => ({
    id: entry.id,
    basePath: entry.basePath,
    doc: JSON.parse(readFileSync(path.join(specDir, entry.file), 'utf8')),
  }));
}

/** Follows local `$ref`s to the value they name. */
export function follow(doc: Json, node: Json): Json {
  let value = node;
  for (let hops = 0; value && typeof value === 'object' && typeof value.$ref === 'string'; hops++) {
    if (hops > 20) throw new Error(`$ref chain too long at ${value.$ref}`);
    const ref = value.$ref as string;
    value = ref
      .replace(/^#/, '')
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((current: Json, key) => current?.[key], doc);
    if (value === undefined) throw new Error(`unresolved $ref ${ref}`);
  }
  return value;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export function operationsOf(api: ApiSpec): SpecOperation[] {
  const out: SpecOperation[] = [];
  for (const [route, rawItem] of Object.entries<Json>(api.doc.paths ?? {})) {
    const item = follow(api.doc, rawItem);
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const merged = new Map<string, Json>();
      for (const raw of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
        const param = follow(api.doc, raw);
        merged.set(`${param.in}:${param.name}`, param);
      }
      out.push({
        api,
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

/** A value for a parameter: its example, else what its schema suggests. */
export function sampleValue(doc: Json, param: Json): unknown {
  if (param.example !== undefined) return param.example;
  const firstExample = param.examples && Object.values<Json>(param.examples)[0];
  if (firstExample) return follow(doc, firstExample).value;
  const schema = follow(doc, param.schema ?? {});
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1;
  if (schema.type === 'boolean') return true;
  if (schema.type === 'array') return [sampleValue(doc, { schema: schema.items })];
  return schema.format === 'int64' ? '1234567890' : 'test';
}

/** The first named example of the JSON request body, if the operation takes one. */
export function sampleBody(op: SpecOperation): unknown {
  if (!op.operation.requestBody) return undefined;
  const body = follow(op.api.doc, op.operation.requestBody);
  const media = body.content?.['application/json'];
  const first = media?.examples && Object.values<Json>(media.examples)[0];
  if (!first) throw new Error(`${op.operationId}: the request body has no named example to send`);
  return follow(op.api.doc, first).value;
}

/** The documented success answer: its status and media type (undefined for no body). */
export function successOf(op: SpecOperation): { status: number; mediaType?: string } {
  const entry = Object.entries<Json>(op.operation.responses).find(([code]) => /^2\d\d$/.test(code));
  if (!entry) throw new Error(`${op.operationId}: no 2xx response documented`);
  const response = follow(op.api.doc, entry[1]);
  const mediaType = Object.keys(response.content ?? {})[0];
  return { status: Number(entry[0]), ...(mediaType ? { mediaType } : {}) };
}
