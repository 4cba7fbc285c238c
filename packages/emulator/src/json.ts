/**
 * Serializing answers. Most of the work of an events.list answer is turning its items into
 * JSON, and the items are stored events, which never change once stored (a write stores a
 * new resource object). Their JSON is kept per object, so a page is mostly joined, not
 * serialized again. Only arrays marked as StoredItems get this; anything else is serialized
 * as usual.
 */
import type { JsonObject } from './spec.js';

/**
 * An array of stored resources, answered as they are stored: the objects must not be changed
 * after they are put in one (stored events are replaced, never changed in place).
 */
export class StoredItems extends Array<JsonObject> {}

export function storedItems(items: Iterable<JsonObject>): StoredItems {
  const out = new StoredItems();
  for (const item of items) out.push(item);
  return out;
}

const kept = new WeakMap<JsonObject, string>();

function itemJson(item: JsonObject): string {
  let text = kept.get(item);
  if (text === undefined) {
    text = JSON.stringify(item);
    kept.set(item, text);
  }
  return text;
}

/** JSON.stringify of an answer body, using the kept JSON of the items of StoredItems at its top level. */
export function stringifyBody(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return JSON.stringify(body);
  let stored = false;
  for (const value of Object.values(body)) if (value instanceof StoredItems) stored = true;
  if (!stored) return JSON.stringify(body);
  const parts: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    let json: string;
    if (value instanceof StoredItems) {
      const items: string[] = [];
      for (const item of value) items.push(itemJson(item));
      json = `[${items.join(',')}]`;
    } else json = JSON.stringify(value);
    parts.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${parts.join(',')}}`;
}
