/** The bundled specs, their operations, and example requests built from them. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const specDir = path.dirname(require.resolve('@gspec/specs/apis.json'));

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents are arbitrary JSON.
export type Json = any;

export interface ApiSpec {
  name: string;
  id: string;
  basePath: string;
  doc: Json;
}

export interface Operation {
  api: ApiSpec;
  operationId: string;
  method: string;
  path: string;
  operation: Json;
  parameters: Json[];
}

export function loadSpecs(): ApiSpec[] {
  const index = JSON.parse(readFileSync(path.join(specDir, 'apis.json'), 'utf8')) as {
    name: string;
    id: string;
    basePath: string;
    file: string;
  }[];
  return index.map((entry) => ({
    name: entry.name,
    id: entry.id,
    basePath: entry.basePath,
    doc: JSON.parse(readFileSync(path.join(specDir, entry.file), 'utf8')),
  }));
}

/** The JSON pointer a local `$ref` leads to, and the value there. */
export function follow(doc: Json, node: Json): { pointer?: string; value: Json } {
  let pointer: string | undefined;
  let value = node;
  for (let hops = 0; value && typeof value === 'object' && typeof value.$ref === 'string'; hops++) {
    if (hops > 20) throw new Error(`$ref chain too long at ${value.$ref}`);
    pointer = (value.$ref as string).replace(/^#/, '');
    value = pointer
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((current: Json, key) => current?.[key], doc);
    if (value === undefined) throw new Error(`unresolved $ref #${pointer}`);
  }
  return { ...(pointer ? { pointer } : {}), value };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export function operationsOf(api: ApiSpec): Operation[] {
  const out: Operation[] = [];
  for (const [route, rawItem] of Object.entries<Json>(api.doc.paths ?? {})) {
    const item = follow(api.doc, rawItem).value;
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const merged = new Map<string, Json>();
      for (const raw of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
        const param = follow(api.doc, raw).value;
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
  if (firstExample) return follow(doc, firstExample).value.value;
  const schema = follow(doc, param.schema ?? {}).value;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1;
  if (schema.type === 'boolean') return true;
  if (schema.type === 'array') return [sampleValue(doc, { schema: schema.items })];
  return schema.format === 'int64' ? '1234567890' : 'test';
}

/** The named examples of a parameter (`examples`), or its single `example` as `example`. */
export function parameterExamples(doc: Json, param: Json): [string, unknown][] {
  if (param.examples)
    return Object.entries<Json>(param.examples).map(([name, e]) => [name, follow(doc, e).value.value]);
  if (param.example !== undefined) return [['example', param.example]];
  return [];
}

/** The JSON request body of an operation: whether it is required, its schema and named examples. */
export function requestBodyOf(
  op: Operation,
): { required: boolean; schema: Json; examples: [string, unknown][] } | undefined {
  if (!op.operation.requestBody) return undefined;
  const body = follow(op.api.doc, op.operation.requestBody).value;
  const media = body.content?.['application/json'];
  if (!media) return undefined;
  const examples = Object.entries<Json>(media.examples ?? {}).map(
    ([name, e]) => [name, follow(op.api.doc, e).value.value] as [string, unknown],
  );
  return { required: body.required === true, schema: media.schema ?? {}, examples };
}

/** The first named example of the JSON request body, if the operation takes one. */
export function sampleBody(op: Operation): unknown {
  const body = requestBodyOf(op);
  if (!body) return undefined;
  const first = body.examples[0];
  if (!first) throw new Error(`${op.operationId}: the request body has no named example to send`);
  return first[1];
}

/** The properties a body schema requires at its top level, following `$ref` and `allOf`. */
export function requiredProperties(doc: Json, schema: Json): string[] {
  const resolved = follow(doc, schema).value;
  const out = new Set<string>(resolved.required ?? []);
  for (const member of resolved.allOf ?? [])
    for (const name of requiredProperties(doc, member)) out.add(name);
  return [...out];
}

/** Every documented response of an operation, by status, with the JSON pointer of its object. */
export function responsesOf(op: Operation): Map<string, { response: Json; pointer: string }> {
  const escapedPath = op.path.replace(/~/g, '~0').replace(/\//g, '~1');
  const out = new Map<string, { response: Json; pointer: string }>();
  for (const [code, raw] of Object.entries<Json>(op.operation.responses ?? {})) {
    const { pointer, value } = follow(op.api.doc, raw);
    out.set(code, {
      response: value,
      pointer: pointer ?? `/paths/${escapedPath}/${op.method}/responses/${code}`,
    });
  }
  return out;
}

/** The documented response for an answered status: the exact code, else `4XX`-style, else `default`. */
export function documentedResponse(
  op: Operation,
  status: number,
): { response: Json; pointer: string } | undefined {
  const all = responsesOf(op);
  return all.get(String(status)) ?? all.get(`${String(status)[0]}XX`) ?? all.get('default');
}

/**
 * Whether an operation only reads: a read-only OAuth scope (`...readonly`) allows it. Those
 * are the GETs, freebusy.query, and the watch channels (which subscribe, not change data).
 */
export function isReadOnly(op: Operation): boolean {
  const scopes = (op.operation.security ?? []).flatMap((s: Json) => Object.values<string[]>(s).flat());
  return op.method === 'get' || scopes.some((scope: string) => scope.endsWith('.readonly'));
}

/** The documented success answer: the first 2xx response. */
export function successResponse(op: Operation): { status: number; response: Json; pointer: string } {
  const entry = Object.entries<Json>(op.operation.responses).find(([code]) => /^2\d\d$/.test(code));
  if (!entry) throw new Error(`${op.operationId}: no 2xx response documented`);
  const [code, raw] = entry;
  const escapedPath = op.path.replace(/~/g, '~0').replace(/\//g, '~1');
  const { pointer, value } = follow(op.api.doc, raw);
  return {
    status: Number(code),
    response: value,
    pointer: pointer ?? `/paths/${escapedPath}/${op.method}/responses/${code}`,
  };
}
