/**
 * Checks an answer of the emulator against the spec, strictly: the status must be documented
 * for the operation (501 is allowed only for the operations the emulator does not implement
 * yet), a 204 has no body, and a JSON body must be valid against the documented schema with
 * no undeclared property anywhere (every object schema in a value position gets
 * `unevaluatedProperties: false` unless it says otherwise, which sees through $ref and allOf).
 */
import { createAjv } from '../../src/schemas.ts';
import type { Exchange } from '../../src/server.ts';
import {
  type CalendarSpec,
  follow,
  isObject,
  type Json,
  type JsonObject,
  pointerToken,
} from '../../src/spec.ts';

const STRICT_ID = 'strict-calendar.json';

function close(schema: Json, valuePosition: boolean): void {
  if (!isObject(schema)) return;
  const type = schema.type;
  const mayBeObject =
    type === undefined || type === 'object' || (Array.isArray(type) && type.includes('object'));
  if (
    valuePosition &&
    mayBeObject &&
    schema.additionalProperties === undefined &&
    schema.unevaluatedProperties === undefined
  )
    schema.unevaluatedProperties = false;
  if (isObject(schema.properties)) for (const child of Object.values(schema.properties)) close(child, true);
  for (const key of ['items', 'additionalProperties'] as const)
    if (isObject(schema[key])) close(schema[key], true);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const parts = schema[key];
    if (Array.isArray(parts)) for (const part of parts) close(part, false);
  }
}

function strictCopy(document: JsonObject): JsonObject {
  const copy = structuredClone(document);
  const schemas =
    isObject(copy.components) && isObject(copy.components.schemas) ? copy.components.schemas : {};
  for (const schema of Object.values(schemas)) close(schema, false);
  // A media type's schema is a value position, `$ref` or not: 2020-12 lets
  // unevaluatedProperties sit next to a $ref and see the properties it declares.
  const walk = (node: Json): void => {
    if (Array.isArray(node)) node.forEach(walk);
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'schema' && isObject(value)) close(value, true);
      else if (key !== 'examples' && key !== 'example' && !key.startsWith('x-')) walk(value);
    }
  };
  walk(copy.paths as Json);
  if (isObject(copy.components)) walk(copy.components.responses as Json);
  return copy;
}

export type ResponseCheck = (exchange: Exchange) => string[];

export function createResponseCheck(spec: CalendarSpec, notImplemented: string[]): ResponseCheck {
  const ajv = createAjv();
  ajv.addSchema(strictCopy(spec.document), STRICT_ID);
  const errorSchema = ajv.compile({ $ref: `${STRICT_ID}#/components/schemas/GoogleErrorResponse` });

  /** The pointer of the documented JSON schema; null when the status has no body; undefined when undocumented. */
  const bodySchemaPointer = (opId: string, status: number): string | null | undefined => {
    const op = spec.byId.get(opId);
    const response = op?.responses[String(status)];
    if (!op || !isObject(response)) return undefined;
    const ref = typeof response.$ref === 'string' ? response.$ref : undefined;
    const base = ref ?? `#/paths/${pointerToken(op.path)}/${op.method.toLowerCase()}/responses/${status}`;
    const target = ref ? follow(spec.document, ref, op.where) : response;
    return isObject(target) && isObject(target.content) ? `${base}/content/application~1json/schema` : null;
  };

  return (exchange) => {
    if (exchange.path.startsWith('/__emulator')) return [];
    const where = `${exchange.method} ${exchange.path} → ${exchange.status}`;
    const problems: string[] = [];
    if (exchange.operationId === undefined) {
      // Unknown paths and wrong methods: no operation documents them; the envelope must hold.
      if (![404, 405].includes(exchange.status)) problems.push(`${where}: answered without an operation`);
      if (!errorSchema(exchange.body))
        problems.push(`${where}: not Google's error envelope: ${ajv.errorsText(errorSchema.errors)}`);
      return problems;
    }
    if (exchange.status === 501) {
      if (!notImplemented.includes(exchange.operationId))
        problems.push(`${where}: 501 for implemented ${exchange.operationId}`);
      if (!errorSchema(exchange.body)) problems.push(`${where}: not Google's error envelope`);
      return problems;
    }
    const pointer = bodySchemaPointer(exchange.operationId, exchange.status);
    if (pointer === undefined) return [`${where}: status not documented for ${exchange.operationId}`];
    if (pointer === null) {
      if (exchange.body !== undefined) problems.push(`${where}: a body where the spec documents none`);
      return problems;
    }
    if (!String(exchange.headers['content-type']).startsWith('application/json'))
      problems.push(`${where}: not JSON`);
    const validate =
      ajv.getSchema(`${STRICT_ID}${pointer}`) ?? ajv.compile({ $ref: `${STRICT_ID}${pointer}` });
    if (!validate(exchange.body))
      problems.push(
        `${where}: body breaks the spec: ${ajv.errorsText(validate.errors, { separator: '; ' })}`,
      );
    return problems;
  };
}
