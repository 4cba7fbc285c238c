/**
 * Validates answers against the specs with Ajv (JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1) and the formats the specs use. Each bundled spec is registered whole, so a
 * response schema is compiled from its JSON pointer and its $refs resolve in place.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ApiSpec } from './spec.ts';

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats.default(ajv);
ajv.addFormat('int32', {
  type: 'number',
  validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
});
ajv.addFormat('int64', { type: 'string', validate: /^-?\d+$/ });
ajv.addFormat('double', { type: 'number', validate: () => true });

const registered = new Set<string>();
const compiled = new Map<string, ValidateFunction>();

function escapePointer(part: string): string {
  return part.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Validates `body` against the schema of `response` (found at `responsePointer`) for `contentType`. */
export function validateBody(
  api: ApiSpec,
  responsePointer: string,
  contentType: string,
  body: unknown,
): ErrorObject[] {
  const id = `urn:gspec:${api.id}`;
  if (!registered.has(id)) {
    ajv.addSchema(api.doc, id);
    registered.add(id);
  }
  const key = `${id}#${responsePointer}/content/${escapePointer(contentType)}/schema`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: key });
    compiled.set(key, validate);
  }
  return validate(body) ? [] : [...(validate.errors ?? [])];
}

export function describeErrors(errors: ErrorObject[]): string {
  return errors.map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`).join('\n');
}
