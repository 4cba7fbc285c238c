/**
 * Our bundled OpenAPI 3.1 document (dist/<id>.json) reduced to the model drift.ts compares
 * (model.ts): operations by operationId, their path and query parameters, the schema names
 * of their JSON bodies, their OAuth scopes, and every named schema.
 */
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

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const SCHEMA_PREFIX = '#/components/schemas/';

/** Follows local `$ref`s (`#/components/...`) to what they point to. */
function deref(doc: Json, node: unknown): Json {
  let current = node;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops++) {
    const ref = current.$ref;
    if (!ref.startsWith('#/') || hops > 50) throw new Error(`cannot follow $ref ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((value, key) => (isObject(value) ? value[key] : undefined), doc);
    if (current === undefined) throw new Error(`unresolved $ref ${ref}`);
  }
  return isObject(current) ? current : {};
}

const schemaName = (ref: unknown): string | undefined =>
  typeof ref === 'string' && ref.startsWith(SCHEMA_PREFIX) ? ref.slice(SCHEMA_PREFIX.length) : undefined;

const isNullType = (node: unknown) =>
  isObject(node) && node.type === 'null' && Object.keys(node).length === 1;

/**
 * An OpenAPI schema as a Shape. A `$ref` to a named schema stays a reference; `allOf` members
 * are merged (the one `$ref` among them, if any, becomes the reference); `anyOf`/`oneOf` of a
 * schema and `{type: 'null'}` is that schema. `if`/`then`/`else` are left out: they say when,
 * not what (EventDateTime, decision 0036).
 */
export function openApiShape(node: unknown): Shape {
  const shape = emptyShape();
  if (!isObject(node)) return shape;
  const ref = schemaName(node.$ref);
  if (ref) shape.ref = ref;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = node[key];
    if (Array.isArray(members) && members.length === 2 && members.some(isNullType)) {
      const inner = openApiShape(members.find((m) => !isNullType(m)));
      Object.assign(shape, inner, { readOnly: inner.readOnly, deprecated: inner.deprecated });
    }
  }
  if (Array.isArray(node.allOf)) {
    for (const member of node.allOf) mergeInto(shape, openApiShape(member));
  }
  const type = typeKey(node.type);
  if (type !== undefined) shape.type = type;
  if (typeof node.format === 'string') shape.format = node.format;
  const values = enumKey(node.enum);
  if (values) shape.enum = values;
  if (node.readOnly === true) shape.readOnly = true;
  if (node.deprecated === true) shape.deprecated = true;
  for (const keyword of NARROWING)
    if (node[keyword] !== undefined) shape.constraints[keyword] = asText(node[keyword]);
  if (Array.isArray(node.required) && node.required.length > 0)
    shape.required = [...new Set([...(shape.required ?? []), ...node.required.map(String)])].sort();
  if (isObject(node.properties))
    shape.properties = {
      ...(shape.properties ?? {}),
      ...Object.fromEntries(
        Object.entries(node.properties).map(([name, child]) => [name, openApiShape(child)]),
      ),
    };
  if (isObject(node.items)) shape.items = openApiShape(node.items);
  if (isObject(node.additionalProperties))
    shape.additionalProperties = openApiShape(node.additionalProperties);
  return shape;
}

/** `part` into `shape`: what `shape` does not say yet, and the union of flags, constraints and properties. */
function mergeInto(shape: Shape, part: Shape): void {
  if (part.ref && !shape.ref) shape.ref = part.ref;
  for (const key of ['type', 'format', 'enum', 'items', 'additionalProperties'] as const)
    if (shape[key] === undefined && part[key] !== undefined) Object.assign(shape, { [key]: part[key] });
  shape.readOnly ||= part.readOnly;
  shape.deprecated ||= part.deprecated;
  shape.constraints = { ...part.constraints, ...shape.constraints };
  if (part.required) shape.required = [...new Set([...(shape.required ?? []), ...part.required])].sort();
  if (part.properties) shape.properties = { ...part.properties, ...(shape.properties ?? {}) };
}

/** The path of the server an operation is on, from the host's root (`/calendar/v3`). */
function serverPath(servers: unknown): string {
  const url = Array.isArray(servers) && isObject(servers[0]) ? servers[0].url : undefined;
  if (typeof url !== 'string') return '';
  try {
    return new URL(url).pathname.replace(/\/$/, '');
  } catch {
    return url.replace(/\/$/, '');
  }
}

function openApiParameter(raw: Json): Parameter {
  const schema = isObject(raw.schema) ? raw.schema : {};
  const repeated = schema.type === 'array';
  const value = openApiShape(repeated ? schema.items : schema);
  // An empty path segment names nothing: minLength 1 on a path parameter says no more than that.
  if (raw.in === 'path' && value.constraints.minLength === '1') delete value.constraints.minLength;
  if (repeated) {
    // The array's own bounds belong to the parameter's value list; keep them with the items'.
    for (const keyword of ['minItems', 'maxItems'] as const)
      if (schema[keyword] !== undefined) value.constraints[keyword] = asText(schema[keyword]);
  }
  // A repeated query parameter is `name=a&name=b`: form style, exploded (OpenAPI's default).
  const exploded = raw.explode ?? (raw.style === undefined || raw.style === 'form');
  return {
    name: String(raw.name),
    location: String(raw.in),
    required: raw.required === true,
    repeated: repeated && exploded === true,
    value,
    ...(schema.default !== undefined ? { default: asText(schema.default) } : {}),
    deprecated: raw.deprecated === true,
  };
}

/** The schema name of a JSON body; `(media/type)` for a body of another kind. */
function bodySchema(content: unknown): { name?: string; schema?: Json } {
  if (!isObject(content)) return {};
  const json = content['application/json'];
  if (!isObject(json)) {
    const types = Object.keys(content);
    return types.length > 0 ? { name: `(${types.join(', ')})` } : {};
  }
  const schema = isObject(json.schema) ? json.schema : {};
  const direct = schemaName(schema.$ref);
  if (direct) return { name: direct, schema };
  const refs = Array.isArray(schema.allOf)
    ? schema.allOf.map((member) => (isObject(member) ? schemaName(member.$ref) : undefined)).filter(Boolean)
    : [];
  return { name: refs.length === 1 ? refs[0] : '(inline)', schema };
}

function scopesOf(security: unknown): string[] {
  if (!Array.isArray(security)) return [];
  const scopes = new Set<string>();
  for (const requirement of security)
    if (isObject(requirement))
      for (const list of Object.values(requirement))
        if (Array.isArray(list)) for (const scope of list) scopes.add(String(scope));
  return [...scopes].sort();
}

export function openApiModel(doc: Json): ApiModel {
  const base = serverPath(doc.servers);
  const operations = new Map<string, Operation>();
  for (const [path, rawItem] of Object.entries((doc.paths ?? {}) as Json)) {
    const item = deref(doc, rawItem);
    const itemBase = item.servers ? serverPath(item.servers) : base;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation) || typeof operation.operationId !== 'string') continue;
      const parameters = new Map<string, Parameter>();
      for (const raw of [
        ...((item.parameters as unknown[]) ?? []),
        ...((operation.parameters as unknown[]) ?? []),
      ]) {
        const parameter = deref(doc, raw);
        if (parameter.in !== 'path' && parameter.in !== 'query') continue; // Discovery has neither headers nor cookies
        parameters.set(String(parameter.name), openApiParameter(parameter));
      }
      const body = operation.requestBody ? deref(doc, operation.requestBody) : undefined;
      const request = bodySchema(body?.content);
      // What an operation needs beyond its schema: the allOf members next to its $ref (decision 0011).
      const extra = Array.isArray(request.schema?.allOf)
        ? request.schema.allOf.filter((member) => isObject(member) && member.$ref === undefined)
        : [];
      const extraShape = emptyShape();
      for (const member of extra) mergeInto(extraShape, openApiShape(member));
      const success = Object.entries((operation.responses ?? {}) as Json)
        .filter(([status]) => /^2\d\d$/.test(status))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([, answer]) => bodySchema(deref(doc, answer).content))
        .find((answer) => answer.name !== undefined);
      const security = operation.security ?? doc.security;
      operations.set(operation.operationId, {
        id: operation.operationId,
        method: method.toUpperCase(),
        path: normalisePath(`${itemBase}${path}`),
        parameters,
        ...(request.name ? { request: request.name } : {}),
        ...(success?.name ? { response: success.name } : {}),
        requestRequired: extraShape.required ?? [],
        requestProperties: extraShape.properties ?? {},
        scopes: scopesOf(security),
        deprecated: operation.deprecated === true,
      });
    }
  }
  const components = (doc.components ?? {}) as Json;
  const scopes = new Set<string>();
  for (const scheme of Object.values((components.securitySchemes ?? {}) as Json)) {
    if (!isObject(scheme) || scheme.type !== 'oauth2' || !isObject(scheme.flows)) continue;
    for (const flow of Object.values(scheme.flows))
      if (isObject(flow) && isObject(flow.scopes))
        for (const scope of Object.keys(flow.scopes)) scopes.add(scope);
  }
  return {
    scopes: [...scopes].sort(),
    parameters: new Map(),
    operations,
    schemas: new Map(
      Object.entries((components.schemas ?? {}) as Json).map(([name, schema]) => [
        name,
        openApiShape(schema),
      ]),
    ),
  };
}
