/**
 * The field names of a spec's schemas, closed: what a seed checks its events, sharing rules,
 * list entries, conversions and availabilities against before they are written. The live
 * services ignore a field they do not know, and so do the operations a seed is written
 * through; in a hand-written file such a field is a typo (`sumary`), and the seed refuses it.
 *
 * The document mirrors the spec's `components.schemas` with only what names fields:
 * `properties`, `items`, `additionalProperties` and `$ref` (and `description`, for an editor).
 * An object schema that lists its properties gets `additionalProperties: false`; a map the
 * spec leaves open (`extendedProperties.private`, a gadget's `preferences`) stays open. Types
 * and values are left to the operations, which refuse them as they refuse a client's.
 */
import { type ApiName, isObject, type Json, type JsonObject } from './spec.js';

/** The id the field names of an API's spec are registered under: `calendar.fields.json`. */
export const fieldsFileId = (api: ApiName): string => `${api}.fields.json`;

/** A seed entry that takes the fields of the spec's schema `name` (a `calendar` Event), and no other. */
export const seedFieldsOf = (api: ApiName, name: string) => ({
  type: 'object',
  $ref: `${fieldsFileId(api)}#/components/schemas/${name}`,
});

function fieldsOf(node: Json): Json {
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  if (typeof node.$ref === 'string') out.$ref = node.$ref;
  if (typeof node.description === 'string') out.description = node.description;
  if (isObject(node.properties))
    out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, fieldsOf(v)]));
  if (node.items !== undefined) out.items = fieldsOf(node.items);
  if (isObject(node.additionalProperties)) out.additionalProperties = fieldsOf(node.additionalProperties);
  else if (typeof node.additionalProperties === 'boolean')
    out.additionalProperties = node.additionalProperties;
  else if (isObject(node.properties)) out.additionalProperties = false;
  return out;
}

/** The field names of a spec document's schemas (see above), to register as `fieldsFileId`. */
export function fieldsDocument(document: JsonObject): JsonObject {
  const components = isObject(document.components) ? document.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  return {
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, fieldsOf(schema)])),
    },
  };
}
