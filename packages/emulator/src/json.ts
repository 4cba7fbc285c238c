/**
 * Serializing answers. Most of the work of an events.list answer is turning its items into
 * JSON and the JSON into UTF-8 bytes, and the items are stored events, which never change
 * once stored (a write stores a new resource object). Their bytes are kept per object, so a
 * page is mostly copied, not serialized and encoded again. Only arrays marked as StoredItems
 * get this; anything else is serialized as usual.
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

const kept = new WeakMap<JsonObject, Buffer>();

function itemBytes(item: JsonObject): Buffer {
  let bytes = kept.get(item);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(item));
    kept.set(item, bytes);
  }
  return bytes;
}

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/**
 * The UTF-8 bytes of JSON.stringify(body), using the kept bytes of the items of StoredItems at
 * the top level of an object body.
 */
export function bodyBytes(body: unknown): Buffer {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return Buffer.from(JSON.stringify(body) ?? 'null');
  let stored = false;
  for (const value of Object.values(body)) if (value instanceof StoredItems) stored = true;
  if (!stored) return Buffer.from(JSON.stringify(body));
  const chunks: Buffer[] = [];
  let text = '{';
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (text !== '{' || chunks.length > 0) text += ',';
    if (value instanceof StoredItems) {
      chunks.push(Buffer.from(`${text}${JSON.stringify(key)}:[`));
      text = '';
      value.forEach((item, i) => {
        if (i > 0) chunks.push(COMMA);
        chunks.push(itemBytes(item));
      });
      chunks.push(CLOSE);
    } else text += `${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  chunks.push(Buffer.from(`${text}}`));
  return Buffer.concat(chunks);
}
