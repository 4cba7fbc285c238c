/**
 * A spec as the emulator reads it: a bundled document (specs/dist/calendar.json,
 * specs/dist/searchads360.json) turned into a table of operations with everything behaviour is driven by (parameters, body,
 * success status, x-quota-cost, x-pagination, x-sync, x-event-types, x-deprecated-behavior).
 * Nothing here is written per operation; a new operation in the spec shows up by itself.
 */

import { createRequire } from 'node:module';
import { readJsonFile } from './files.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export interface ParameterSpec {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  /** JSON pointer (with leading `#`) of the parameter's schema inside the document. */
  schemaPointer: string;
  schema: JsonObject;
}

export interface DeprecatedBehavior {
  name: string;
  description: string;
  instead: string;
}

export interface OperationSpec {
  id: string;
  method: string;
  /** The path under the base path, such as `/calendars/{calendarId}/events`. */
  path: string;
  parameters: ParameterSpec[];
  body?: { required: boolean; schemaPointer: string };
  /** The first documented 2xx status. */
  successStatus: number;
  quotaCost: number;
  pagination?: {
    pageTokenParameter: string;
    nextPageTokenField: string;
    itemsField: string;
    /** The most items the service serves on one page, whatever maxResults asks. */
    maxPageSize?: number;
  };
  sync?: { syncTokenParameter: string; nextSyncTokenField: string; incompatibleParameters: string[] };
  /** The OAuth scopes of the operation's security requirement; any one of them allows it. */
  scopes: string[];
  /** Marked `deprecated: true` in the spec. */
  deprecated: boolean;
  /** x-event-types: the event types the operation takes; undefined means all. */
  eventTypes?: string[];
  deprecatedBehaviors: DeprecatedBehavior[];
  /** The operation's `responses` object, for the response checks of the tests. */
  responses: JsonObject;
  /** Where the operation lives in the document, for messages. */
  where: string;
}

export interface ApiSpec {
  document: JsonObject;
  /** The live base path, from `servers[0].url`: `/calendar/v3`, `/doubleclicksearch/v2`. */
  basePath: string;
  operations: OperationSpec[];
  byId: Map<string, OperationSpec>;
}

/**
 * An API by the name of its bundled spec in @gspec/specs (`calendar`, `searchads360`); the
 * registry (src/apis/index.ts) says which are served.
 */
export type ApiName = string;

export class SpecError extends Error {
  override name = 'SpecError';
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** `/a/b~c` in JSON-pointer spelling: `~` and `/` escaped. */
export const pointerToken = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Follows a local `$ref` (`#/components/...`) to its target. */
export function follow(document: JsonObject, ref: string, where: string): Json {
  if (!ref.startsWith('#/')) throw new SpecError(`${where}: only local $refs are supported, found ${ref}`);
  let node: Json = document;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !(key in node)) throw new SpecError(`${where}: $ref ${ref} does not resolve`);
    node = node[key] as Json;
  }
  return node;
}

function readParameter(document: JsonObject, raw: Json, pointer: string, where: string): ParameterSpec {
  let node = raw;
  let at = pointer;
  if (isObject(node) && typeof node.$ref === 'string') {
    at = node.$ref;
    node = follow(document, node.$ref, where);
  }
  if (!isObject(node) || typeof node.name !== 'string' || !isObject(node.schema))
    throw new SpecError(`${where}: a parameter needs a name and a schema`);
  const location = node.in;
  if (location !== 'query' && location !== 'path' && location !== 'header')
    throw new SpecError(`${where}: parameter ${node.name} is in ${String(location)}, which is not supported`);
  return {
    name: node.name,
    in: location,
    required: node.required === true,
    schemaPointer: `${at}/schema`,
    schema: node.schema,
  };
}

function readOperation(
  document: JsonObject,
  path: string,
  method: string,
  operation: JsonObject,
  pathParameters: Json[],
): OperationSpec {
  const base = `#/paths/${pointerToken(path)}`;
  const where = `paths["${path}"].${method}`;
  if (typeof operation.operationId !== 'string') throw new SpecError(`${where}: no operationId`);
  const own = Array.isArray(operation.parameters) ? operation.parameters : [];
  const parameters = new Map<string, ParameterSpec>();
  pathParameters.forEach((raw, i) => {
    const p = readParameter(document, raw, `${base}/parameters/${i}`, where);
    parameters.set(`${p.in}:${p.name}`, p);
  });
  // An operation's own parameter overrides the path-level one of the same name and place
  // (calendars.delete narrows calendarId with `not: {const: primary}`).
  own.forEach((raw, i) => {
    const p = readParameter(document, raw, `${base}/${method}/parameters/${i}`, where);
    parameters.set(`${p.in}:${p.name}`, p);
  });
  let body: OperationSpec['body'];
  let requestBody = operation.requestBody;
  let bodyPointer = `${base}/${method}/requestBody`;
  if (isObject(requestBody) && typeof requestBody.$ref === 'string') {
    bodyPointer = requestBody.$ref;
    requestBody = follow(document, requestBody.$ref, where);
  }
  if (isObject(requestBody)) {
    const content = requestBody.content;
    if (!isObject(content) || !isObject(content['application/json']))
      throw new SpecError(`${where}.requestBody: only application/json bodies are supported`);
    body = {
      required: requestBody.required === true,
      schemaPointer: `${bodyPointer}/content/application~1json/schema`,
    };
  }
  if (!isObject(operation.responses)) throw new SpecError(`${where}.responses: expected an object`);
  const success = Object.keys(operation.responses).find((code) => /^2\d\d$/.test(code));
  if (!success) throw new SpecError(`${where}.responses: no 2xx answer`);
  const cost = operation['x-quota-cost'];
  if (typeof cost !== 'number' || !Number.isInteger(cost) || cost < 0)
    throw new SpecError(`${where}.x-quota-cost: expected a whole number, found ${JSON.stringify(cost)}`);
  const security = Array.isArray(operation.security) ? operation.security : document.security;
  const scopes = new Set<string>();
  for (const requirement of Array.isArray(security) ? security : [])
    if (isObject(requirement))
      for (const list of Object.values(requirement))
        if (Array.isArray(list)) for (const scope of list) if (typeof scope === 'string') scopes.add(scope);
  const spec: OperationSpec = {
    id: operation.operationId,
    method: method.toUpperCase(),
    path,
    parameters: [...parameters.values()],
    successStatus: Number(success),
    quotaCost: cost,
    scopes: [...scopes],
    deprecated: operation.deprecated === true,
    deprecatedBehaviors: (Array.isArray(operation['x-deprecated-behavior'])
      ? operation['x-deprecated-behavior']
      : []) as unknown as DeprecatedBehavior[],
    responses: operation.responses,
    where,
  };
  if (body) spec.body = body;
  if (isObject(operation['x-pagination'])) {
    const cap = operation['x-pagination'].maxPageSize;
    if (cap !== undefined && !(Number.isInteger(cap) && (cap as number) > 0)) {
      throw new SpecError(
        `${where}.x-pagination.maxPageSize: expected a whole number above 0, found ${JSON.stringify(cap)}`,
      );
    }
    spec.pagination = operation['x-pagination'] as unknown as NonNullable<OperationSpec['pagination']>;
  }
  if (isObject(operation['x-sync']))
    spec.sync = operation['x-sync'] as unknown as NonNullable<OperationSpec['sync']>;
  if (Array.isArray(operation['x-event-types'])) spec.eventTypes = operation['x-event-types'] as string[];
  return spec;
}

/** Builds the operation table of a parsed document; a SpecError names the place at fault. */
export function readApiSpec(document: unknown, source = 'openapi.json'): ApiSpec {
  try {
    if (!isObject(document) || !isObject(document.paths))
      throw new SpecError('expected an OpenAPI document with paths');
    const server = Array.isArray(document.servers) ? document.servers[0] : undefined;
    if (!isObject(server) || typeof server.url !== 'string') throw new SpecError('servers[0].url is missing');
    const basePath = new URL(server.url).pathname.replace(/\/+$/, '');
    const operations: OperationSpec[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      if (!isObject(item)) throw new SpecError(`paths["${path}"]: expected a path item`);
      const pathParameters = Array.isArray(item.parameters) ? item.parameters : [];
      for (const method of METHODS) {
        const operation = item[method];
        // A batch endpoint (`x-batch`) is no operation of the API but the transport of the
        // others; the server serves it itself (core/batch), so no module handles it.
        if (isObject(operation) && operation['x-batch'] === undefined)
          operations.push(readOperation(document, path, method, operation, pathParameters));
      }
    }
    return { document, basePath, operations, byId: new Map(operations.map((op) => [op.id, op])) };
  } catch (error) {
    if (error instanceof SpecError) throw new SpecError(`${source}: ${error.message}`);
    throw error;
  }
}

/** A bundled spec of @gspec/specs (built by `npm run build`), or the document in `file`. */
export function loadApiSpec(name: ApiName, file?: string): ApiSpec {
  let path = file;
  if (!path) {
    try {
      path = createRequire(import.meta.url).resolve(`@gspec/specs/${name}.json`);
    } catch {
      throw new SpecError(
        `the ${name} spec of @gspec/specs was not found: install @gspec/specs next to @gspec/emulator (in the gspec repository, \`npm run build\` makes it)`,
      );
    }
  }
  return readApiSpec(
    readJsonFile(path, (message) => new SpecError(message)),
    path,
  );
}
