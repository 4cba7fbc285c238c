/**
 * Validates answers against the specs with Ajv (JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1) and the formats the specs use. Each bundled spec is registered whole, so a
 * response schema is compiled from its JSON pointer and its $refs resolve in place.
 *
 * The validation is STRICT: a property the spec does not declare is a failure. This is done
 * here, in one place ({@link strictDocument}): every schema in a value position (a media
 * type's schema, a property, array items, additionalProperties) that does not say
 * `additionalProperties` or `unevaluatedProperties` itself gets `unevaluatedProperties:
 * false`. Unlike `additionalProperties: false`, `unevaluatedProperties` sees the properties
 * declared through `$ref`, `allOf`, `anyOf` and `oneOf`, so composed schemas (`allOf:
 * [Channel, {required}]`) stay valid while an undeclared property anywhere is refused.
 * Members of `allOf`/`anyOf`/`oneOf`/`not` and component definitions are left alone: they are
 * closed by the value position that uses them.
 */
import { createAjv } from '@gspec/server-kit';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { type ApiSpec, follow, type Json } from './spec.ts';

// The same Ajv and formats as the emulator's request validation.
const ajv = createAjv();

const isObject = (value: unknown): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function mayBeObject(schema: Record<string, Json>): boolean {
  const type = schema.type;
  if (type === undefined) return true;
  return Array.isArray(type) ? type.includes('object') : type === 'object';
}

/** Closes one schema node (if it is in a value position) and everything below it. */
function closeSchema(schema: Json, valuePosition: boolean): void {
  if (!isObject(schema)) return;
  if (
    valuePosition &&
    mayBeObject(schema) &&
    schema.additionalProperties === undefined &&
    schema.unevaluatedProperties === undefined
  ) {
    schema.unevaluatedProperties = false;
  }
  for (const key of ['properties', 'patternProperties'] as const) {
    if (isObject(schema[key])) for (const child of Object.values(schema[key])) closeSchema(child, true);
  }
  for (const key of ['items', 'contains', 'additionalProperties', 'unevaluatedItems'] as const) {
    if (isObject(schema[key])) closeSchema(schema[key], true);
  }
  if (Array.isArray(schema.prefixItems)) for (const child of schema.prefixItems) closeSchema(child, true);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) for (const child of schema[key]) closeSchema(child, false);
  }
  for (const key of ['not', 'if', 'then', 'else'] as const) closeSchema(schema[key], false);
  if (isObject(schema.$defs)) for (const child of Object.values(schema.$defs)) closeSchema(child, false);
}

/**
 * A copy of an OpenAPI document in which every schema refuses undeclared properties (see
 * the file comment). Example values and extensions are not schemas and are not touched.
 */
export function strictDocument(doc: Json): Json {
  const copy = structuredClone(doc);
  const walk = (node: Json, path: string[]): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, path);
      return;
    }
    if (!isObject(node)) return;
    if (path.length === 2 && path[0] === 'components' && path[1] === 'schemas') {
      for (const definition of Object.values(node)) closeSchema(definition, false);
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'example' || key === 'examples' || key.startsWith('x-')) continue;
      if (key === 'schema' && isObject(value)) closeSchema(value, true);
      else walk(value, [...path, key]);
    }
  };
  walk(copy, []);
  return copy;
}

const registered = new Set<string>();
const compiled = new Map<string, ValidateFunction>();

function escapePointer(part: string): string {
  return part.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The strict copy without any `required`: what an answer trimmed by `fields` must still meet. */
function withoutRequired(node: Json): void {
  if (Array.isArray(node)) {
    for (const item of node) withoutRequired(item);
    return;
  }
  if (!isObject(node)) return;
  if (Array.isArray(node.required)) delete node.required;
  for (const [key, value] of Object.entries(node))
    if (key !== 'example' && key !== 'examples') withoutRequired(value);
}

function register(api: ApiSpec, trimmed = false): string {
  const id = `urn:gspec:${api.id}:${trimmed ? 'trimmed' : 'strict'}`;
  if (!registered.has(id)) {
    const document = strictDocument(api.doc);
    if (trimmed) withoutRequired(document);
    ajv.addSchema(document, id);
    registered.add(id);
  }
  return id;
}

function validateAt(api: ApiSpec, schemaPointer: string, value: unknown, trimmed = false): ErrorObject[] {
  const key = `${register(api, trimmed)}#${schemaPointer}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: key });
    compiled.set(key, validate);
  }
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

/**
 * Validates `body` against the schema of `response` (found at `responsePointer`) for
 * `contentType`. A `trimmed` body (an answer to a `fields` mask) is held to everything but
 * `required`: every field it has must be declared and valid.
 */
export function validateBody(
  api: ApiSpec,
  responsePointer: string,
  contentType: string,
  body: unknown,
  trimmed = false,
): ErrorObject[] {
  return validateAt(api, `${responsePointer}/content/${escapePointer(contentType)}/schema`, body, trimmed);
}

/**
 * Checks the documented headers of a response: a required one must be there, and each one
 * present must be valid against its schema (a number schema reads the header as a number).
 * Headers the spec does not document (Date, Content-Length, ...) are HTTP's, not the API's.
 */
export function validateHeaders(api: ApiSpec, responsePointer: string, headers: Headers): string[] {
  const response = follow(api.doc, { $ref: `#${responsePointer}` }).value;
  const problems: string[] = [];
  for (const [name, raw] of Object.entries<Json>(response.headers ?? {})) {
    const { pointer, value: header } = follow(api.doc, raw);
    const headerPointer = pointer ?? `${responsePointer}/headers/${escapePointer(name)}`;
    const text = headers.get(name);
    if (text === null) {
      if (header.required) problems.push(`the required header ${name} is missing`);
      continue;
    }
    const schema = follow(api.doc, header.schema ?? {}).value;
    const numeric = schema.type === 'integer' || schema.type === 'number';
    const errors = validateAt(api, `${headerPointer}/schema`, numeric ? Number(text) : text);
    if (errors.length > 0) problems.push(`header ${name}: ${describeErrors(errors)}`);
  }
  return problems;
}

export function describeErrors(errors: ErrorObject[]): string {
  return errors
    .map((e) => {
      const extra =
        e.keyword === 'unevaluatedProperties' || e.keyword === 'additionalProperties'
          ? ` (${JSON.stringify(e.params)})`
          : '';
      return `${e.instancePath || '(root)'} ${e.message ?? ''}${extra}`;
    })
    .join('\n');
}
