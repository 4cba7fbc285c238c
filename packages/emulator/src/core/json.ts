/**
 * Serializing answers. Most of the work of an events.list answer is turning its items into
 * JSON and the JSON into UTF-8 bytes, and the items are stored events, which never change
 * once stored (a write stores a new resource object). Their bytes are kept per object, so a
 * page is mostly copied, not serialized and encoded again. Only arrays marked with
 * `storedItems` get this; anything else is serialized as usual.
 */
import { randomBytes } from 'node:crypto';
import type { JsonObject } from './spec.js';

/**
 * While `bodyBytes` serializes, a stored array stands in the JSON text as a marker (a string
 * no client can write: it holds a random nonce between control characters) and is noted, so
 * one JSON.stringify writes everything around the arrays and the arrays are copied from their
 * kept bytes. At any other time it is serialized as the array it is.
 */
const NONCE = randomBytes(8).toString('hex');
let noted: StoredItems[] | undefined;

function storedToJSON(this: StoredItems): unknown {
  if (noted === undefined) return this;
  noted.push(this);
  return `\u0001${NONCE}\u0001`;
}

/** The marker as JSON.stringify writes it. */
const MARKER = JSON.stringify(`\u0001${NONCE}\u0001`);

/**
 * An array of stored resources, answered as they are stored: the objects must not be changed
 * after they are put in one (stored events are replaced, never changed in place).
 */
export type StoredItems = JsonObject[] & { toJSON(): unknown };

/** Marks `items` (and returns it) as stored resources whose kept bytes may be answered. */
export function storedItems(items: JsonObject[]): StoredItems {
  Object.defineProperty(items, 'toJSON', { value: storedToJSON });
  return items as StoredItems;
}

export const isStoredItems = (value: unknown): value is StoredItems =>
  Array.isArray(value) && (value as Partial<StoredItems>).toJSON === storedToJSON;

const kept = new WeakMap<JsonObject, Buffer>();

function itemBytes(item: JsonObject): Buffer {
  let bytes = kept.get(item);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(item));
    kept.set(item, bytes);
  }
  return bytes;
}

/**
 * Answer bytes are written into reused buffers: a buffer taken fresh from the allocator for
 * every answer was cold memory for the kernel to copy from (and for a large one, fresh pages),
 * which cost more than building the answer. A buffer goes back to the pool once the socket has
 * taken its bytes (`releaseBytes`, from the answer's finish); one never given back (a
 * connection lost mid-answer) is simply collected.
 */
const MIN_CAPACITY = 4096;
/** Larger answers get a buffer of their own. */
const MAX_POOLED = 1024 * 1024;
/** Free buffers kept per capacity; more than that many answers in flight at once is rare. */
const MAX_FREE = 32;
const free = new Map<number, ArrayBuffer[]>();
/** The pool's buffers lent out and not yet given back, so that none is given back twice. */
const lent = new WeakSet<ArrayBuffer>();

function take(size: number): Buffer {
  if (size > MAX_POOLED) return Buffer.allocUnsafeSlow(size);
  let capacity = MIN_CAPACITY;
  while (capacity < size) capacity *= 2;
  const memory = free.get(capacity)?.pop() ?? new ArrayBuffer(capacity);
  lent.add(memory);
  return Buffer.from(memory, 0, size);
}

/**
 * Gives the buffer of an answer of `bodyBytes` back for reuse, once nothing reads it any more
 * (the socket has written it). Buffers not from the pool are left alone.
 */
export function releaseBytes(bytes: Buffer): void {
  const memory = bytes.buffer;
  if (!(memory instanceof ArrayBuffer) || !lent.delete(memory)) return;
  let list = free.get(memory.byteLength);
  if (!list) {
    list = [];
    free.set(memory.byteLength, list);
  }
  if (list.length < MAX_FREE) list.push(memory);
}

/** The UTF-8 bytes of a string, in a buffer of the pool. */
function textBytes(text: string): Buffer {
  const out = take(Buffer.byteLength(text));
  out.write(text, 0);
  return out;
}

/** Resources answered alone as they are stored (`storedResource`). */
const storedAlone = new WeakSet<object>();

/**
 * Marks `resource` (and returns it) as a stored resource answered as it is: like the items of
 * `storedItems`, it must not be changed after it is answered (stored events are replaced, never
 * changed in place), so what an answer of it was can be told from it later.
 */
export function storedResource<T extends JsonObject>(resource: T): T {
  storedAlone.add(resource);
  return resource;
}

/**
 * An answer's JSON as `bodyJson` wrote it: the text, with a marker where each stored array goes
 * (`arrays`, in order), or a stored resource answered alone (`resource`). It holds no copy of a
 * stored item: the journal keeps an answer this way instead of a copy of its bytes (copying a
 * page of events for every answer cost a fifth of an events.list, and keeping each insert's
 * text cost its garbage collection), and `jsonText` writes it out when it is read.
 */
export type AnswerJson =
  | { readonly text: string; readonly arrays: readonly StoredItems[] }
  | { readonly resource: JsonObject };

/**
 * JSON.stringify(body), with each stored array (storedItems) left as a marker and noted; a
 * stored resource answered alone (storedResource) is kept as it is.
 */
export function bodyJson(body: unknown): AnswerJson {
  if (typeof body === 'object' && body !== null && storedAlone.has(body))
    return { resource: body as JsonObject };
  const arrays: StoredItems[] = [];
  noted = arrays;
  try {
    return { text: JSON.stringify(body) ?? 'null', arrays };
  } finally {
    noted = undefined;
  }
}

/** The JSON text of an answer `bodyJson` wrote: JSON.stringify(body) as it was then. */
export function jsonText(json: AnswerJson): string {
  if ('resource' in json) return JSON.stringify(json.resource);
  if (json.arrays.length === 0) return json.text;
  const around = json.text.split(MARKER);
  let out = around[0] ?? '';
  json.arrays.forEach((array, i) => {
    out += `[${array.map((item) => itemBytes(item).toString('utf8')).join(',')}]${around[i + 1] ?? ''}`;
  });
  return out;
}

/**
 * The UTF-8 bytes of an answer's JSON, using the kept bytes of the items of stored items
 * (storedItems) wherever they are in the body. The buffer is the pool's: give it back with
 * `releaseBytes` once it is written, or keep it (it is then never reused).
 */
export function jsonBytes(json: AnswerJson): Buffer {
  if ('resource' in json) return textBytes(JSON.stringify(json.resource));
  const { text: whole, arrays } = json;
  if (arrays.length === 0) return textBytes(whole);
  // The text around each array, and the array's items.
  const texts: string[] = [];
  const items: Buffer[][] = [];
  let size = 0;
  let from = 0;
  for (const array of arrays) {
    const at = whole.indexOf(MARKER, from);
    const text = whole.slice(from, at);
    texts.push(text);
    size += Buffer.byteLength(text) + 2 + Math.max(array.length - 1, 0);
    const bytes = array.map(itemBytes);
    for (const one of bytes) size += one.length;
    items.push(bytes);
    from = at + MARKER.length;
  }
  const tail = whole.slice(from);
  size += Buffer.byteLength(tail);
  const out = take(size);
  let at = 0;
  texts.forEach((text, i) => {
    at += out.write(text, at);
    out[at++] = 0x5b; // [
    (items[i] as Buffer[]).forEach((bytes, j) => {
      if (j > 0) out[at++] = 0x2c; // ,
      at += bytes.copy(out, at);
    });
    out[at++] = 0x5d; // ]
  });
  out.write(tail, at);
  return out;
}

/** The UTF-8 bytes of JSON.stringify(body), as `jsonBytes` writes them. */
export const bodyBytes = (body: unknown): Buffer => jsonBytes(bodyJson(body));

/**
 * `value` as JSON in pieces of about `size` characters (the last one shorter), exactly the text
 * `JSON.stringify(value)` writes once joined: objects down to `depth` levels are written key by
 * key, anything deeper is stringified whole. For the state dump (GET /__emulator/state): the
 * pieces are made at once, so the dump is the state of that moment, and sent one after another,
 * so no single string has to hold a state of hundreds of megabytes (V8 caps a string at 512 MiB).
 */
export function jsonChunks(value: unknown, depth = 3, size = 1 << 16): string[] {
  const chunks: string[] = [];
  let piece = '';
  const add = (text: string) => {
    piece += text;
    if (piece.length >= size) {
      chunks.push(piece);
      piece = '';
    }
  };
  const walk = (item: unknown, levels: number) => {
    if (
      levels === 0 ||
      item === null ||
      typeof item !== 'object' ||
      Array.isArray(item) ||
      'toJSON' in item
    ) {
      add(JSON.stringify(item) ?? 'null');
      return;
    }
    add('{');
    let first = true;
    for (const [key, member] of Object.entries(item)) {
      // As JSON.stringify: members it would leave out.
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      add(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      walk(member, levels - 1);
    }
    add('}');
  };
  walk(value, depth);
  if (piece.length > 0 || chunks.length === 0) chunks.push(piece);
  return chunks;
}
