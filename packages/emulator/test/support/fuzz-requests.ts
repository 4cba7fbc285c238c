/**
 * Requests generated from the specs, for the fuzz tests: nothing here names an operation.
 * Each operation of a service (`emulator.services.list`) gives fast-check arbitraries of
 *
 * - valid requests: parameter values drawn from their schemas, bodies from the spec's named
 *   examples (alone or with schema-drawn fields over them) or drawn from the body schema, path
 *   ids mostly taken from an `IdPool` of resources the emulator answered with (so most requests
 *   reach real data), page and sync tokens and etags from earlier answers;
 * - invalid requests: a valid one with one thing broken (wrong type, outside the enum or the
 *   bounds, a required parameter or field missing, malformed or non-object JSON, a wrong field
 *   type, an oversized value, an odd path id, a wrong method or content type, bad credentials).
 *
 * A draft is plain data (printed by fast-check when a property fails); it is turned into bytes
 * on the wire against the pool of the moment by `toWire`, and sent with node:http so that odd
 * paths, methods and headers go out exactly as written.
 */
import { Agent, request as httpRequest } from 'node:http';
import { sampleValue } from '@gspec/scripts/operations';
import fc from 'fast-check';
import type { Service } from '../../src/core/services.ts';
import {
  type ApiSpec,
  follow,
  isObject,
  type Json,
  type JsonObject,
  type OperationSpec,
} from '../../src/core/spec.ts';

/** Nesting below which optional properties and array items are no longer drawn. */
const MAX_DEPTH = 4;
/** Characters that tend to trip parsers, encoders and indexes: controls, bidi, BOM, lone surrogates. */
const ODD_CHARACTERS = [
  '\u0000',
  '\u0007',
  '\u200b',
  '\u202e',
  '\ufeff',
  '\ud800',
  '\udfff',
  '\u{1d11e}',
  '\u{1f469}\u200d\u{1f469}\u200d\u{1f467}',
  'e\u0301',
  '\n',
  '"',
  '\\',
  '%',
  '&',
  '=',
  '#',
  '?',
  '/',
  '+',
];

const textUnit = fc.oneof(
  { weight: 12, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom(...ODD_CHARACTERS) },
);

/**
 * A whole number of the environment (FUZZ_SEED, FUZZ_SCALE), else `fallback`; `FUZZ_SEED=random`
 * draws one. Anything else throws, naming the variable.
 */
export function envNumber(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (name === 'FUZZ_SEED' && text === 'random') return Math.floor(Math.random() * 2 ** 31);
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not ${text}`);
  return value;
}

/** Text of at most `max` and at least `min` code points (Ajv counts code points). */
export function textArbitrary(min: number, max: number): fc.Arbitrary<string> {
  return fc.string({ unit: textUnit, minLength: min, maxLength: Math.min(max, 30) }).map((text) => {
    const points = [...text].slice(0, max);
    while (points.length < min) points.push('a');
    return points.join('');
  });
}

const instantArbitrary = fc
  .tuple(
    fc.date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2099-12-31T00:00:00Z'),
      noInvalidDate: true,
    }),
    fc.constantFrom('Z', 'Z', '+02:00', '-05:30'),
  )
  .map(([date, zone]) => date.toISOString().replace('Z', zone === 'Z' ? 'Z' : zone));

/** Follows `$ref`s and merges `allOf` parts into one schema (properties and required joined). */
export function resolveSchema(spec: ApiSpec, node: Json): JsonObject {
  let schema: Json = node;
  for (let hops = 0; isObject(schema) && typeof schema.$ref === 'string'; hops++) {
    if (hops > 32) throw new Error(`$ref chain too long at ${schema.$ref}`);
    schema = follow(spec.document, schema.$ref, 'fuzz');
  }
  if (!isObject(schema)) return {};
  if (!Array.isArray(schema.allOf)) return schema;
  const { allOf, ...rest } = schema;
  const merged: JsonObject = {
    ...rest,
    properties: { ...(isObject(rest.properties) ? rest.properties : {}) },
  };
  const required = new Set<string>(Array.isArray(rest.required) ? (rest.required as string[]) : []);
  for (const part of allOf) {
    const resolved = resolveSchema(spec, part);
    for (const [key, value] of Object.entries(resolved)) {
      if (key === 'properties' && isObject(value)) Object.assign(merged.properties as JsonObject, value);
      else if (key === 'required' && Array.isArray(value))
        for (const name of value) required.add(String(name));
      else if (merged[key] === undefined) merged[key] = value;
    }
  }
  if (required.size > 0) merged.required = [...required];
  return merged;
}

const typeOf = (schema: JsonObject): string | undefined =>
  typeof schema.type === 'string'
    ? schema.type
    : isObject(schema.properties) || isObject(schema.additionalProperties)
      ? 'object'
      : undefined;

/** Schema → arbitrary of values valid against it; built lazily and cached per schema and depth. */
export class SchemaArbitraries {
  private readonly cache = new WeakMap<object, Map<number, fc.Arbitrary<Json>>>();
  constructor(readonly spec: ApiSpec) {}

  of(node: Json, depth = 0): fc.Arbitrary<Json> {
    const key = isObject(node) ? node : { node };
    let byDepth = this.cache.get(key);
    if (!byDepth) {
      byDepth = new Map();
      this.cache.set(key, byDepth);
    }
    let arbitrary = byDepth.get(depth);
    if (!arbitrary) {
      arbitrary = this.build(node, depth);
      byDepth.set(depth, arbitrary);
    }
    return arbitrary;
  }

  private build(node: Json, depth: number): fc.Arbitrary<Json> {
    const schema = resolveSchema(this.spec, node);
    if ('const' in schema) return fc.constant(schema.const as Json);
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
    const alternatives = schema.oneOf ?? schema.anyOf;
    if (Array.isArray(alternatives) && alternatives.length > 0)
      return fc.oneof(...alternatives.map((part) => this.of(part, depth)));
    let arbitrary: fc.Arbitrary<Json>;
    switch (typeOf(schema)) {
      case 'string':
        arbitrary = this.string(schema);
        break;
      case 'integer': {
        const int32 = schema.format === 'int32' || schema.format === undefined;
        const lo = typeof schema.minimum === 'number' ? schema.minimum : int32 ? -(2 ** 31) : -(2 ** 40);
        const hi = typeof schema.maximum === 'number' ? schema.maximum : int32 ? 2 ** 31 - 1 : 2 ** 40;
        const near = typeof schema.minimum === 'number' ? schema.minimum : -5;
        arbitrary = fc.oneof(
          { weight: 3, arbitrary: fc.integer({ min: Math.max(lo, near), max: Math.min(hi, near + 300) }) },
          { weight: 1, arbitrary: fc.integer({ min: lo, max: hi }) },
        );
        break;
      }
      case 'number':
        arbitrary = fc.double({
          min: typeof schema.minimum === 'number' ? schema.minimum : -1e9,
          max: typeof schema.maximum === 'number' ? schema.maximum : 1e9,
          noNaN: true,
          noDefaultInfinity: true,
        });
        break;
      case 'boolean':
        arbitrary = fc.boolean();
        break;
      case 'null':
        arbitrary = fc.constant(null);
        break;
      case 'array': {
        const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
        const max = Math.max(min, Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 3, 3));
        arbitrary =
          depth >= MAX_DEPTH && min === 0
            ? fc.constant([])
            : fc.array(this.of(schema.items ?? {}, depth + 1), { minLength: min, maxLength: max });
        break;
      }
      case 'object':
        arbitrary = this.object(schema, depth);
        break;
      default:
        // No type: anything JSON is valid.
        arbitrary = fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Json>;
    }
    const refused = isObject(schema.not) ? resolveSchema(this.spec, schema.not) : undefined;
    if (refused && 'const' in refused) {
      const value = JSON.stringify(refused.const);
      arbitrary = arbitrary.filter((candidate) => JSON.stringify(candidate) !== value);
    }
    return arbitrary;
  }

  private string(schema: JsonObject): fc.Arbitrary<Json> {
    const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
    const max = typeof schema.maxLength === 'number' ? schema.maxLength : 60;
    if (schema.format === 'date-time') return instantArbitrary;
    if (schema.format === 'date') return instantArbitrary.map((instant) => instant.slice(0, 10));
    if (typeof schema.pattern === 'string') {
      const pattern = new RegExp(schema.pattern, 'u');
      return fc
        .stringMatching(pattern)
        .filter((text) => [...text].length >= min && [...text].length <= max && pattern.test(text));
    }
    if (schema.format === 'int64') return fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }).map(String);
    return textArbitrary(min, max);
  }

  private object(schema: JsonObject, depth: number): fc.Arbitrary<Json> {
    const properties = Object.entries(isObject(schema.properties) ? schema.properties : {}).filter(
      ([, property]) => resolveSchema(this.spec, property).readOnly !== true,
    );
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const mandatory = properties.filter(([name]) => required.has(name)).map(([name]) => name);
    const optional = properties.filter(([name]) => !required.has(name)).map(([name]) => name);
    const bySchema = new Map(properties);
    const extra = isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
    const chosen =
      depth >= MAX_DEPTH
        ? fc.constant<string[]>([])
        : fc.subarray(optional, { maxLength: Math.min(5, optional.length) });
    const record = chosen.chain((names) => {
      const model: Record<string, fc.Arbitrary<Json>> = {};
      for (const name of [...mandatory, ...names])
        model[name] = this.of(bySchema.get(name) as Json, depth + 1);
      return fc.record(model) as fc.Arbitrary<JsonObject>;
    });
    if (!extra || depth >= MAX_DEPTH) return record;
    return fc
      .tuple(record, fc.dictionary(textArbitrary(1, 12), this.of(extra, depth + 1), { maxKeys: 3 }))
      .map(([known, more]) => ({ ...more, ...known }));
  }
}

/** Path ids the emulator answered with, page and sync tokens, etags: what valid requests reuse. */
export class IdPool {
  /** Path parameter values that belong together (`{calendarId, eventId}`), newest last. */
  readonly bindings: Record<string, string>[] = [];
  readonly tokens = new Map<string, string[]>();
  readonly etags: string[] = [];
  /** The last etag answered for a binding, so that If-Match can name the current version. */
  readonly etagOf = new Map<string, string>();
  readonly ids: string[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly limit = 200) {}

  clear(): void {
    this.bindings.length = 0;
    this.tokens.clear();
    this.etags.length = 0;
    this.etagOf.clear();
    this.ids.length = 0;
    this.seen.clear();
  }

  static key(binding: Record<string, string>): string {
    return JSON.stringify(Object.entries(binding).sort());
  }

  bind(binding: Record<string, string>, etag?: string): void {
    const key = IdPool.key(binding);
    if (etag !== undefined) this.etagOf.set(key, etag);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.bindings.push(binding);
    if (this.bindings.length > this.limit) {
      const dropped = IdPool.key(this.bindings.shift() as Record<string, string>);
      this.seen.delete(dropped);
      this.etagOf.delete(dropped);
    }
  }

  /** The n-th (modulo) binding that has every one of `names`, projected on them. */
  pick(names: string[], n: number): Record<string, string> | undefined {
    const fitting = this.bindings.filter((b) => names.every((name) => name in b));
    const chosen = fitting[n % Math.max(fitting.length, 1)];
    return chosen && Object.fromEntries(names.map((name) => [name, chosen[name] as string]));
  }

  remember(list: string[], value: string, limit = 40): void {
    if (list.includes(value)) return;
    list.push(value);
    if (list.length > limit) list.shift();
  }
}

export type Placeholder = { pool: 'ids' | 'etags' | 'token'; n: number };
type Value = string | Placeholder;

export type Mutation =
  | { kind: 'wrongParameter'; name: string; in: 'query' | 'header' | 'path'; value: string; why: string }
  | { kind: 'missingParameter'; name: string; in: 'query' | 'path' | 'header' }
  | { kind: 'malformedJson'; text: string }
  | { kind: 'notAnObject'; value: Json }
  | { kind: 'wrongFieldType'; field: string; value: Json }
  | { kind: 'badFieldValue'; field: string; value: Json; why: string }
  | { kind: 'missingField'; field: string }
  | { kind: 'oversized'; in: 'body' | 'query'; name: string; length: number }
  | { kind: 'oddPathId'; name: string; raw: string }
  | { kind: 'wrongMethod'; method: string }
  | { kind: 'badCredentials'; authorization: string | null }
  | { kind: 'wrongContentType'; contentType: string }
  | { kind: 'unknownPath'; suffix: string }
  | { kind: 'junkQuery'; entries: [string, string][] }
  | { kind: 'oddIfMatch'; value: string };

export interface Draft {
  api: string;
  operationId: string;
  /** Take the path ids from the pool (the n-th fitting binding) when it has some. */
  fromPool: number | null;
  /** Path ids drawn from the schemas, used when the pool has none (or fromPool is null). */
  pathValues: Record<string, string>;
  query: [string, Value][];
  headers: [string, Value][];
  body?: Json;
  /** Replace the body's `id` with the n-th id of the pool (an existing calendar for calendarList.insert, a taken event id). */
  bodyIdFromPool: number | null;
  /** Who sends it: the owner of the data, or another user (who sees little of it). */
  asOther: boolean;
  mutation?: Mutation;
}

export interface Wire {
  method: string;
  /** Path and query, encoded as sent. */
  target: string;
  headers: Record<string, string>;
  body?: string;
  /** The path parameters the request carries (for harvesting the answer). */
  pathParams: Record<string, string>;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, when the answer was JSON. */
  body?: unknown;
  text: string;
}

/** What a mutation must be answered with: 4xx, or one exact status; undefined when anything but 5xx is fine. */
export function expectedRefusal(
  draft: Draft,
  op: OperationSpec,
  service: Service,
  target: string,
): 'any4xx' | number | undefined {
  const mutation = draft.mutation;
  if (!mutation) return undefined;
  // A `.` or `..` segment is resolved as URLs are (`/events/.` is `/events/`), so the request
  // may reach another path or none: then any refusal will do.
  if (/\/\.\.?(?=[/?]|$)/.test(target)) return 'any4xx';
  // Another method on the path may be another operation's path (GET …/calendarList/watch is
  // calendarList.get of a calendar named "watch"): then any refusal of that operation will do.
  if (mutation.kind === 'wrongMethod' && service.router.route(mutation.method, op.path).kind === 'operation')
    return 'any4xx';
  switch (mutation.kind) {
    case 'wrongParameter':
      // An empty path segment matches no path at all: 404, as on Google.
      return mutation.in === 'path' && mutation.value === '' ? 404 : 400;
    case 'notAnObject':
    case 'wrongFieldType':
    case 'badFieldValue':
    case 'missingField':
      return 400;
    case 'missingParameter':
      return mutation.in === 'path' ? 404 : 400;
    case 'malformedJson':
      return mutation.text.trim() === '' && !op.body?.required ? undefined : 400;
    case 'oddPathId':
    case 'unknownPath':
      return 'any4xx';
    case 'wrongMethod':
      return 405;
    case 'badCredentials':
      return 401;
    case 'wrongContentType':
      return 415;
    default:
      return undefined;
  }
}

/** A value as query text; arrays become repeated parameters. */
function queryEntries(name: string, value: Json): [string, string][] {
  if (Array.isArray(value))
    return value.map((one) => [name, typeof one === 'string' ? one : JSON.stringify(one)]);
  return [[name, typeof value === 'string' ? value : JSON.stringify(value)]];
}

/** The named examples of the operation's JSON body. */
function bodyExamples(spec: ApiSpec, op: OperationSpec): Json[] {
  if (!op.body) return [];
  const media = follow(spec.document, op.body.schemaPointer.replace(/\/schema$/, ''), op.where);
  if (!isObject(media) || !isObject(media.examples)) return [];
  return Object.values(media.examples).map((example) => {
    const resolved =
      isObject(example) && typeof example.$ref === 'string'
        ? follow(spec.document, example.$ref, op.where)
        : example;
    return isObject(resolved) ? (resolved.value as Json) : null;
  });
}

/** The raw parameter object of the document (for its examples). */
function rawParameter(spec: ApiSpec, pointer: string): JsonObject {
  let node: Json = spec.document;
  for (const raw of pointer
    .replace(/\/schema$/, '')
    .slice(2)
    .split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = Array.isArray(node) ? (node[Number(key)] as Json) : isObject(node) ? (node[key] as Json) : null;
  }
  return isObject(node) ? node : {};
}

/** A value of another JSON type than the schema's, or undefined when the schema takes any. */
function wrongJsonType(schema: JsonObject): fc.Arbitrary<Json> | undefined {
  switch (typeOf(schema)) {
    case 'string':
      return fc.constantFrom<Json>(12345, true, { text: 'x' }, ['x']);
    case 'integer':
      return fc.constantFrom<Json>('7', 1.5, false, [1]);
    case 'number':
      return fc.constantFrom<Json>('1.5', true, {});
    case 'boolean':
      return fc.constantFrom<Json>('true', 1, null);
    case 'object':
      return fc.constantFrom<Json>('object', 3, [], true);
    case 'array':
      return fc.constantFrom<Json>({}, 'list', 0);
    default:
      return undefined;
  }
}

/**
 * A body field value of the right JSON type that its schema refuses (outside the enum, the
 * bounds or the length, not the format or the pattern), with why; undefined when none is.
 */
function wrongValue(schema: JsonObject): fc.Arbitrary<{ value: Json; why: string }> | undefined {
  const options: fc.Arbitrary<{ value: Json; why: string }>[] = [];
  const type = typeOf(schema);
  if (type === 'integer' || type === 'number') {
    if (typeof schema.minimum === 'number')
      options.push(fc.constant({ value: schema.minimum - 1, why: 'below the minimum' }));
    if (typeof schema.maximum === 'number')
      options.push(fc.constant({ value: schema.maximum + 1, why: 'above the maximum' }));
  }
  if (type === 'string') {
    if (Array.isArray(schema.enum))
      options.push(
        textArbitrary(1, 12)
          .filter((value) => !(schema.enum as Json[]).includes(value))
          .map((value) => ({ value, why: 'outside the enum' })),
      );
    if (schema.format === 'date-time')
      options.push(
        fc
          .constantFrom('yesterday', '2026-13-45T00:00:00Z', '2026-03-02T25:00:00Z', '2026-03-02')
          .map((value) => ({ value, why: 'not a date-time' })),
      );
    if (schema.format === 'date')
      options.push(
        fc.constantFrom('tomorrow', '2026-02-30', '2026-3-2').map((value) => ({ value, why: 'not a date' })),
      );
    if (typeof schema.maxLength === 'number' && schema.maxLength <= 10_000)
      options.push(fc.constant({ value: 'x'.repeat(schema.maxLength + 1), why: 'longer than maxLength' }));
    if (typeof schema.minLength === 'number' && schema.minLength > 0)
      options.push(fc.constant({ value: '', why: 'shorter than minLength' }));
    if (typeof schema.pattern === 'string') {
      const pattern = new RegExp(schema.pattern, 'u');
      options.push(
        textArbitrary(0, 10)
          .filter((value) => !pattern.test(value))
          .map((value) => ({ value, why: `not matching ${schema.pattern}` })),
      );
    }
  }
  return options.length > 0 ? fc.oneof(...options) : undefined;
}

/** Query or header text that its schema refuses, with why; undefined when any text is taken. */
function wrongText(schema: JsonObject): fc.Arbitrary<{ value: string; why: string }> | undefined {
  const options: fc.Arbitrary<{ value: string; why: string }>[] = [];
  const scalar = typeOf(schema) === 'array' && isObject(schema.items) ? schema.items : schema;
  const type = typeOf(scalar);
  if (type === 'integer')
    options.push(
      fc
        .constantFrom('abc', '1.5', '', '1e3', '0x10', '--1')
        .map((value) => ({ value, why: 'not an integer' })),
    );
  if (type === 'number')
    options.push(fc.constantFrom('abc', '', 'NaN').map((value) => ({ value, why: 'not a number' })));
  if (type === 'boolean')
    options.push(fc.constantFrom('yes', 'maybe', '').map((value) => ({ value, why: 'not a boolean' })));
  if (scalar.format === 'date-time')
    options.push(
      fc
        .constantFrom('yesterday', '2026-13-45T00:00:00Z', '2026-03-02', '2026-03-02T25:00:00Z', '')
        .map((value) => ({ value, why: 'not a date-time' })),
    );
  if (Array.isArray(scalar.enum))
    options.push(
      textArbitrary(0, 12)
        .filter((value) => !(scalar.enum as Json[]).includes(value))
        .map((value) => ({ value, why: 'outside the enum' })),
    );
  if (typeof scalar.minimum === 'number')
    options.push(fc.constant({ value: String(scalar.minimum - 1), why: 'below the minimum' }));
  if (typeof scalar.maximum === 'number')
    options.push(fc.constant({ value: String(scalar.maximum + 1), why: 'above the maximum' }));
  if (typeof scalar.maxLength === 'number')
    options.push(fc.constant({ value: 'x'.repeat(scalar.maxLength + 1), why: 'longer than maxLength' }));
  if (typeof scalar.minLength === 'number' && scalar.minLength > 0 && type === 'string')
    options.push(fc.constant({ value: '', why: 'shorter than minLength' }));
  if (typeof scalar.pattern === 'string') {
    const pattern = new RegExp(scalar.pattern, 'u');
    options.push(
      textArbitrary(0, 10)
        .filter((value) => !pattern.test(value))
        .map((value) => ({ value, why: `not matching ${scalar.pattern}` })),
    );
  }
  if (isObject(scalar.not) && 'const' in scalar.not && typeof scalar.not.const === 'string')
    options.push(fc.constant({ value: scalar.not.const, why: 'the value it refuses' }));
  return options.length > 0 ? fc.oneof(...options) : undefined;
}

const PATH_ODDITIES = [
  '%ED%A0%80', // a lone surrogate as UTF-8 bytes: not valid UTF-8
  '%',
  '%zz',
  '%C3',
  '..',
  '.',
  'a%2Fb',
  '%00',
  '%20',
  '%F0%9F%91%A9%E2%80%8D%F0%9F%91%A9',
  'primary%00',
  'x'.repeat(3000),
  '%E2%80%AE',
  "~!$&'()*+,;=:@",
];

const CREDENTIALS = [null, '', 'Bearer', 'Bearer    ', 'Basic dXNlcjpwYXNz', 'Token abc', 'bearer', ' '];
const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
];
const MALFORMED = [
  '{',
  '{"summary": ',
  '{"a":1}}',
  "{'summary':'x'}",
  'nul',
  '[1,2',
  '{"a":tru}',
  '\u0000',
  '{"a":"\\x"}',
  '  ',
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND', 'COPY'];

/** Draft arbitraries of one service's operations (those it implements). */
export class RequestGenerator {
  readonly values: SchemaArbitraries;
  readonly operations: OperationSpec[];
  /** The resource schema each GET of one resource answers, to bind answered ids to its path. */
  private readonly resourcePaths = new Map<string, OperationSpec>();

  constructor(readonly service: Service) {
    this.values = new SchemaArbitraries(service.spec);
    this.operations = service.spec.operations.filter((op) => !service.notImplemented.includes(op.id));
    for (const op of service.spec.operations) {
      const last = /\{([^}]+)\}$/.exec(op.path)?.[1];
      const ref = this.answerRef(op);
      if (op.method === 'GET' && last && ref && !this.resourcePaths.has(ref)) this.resourcePaths.set(ref, op);
    }
  }

  /** The `$ref` of the schema the operation answers with on success. */
  private answerRef(op: OperationSpec): string | undefined {
    let response: Json | undefined = op.responses[String(op.successStatus)];
    if (isObject(response) && typeof response.$ref === 'string')
      response = follow(this.service.spec.document, response.$ref, op.where);
    const media =
      isObject(response) && isObject(response.content) ? response.content['application/json'] : undefined;
    const schema = isObject(media) ? media.schema : undefined;
    return isObject(schema) && typeof schema.$ref === 'string' ? schema.$ref : undefined;
  }

  /** The spec's example path ids, so that the pool starts with something for every operation. */
  seedPool(pool: IdPool): void {
    for (const op of this.operations) {
      const binding: Record<string, string> = {};
      for (const p of op.parameters)
        if (p.in === 'path')
          binding[p.name] = String(
            sampleValue(this.service.spec.document, rawParameter(this.service.spec, p.schemaPointer)),
          );
      if (Object.keys(binding).length > 0) pool.bind(binding);
    }
  }

  /** Takes ids, tokens and etags out of a successful answer. */
  harvest(pool: IdPool, op: OperationSpec, pathParams: Record<string, string>, answer: Answer): void {
    if (answer.status < 200 || answer.status > 299 || !isObject(answer.body)) return;
    const body = answer.body;
    const resources: { ref: string | undefined; value: Json }[] = [{ ref: this.answerRef(op), value: body }];
    const itemsField = op.pagination?.itemsField ?? 'items';
    if (Array.isArray(body[itemsField])) {
      const listRef = this.answerRef(op);
      const list = listRef ? resolveSchema(this.service.spec, { $ref: listRef }) : {};
      const items = isObject(list.properties) ? list.properties[itemsField] : undefined;
      const itemRef =
        isObject(items) && isObject(items.items) && typeof items.items.$ref === 'string'
          ? items.items.$ref
          : undefined;
      for (const value of body[itemsField] as Json[]) resources.push({ ref: itemRef, value });
    }
    for (const { ref, value } of resources) {
      if (!isObject(value)) continue;
      if (typeof value.etag === 'string') pool.remember(pool.etags, value.etag);
      if (typeof value.id !== 'string') continue;
      pool.remember(pool.ids, value.id);
      const getter = ref ? this.resourcePaths.get(ref) : undefined;
      if (!getter) continue;
      const names = [...getter.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
      const last = names.pop() as string;
      if (names.every((name) => name in pathParams))
        pool.bind(
          {
            ...Object.fromEntries(names.map((name) => [name, pathParams[name] as string])),
            [last]: value.id,
          },
          typeof value.etag === 'string' ? value.etag : undefined,
        );
    }
    for (const field of [op.pagination?.nextPageTokenField, op.sync?.nextSyncTokenField]) {
      const token = field ? body[field] : undefined;
      if (typeof token === 'string') {
        const list = pool.tokens.get(op.id) ?? [];
        pool.tokens.set(op.id, list);
        pool.remember(list, token, 10);
      }
    }
  }

  /** Drafts of every implemented operation: valid ones and broken ones, about half and half. */
  draft(): fc.Arbitrary<Draft> {
    return fc
      .constantFrom(...this.operations)
      .chain((op) =>
        fc.oneof({ weight: 1, arbitrary: this.valid(op) }, { weight: 1, arbitrary: this.invalid(op) }),
      );
  }

  valid(op: OperationSpec): fc.Arbitrary<Draft> {
    const pathParameters = op.parameters.filter((p) => p.in === 'path');
    const pathValues = fc.record(
      Object.fromEntries(
        pathParameters.map((p) => [
          p.name,
          this.values.of(p.schema).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
        ]),
      ) as Record<string, fc.Arbitrary<string>>,
    );
    const tokenParameters = new Set([op.pagination?.pageTokenParameter, op.sync?.syncTokenParameter]);
    // `fields` is left out: a random text is nearly never a mask the answer's schema allows,
    // so it would turn most valid drafts into 400s; partial.test.ts covers masks.
    const queryParameters = op.parameters.filter(
      (p) => p.in === 'query' && p.name !== 'access_token' && p.name !== 'fields',
    );
    const required = queryParameters.filter((p) => p.required);
    const optional = queryParameters.filter((p) => !p.required);
    const entriesOf = (p: OperationSpec['parameters'][number]): fc.Arbitrary<[string, Value][]> => {
      const drawn = this.values.of(p.schema).map((v) => queryEntries(p.name, v) as [string, Value][]);
      if (tokenParameters.has(p.name))
        return fc.oneof(
          drawn,
          fc.nat().map((n): [string, Value][] => [[p.name, { pool: 'token', n }]]),
        );
      const schema = resolveSchema(this.service.spec, p.schema);
      if (
        typeOf(schema) === 'string' &&
        !schema.format &&
        !schema.enum &&
        !schema.pattern &&
        !schema.maxLength
      )
        return fc.oneof(
          { weight: 1, arbitrary: drawn },
          { weight: 3, arbitrary: fc.nat().map((n): [string, Value][] => [[p.name, { pool: 'ids', n }]]) },
        );
      return drawn;
    };
    const query = fc
      .tuple(
        fc.tuple(...required.map(entriesOf)),
        fc.subarray(optional, { maxLength: Math.min(4, optional.length) }),
      )
      .chain(([fixed, chosen]) =>
        (chosen.length > 0 ? fc.tuple(...chosen.map(entriesOf)) : fc.constant([] as [string, Value][][])).map(
          (more) => [...fixed.flat(), ...more.flat()],
        ),
      );
    const headerParameters = op.parameters.filter((p) => p.in === 'header');
    // A required header is always sent (the conformance checks leave it out on purpose).
    const headers = fc.tuple(
      ...headerParameters.map((p) => {
        const value = fc.oneof(
          { weight: 3, arbitrary: fc.nat().map((n): [string, Value] => [p.name, { pool: 'etags', n }]) },
          {
            weight: 1,
            arbitrary: this.values.of(p.schema).map((v): [string, Value] => [p.name, String(v)]),
          },
        );
        return p.required ? value : fc.option(value, { nil: undefined });
      }),
    );
    const body = op.body ? this.body(op) : fc.constant(undefined);
    return fc
      .record({
        fromPool: fc.option(fc.nat(), { freq: 8, nil: null }),
        bodyIdFromPool: fc.option(fc.nat(), { freq: 2, nil: null }),
        pathValues,
        query,
        headers,
        body,
        roll: fc.nat({ max: 9 }),
      })
      .map(
        (parts): Draft => ({
          api: this.service.name,
          operationId: op.id,
          fromPool: parts.fromPool,
          bodyIdFromPool: op.body ? parts.bodyIdFromPool : null,
          pathValues: parts.pathValues,
          query: parts.query,
          headers: parts.headers.filter((h): h is [string, Value] => h !== undefined),
          ...(parts.body !== undefined ? { body: parts.body } : {}),
          // One request in ten from another user, who sees little of the owner's data.
          asOther: parts.roll === 0,
        }),
      );
  }

  /** A body: a named example, an example with drawn fields over it, or one drawn from the schema. */
  private body(op: OperationSpec): fc.Arbitrary<Json> {
    const body = op.body as NonNullable<OperationSpec['body']>;
    const drawn = this.values.of({ $ref: body.schemaPointer });
    const examples = bodyExamples(this.service.spec, op).filter((e) => e !== null);
    if (examples.length === 0) return drawn;
    const example = fc.constantFrom(...examples);
    return fc.oneof(
      { weight: 3, arbitrary: example },
      {
        weight: 2,
        arbitrary: fc
          .tuple(example, drawn)
          .map(([base, more]) => (isObject(base) && isObject(more) ? { ...base, ...more } : base)),
      },
      { weight: 2, arbitrary: drawn },
    );
  }

  invalid(op: OperationSpec): fc.Arbitrary<Draft> {
    const mutations: fc.Arbitrary<Mutation>[] = [];
    for (const p of op.parameters) {
      if (p.in === 'query' || p.in === 'header' || p.in === 'path') {
        const wrong = wrongText(resolveSchema(this.service.spec, p.schema));
        if (wrong)
          mutations.push(
            wrong.map(
              ({ value, why }): Mutation => ({ kind: 'wrongParameter', name: p.name, in: p.in, value, why }),
            ),
          );
      }
      if (p.required && (p.in === 'query' || p.in === 'path' || p.in === 'header'))
        mutations.push(fc.constant<Mutation>({ kind: 'missingParameter', name: p.name, in: p.in }));
      if (p.in === 'path')
        mutations.push(
          fc
            .constantFrom(...PATH_ODDITIES)
            .map((raw): Mutation => ({ kind: 'oddPathId', name: p.name, raw })),
        );
      if (p.in === 'query' && typeOf(resolveSchema(this.service.spec, p.schema)) === 'string')
        mutations.push(
          fc
            .integer({ min: 2_000, max: 6_000 })
            .map((length): Mutation => ({ kind: 'oversized', in: 'query', name: p.name, length })),
        );
      if (p.in === 'header')
        mutations.push(
          fc
            .constantFrom('*', '"nope"', 'W/"1"', '"a", "b"', '', ',,,', 'x'.repeat(500))
            .map((value): Mutation => ({ kind: 'oddIfMatch', value })),
        );
    }
    if (op.body) {
      const schema = resolveSchema(this.service.spec, { $ref: op.body.schemaPointer });
      mutations.push(
        fc.constantFrom(...MALFORMED).map((text): Mutation => ({ kind: 'malformedJson', text })),
      );
      mutations.push(
        fc
          .constantFrom<Json>([], [1], 42, 'text', null, true)
          .map((value): Mutation => ({ kind: 'notAnObject', value })),
      );
      mutations.push(
        fc
          .constantFrom(...CONTENT_TYPES)
          .map((contentType): Mutation => ({ kind: 'wrongContentType', contentType })),
      );
      const properties = Object.entries(isObject(schema.properties) ? schema.properties : {});
      for (const [field, property] of properties) {
        const resolved = resolveSchema(this.service.spec, property);
        // A read-only field sent as null is ignored as its other values are (decision 0054):
        // null there is no wrong type.
        const wrong = wrongJsonType(resolved)?.filter(
          (value) => !(value === null && resolved.readOnly === true),
        );
        if (wrong) mutations.push(wrong.map((value): Mutation => ({ kind: 'wrongFieldType', field, value })));
        // A read-only field is ignored whatever its value, as on Google.
        const outside = resolved.readOnly === true ? undefined : wrongValue(resolved);
        if (outside)
          mutations.push(
            outside.map(({ value, why }): Mutation => ({ kind: 'badFieldValue', field, value, why })),
          );
        if (typeOf(resolveSchema(this.service.spec, property)) === 'string')
          mutations.push(
            fc
              .integer({ min: 100_000, max: 1_000_000 })
              .map((length): Mutation => ({ kind: 'oversized', in: 'body', name: field, length })),
          );
      }
      for (const field of Array.isArray(schema.required) ? (schema.required as string[]) : [])
        mutations.push(fc.constant<Mutation>({ kind: 'missingField', field }));
    }
    const allowed = new Set(
      this.service.spec.operations.filter((o) => o.path === op.path).map((o) => o.method),
    );
    const others = METHODS.filter((m) => !allowed.has(m));
    if (others.length > 0)
      mutations.push(fc.constantFrom(...others).map((method): Mutation => ({ kind: 'wrongMethod', method })));
    mutations.push(
      fc
        .constantFrom(...CREDENTIALS)
        .map((authorization): Mutation => ({ kind: 'badCredentials', authorization })),
    );
    mutations.push(
      fc
        .constantFrom('/x', '/', '//', '/%2F', '/..', '/nope/deeper')
        .map((suffix): Mutation => ({ kind: 'unknownPath', suffix })),
    );
    mutations.push(
      fc
        .array(fc.tuple(textArbitrary(0, 8), textArbitrary(0, 8)), { minLength: 1, maxLength: 4 })
        .map((entries): Mutation => ({ kind: 'junkQuery', entries })),
    );
    return fc
      .tuple(this.valid(op), fc.oneof(...mutations))
      .map(([draft, mutation]) => ({ ...draft, mutation }));
  }
}

/** Text safe in a header (node:http refuses control and non-Latin-1 characters). */
const headerText = (text: string): string => text.replace(/[^\x20-\x7e]/g, '');

/** A path segment for a value that may hold lone surrogates (encodeURIComponent throws on them). */
const segment = (value: string): string =>
  encodeURIComponent(
    value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
  );

/**
 * The bytes of a draft against the pool of the moment. `address` of a body (watch channels) is
 * pointed at `receiver` whenever it is an http(s) URL, so the emulator never reaches the network.
 */
export function toWire(
  draft: Draft,
  op: OperationSpec,
  basePath: string,
  pool: IdPool,
  tokens: { owner: string; other: string },
  receiver: string,
): Wire {
  const mutation = draft.mutation;
  const names = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  const pooled = draft.fromPool === null ? undefined : pool.pick(names, draft.fromPool);
  const pathParams: Record<string, string> = { ...draft.pathValues, ...pooled };
  const resolve = (value: Value): string | undefined => {
    if (typeof value === 'string') return value;
    // Two etags in three are the target's own (If-Match that holds), the rest any other one.
    const own =
      value.pool === 'etags' && value.n % 3 !== 0 ? pool.etagOf.get(IdPool.key(pathParams)) : undefined;
    if (own !== undefined) return own;
    const list =
      value.pool === 'ids' ? pool.ids : value.pool === 'etags' ? pool.etags : (pool.tokens.get(op.id) ?? []);
    return list[value.n % Math.max(list.length, 1)];
  };
  let path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (mutation?.kind === 'oddPathId' && mutation.name === name) return mutation.raw;
    if (mutation?.kind === 'missingParameter' && mutation.name === name) return '';
    if (mutation?.kind === 'wrongParameter' && mutation.in === 'path' && mutation.name === name)
      return segment(mutation.value);
    return segment(pathParams[name] ?? 'x');
  });
  if (mutation?.kind === 'unknownPath') path += mutation.suffix;

  const query = new URLSearchParams();
  for (const [name, value] of draft.query) {
    if (mutation?.kind === 'missingParameter' && mutation.name === name) continue;
    if (mutation?.kind === 'wrongParameter' && mutation.name === name) continue;
    const text = resolve(value);
    if (text !== undefined) query.append(name, text);
  }
  if (mutation?.kind === 'wrongParameter' && mutation.in === 'query')
    query.append(mutation.name, mutation.value);
  if (mutation?.kind === 'oversized' && mutation.in === 'query')
    query.set(mutation.name, 'q'.repeat(mutation.length));
  if (mutation?.kind === 'junkQuery') for (const [name, value] of mutation.entries) query.append(name, value);

  const headers: Record<string, string> = {};
  for (const [name, value] of draft.headers) {
    if (mutation?.kind === 'missingParameter' && mutation.in === 'header' && mutation.name === name) continue;
    const text = resolve(value);
    if (text !== undefined) headers[name.toLowerCase()] = headerText(text);
  }
  if (mutation?.kind === 'wrongParameter' && mutation.in === 'header')
    headers[mutation.name.toLowerCase()] = headerText(mutation.value);
  if (mutation?.kind === 'oddIfMatch') headers['if-match'] = mutation.value;
  const token = draft.asOther ? tokens.other : tokens.owner;
  if (mutation?.kind === 'badCredentials') {
    if (mutation.authorization !== null) headers.authorization = mutation.authorization;
  } else headers.authorization = `Bearer ${token}`;

  let body: string | undefined;
  if (op.body) {
    let value: Json | undefined = draft.body;
    if (isObject(value) && typeof value.address === 'string' && /^https?:/i.test(value.address))
      value = { ...value, address: receiver };
    const pooledId =
      draft.bodyIdFromPool === null
        ? undefined
        : pool.ids[draft.bodyIdFromPool % Math.max(pool.ids.length, 1)];
    if (isObject(value) && pooledId !== undefined) value = { ...value, id: pooledId };
    if (mutation?.kind === 'notAnObject') value = mutation.value;
    if (mutation?.kind === 'wrongFieldType' || mutation?.kind === 'badFieldValue')
      value = { ...(isObject(value) ? value : {}), [mutation.field]: mutation.value };
    if (mutation?.kind === 'missingField' && isObject(value)) {
      const { [mutation.field]: _removed, ...rest } = value;
      value = rest;
    }
    if (mutation?.kind === 'oversized' && mutation.in === 'body')
      value = { ...(isObject(value) ? value : {}), [mutation.name]: 'o'.repeat(mutation.length) };
    body =
      mutation?.kind === 'malformedJson'
        ? mutation.text
        : value === undefined
          ? undefined
          : JSON.stringify(value);
    headers['content-type'] =
      mutation?.kind === 'wrongContentType' ? mutation.contentType : 'application/json';
  }
  const search = query.toString();
  return {
    method: mutation?.kind === 'wrongMethod' ? mutation.method : op.method,
    target: `${basePath}${path}${search ? `?${search}` : ''}`,
    headers,
    ...(body !== undefined ? { body } : {}),
    pathParams,
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** Sends a request exactly as given (path, method and headers untouched) and reads the whole answer. */
export function send(
  origin: string,
  wire: Pick<Wire, 'method' | 'target' | 'headers' | 'body'>,
): Promise<Answer> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: wire.method,
        path: wire.target,
        headers: {
          ...wire.headers,
          ...(wire.body !== undefined ? { 'content-length': String(Buffer.byteLength(wire.body)) } : {}),
        },
        agent,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          if (String(response.headers['content-type'] ?? '').startsWith('application/json') && text !== '') {
            try {
              body = JSON.parse(text);
            } catch (error) {
              reject(
                new Error(
                  `${wire.method} ${wire.target}: the answer is not the JSON it claims: ${(error as Error).message}`,
                ),
              );
              return;
            }
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body, text });
        });
      },
    );
    request.on('error', reject);
    request.end(wire.body);
  });
}

/** Problems of a non-2xx answer with Google's error envelope: `{error: {code, message, errors: [...]}}`. */
export function envelopeProblems(answer: Answer): string[] {
  if (answer.status >= 200 && answer.status < 300) return [];
  // Not Modified (If-None-Match named the current etag) is no error and has no body.
  if (answer.status === 304)
    return answer.text === '' ? [] : [`304 with a body: ${answer.text.slice(0, 200)}`];
  const error = isObject(answer.body) ? answer.body.error : undefined;
  if (!isObject(error))
    return [`${answer.status} without Google's error envelope: ${answer.text.slice(0, 200)}`];
  const problems: string[] = [];
  if (error.code !== answer.status)
    problems.push(`error.code ${String(error.code)} is not the status ${answer.status}`);
  if (typeof error.message !== 'string' || error.message === '') problems.push('error.message is missing');
  if (!Array.isArray(error.errors) || error.errors.length === 0) problems.push('error.errors is empty');
  else
    error.errors.forEach((item, i) => {
      for (const key of ['domain', 'reason', 'message'])
        if (!isObject(item) || typeof item[key] !== 'string' || item[key] === '')
          problems.push(`error.errors[${i}].${key} is missing`);
    });
  return problems;
}

/** Writes one call as the fixtures' owner and harvests its answer into the pool; its body. */
export type FixtureWrite = (
  operationId: string,
  path: Record<string, string>,
  body?: JsonObject,
) => JsonObject;

/**
 * The Calendar state the fuzz tests start from, something to find for every operation: two
 * secondary calendars, timed events in three calendars, an all-day event, a weekly recurring
 * event, a sharing rule for `other`, and the lists whose answers fill the pool with list
 * entries, settings, instances, and page and sync tokens.
 */
export function writeCalendarFixtures(write: FixtureWrite, owner: string, other: string): void {
  const team = write('calendars.insert', {}, { summary: 'Fuzz team', timeZone: 'Europe/Zurich' });
  write('calendars.insert', {}, { summary: 'Fuzz side' });
  const at = (day: number, hour: number) =>
    `2026-03-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00Z`;
  for (const [calendarId, day] of [
    ['primary', 2],
    [owner, 3],
    [String(team.id), 4],
  ] as const)
    write(
      'events.insert',
      { calendarId },
      { summary: `Meeting ${day}`, start: { dateTime: at(day, 9) }, end: { dateTime: at(day, 10) } },
    );
  write(
    'events.insert',
    { calendarId: 'primary' },
    { summary: 'Holiday', start: { date: '2026-03-05' }, end: { date: '2026-03-06' } },
  );
  const weekly = write(
    'events.insert',
    { calendarId: String(team.id) },
    {
      summary: 'Weekly',
      start: { dateTime: '2026-03-02T08:00:00+01:00', timeZone: 'Europe/Zurich' },
      end: { dateTime: '2026-03-02T08:30:00+01:00', timeZone: 'Europe/Zurich' },
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=10'],
    },
  );
  write(
    'acl.insert',
    { calendarId: String(team.id) },
    { role: 'reader', scope: { type: 'user', value: other } },
  );
  // Lists fill the pool with list entries, settings, instances and page and sync tokens.
  write('calendarList.list', {});
  write('settings.list', {});
  write('events.list', { calendarId: String(team.id) });
  write('acl.list', { calendarId: String(team.id) });
  write('events.instances', { calendarId: String(team.id), eventId: String(weekly.id) });
}
