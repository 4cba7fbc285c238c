/**
 * Every decision about how a spec type becomes a TypeScript type lives here, and only here;
 * named-types.ts writes the clients' named types out by these rules, and openapi-typescript
 * (schema.ts, for openapi-fetch's raw methods) calls mapType. Generated files are never
 * edited to change a type: change this table and regenerate.
 *
 * - Two directions of every schema: `X` as the service answers it, and `XInput` as a request
 *   body takes it, its `readOnly` properties absent (not `never`: absent, so completion does
 *   not offer them and sending one is "does not exist in type"), at any depth; `writeOnly`
 *   properties are absent from answers. A schema with nothing read-only is its own input.
 * - A body that requires more than its schema (below) gets a type of its own per operation,
 *   `<Operation>Body extends XInput`, with those properties required; every operation's
 *   argument is one interface, `<Operation>Args`, extending its body type.
 * - `type: [T, 'null']` and `anyOf: [..., {type: null}]` (patch bodies, decision 0037) add
 *   `| null`; `enum` and `const` become literal types; `additionalProperties` an index
 *   signature; `integer` and `number` `number`.
 * - Descriptions, the first example, defaults and `deprecated` become JSDoc of the property
 *   or parameter; read-only properties say so.
 *
 * - 64-bit integers are `type: string, format: int64` in the specs, as Google sends them
 *   (JSON numbers lose digits past 2^53). They stay `string`. An `integer` with format
 *   `int64` is refused: it would type as `number` and silently round ids.
 * - `date` and `date-time` stay `string`: they travel as RFC 3339 text, and parsing them
 *   into `Date` would drop the offset and the time zone the caller chose.
 * - `format: binary` bodies are `Blob`; text bodies such as `text/csv` are `string`.
 * - `allOf: [{ $ref: X }, { required: [a] }]`, the way request bodies state which fields an
 *   operation needs (decision 0011), is moved to `allOf: [{ $ref: X }], required: [a]`
 *   before generation: the same JSON Schema, in the form openapi-typescript turns into
 *   `WithRequired<X, "a">`. Left as it is, the bare member becomes `unknown` and the
 *   fields stay optional. A member may also narrow string properties (`properties: { id:
 *   { type: string, pattern } }`): that is validation only, and the member is dropped from
 *   the type, which the referenced schema already gives.
 */
import ts from 'typescript';

export class TypeMappingError extends Error {
  override name = 'TypeMappingError';
}

interface SchemaLike {
  type?: unknown;
  format?: unknown;
}

/**
 * The type this table gives a schema, as TypeScript text, or undefined where the schema's own
 * type stands. Used by openapi-typescript (mapType) and by the named types (named-types.ts).
 */
export function decidedType(schema: SchemaLike, where: { path?: string }): 'string' | 'Blob' | undefined {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (schema.format === 'int64') {
    if (types.includes('integer') || types.includes('number')) {
      throw new TypeMappingError(
        `${where.path ?? 'a schema'}: a 64-bit integer must be "type: string, format: int64" (Google sends int64 as a JSON string); found type ${JSON.stringify(schema.type)}`,
      );
    }
    return types.includes('null') ? undefined : 'string';
  }
  if (
    (schema.format === 'date' || schema.format === 'date-time') &&
    types.length === 1 &&
    types[0] === 'string'
  ) {
    return 'string';
  }
  if (schema.format === 'binary' && types.includes('string')) return 'Blob';
  return undefined;
}

/** openapi-typescript's `transform` hook: returns a type for the schemas this table decides. */
export function mapType(schema: SchemaLike, where: { path?: string }): ts.TypeNode | undefined {
  const decided = decidedType(schema, where);
  if (decided === 'string') return ts.factory.createKeywordTypeNode(ts.SyntaxKind.StringKeyword);
  if (decided === 'Blob') return ts.factory.createTypeReferenceNode('Blob');
  return undefined;
}

type Json = Record<string, unknown>;

/** Keywords that only narrow a string's values: they change what is valid, not its type. */
const NARROWING = new Set(['type', 'description', 'pattern', 'minLength', 'maxLength']);

/**
 * An `allOf` member that adds nothing to the TypeScript type: a `required` list, and
 * `properties` that only narrow string values (`id` with a `pattern` on insert). The
 * referenced schema already types those properties.
 */
function isRequiredOnly(
  member: unknown,
): member is { required?: string[]; properties?: Record<string, Json> } {
  if (typeof member !== 'object' || member === null) return false;
  const { required, properties, ...rest } = member as Json;
  if (Object.keys(rest).length > 0 || (required === undefined && properties === undefined)) return false;
  if (required !== undefined && !Array.isArray(required)) return false;
  if (properties === undefined) return true;
  if (typeof properties !== 'object' || properties === null) return false;
  return Object.values(properties).every(
    (property) =>
      typeof property === 'object' &&
      property !== null &&
      (property as Json).type === 'string' &&
      Object.keys(property).every((key) => NARROWING.has(key)),
  );
}

/**
 * Lifts `required`-only members of every `allOf` onto the schema itself, in place (give it a
 * copy), and drops members that only narrow string properties. Only when the other members
 * are `$ref`s, the one form whose meaning for the type is unchanged.
 */
export function liftAllOfRequired(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) liftAllOfRequired(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Json;
  const allOf = schema.allOf;
  if (
    Array.isArray(allOf) &&
    allOf.some(isRequiredOnly) &&
    allOf.every((m) => isRequiredOnly(m) || (m as Json)?.$ref)
  ) {
    const required = new Set([...((schema.required as string[] | undefined) ?? [])]);
    for (const member of allOf.filter(isRequiredOnly))
      for (const name of member.required ?? []) required.add(name);
    schema.allOf = allOf.filter((m) => !isRequiredOnly(m));
    if (required.size > 0) schema.required = [...required];
  }
  for (const value of Object.values(schema)) liftAllOfRequired(value);
}
