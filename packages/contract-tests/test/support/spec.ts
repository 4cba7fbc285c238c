/** The bundled specs, their operations, and example requests built from them. */
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  follow,
  type Json,
  listOperations,
  loadBundledSpecs,
  type SpecOperation,
  sampleValue,
} from '@gspec/scripts/operations';

const require = createRequire(import.meta.url);
const specDir = path.dirname(require.resolve('@gspec/specs/apis.json'));

export type { Json };

export interface ApiSpec {
  name: string;
  id: string;
  basePath: string;
  doc: Json;
}

export interface Operation extends SpecOperation {
  api: ApiSpec;
}

export function loadSpecs(): ApiSpec[] {
  return loadBundledSpecs(specDir);
}

export { follow };

/** Every operation of one bundled spec, with the spec it belongs to. */
export function operationsOf(api: ApiSpec): Operation[] {
  return listOperations(api.doc).map((op) => ({ ...op, api }));
}

export { sampleValue };

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
