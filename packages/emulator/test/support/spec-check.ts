/**
 * Checks an answer of the emulator against the spec, strictly: the status must be documented
 * for the operation (501 is allowed only for the operations the emulator does not implement
 * yet, and 413 and 415 for any operation: refusals of the HTTP layer, a body over the size
 * limit or not JSON, which no operation of Google's documents either), a 204 has no body, and a
 * JSON body must be valid against the documented schema with no undeclared property anywhere
 * (every object schema in a value position gets `unevaluatedProperties: false` unless it says
 * otherwise, which sees through $ref and allOf).
 * A success answer trimmed by `fields` is checked the same way, except that `required` is not.
 * An answer that is not JSON (the ID-mapping CSV) must have a documented content type, and its
 * text is checked against that media type's schema.
 * A batch's own answer is multipart/mixed (200) or a refusal in the envelope; each of its calls
 * is told on its own (`batch` set) and checked like the same call alone, except that a call the
 * batch cannot carry is its 400 without an operation.
 */
import { batchPath } from '@gspec/server-kit';
import type { ErrorObject } from 'ajv';
import { OAuthServer } from '../../src/core/oauth.ts';
import { createAjv } from '../../src/core/schemas.ts';
import type { Exchange } from '../../src/core/server.ts';
import {
  type ApiSpec,
  follow,
  isObject,
  type Json,
  type JsonObject,
  pointerToken,
} from '../../src/core/spec.ts';

const STRICT_ID = 'strict-calendar.json';
/** The strict copy without `required`: what a trimmed answer (`fields`) is checked against. */
const PARTIAL_ID = 'partial-calendar.json';
/** Refusals of the HTTP layer, before the operation reads the request: body too large, not JSON. */
const HTTP_LEVEL = [413, 415];

function close(schema: Json, valuePosition: boolean): void {
  if (!isObject(schema)) return;
  const type = schema.type;
  const mayBeObject =
    type === undefined || type === 'object' || (Array.isArray(type) && type.includes('object'));
  // A schema that constrains nothing (no type, properties, $ref or parts) takes any value, as
  // the spec says of such fields (workingLocationProperties.homeOffice: "with any value").
  const anyValue =
    type === undefined && !['properties', '$ref', 'allOf', 'anyOf', 'oneOf'].some((key) => key in schema);
  if (
    valuePosition &&
    mayBeObject &&
    !anyValue &&
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

function withoutRequired(node: Json): void {
  if (Array.isArray(node)) node.forEach(withoutRequired);
  if (!isObject(node)) return;
  if (Array.isArray(node.required)) delete node.required;
  for (const [key, value] of Object.entries(node))
    if (key !== 'examples' && key !== 'example') withoutRequired(value);
}

/** Whether the request asked for a partial response (a `fields` value that is not empty). */
function trimmed(path: string): boolean {
  const query = path.indexOf('?');
  return query >= 0 && (new URLSearchParams(path.slice(query + 1)).get('fields') ?? '').trim() !== '';
}

export type ResponseCheck = (exchange: Exchange) => string[];

/** The names of the undeclared properties among Ajv's errors, which its own text leaves out. */
function unevaluated(errors: ErrorObject[] | null | undefined): string {
  const names = (errors ?? [])
    .map((error) => (error.params as { unevaluatedProperty?: string }).unevaluatedProperty)
    .filter((name) => name !== undefined);
  return names.length > 0 ? ` (${names.join(', ')})` : '';
}

/**
 * The token endpoint is Google's OAuth 2.0 endpoint, in no API spec: its refusals are
 * `{ error, error_description }` (RFC 6749), never the APIs' envelope; a token is
 * `{ access_token, expires_in, token_type: 'Bearer' }`.
 */
function checkOAuthAnswer(exchange: Exchange): string[] {
  const where = `${exchange.method} ${exchange.path} → ${exchange.status}`;
  const body = exchange.body as Record<string, unknown> | undefined;
  if (!isObject(body)) return [`${where}: no JSON object`];
  if (exchange.status !== 200)
    return typeof body.error === 'string' &&
      typeof body.error_description === 'string' &&
      Object.keys(body).length === 2
      ? []
      : [`${where}: not an OAuth error ({ error, error_description })`];
  if (
    exchange.path === '/token' &&
    !(
      typeof body.access_token === 'string' &&
      typeof body.expires_in === 'number' &&
      body.token_type === 'Bearer'
    )
  )
    return [`${where}: not a token ({ access_token, expires_in, token_type })`];
  return [];
}

export function createResponseCheck(spec: ApiSpec, notImplemented: string[]): ResponseCheck {
  const ajv = createAjv();
  const strict = strictCopy(spec.document);
  ajv.addSchema(strict, STRICT_ID);
  const partial = structuredClone(strict);
  withoutRequired(partial);
  ajv.addSchema(partial, PARTIAL_ID);
  const errorSchema = ajv.compile({ $ref: `${STRICT_ID}#/components/schemas/GoogleErrorResponse` });

  /**
   * The documented media types of an answer, each with the pointer of its schema; null when
   * the status has no body; undefined when the status is not documented.
   */
  const documentedContent = (opId: string, status: number): Map<string, string> | null | undefined => {
    const op = spec.byId.get(opId);
    const response = op?.responses[String(status)];
    if (!op || !isObject(response)) return undefined;
    const ref = typeof response.$ref === 'string' ? response.$ref : undefined;
    const base = ref ?? `#/paths/${pointerToken(op.path)}/${op.method.toLowerCase()}/responses/${status}`;
    const target = ref ? follow(spec.document, ref, op.where) : response;
    if (!isObject(target) || !isObject(target.content)) return null;
    return new Map(
      Object.keys(target.content).map((media) => [media, `${base}/content/${pointerToken(media)}/schema`]),
    );
  };

  return (exchange) => {
    if (exchange.path.startsWith('/__emulator')) return [];
    // A CORS preflight is answered the same on every path, before any routing.
    if (exchange.method === 'OPTIONS' && exchange.batch === undefined)
      return exchange.status === 204 && exchange.body === undefined
        ? []
        : [`OPTIONS ${exchange.path}: not a preflight`];
    if (OAuthServer.serves(exchange.path) && exchange.batch === undefined) return checkOAuthAnswer(exchange);
    const where = `${exchange.method} ${exchange.path}${exchange.batch ? ` in ${exchange.batch}` : ''} → ${exchange.status}`;
    const problems: string[] = [];
    if (exchange.batch === undefined && batchPath(exchange.path.split('?')[0] as string)) {
      if (exchange.status === 200)
        return /^multipart\/mixed; boundary=[^"\s;]+$/.test(exchange.headers['content-type'] ?? '') &&
          exchange.text !== undefined
          ? []
          : [`${where}: a batch's answer is not multipart/mixed with an unquoted boundary`];
      if (![400, 404, 405, 413].includes(exchange.status)) problems.push(`${where}: not a batch's refusal`);
      if (!errorSchema(exchange.body))
        problems.push(`${where}: not Google's error envelope: ${ajv.errorsText(errorSchema.errors)}`);
      return problems;
    }
    if (exchange.operationId === undefined) {
      // Unknown paths and wrong methods: no operation documents them; the envelope must hold.
      // In a batch, a call the batch cannot carry (another API's, another batch) is a 400.
      const allowed = exchange.batch === undefined ? [404, 405] : [400, 404, 405];
      if (!allowed.includes(exchange.status)) problems.push(`${where}: answered without an operation`);
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
    if (HTTP_LEVEL.includes(exchange.status)) {
      if (!errorSchema(exchange.body)) problems.push(`${where}: not Google's error envelope`);
      return problems;
    }
    const content = documentedContent(exchange.operationId, exchange.status);
    if (content === undefined) return [`${where}: status not documented for ${exchange.operationId}`];
    if (content === null) {
      if (exchange.body !== undefined || exchange.text !== undefined)
        problems.push(`${where}: a body where the spec documents none`);
      return problems;
    }
    const media = String(exchange.headers['content-type']).split(';')[0]?.trim().toLowerCase() ?? '';
    const pointer = content.get(media);
    if (!pointer) {
      problems.push(`${where}: content type ${media} is not documented (${[...content.keys()].join(', ')})`);
      return problems;
    }
    const value = media.endsWith('json') ? exchange.body : exchange.text;
    // A trimmed success answer holds only documented fields, but not every required one.
    const id = exchange.status < 300 && trimmed(exchange.path) ? PARTIAL_ID : STRICT_ID;
    const validate = ajv.getSchema(`${id}${pointer}`) ?? ajv.compile({ $ref: `${id}${pointer}` });
    if (!validate(value))
      problems.push(
        `${where}: body breaks the spec: ${ajv.errorsText(validate.errors, { separator: '; ' })}${unevaluated(validate.errors)}`,
      );
    return problems;
  };
}
