/**
 * Patch semantics, shared by every patch operation (decision 0037): a field given replaces the
 * stored one (an array or an object as a whole), a field left out keeps its value, and a field
 * given as JSON null is removed from the resource. Which fields may be null is the spec's
 * business: the request was validated against the operation's patch schema before.
 */
import { isObject, type JsonObject } from '../../core/spec.js';

export function applyPatch(stored: JsonObject, given: JsonObject): JsonObject {
  // Spread, not assignment: a `__proto__` key of the body stays an own field.
  const out: JsonObject = { ...stored, ...given };
  for (const [key, value] of Object.entries(given)) if (value === null) delete out[key];
  return out;
}

/**
 * The object members of `fields` named in `keys` without their null members. An object in a
 * patch replaces the stored one whole, so a null inside it (`start.date: null`, how clients of
 * the live service turn an all-day event into a timed one) just leaves that member out.
 */
export function withoutNullMembers(fields: JsonObject, keys: string[]): JsonObject {
  const out: JsonObject = { ...fields };
  for (const key of keys) {
    const value = out[key];
    if (isObject(value)) out[key] = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));
  }
  return out;
}
