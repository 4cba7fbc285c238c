/**
 * Partial responses: the `fields` system parameter, parsed into a mask, checked against the
 * schema of the answer and applied to a JSON answer. The mock and the emulator both use it,
 * so that a mask means the same on both (decision 0038).
 *
 * Grammar: comma-separated selections; `a/b` is `b` inside `a`; `a(b,c)` is `b` and `c`
 * inside `a` (inside every element when `a` is an array); `*` is every child. Blanks around
 * the punctuation are allowed. A selected nested field comes with its enclosing parents,
 * which hold nothing else unless selected themselves.
 *
 * A mask comes from the query of a request (or of a call in a batch, whose target may be
 * megabytes long), so parsing takes time in proportion to its length and a mask nests at most
 * MAX_MASK_DEPTH fields deep: the parser and everything that walks a mask (merging, checking,
 * trimming) recurse once per level, and 7,000 nested `a(` once ran them out of stack (a 500
 * where a 400 belongs). A deeper mask is refused like any other bad one, naming where.
 */
import type { GoogleErrorItem } from './google-errors.js';

/** A whole field (`true`), or the selected children of an object (`*` for every child). */
export type FieldSelection = true | FieldBranch;

export interface FieldBranch {
  readonly fields: Map<string, FieldSelection>;
}

/** A parsed mask: the selections at the top of the answer. */
export type FieldMask = FieldBranch;

/** A mask that cannot be parsed, or that names a field the answer does not have. */
export class FieldMaskError extends Error {
  override name = 'FieldMaskError';
  constructor(
    message: string,
    /** The selection at fault, as written in the mask or as a path (`items/colour`). */
    readonly selection: string,
  ) {
    super(message);
  }
}

/** The error item of a refused mask: reason `invalidParameter` on the `fields` parameter. */
export function fieldMaskErrorItem(error: FieldMaskError): GoogleErrorItem {
  return {
    domain: 'global',
    reason: 'invalidParameter',
    message: error.message,
    location: 'fields',
    locationType: 'parameter',
  };
}

/**
 * How deep a mask nests fields: `a/b(c)` is 3 deep. The answers of the APIs served nest a few
 * levels; the bound keeps every walk of a mask (all recursive) far from the end of the stack.
 */
export const MAX_MASK_DEPTH = 100;

/** How much of a mask a message quotes: enough to recognize it; the message says where. */
const MAX_QUOTED = 100;
const quoted = (text: string): string =>
  text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}...` : text;

const SPECIAL = new Set([',', '/', '(', ')', '*']);
const isBlank = (char: string | undefined): boolean =>
  char === ' ' || char === '\t' || char === '\n' || char === '\r';

function merge(into: FieldBranch, name: string, selection: FieldSelection): void {
  const known = into.fields.get(name);
  if (known === true) return;
  if (selection === true || known === undefined) {
    into.fields.set(name, selection);
    return;
  }
  for (const [child, inner] of selection.fields) merge(known, child, inner);
}

/** Parses a mask; throws FieldMaskError naming the mask and where it goes wrong. */
export function parseFieldMask(text: string): FieldMask {
  let at = 0;
  const fail = (what: string): never => {
    const found = at < text.length ? `"${text[at]}"` : 'the end of the mask';
    throw new FieldMaskError(
      `Invalid field selection ${quoted(text)}: expected ${what} at character ${at + 1}, found ${found}`,
      text,
    );
  };
  const skipBlanks = () => {
    while (isBlank(text[at])) at++;
  };
  /** The name at `at`, `depth` fields deep (1 at the top of the answer). */
  const name = (depth: number): string => {
    skipBlanks();
    if (depth > MAX_MASK_DEPTH)
      throw new FieldMaskError(
        `Invalid field selection ${quoted(text)}: the mask nests fields more than ${MAX_MASK_DEPTH} deep at character ${at + 1}`,
        text,
      );
    if (text[at] === '*') {
      at++;
      return '*';
    }
    const start = at;
    while (at < text.length && !SPECIAL.has(text[at] as string) && !isBlank(text[at])) at++;
    if (at === start) fail('a field name or *');
    return text.slice(start, at);
  };
  /** A list of selections, its names `depth` fields deep; `depth` 1 is the whole mask. */
  const list = (depth: number): FieldBranch => {
    const branch: FieldBranch = { fields: new Map() };
    for (;;) {
      const path = [name(depth)];
      skipBlanks();
      while (text[at] === '/') {
        at++;
        path.push(name(depth + path.length));
        skipBlanks();
      }
      let selection: FieldSelection = true;
      if (text[at] === '(') {
        at++;
        selection = list(depth + path.length);
        skipBlanks();
        if (text[at] !== ')') fail('"," or ")"');
        at++;
        skipBlanks();
      }
      for (let i = path.length - 1; i > 0; i--)
        selection = { fields: new Map([[path[i] as string, selection]]) };
      merge(branch, path[0] as string, selection);
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (depth > 1 ? text[at] === ')' : at === text.length) return branch;
      fail(depth > 1 ? '"," or ")"' : '"," or the end of the mask');
    }
  };
  if (text.trim() === '') throw new FieldMaskError('Invalid field selection: the mask is empty', text);
  return list(1);
}

/**
 * The answer trimmed to the mask. Objects keep only selected members (in the mask's order
 * unless `*` selects every member, then in the answer's); an array is trimmed
 * element by element and keeps every element; a parent object that ends up with nothing
 * selected in it is left out. Selected fields that this answer does not carry are simply
 * absent.
 */
export function applyFieldMask(value: unknown, mask: FieldMask): unknown {
  return trim(value, mask) ?? {};
}

/** Sets a member, `__proto__` included (plain assignment would change the prototype instead). */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

function trim(value: unknown, selection: FieldSelection): unknown {
  if (selection === true) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const kept = trim(item, selection);
      out.push(kept === undefined ? {} : kept);
    }
    return out;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const out: Record<string, unknown> = {};
  const every = selection.fields.get('*');
  let any = false;
  if (every === undefined) {
    // The usual case: a few names selected out of many members; look them up.
    const record = value as Record<string, unknown>;
    for (const [key, inner] of selection.fields) {
      if (!Object.hasOwn(record, key)) continue;
      const kept = trim(record[key], inner);
      if (kept === undefined) continue;
      put(out, key, kept);
      any = true;
    }
    return any ? out : undefined;
  }
  for (const [key, member] of Object.entries(value)) {
    let inner = selection.fields.get(key);
    if (every !== undefined) {
      if (inner === undefined || every === true) inner = every;
      else if (inner !== true) {
        const both: FieldBranch = { fields: new Map(every.fields) };
        for (const [child, sub] of inner.fields) merge(both, child, sub);
        inner = both;
      }
    }
    if (inner === undefined) continue;
    const kept = trim(member, inner);
    if (kept === undefined) continue;
    put(out, key, kept);
    any = true;
  }
  return any ? out : undefined;
}

/** A JSON Schema as the specs write them; `$ref`s are followed through `resolve`. */
type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What a schema says about the members of the objects it describes: the named properties,
 * whether other names are allowed (a map, or an object left open), through `$ref`, `allOf`,
 * `oneOf`, `anyOf` and array `items`.
 */
interface Members {
  properties: Map<string, Schema>;
  /** The schema of members not named, or `true` when anything goes. */
  others?: Schema | true;
  /** Whether the schema describes an object at all (not a string or number). */
  object: boolean;
}

function members(schema: Schema, resolve: (ref: string) => unknown, seen = new Set<Schema>()): Members {
  const out: Members = { properties: new Map(), object: false };
  const visit = (node: unknown): void => {
    if (!isSchema(node) || seen.has(node)) return;
    seen.add(node);
    if (typeof node.$ref === 'string') {
      const target = resolve(node.$ref);
      // A reference that cannot be followed says nothing against a selection.
      if (target === undefined) {
        out.object = true;
        out.others = true;
      } else visit(target);
    }
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
      const list = node[key];
      if (Array.isArray(list)) for (const part of list) visit(part);
    }
    if (node.type === 'array' || node.items !== undefined) {
      visit(node.items);
      return;
    }
    if (isSchema(node.properties)) {
      out.object = true;
      for (const [key, property] of Object.entries(node.properties))
        if (isSchema(property) && !out.properties.has(key)) out.properties.set(key, property);
    }
    const extra = node.additionalProperties;
    if (extra === true || isSchema(extra)) {
      out.object = true;
      out.others = isSchema(extra) && out.others !== true ? extra : true;
    }
    // An object with no properties named is open: nothing can be said against a selection.
    if (node.type === 'object' && !isSchema(node.properties) && extra === undefined) {
      out.object = true;
      out.others = true;
    }
  };
  visit(schema);
  return out;
}

/**
 * Checks a mask against the schema of the answer it will trim: a selection that names a
 * member the schema does not have (or a member inside a plain value) is refused, naming it
 * as a path. Members under `*`, and members of maps and open objects, are not checked.
 */
export function checkFieldMask(mask: FieldMask, schema: unknown, resolve: (ref: string) => unknown): void {
  if (!isSchema(schema)) return;
  walk(mask, schema, '', resolve);
}

function walk(branch: FieldBranch, schema: Schema, prefix: string, resolve: (ref: string) => unknown): void {
  const known = members(schema, resolve);
  if (known.others === true) return;
  for (const [name, inner] of branch.fields) {
    const path = `${prefix}${name}`;
    if (name === '*') continue;
    const property = known.properties.get(name) ?? known.others;
    if (property === undefined)
      throw new FieldMaskError(
        known.object
          ? `Invalid field selection ${path}: the answer has no field ${name}${prefix ? ` in ${prefix.slice(0, -1)}` : ''}`
          : `Invalid field selection ${path}: ${prefix.slice(0, -1)} is a plain value with no fields inside`,
        path,
      );
    if (inner !== true) walk(inner, property, `${path}/`, resolve);
  }
}

/** The longest key CheckedMasks keeps; a longer mask is parsed and checked on each use. */
export const MAX_KEPT_KEY = 2048;

/**
 * Masks parsed and checked, by a key the caller chooses (the operation and the mask's text),
 * so that a server parses each mask of each operation once. The texts come from clients, so
 * the cache is bounded: when full it starts over, and it keeps no key longer than
 * MAX_KEPT_KEY (a call in a batch can carry a mask of megabytes, which would be kept
 * `limit` times over).
 */
export class CheckedMasks {
  private readonly masks = new Map<string, FieldMask>();
  constructor(private readonly limit: number) {}

  /** The mask of `text`, checked against `schema`; throws FieldMaskError for a bad one. */
  get(key: string, text: string, schema: unknown, resolve: (ref: string) => unknown): FieldMask {
    const known = this.masks.get(key);
    if (known) return known;
    const mask = parseFieldMask(text);
    checkFieldMask(mask, schema, resolve);
    if (key.length > MAX_KEPT_KEY) return mask;
    if (this.masks.size >= this.limit) this.masks.clear();
    this.masks.set(key, mask);
    return mask;
  }
}

/** A JSON pointer resolver over one document: `#/components/schemas/Event` to its schema. */
export function pointerResolver(document: unknown): (ref: string) => unknown {
  return (ref) => {
    if (!ref.startsWith('#/')) return undefined;
    let node: unknown = document;
    for (const token of ref.slice(2).split('/')) {
      if (!isSchema(node)) return undefined;
      node = node[token.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    return node;
  };
}
