/**
 * The common shape both sides of the drift comparison are reduced to: Google's Discovery
 * document (discovery.ts) and our OpenAPI document (openapi.ts). Only what drift.ts compares
 * is kept; descriptions, titles, examples, revisions and etags never get this far.
 */

export type Json = Record<string, unknown>;

/** A schema, a property, an array's items, a map's values or a parameter's value. */
export interface Shape {
  /** The name of a named schema this node points to (`$ref`). */
  ref?: string;
  /** `string`, or the sorted members of a type list joined by `|`. */
  type?: string;
  format?: string;
  /** The allowed values, sorted, each as text. */
  enum?: string[];
  readOnly: boolean;
  deprecated: boolean;
  /** The narrowing keywords (`pattern`, `minimum`, `maxItems`, ...) with their values as text. */
  constraints: Record<string, string>;
  /** Object level: the properties that must be present. */
  required?: string[];
  properties?: Record<string, Shape>;
  items?: Shape;
  additionalProperties?: Shape;
}

export interface Parameter {
  name: string;
  /** `path` or `query`. */
  location: string;
  required: boolean;
  /** Sent several times (Discovery's `repeated`; an OpenAPI array parameter with `explode`). */
  repeated: boolean;
  /** The value, or for a repeated parameter one of its values. */
  value: Shape;
  /** The default as text (Discovery writes every default as a string). */
  default?: string;
  deprecated: boolean;
}

export interface Operation {
  /** Google's method id without the API's prefix: `events.list`. */
  id: string;
  /** Upper case: `GET`. */
  method: string;
  /** From the host's root, with `{name}` placeholders: `/calendar/v3/calendars/{calendarId}/events`. */
  path: string;
  /** Path and query parameters by name. */
  parameters: Map<string, Parameter>;
  /** The body's schema name; a media type in brackets for a body that is not JSON. */
  request?: string;
  response?: string;
  /** Top-level body fields the operation needs beyond its schema, sorted. */
  requestRequired: string[];
  /** Body properties the operation narrows beyond its schema (ours only). */
  requestProperties: Record<string, Shape>;
  scopes: string[];
  deprecated: boolean;
}

export interface ApiModel {
  /** Every OAuth scope the document names. */
  scopes: string[];
  /** Parameters every method takes (Google's system parameters, such as `fields`). */
  parameters: Map<string, Parameter>;
  operations: Map<string, Operation>;
  schemas: Map<string, Shape>;
}

/** Keywords that narrow what a value may be; the spec adds each only with a recorded reason (0039). */
export const NARROWING = [
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'not',
] as const;

/** Formats that only say how a number travels (decision 0001); they narrow nothing. */
export const ENCODING_FORMATS = new Set(['int32', 'int64', 'uint32', 'uint64', 'double', 'float']);

/** Google's system parameters: every method takes them, and Discovery lists them once, at the top. */
export const SYSTEM_PARAMETERS = new Set([
  '$.xgafv',
  'access_token',
  'alt',
  'callback',
  'fields',
  'key',
  'oauth_token',
  'prettyPrint',
  'quotaUser',
  'uploadType',
  'upload_protocol',
  'userIp',
]);

export const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A JSON value as the text both sides compare: strings as they are, the rest as JSON. */
export const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

export function typeKey(type: unknown): string | undefined {
  if (Array.isArray(type)) return type.map(String).sort().join('|');
  return type === undefined ? undefined : String(type);
}

export function enumKey(values: unknown): string[] | undefined {
  return Array.isArray(values) ? values.map(asText).sort() : undefined;
}

/** `{+name}` (a reserved expansion in Discovery) as `{name}`, one slash at the start, none doubled. */
export function normalisePath(path: string): string {
  return `/${path}`.replace(/\{\+/g, '{').replace(/\/{2,}/g, '/');
}

export function emptyShape(): Shape {
  return { readOnly: false, deprecated: false, constraints: {} };
}
