/**
 * Google's Discovery documents (`https://www.googleapis.com/discovery/v1/apis/<api>/<version>/rest`):
 * reading one from a file or a URL, checking that it is one, and reducing it to the model
 * drift.ts compares (model.ts). Every mistake in the input becomes an InputError whose message
 * says what is wrong and where.
 */
import { readFileSync } from 'node:fs';
import {
  type ApiModel,
  asText,
  emptyShape,
  enumKey,
  isObject,
  type Json,
  NARROWING,
  normalisePath,
  type Operation,
  type Parameter,
  type Shape,
  typeKey,
} from './model.js';

/** Bad input (a file, a URL, a document): the message is one line, ready to print. */
export class InputError extends Error {
  override name = 'InputError';
}

export interface DiscoveryDocument extends Json {
  kind?: string;
  discoveryVersion?: string;
  name: string;
  version: string;
  revision?: string;
  rootUrl?: string;
  servicePath?: string;
  auth?: { oauth2?: { scopes?: Record<string, unknown> } };
  parameters?: Record<string, Json>;
  resources?: Record<string, Json>;
  methods?: Record<string, Json>;
  schemas?: Record<string, Json>;
}

export interface ReadOptions {
  /** The fetch to use for a URL (tests pass their own). Default: the global fetch. */
  fetch?: typeof fetch;
  /** How long to wait for a URL's answer, in milliseconds. Default 30 s. */
  timeoutMs?: number;
}

const isUrl = (source: string) => /^https?:\/\//i.test(source);

/** The text of a file or of a URL's answer. */
export async function readSource(source: string, options: ReadOptions = {}): Promise<string> {
  if (!isUrl(source)) {
    try {
      return readFileSync(source, 'utf8');
    } catch (error) {
      const code = (error as { code?: string }).code;
      const why =
        code === 'ENOENT'
          ? 'no such file'
          : code === 'EISDIR'
            ? 'a folder, not a file'
            : code === 'EACCES'
              ? 'not allowed to read it'
              : (error as Error).message;
      throw new InputError(`cannot read ${source}: ${why}`);
    }
  }
  const timeoutMs = options.timeoutMs ?? 30_000;
  const get = options.fetch ?? globalThis.fetch;
  let answer: Response;
  try {
    answer = await get(source, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json' },
    });
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError')
      throw new InputError(`no answer from ${source} within ${timeoutMs / 1000} s`);
    const cause = (error as { cause?: { message?: string; code?: string } }).cause;
    throw new InputError(
      `cannot fetch ${source}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
    );
  }
  if (!answer.ok) throw new InputError(`${source} answered ${answer.status} ${answer.statusText}`.trim());
  try {
    return await answer.text();
  } catch (error) {
    throw new InputError(`cannot read the answer of ${source}: ${(error as Error).message}`);
  }
}

/** Parses and checks a Discovery document; `where` names it in messages. */
export function parseDiscovery(text: string, where: string): DiscoveryDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${where} is not JSON: ${(error as Error).message}`);
  }
  checkDiscovery(value, where);
  return value;
}

/** Reads a Discovery document from a file or an http(s) URL. */
export async function readDiscovery(source: string, options: ReadOptions = {}): Promise<DiscoveryDocument> {
  return parseDiscovery(await readSource(source, options), source);
}

// ---------------------------------------------------------------------------------------
// Checking the shape

const PARAMETER_LOCATIONS = new Set(['path', 'query']);

/** Throws an InputError naming the first place where `value` is not a Discovery document. */
export function checkDiscovery(value: unknown, where: string): asserts value is DiscoveryDocument {
  const fail = (at: string, what: string): never => {
    throw new InputError(`${where} is not a Discovery document: ${at ? `${at} ` : ''}${what}`);
  };
  if (!isObject(value)) fail('', `is ${Array.isArray(value) ? 'an array' : typeof value}, not an object`);
  const doc = value as Json;
  if (doc.kind !== 'discovery#restDescription' && doc.discoveryVersion !== 'v1')
    fail('', 'has neither "kind": "discovery#restDescription" nor "discoveryVersion": "v1"');
  for (const key of ['name', 'version'])
    if (typeof doc[key] !== 'string' || doc[key] === '') fail(`/${key}`, 'is missing or not a string');
  for (const key of ['resources', 'methods', 'schemas', 'parameters'])
    if (doc[key] !== undefined && !isObject(doc[key])) fail(`/${key}`, 'is not an object');
  if (doc.resources === undefined && doc.methods === undefined) fail('', 'has no resources and no methods');
  const scopes = (doc.auth as Json | undefined)?.oauth2 as Json | undefined;
  if (scopes?.scopes !== undefined && !isObject(scopes.scopes))
    fail('/auth/oauth2/scopes', 'is not an object');
  const checkParameters = (parameters: unknown, at: string) => {
    if (parameters === undefined) return;
    if (!isObject(parameters)) fail(at, 'is not an object');
    for (const [name, parameter] of Object.entries(parameters as Json)) {
      if (!isObject(parameter)) fail(`${at}/${name}`, 'is not an object');
      const location = (parameter as Json).location;
      if (typeof location !== 'string' || !PARAMETER_LOCATIONS.has(location))
        fail(`${at}/${name}/location`, `is ${JSON.stringify(location)}, not "path" or "query"`);
    }
  };
  checkParameters(doc.parameters, '/parameters');
  const checkMethods = (methods: unknown, at: string) => {
    if (methods === undefined) return;
    if (!isObject(methods)) fail(at, 'is not an object');
    for (const [name, method] of Object.entries(methods as Json)) {
      const here = `${at}/${name}`;
      if (!isObject(method)) fail(here, 'is not an object');
      const m = method as Json;
      for (const key of ['id', 'httpMethod', 'path'])
        if (typeof m[key] !== 'string' || m[key] === '') fail(`${here}/${key}`, 'is missing or not a string');
      for (const key of ['request', 'response'])
        if (m[key] !== undefined && !(isObject(m[key]) && typeof (m[key] as Json).$ref === 'string'))
          fail(`${here}/${key}`, 'has no $ref');
      if (
        m.scopes !== undefined &&
        !(Array.isArray(m.scopes) && m.scopes.every((s) => typeof s === 'string'))
      )
        fail(`${here}/scopes`, 'is not a list of strings');
      checkParameters(m.parameters, `${here}/parameters`);
    }
  };
  const checkResources = (resources: unknown, at: string) => {
    if (resources === undefined) return;
    if (!isObject(resources)) fail(at, 'is not an object');
    for (const [name, resource] of Object.entries(resources as Json)) {
      if (!isObject(resource)) fail(`${at}/${name}`, 'is not an object');
      checkMethods((resource as Json).methods, `${at}/${name}/methods`);
      checkResources((resource as Json).resources, `${at}/${name}/resources`);
    }
  };
  checkMethods(doc.methods, '/methods');
  checkResources(doc.resources, '/resources');
  for (const [name, schema] of Object.entries((doc.schemas ?? {}) as Json))
    if (!isObject(schema)) fail(`/schemas/${name}`, 'is not an object');
}

// ---------------------------------------------------------------------------------------
// The model

/** A Discovery schema (or property, items, map values) as a Shape. */
export function discoveryShape(node: Json): Shape {
  const shape = emptyShape();
  if (typeof node.$ref === 'string') shape.ref = node.$ref;
  const type = typeKey(node.type);
  if (type !== undefined) shape.type = type;
  if (typeof node.format === 'string') shape.format = node.format;
  const values = enumKey(node.enum);
  if (values) shape.enum = values;
  shape.readOnly = node.readOnly === true;
  shape.deprecated = node.deprecated === true;
  for (const keyword of NARROWING)
    if (node[keyword] !== undefined) shape.constraints[keyword] = asText(node[keyword]);
  if (isObject(node.properties))
    shape.properties = Object.fromEntries(
      Object.entries(node.properties).map(([name, child]) => [name, discoveryShape(child as Json)]),
    );
  if (isObject(node.items)) shape.items = discoveryShape(node.items);
  if (isObject(node.additionalProperties))
    shape.additionalProperties = discoveryShape(node.additionalProperties);
  return shape;
}

function discoveryParameter(name: string, node: Json): Parameter {
  const value = discoveryShape(node);
  value.deprecated = false; // the parameter's own marker, below
  return {
    name,
    location: String(node.location),
    required: node.required === true,
    repeated: node.repeated === true,
    value,
    ...(node.default !== undefined ? { default: asText(node.default) } : {}),
    deprecated: node.deprecated === true,
  };
}

/** Every method of the document, nested resources included, in document order. */
function allMethods(doc: DiscoveryDocument): Json[] {
  const out: Json[] = [];
  const visit = (container: Json) => {
    for (const method of Object.values((container.methods ?? {}) as Json)) out.push(method as Json);
    for (const resource of Object.values((container.resources ?? {}) as Json)) visit(resource as Json);
  };
  visit(doc);
  return out;
}

/** Where the methods' paths start: `servicePath` from the host's root (`calendar/v3/`, or nothing). */
function servicePathOf(doc: DiscoveryDocument): string {
  return typeof doc.servicePath === 'string' ? doc.servicePath : '';
}

export function discoveryModel(doc: DiscoveryDocument): ApiModel {
  const prefix = `${doc.name}.`;
  const schemas = new Map(
    Object.entries(doc.schemas ?? {}).map(([name, schema]) => [name, discoveryShape(schema)] as const),
  );
  const operations = new Map<string, Operation>();
  for (const method of allMethods(doc)) {
    const fullId = String(method.id);
    const id = fullId.startsWith(prefix) ? fullId.slice(prefix.length) : fullId;
    const request = (method.request as Json | undefined)?.$ref as string | undefined;
    const response = (method.response as Json | undefined)?.$ref as string | undefined;
    // Discovery says which body fields a method needs on the fields themselves.
    const requestSchema = request ? doc.schemas?.[request] : undefined;
    const requestRequired = Object.entries((requestSchema?.properties ?? {}) as Json)
      .filter(([, property]) => {
        const methods = ((property as Json).annotations as Json | undefined)?.required;
        return Array.isArray(methods) && methods.includes(fullId);
      })
      .map(([name]) => name)
      .sort();
    operations.set(id, {
      id,
      method: String(method.httpMethod).toUpperCase(),
      path: normalisePath(`${servicePathOf(doc)}/${String(method.path)}`),
      parameters: new Map(
        Object.entries((method.parameters ?? {}) as Json).map(([name, p]) => [
          name,
          discoveryParameter(name, p as Json),
        ]),
      ),
      ...(request ? { request } : {}),
      ...(response ? { response } : {}),
      requestRequired,
      requestProperties: {},
      scopes: Array.isArray(method.scopes) ? [...(method.scopes as string[])].sort() : [],
      deprecated: method.deprecated === true,
    });
  }
  return {
    scopes: Object.keys(doc.auth?.oauth2?.scopes ?? {}).sort(),
    parameters: new Map(
      Object.entries(doc.parameters ?? {}).map(([name, p]) => [name, discoveryParameter(name, p)]),
    ),
    operations,
    schemas,
  };
}
