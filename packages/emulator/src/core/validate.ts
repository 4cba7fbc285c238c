/**
 * Request validation against the spec: every parameter and the body are checked with Ajv
 * against the operation's own schemas, and refusals are Google's 400 with the parameter (or
 * body field) at fault as `location`. Query values arrive as text; they are converted to the
 * type their schema asks for first, so `maxResults=abc` is refused as invalid, not as a string.
 */

import {
  DATE_TIME_NEEDS_OFFSET,
  describeJsonError,
  isJsonContentType,
  jsonNestingRefusal,
  unsupportedMediaType,
} from '@gspec/server-kit';
import type { ErrorObject } from 'ajv';
import { ApiError, fromRefusal, type GoogleErrorItem, PARSE_ERROR, refusal } from './errors.js';
import type { SchemaTools } from './schemas.js';
import { isObject, type Json, type JsonObject, type OperationSpec } from './spec.js';

export interface RawRequest {
  pathParams: Record<string, string>;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  /** The body text, undefined when there was none. */
  body: string | undefined;
  contentType: string | undefined;
}

export interface ValidRequest {
  path: Record<string, string>;
  query: Record<string, Json>;
  headers: Record<string, string>;
  body: JsonObject | undefined;
  /**
   * For a batch operation (`batchList` given): the schema problems of single rows, by row index.
   * Such a row is refused alone; the others are still handled (decision 0035).
   */
  rowProblems?: Map<number, GoogleErrorItem[]>;
}

/** Options of validateRequest. */
export interface ValidateOptions {
  /**
   * The body's array of rows when the operation is a best-effort batch (`conversion`,
   * `availabilities`): schema problems inside one row are kept for the handler instead of
   * refusing the whole request.
   */
  batchList?: string;
}

function schemaType(schema: JsonObject): string | undefined {
  return typeof schema.type === 'string' ? schema.type : undefined;
}

function convert(text: string, schema: JsonObject): Json {
  switch (schemaType(schema)) {
    case 'integer':
    case 'number':
      return /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    default:
      return text;
  }
}

function describe(error: ErrorObject): string {
  // A null where the schema takes none: say so, rather than "must be string".
  if (error.data === null && error.keyword === 'type')
    return 'null is not accepted here: null clears a field only in a patch, and only a field that may be absent';
  // EventDateTime: without timeZone, dateTime must carry its offset (decision 0036).
  if (
    error.keyword === 'format' &&
    (error.params as { format?: string }).format === 'date-time' &&
    error.instancePath.endsWith('/dateTime') &&
    error.schemaPath.includes('/else/')
  )
    return DATE_TIME_NEEDS_OFFSET;
  // EventDateTime.dateTime's pattern: say what it stands for instead of printing it.
  if (error.keyword === 'pattern' && error.instancePath.endsWith('/dateTime'))
    return 'must be an RFC 3339 date-time such as 2027-03-01T10:00:00+01:00 (the offset may be left out when timeZone names the zone)';
  if (error.keyword === 'enum')
    return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  if (error.keyword === 'not') {
    const refused = (error.schema as { const?: unknown } | undefined)?.const;
    return refused !== undefined
      ? `${JSON.stringify(refused)} is not accepted here`
      : 'this value is not accepted here';
  }
  return error.message ?? 'invalid';
}

/** `/start/dateTime` and a missing `end` become `start.dateTime` and `end`. */
function fieldOf(error: ErrorObject): string {
  const parts = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') parts.push((error.params as { missingProperty: string }).missingProperty);
  return parts.reduce(
    (out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part),
    '',
  );
}

/**
 * Ajv reports both an allOf branch and the failure inside it; keep the informative ones. A
 * null is reported once, by its type error (not also as outside an enum or a const), and a
 * value that is not a date-time at all by its pattern (not also as missing its offset).
 */
function meaningful(errors: ErrorObject[]): ErrorObject[] {
  const at = (keyword: string) =>
    new Set(
      errors
        .filter((e) => e.keyword === keyword && (keyword !== 'type' || e.data === null))
        .map((e) => e.instancePath),
    );
  const nulls = at('type');
  const patterns = at('pattern');
  const useful = errors.filter(
    (e) =>
      !['allOf', 'anyOf', 'oneOf', 'if'].includes(e.keyword) &&
      !(nulls.has(e.instancePath) && e.keyword !== 'type') &&
      !(patterns.has(e.instancePath) && e.keyword === 'format'),
  );
  const unique = useful.filter(
    (e, i) =>
      !(
        e.keyword === 'type' &&
        useful.findIndex((o) => o.instancePath === e.instancePath && o.keyword === 'type') < i
      ),
  );
  return unique.length > 0 ? unique : errors;
}

/**
 * The row index of each error when every one lies inside a row of the body's array `list`
 * (`/conversion/3/type`); undefined when one concerns the request as a whole.
 */
function rowsOf(errors: ErrorObject[], list: string): number[] | undefined {
  const inRow = new RegExp(`^/${list}/(\\d+)(/|$)`);
  const rows: number[] = [];
  for (const error of errors) {
    const match = inRow.exec(error.instancePath);
    if (!match) return undefined;
    rows.push(Number(match[1]));
  }
  return rows;
}

/** A parameter, header or body field the operation requires is missing. */
export const REQUIRED = refusal({
  id: 'any.required',
  scope: 'every API',
  operations: [],
  status: 400,
  reason: 'required',
  location: 'the parameter, header or body field',
  when: 'a parameter the facts mark required, or a field the spec’s body schema requires, is missing (or the body itself)',
  evidence: [
    'fact:conventions:guides/errors/badRequestWhen/requiredFieldOrParameterMissing',
    'fact:conventions:errors/reasons/required',
    'decision:0039',
  ],
});

/** A value its schema does not take. */
export const INVALID = refusal({
  id: 'any.invalid',
  scope: 'every API',
  operations: [],
  status: 400,
  reason: 'invalid',
  location: 'the parameter, header or body field',
  when: 'a value outside its schema: type, enum, format, bounds (every constraint the spec adds is recorded with the live service’s reason)',
  evidence: [
    'fact:conventions:guides/errors/badRequestWhen/invalidValue',
    'fact:conventions:errors/reasons/invalid',
    'decision:0039',
  ],
});

function refuse(items: GoogleErrorItem[]): never {
  throw new ApiError(
    items[0]?.reason === 'required' ? REQUIRED : INVALID,
    items,
    items.length === 1 ? items[0]?.message : `${items.length} problems with the request; see errors`,
  );
}

/** A parameter's value as the request carries it: converted from the query's text, an array for an array schema. */
function parameterValue(parameter: OperationSpec['parameters'][number], raw: RawRequest): Json | undefined {
  if (parameter.in === 'path') return raw.pathParams[parameter.name];
  if (parameter.in === 'header') {
    const header = raw.headers[parameter.name.toLowerCase()];
    return Array.isArray(header) ? header.join(', ') : header;
  }
  const all = raw.query.getAll(parameter.name);
  if (all.length === 0) return undefined;
  if (schemaType(parameter.schema) === 'array') {
    const items = isObject(parameter.schema.items) ? parameter.schema.items : {};
    return all.map((text) => convert(text, items));
  }
  return convert(all[all.length - 1] as string, parameter.schema);
}

/** The path, query and header parameters into `out`; every problem with them refused at once. */
function validateParameters(op: OperationSpec, raw: RawRequest, tools: SchemaTools, out: ValidRequest): void {
  const problems: GoogleErrorItem[] = [];
  for (const parameter of op.parameters) {
    const locationType = parameter.in === 'header' ? 'header' : 'parameter';
    const value = parameterValue(parameter, raw);
    if (value === undefined) {
      if (parameter.required)
        problems.push({
          domain: 'global',
          reason: 'required',
          message: `Required ${locationType === 'header' ? 'header' : 'parameter'}: ${parameter.name}`,
          location: parameter.name,
          locationType,
        });
      continue;
    }
    const validate = tools.validator(parameter.schemaPointer);
    if (!validate(value)) {
      const first = meaningful(validate.errors ?? [])[0];
      problems.push({
        domain: 'global',
        reason: 'invalid',
        message: `Invalid value for ${locationType} ${parameter.name}: ${first ? describe(first) : 'invalid'}`,
        location: parameter.name,
        locationType,
      });
      continue;
    }
    if (parameter.in === 'path') out.path[parameter.name] = value as string;
    else if (parameter.in === 'header') out.headers[parameter.name] = value as string;
    else out.query[parameter.name] = value;
  }
  if (problems.length > 0) refuse(problems);
}

/** The body's text as JSON: a media type that is not JSON, too deep a nesting or bad JSON refused. */
function parseBody(raw: RawRequest, text: string): unknown {
  if (raw.contentType && !isJsonContentType(raw.contentType))
    throw fromRefusal(unsupportedMediaType(raw.contentType));
  const tooDeep = jsonNestingRefusal(text);
  if (tooDeep) throw fromRefusal(tooDeep);
  try {
    return JSON.parse(text);
  } catch (error) {
    // Not the parser's own message: it quotes the body, which may hold a credential.
    const message = `The request body is not valid JSON: ${describeJsonError(error)}`;
    throw new ApiError(PARSE_ERROR, [PARSE_ERROR.item(message)], message);
  }
}

/**
 * The body into `out`, checked against its schema. The problems of a batch list's rows
 * (`options.batchList`) go to `out.rowProblems` by row; any other problem is refused.
 */
function validateBody(
  spec: NonNullable<OperationSpec['body']>,
  raw: RawRequest,
  tools: SchemaTools,
  options: ValidateOptions,
  out: ValidRequest,
): void {
  if (raw.body === undefined || raw.body.trim() === '') {
    if (spec.required)
      refuse([
        {
          domain: 'global',
          reason: 'required',
          message: 'Required: a request body',
          location: 'body',
          locationType: 'parameter',
        },
      ]);
    return;
  }
  const body = parseBody(raw, raw.body);
  // A read-only field is the service's to set, and ignored in a request like every
  // read-only value; null there asks nothing more, so it is dropped before the schema sees it.
  if (isObject(body)) {
    for (const name of Object.keys(body))
      if (body[name] === null && tools.isReadOnly(spec.schemaPointer, name)) delete body[name];
  }
  const validate = tools.validator(spec.schemaPointer);
  if (!validate(body)) {
    const errors = meaningful(validate.errors ?? []);
    const items = errors.map((error): GoogleErrorItem => {
      const field = fieldOf(error);
      const required = error.keyword === 'required';
      return {
        domain: 'global',
        reason: required ? 'required' : 'invalid',
        message: required
          ? `Required field: ${field}`
          : `Invalid value for field ${field || 'body'}: ${describe(error)}`,
        location: field || 'body',
        locationType: 'parameter',
      };
    });
    const rows = options.batchList ? rowsOf(errors, options.batchList) : undefined;
    if (!rows) refuse(items);
    out.rowProblems = new Map();
    items.forEach((item, k) => {
      const row = rows[k] as number;
      out.rowProblems?.set(row, [...(out.rowProblems.get(row) ?? []), item]);
    });
  }
  out.body = isObject(body) ? body : undefined;
}

export function validateRequest(
  op: OperationSpec,
  raw: RawRequest,
  tools: SchemaTools,
  options: ValidateOptions = {},
): ValidRequest {
  const out: ValidRequest = { path: {}, query: {}, headers: {}, body: undefined };
  validateParameters(op, raw, tools, out);
  if (op.body) validateBody(op.body, raw, tools, options, out);
  return out;
}
