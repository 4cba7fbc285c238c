/**
 * Discovery-shaped documents built from the reference facts (test/fixtures/<stem>.facts.json),
 * so the drift tests never need Google's own document or the network. The facts came from the
 * public OpenAPI conversion of each Discovery document; this turns them back into the shape
 * Google publishes: methods grouped under resources, ids with the API's prefix, paths relative
 * to the service path, repeated parameters instead of arrays, defaults and bounds as strings.
 *
 * What the conversion dropped cannot come back, and the documents built here lack it: the
 * parameters' formats, the `annotations.required` that name the methods needing a body field,
 * `readOnly` and `deprecated` markers, and the system parameters (`fields`, `prettyPrint`, ...).
 * docs/decisions/0058-drift-against-discovery.md says how drift-allowed.json deals with that.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

type Json = Record<string, unknown>;

export interface FactsSchema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
  $ref?: string;
  properties?: Record<string, FactsSchema>;
  items?: FactsSchema;
  additionalProperties?: FactsSchema | boolean;
}

export interface FactsParameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: FactsSchema;
}

export interface FactsOperation {
  operation: string;
  method: string;
  path: string;
  parameters: FactsParameter[];
  requestBody?: { $ref: string } | null;
  response?: { status: string; schema: { $ref: string } | null };
  scopes?: string[];
}

export interface Facts {
  servers: string[];
  scopes: string[];
  operations: FactsOperation[];
  schemas: Record<string, FactsSchema>;
}

/** The stems of the facts files and the Discovery name and version of each API. */
export const FACTS = {
  calendar: { stem: 'calendar-v3', name: 'calendar', version: 'v3' },
  searchads360: { stem: 'searchads360-v2', name: 'doubleclicksearch', version: 'v2' },
} as const;

export type FactsApi = keyof typeof FACTS;

export const fixturesDir = path.resolve(import.meta.dirname, '..', 'fixtures');

export function readFacts(api: FactsApi): Facts {
  return JSON.parse(readFileSync(path.join(fixturesDir, `${FACTS[api].stem}.facts.json`), 'utf8')) as Facts;
}

const refName = (ref: string) => ref.split('/').pop() ?? ref;

/** Discovery writes bounds and defaults as strings. */
const asString = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function schemaOf(node: FactsSchema): Json {
  if (node.$ref) return { $ref: refName(node.$ref) };
  const out: Json = {};
  if (node.type !== undefined) out.type = node.type;
  if (node.format !== undefined) out.format = node.format;
  if (node.enum !== undefined) out.enum = node.enum.map(asString);
  if (node.default !== undefined) out.default = asString(node.default);
  if (node.minimum !== undefined) out.minimum = asString(node.minimum);
  if (node.maximum !== undefined) out.maximum = asString(node.maximum);
  if (node.properties)
    out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, schemaOf(v)]));
  if (node.items) out.items = schemaOf(node.items);
  if (node.additionalProperties && typeof node.additionalProperties === 'object')
    out.additionalProperties = schemaOf(node.additionalProperties);
  return out;
}

function parameterOf(parameter: FactsParameter): Json {
  const schema = parameter.schema ?? {};
  const repeated = schema.type === 'array';
  const value = schemaOf(repeated ? (schema.items ?? {}) : schema);
  return {
    location: parameter.in,
    ...(parameter.required ? { required: true } : {}),
    ...(repeated ? { repeated: true } : {}),
    ...value,
  };
}

/** A Discovery document of one API, made from its facts. */
export function discoveryFromFacts(api: FactsApi, facts: Facts = readFacts(api)): Json {
  const { name, version } = FACTS[api];
  const server = new URL(facts.servers[0] ?? `https://www.googleapis.com/${name}/${version}`);
  const resources: Record<string, { methods: Record<string, Json> }> = {};
  for (const operation of facts.operations) {
    const [resource, method] = operation.operation.split('.') as [string, string];
    resources[resource] ??= { methods: {} };
    const parameters = Object.fromEntries(operation.parameters.map((p) => [p.name, parameterOf(p)]));
    resources[resource].methods[method] = {
      id: `${name}.${operation.operation}`,
      httpMethod: operation.method.toUpperCase(),
      path: operation.path.replace(/^\//, ''),
      parameterOrder: operation.parameters.filter((p) => p.required).map((p) => p.name),
      parameters,
      ...(operation.requestBody ? { request: { $ref: refName(operation.requestBody.$ref) } } : {}),
      ...(operation.response?.schema ? { response: { $ref: refName(operation.response.schema.$ref) } } : {}),
      ...(operation.scopes ? { scopes: operation.scopes } : {}),
    };
  }
  return {
    kind: 'discovery#restDescription',
    discoveryVersion: 'v1',
    id: `${name}:${version}`,
    name,
    version,
    revision: '20000101',
    title: `${name} ${version}, built from the reference facts`,
    protocol: 'rest',
    rootUrl: `${server.origin}/`,
    servicePath: `${server.pathname.replace(/^\//, '').replace(/\/?$/, '/')}`,
    auth: {
      oauth2: {
        scopes: Object.fromEntries(
          facts.scopes.map((scope) => [scope, { description: 'A scope of the facts.' }]),
        ),
      },
    },
    resources,
    schemas: Object.fromEntries(
      Object.entries(facts.schemas).map(([schemaName, schema]) => [
        schemaName,
        { id: schemaName, ...schemaOf(schema) },
      ]),
    ),
  };
}
