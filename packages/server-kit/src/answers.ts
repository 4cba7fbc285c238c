/**
 * Whether an answer is one the spec documents, checked with Ajv (JSON Schema 2020-12, the dialect
 * of OpenAPI 3.1): its status, its content type, its documented headers and its body. The
 * contract tests hold every answer of the mock, the emulator and the live services to it, and
 * the mock's validating proxy (`gspec-mock --proxy`) every answer it passes on.
 *
 * The body check is STRICT: a property the spec does not declare is a finding. This is done in
 * one place ({@link strictDocument}): every schema in a value position (a media type's schema, a
 * property, array items, additionalProperties) that does not say `additionalProperties` or
 * `unevaluatedProperties` itself gets `unevaluatedProperties: false`. Unlike
 * `additionalProperties: false`, `unevaluatedProperties` sees the properties declared through
 * `$ref`, `allOf`, `anyOf` and `oneOf`, so composed schemas (`allOf: [Channel, {required}]`) stay
 * valid while an undeclared property anywhere is refused. Members of `allOf`/`anyOf`/`oneOf`/`not`
 * and component definitions are left alone: they are closed by the value position that uses them.
 *
 * An answer trimmed by a `fields` mask is held to everything but `required`: every field it has
 * must be declared and valid.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv } from './ajv.js';
import { jsonNestingPastLimit, MAX_JSON_DEPTH } from './http.js';
import { describeJsonError } from './redact.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function mayBeObject(schema: Json): boolean {
  const type = schema.type;
  if (type === undefined) return true;
  return Array.isArray(type) ? type.includes('object') : type === 'object';
}

/** Closes one schema node (if it is in a value position) and everything below it. */
function closeSchema(schema: unknown, valuePosition: boolean): void {
  if (!isObject(schema)) return;
  if (
    valuePosition &&
    mayBeObject(schema) &&
    schema.additionalProperties === undefined &&
    schema.unevaluatedProperties === undefined
  ) {
    schema.unevaluatedProperties = false;
  }
  for (const key of ['properties', 'patternProperties'] as const) {
    const children = schema[key];
    if (isObject(children)) for (const child of Object.values(children)) closeSchema(child, true);
  }
  for (const key of ['items', 'contains', 'additionalProperties', 'unevaluatedItems'] as const) {
    if (isObject(schema[key])) closeSchema(schema[key], true);
  }
  if (Array.isArray(schema.prefixItems)) for (const child of schema.prefixItems) closeSchema(child, true);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const members = schema[key];
    if (Array.isArray(members)) for (const child of members) closeSchema(child, false);
  }
  for (const key of ['not', 'if', 'then', 'else'] as const) closeSchema(schema[key], false);
  if (isObject(schema.$defs)) for (const child of Object.values(schema.$defs)) closeSchema(child, false);
}

/**
 * A copy of an OpenAPI document in which every schema refuses undeclared properties (see the
 * file comment). Example values and extensions are not schemas and are not touched.
 */
export function strictDocument<T>(doc: T): T {
  const copy = structuredClone(doc);
  const walk = (node: unknown, path: string[]): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, path);
      return;
    }
    if (!isObject(node)) return;
    if (path.length === 2 && path[0] === 'components' && path[1] === 'schemas') {
      for (const definition of Object.values(node)) closeSchema(definition, false);
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'example' || key === 'examples' || key.startsWith('x-')) continue;
      if (key === 'schema' && isObject(value)) closeSchema(value, true);
      else walk(value, [...path, key]);
    }
  };
  walk(copy, []);
  return copy;
}

/** The strict copy without any `required`: what an answer trimmed by `fields` must still meet. */
function withoutRequired(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) withoutRequired(item);
    return;
  }
  if (!isObject(node)) return;
  if (Array.isArray(node.required)) delete node.required;
  for (const [key, value] of Object.entries(node))
    if (key !== 'example' && key !== 'examples') withoutRequired(value);
}

/** A JSON pointer's token: `~` and `/` escaped. */
export const pointerToken = (part: string): string => part.replace(/~/g, '~0').replace(/\//g, '~1');

/** Follows local `$ref`s from `node` in `doc`: the value and the pointer of the last one followed. */
function follow(doc: unknown, node: unknown): { pointer?: string; value: Json } {
  let pointer: string | undefined;
  let value = node;
  for (let hops = 0; isObject(value) && typeof value.$ref === 'string'; hops++) {
    const ref: string = value.$ref;
    if (hops > 32 || !ref.startsWith('#/')) throw new Error(`cannot follow $ref ${ref}`);
    pointer = ref.slice(1);
    value = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((current, key) => (isObject(current) ? current[key] : undefined), doc);
    if (value === undefined) throw new Error(`unresolved $ref ${ref}`);
  }
  return { ...(pointer ? { pointer } : {}), value: isObject(value) ? value : {} };
}

/** What is wrong with an answer: one finding per place. */
export interface AnswerFinding {
  kind:
    | 'undocumentedStatus'
    | 'unexpectedBody'
    | 'missingBody'
    | 'contentType'
    | 'notJson'
    | 'tooDeep'
    | 'missingHeader'
    | 'header'
    | 'schema';
  /** A JSON pointer into the body (`/items/0/start`), or `/headers/<name>`; empty for the whole answer. */
  pointer: string;
  /** What the spec asks for, in a few words. */
  expected: string;
  /** What the answer has, shortened. */
  got: string;
  /** Where the spec says it (a JSON pointer into the document), when that helps. */
  specPointer?: string;
}

/** An answer as checked: the status, a header reader, and the body as text. */
export interface CheckedAnswer {
  status: number;
  header(name: string): string | undefined;
  /** The decoded body; empty or undefined for none. */
  text: string | undefined;
}

/** `value` as JSON, cut to `max` characters. */
export function shortJson(value: unknown, max = 120): string {
  const text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The value at a JSON pointer of a parsed body (for the `got` of a finding). */
function at(value: unknown, pointer: string): unknown {
  if (pointer === '') return value;
  let node = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = node[key];
    else return undefined;
  }
  return node;
}

/** Ajv's errors as findings, the informative ones only (an `if`'s or a combinator's own failure is noise). */
function schemaFindings(errors: readonly ErrorObject[], body: unknown, specPointer: string): AnswerFinding[] {
  const findings: AnswerFinding[] = [];
  for (const error of errors) {
    if (error.keyword === 'if' || error.keyword === 'allOf') continue;
    let pointer = error.instancePath;
    let expected = error.message ?? error.keyword;
    let got: unknown = at(body, pointer);
    if (error.keyword === 'required') {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      pointer = `${pointer}/${pointerToken(missing)}`;
      expected = 'a required property';
      got = undefined;
    } else if (error.keyword === 'unevaluatedProperties' || error.keyword === 'additionalProperties') {
      const extra =
        (error.params as { unevaluatedProperty?: string; additionalProperty?: string }).unevaluatedProperty ??
        (error.params as { additionalProperty?: string }).additionalProperty ??
        '';
      pointer = `${pointer}/${pointerToken(extra)}`;
      expected = 'no property the spec does not declare';
      got = at(body, pointer);
    } else if (error.keyword === 'enum') {
      expected = `one of ${shortJson((error.params as { allowedValues: unknown[] }).allowedValues)}`;
    }
    findings.push({
      kind: 'schema',
      pointer,
      expected,
      got: got === undefined && error.keyword === 'required' ? 'missing' : shortJson(got),
      specPointer: `${specPointer}${error.schemaPath.replace(/^#/, '')}`,
    });
  }
  return findings;
}

const mediaTypeOf = (contentType: string | undefined): string =>
  (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';

/**
 * Checks answers against one bundled OpenAPI document (every `$ref` local). Schemas are compiled
 * once per place and kept.
 */
export class AnswerChecker {
  private readonly ajv = createAjv();
  private readonly registered = new Set<string>();
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(
    /** A name for the document, unique among the checkers of a process. */
    private readonly id: string,
    readonly document: unknown,
  ) {}

  private register(trimmed: boolean): string {
    const key = `urn:gspec:answers:${this.id}:${trimmed ? 'trimmed' : 'strict'}`;
    if (!this.registered.has(key)) {
      const strict = strictDocument(this.document);
      if (trimmed) withoutRequired(strict);
      this.ajv.addSchema(strict as Json, key);
      this.registered.add(key);
    }
    return key;
  }

  /** Ajv's errors for `value` against the schema at `schemaPointer` of the document. */
  validate(schemaPointer: string, value: unknown, trimmed = false): ErrorObject[] {
    const key = `${this.register(trimmed)}#${schemaPointer}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile({ $ref: key });
      this.compiled.set(key, validate);
    }
    return validate(value) ? [] : [...(validate.errors ?? [])];
  }

  /**
   * The documented response of an operation for a status (the exact code, else `4XX`, else
   * `default`), with its pointer; `operationPointer` is `/paths/<path>/<method>`.
   */
  documentedResponse(
    operationPointer: string,
    status: number,
  ): { response: Json; pointer: string } | undefined {
    const operation = follow(this.document, { $ref: `#${operationPointer}` }).value;
    const responses = isObject(operation.responses) ? operation.responses : {};
    for (const code of [String(status), `${String(status)[0]}XX`, 'default']) {
      if (responses[code] === undefined) continue;
      const { pointer, value } = follow(this.document, responses[code]);
      return { response: value, pointer: pointer ?? `${operationPointer}/responses/${code}` };
    }
    return undefined;
  }

  /** Ajv's errors for a body against the schema of the response at `responsePointer` for `contentType`. */
  validateBody(responsePointer: string, contentType: string, body: unknown, trimmed = false): ErrorObject[] {
    return this.validate(`${responsePointer}/content/${pointerToken(contentType)}/schema`, body, trimmed);
  }

  /**
   * The documented headers of a response: a required one must be there, and each one present
   * must be valid against its schema (a number schema reads the header as a number). Headers
   * the spec does not document (Date, Content-Length, ...) are HTTP's, not the API's.
   */
  checkHeaders(responsePointer: string, header: (name: string) => string | undefined): AnswerFinding[] {
    const response = follow(this.document, { $ref: `#${responsePointer}` }).value;
    const findings: AnswerFinding[] = [];
    for (const [name, raw] of Object.entries(isObject(response.headers) ? response.headers : {})) {
      const { pointer, value: documented } = follow(this.document, raw);
      const headerPointer = pointer ?? `${responsePointer}/headers/${pointerToken(name)}`;
      const text = header(name);
      if (text === undefined) {
        if (documented.required === true)
          findings.push({
            kind: 'missingHeader',
            pointer: `/headers/${name.toLowerCase()}`,
            expected: 'a required header',
            got: 'missing',
            specPointer: headerPointer,
          });
        continue;
      }
      const schema = follow(this.document, documented.schema ?? {}).value;
      const numeric = schema.type === 'integer' || schema.type === 'number';
      const errors = this.validate(`${headerPointer}/schema`, numeric ? Number(text) : text);
      if (errors.length > 0)
        findings.push({
          kind: 'header',
          pointer: `/headers/${name.toLowerCase()}`,
          expected: errors.map((e) => e.message).join('; '),
          got: shortJson(text),
          specPointer: `${headerPointer}/schema`,
        });
    }
    return findings;
  }

  /**
   * Everything wrong with an answer to the operation at `operationPointer`: a status it does not
   * document, a body where none is documented or none where one is, a content type it does not
   * list, a documented header missing or invalid, a body that is not JSON where JSON is
   * documented, and each place where the body breaks the schema. `trimmed` for the answer of a
   * `fields` mask (a success only).
   */
  checkAnswer(
    operationPointer: string,
    answer: CheckedAnswer,
    options: { trimmed?: boolean } = {},
  ): AnswerFinding[] {
    const documented = this.documentedResponse(operationPointer, answer.status);
    if (!documented) {
      const operation = follow(this.document, { $ref: `#${operationPointer}` }).value;
      const codes = Object.keys(isObject(operation.responses) ? operation.responses : {});
      return [
        {
          kind: 'undocumentedStatus',
          pointer: '',
          expected: `one of ${codes.join(', ')}`,
          got: String(answer.status),
          specPointer: `${operationPointer}/responses`,
        },
      ];
    }
    const { response, pointer } = documented;
    const findings = this.checkHeaders(pointer, answer.header);
    const text = answer.text ?? '';
    const content = isObject(response.content) ? response.content : undefined;
    if (!content || Object.keys(content).length === 0) {
      if (text.length > 0)
        findings.push({
          kind: 'unexpectedBody',
          pointer: '',
          expected: 'no body',
          got: shortJson(text),
          specPointer: pointer,
        });
      return findings;
    }
    const contentType = answer.header('content-type');
    const media = mediaTypeOf(contentType);
    const listed = Object.keys(content);
    if (!listed.includes(media)) {
      findings.push({
        kind: 'contentType',
        pointer: '/headers/content-type',
        expected: listed.join(' or '),
        got: contentType === undefined ? 'missing' : shortJson(contentType),
        specPointer: `${pointer}/content`,
      });
      return findings;
    }
    if (text.length === 0) {
      findings.push({
        kind: 'missingBody',
        pointer: '',
        expected: `a ${media} body`,
        got: 'none',
        specPointer: pointer,
      });
      return findings;
    }
    if (media !== 'application/json' && !media.endsWith('+json')) return findings;
    // Past the servers' nesting limit, the schema walk would recurse as deep; no schema nests so far.
    if (jsonNestingPastLimit(text) !== undefined) {
      findings.push({
        kind: 'tooDeep',
        pointer: '',
        expected: `a body nested at most ${MAX_JSON_DEPTH} levels deep, as every schema of the spec is`,
        got: 'deeper',
        specPointer: `${pointer}/content/${pointerToken(media)}/schema`,
      });
      return findings;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      findings.push({
        kind: 'notJson',
        pointer: '',
        expected: 'a JSON body',
        got: `${shortJson(text.slice(0, 80))} (${describeJsonError(error)})`,
        specPointer: `${pointer}/content/${pointerToken(media)}`,
      });
      return findings;
    }
    const trimmed = options.trimmed === true && answer.status >= 200 && answer.status < 300;
    const schemaPointer = `${pointer}/content/${pointerToken(media)}/schema`;
    findings.push(...schemaFindings(this.validate(schemaPointer, body, trimmed), body, schemaPointer));
    return findings;
  }
}

/** Ajv's errors in one line each: the place and the message. */
export function describeErrors(errors: readonly ErrorObject[]): string {
  return errors
    .map((e) => {
      const extra =
        e.keyword === 'unevaluatedProperties' || e.keyword === 'additionalProperties'
          ? ` (${JSON.stringify(e.params)})`
          : '';
      return `${e.instancePath || '(root)'} ${e.message ?? ''}${extra}`;
    })
    .join('\n');
}
