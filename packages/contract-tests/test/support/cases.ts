/**
 * The contract cases of an operation, generated from its spec (no hand-kept list):
 *
 * - positive: the required parameters with their first examples and the first named body
 *   example; every further named example of a parameter (required or optional, each on its
 *   own) or of the body; every optional parameter that has an example, all together; and
 *   (mock only) every named example of the success answer;
 * - documented (mock only): every other documented status, asked for with `Prefer: code=N`;
 * - negative: each required parameter missing, each parameter of a wrong type, outside its
 *   enum or bounds, or with the value its schema refuses (`not`); a malformed JSON body, a
 *   missing body and each required top-level body field missing;
 * - auth: no token.
 */
import {
  type ApiSpec,
  follow,
  type Json,
  type Operation,
  operationsOf,
  parameterExamples,
  requestBodyOf,
  requiredProperties,
  responsesOf,
} from './spec.ts';

export type CaseKind = 'positive' | 'documented' | 'negative' | 'auth';

export interface RequestPlan {
  params: { path: Record<string, unknown>; query: Record<string, unknown>; header: Record<string, unknown> };
  /** A JSON body, serialized by the client. */
  body?: unknown;
  /** A body sent byte for byte as `application/json` (malformed JSON). */
  rawBody?: string;
  /** Send the bearer token (the positive token of the target). */
  token: boolean;
  /** A mock preference (`code=410, example=deleted`); only the mock understands it. */
  prefer?: string;
}

export type Expectation =
  /** The answer has this status and is valid against the documented response of that status. */
  | { kind: 'answer'; status: number; example?: unknown }
  /** A documented error in Google's envelope, naming the parameter with one of the reasons. */
  | { kind: 'error'; status: number; reasons: string[]; location?: string };

export interface ContractCase {
  api: ApiSpec;
  op: Operation;
  kind: CaseKind;
  title: string;
  request: RequestPlan;
  expect: Expectation;
}

/** The documented success answer: the first 2xx response. */
export function successStatus(op: Operation): number {
  const code = [...responsesOf(op).keys()].find((c) => /^2\d\d$/.test(c));
  if (!code) throw new Error(`${op.operationId}: no 2xx response documented`);
  return Number(code);
}

function schemaOf(op: Operation, param: Json): Json {
  return follow(op.api.doc, param.schema ?? {}).value;
}

/** A value for a parameter: its first example, else what its schema suggests. */
function firstValue(op: Operation, param: Json): unknown {
  const examples = parameterExamples(op.api.doc, param);
  if (examples.length > 0) return examples[0]?.[1];
  const schema = schemaOf(op, param);
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1;
  if (schema.type === 'boolean') return true;
  return schema.format === 'int64' ? '1234567890' : 'test';
}

function clonePlan(plan: RequestPlan): RequestPlan {
  return structuredClone(plan);
}

function setParam(plan: RequestPlan, param: Json, value: unknown): RequestPlan {
  const next = clonePlan(plan);
  const where = next.params[param.in as keyof RequestPlan['params']];
  if (value === undefined) delete where[param.name];
  else where[param.name] = value;
  return next;
}

const LOCATIONS = ['path', 'query', 'header'];

/** The request every other case varies: required parameters and the first body example. */
export function baseRequest(op: Operation): RequestPlan {
  const plan: RequestPlan = { params: { path: {}, query: {}, header: {} }, token: true };
  for (const param of op.parameters) {
    if (!param.required || !LOCATIONS.includes(param.in)) continue;
    plan.params[param.in as keyof RequestPlan['params']][param.name] = firstValue(op, param);
  }
  const body = requestBodyOf(op);
  if (body) {
    const first = body.examples[0];
    if (!first) throw new Error(`${op.operationId}: the request body has no named example to send`);
    plan.body = first[1];
  }
  return plan;
}

export function positiveCases(op: Operation): ContractCase[] {
  const base = baseRequest(op);
  const status = successStatus(op);
  const answer: Expectation = { kind: 'answer', status };
  const make = (title: string, request: RequestPlan, expect = answer): ContractCase => ({
    api: op.api,
    op,
    kind: 'positive',
    title,
    request,
    expect,
  });
  const cases = [make('the required parameters and the first examples', base)];
  for (const param of op.parameters) {
    if (!param.required || !LOCATIONS.includes(param.in)) continue;
    for (const [name, value] of parameterExamples(op.api.doc, param).slice(1)) {
      cases.push(make(`${param.name} example ${name}`, setParam(base, param, value)));
    }
  }
  const body = requestBodyOf(op);
  for (const [name, value] of body?.examples.slice(1) ?? []) {
    cases.push(make(`body example ${name}`, { ...clonePlan(base), body: value }));
  }
  const optional = op.parameters.filter(
    (p) => !p.required && LOCATIONS.includes(p.in) && parameterExamples(op.api.doc, p).length > 0,
  );
  if (optional.length > 0) {
    let all = base;
    for (const param of optional) all = setParam(all, param, parameterExamples(op.api.doc, param)[0]?.[1]);
    cases.push(
      make(`every optional parameter with an example (${optional.map((p) => p.name).join(', ')})`, all),
    );
    // Each further example of an optional parameter is a form the service takes (a page size
    // above its cap, a timestamp with another offset): sent on its own.
    for (const param of optional) {
      for (const [name, value] of parameterExamples(op.api.doc, param).slice(1)) {
        cases.push(make(`${param.name} example ${name}`, setParam(base, param, value)));
      }
    }
  }
  const success = responsesOf(op).get(String(status))?.response;
  for (const media of Object.values<Json>(success?.content ?? {})) {
    for (const [name, raw] of Object.entries<Json>(media.examples ?? {})) {
      const value = follow(op.api.doc, raw).value.value;
      cases.push(
        make(
          `answers its named example ${name} (Prefer)`,
          { ...clonePlan(base), prefer: `example=${name}` },
          { kind: 'answer', status, example: value },
        ),
      );
    }
  }
  return cases;
}

/**
 * Mock only: every documented status other than the success one, asked for with Prefer, once
 * per named example of that answer (`code=410, example=fullSyncRequired`).
 */
export function documentedCases(op: Operation): ContractCase[] {
  const base = baseRequest(op);
  const success = successStatus(op);
  const cases: ContractCase[] = [];
  for (const [code, { response }] of responsesOf(op)) {
    if (!/^\d{3}$/.test(code) || Number(code) === success) continue;
    const make = (title: string, prefer: string, example?: unknown): ContractCase => ({
      api: op.api,
      op,
      kind: 'documented',
      title,
      request: { ...clonePlan(base), prefer },
      expect: { kind: 'answer', status: Number(code), ...(example !== undefined ? { example } : {}) },
    });
    const examples = Object.values<Json>(response.content ?? {}).flatMap((media) =>
      Object.entries<Json>(media.examples ?? {}),
    );
    if (examples.length === 0) cases.push(make(`answers its documented ${code} (Prefer)`, `code=${code}`));
    for (const [name, raw] of examples) {
      const value = follow(op.api.doc, raw).value.value;
      cases.push(
        make(
          `answers its documented ${code} example ${name} (Prefer)`,
          `code=${code}, example=${name}`,
          value,
        ),
      );
    }
  }
  return cases;
}

const NOT_IN_ENUM = 'notInTheEnum';

/** A value of the wrong type for a schema, as a client would put it in a URL or header. */
function wrongType(schema: Json): { value: unknown; what: string } | undefined {
  if (schema.type === 'integer' || schema.type === 'number')
    return { value: 'not-a-number', what: `not ${schema.type === 'integer' ? 'an integer' : 'a number'}` };
  if (schema.type === 'boolean') return { value: 'not-a-boolean', what: 'not a boolean' };
  if (schema.type === 'string' && (schema.format === 'date-time' || schema.format === 'date'))
    return { value: 'not-a-date', what: `not a ${schema.format}` };
  if (schema.type === 'string' && typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern, 'u');
    const value = ['not-a-number', 'x y', '-'].find((candidate) => !pattern.test(candidate));
    if (value !== undefined) return { value, what: `not matching ${schema.pattern}` };
  }
  if (schema.type === 'string' && schema.format === 'int64')
    return { value: 'not-a-number', what: 'not an int64' };
  return undefined;
}

export function negativeCases(op: Operation): ContractCase[] {
  const base = baseRequest(op);
  const cases: ContractCase[] = [];
  // A "negative" request equal to the valid one would test nothing.
  const seen = new Set<string>([JSON.stringify(base)]);
  const add = (title: string, request: RequestPlan, reasons: string[], location?: string, status = 400) => {
    const key = JSON.stringify(request);
    if (seen.has(key)) return;
    seen.add(key);
    cases.push({
      api: op.api,
      op,
      kind: 'negative',
      title,
      request,
      expect: { kind: 'error', status, reasons, ...(location ? { location } : {}) },
    });
  };
  for (const param of op.parameters) {
    if (!LOCATIONS.includes(param.in)) continue;
    const schema = schemaOf(op, param);
    const name = param.name as string;
    const invalid = (title: string, value: unknown, reasons = ['invalid']) =>
      add(`${name} ${title}`, setParam(base, param, value), reasons, name);
    if (param.required && param.in === 'path') {
      // A path parameter cannot be left out of a URL. Sent empty (`/calendars//events`), the
      // URL matches no path of the API, and Google answers 404 notFound, naming no parameter.
      add(
        `${name} missing (empty path segment: no path matches, 404)`,
        setParam(base, param, ''),
        ['notFound'],
        undefined,
        404,
      );
    } else if (param.required) {
      invalid('missing', undefined, ['required']);
    }
    const isArray = schema.type === 'array';
    const scalar = isArray ? follow(op.api.doc, schema.items ?? {}).value : schema;
    const wrap = (value: unknown) => (isArray ? [value] : value);
    const wrong = wrongType(scalar);
    if (wrong) invalid(`of the wrong type (${wrong.what})`, wrap(wrong.value));
    if (Array.isArray(scalar.enum) && !scalar.enum.includes(NOT_IN_ENUM))
      invalid(`outside its enum (${NOT_IN_ENUM})`, wrap(NOT_IN_ENUM));
    if (typeof scalar.minimum === 'number')
      invalid(`below its minimum ${scalar.minimum}`, wrap(scalar.minimum - 1));
    if (typeof scalar.exclusiveMinimum === 'number')
      invalid(`at its exclusive minimum ${scalar.exclusiveMinimum}`, wrap(scalar.exclusiveMinimum));
    if (typeof scalar.maximum === 'number')
      invalid(`above its maximum ${scalar.maximum}`, wrap(scalar.maximum + 1));
    if (typeof scalar.exclusiveMaximum === 'number')
      invalid(`at its exclusive maximum ${scalar.exclusiveMaximum}`, wrap(scalar.exclusiveMaximum));
    // An empty value is what a service may read as "missing": either reason names the parameter.
    if (typeof scalar.minLength === 'number' && scalar.minLength > 0)
      invalid(`shorter than its minLength ${scalar.minLength}`, wrap(''), ['required', 'invalid']);
    if (typeof scalar.maxLength === 'number')
      invalid(`longer than its maxLength ${scalar.maxLength}`, wrap('x'.repeat(scalar.maxLength + 1)));
    const refused = scalar.not && follow(op.api.doc, scalar.not).value;
    if (refused && 'const' in refused)
      invalid(`with the value it refuses (${JSON.stringify(refused.const)})`, wrap(refused.const));
  }
  const body = requestBodyOf(op);
  if (body) {
    const { body: _sent, ...withoutBody } = clonePlan(base);
    add('body is malformed JSON', { ...withoutBody, rawBody: '{"summary": ' }, ['parseError']);
    if (body.required) add('body missing', withoutBody, ['required']);
    const example = base.body;
    if (example && typeof example === 'object' && !Array.isArray(example)) {
      for (const field of requiredProperties(op.api.doc, body.schema)) {
        const without = { ...(example as Record<string, unknown>) };
        delete without[field];
        add(`body field ${field} missing`, { ...clonePlan(base), body: without }, ['required'], field);
      }
    }
  }
  return cases;
}

export function authCase(op: Operation): ContractCase {
  return {
    api: op.api,
    op,
    kind: 'auth',
    title: 'no token',
    request: { ...baseRequest(op), token: false },
    expect: { kind: 'error', status: 401, reasons: ['authError'] },
  };
}

export interface OperationPlan {
  api: ApiSpec;
  op: Operation;
  cases: ContractCase[];
  /** Why no cases could be generated, when generation failed. */
  problems: string[];
}

/** Every case of every operation of an API; an operation whose cases cannot be made is kept with its problem. */
export function planApi(api: ApiSpec): OperationPlan[] {
  return operationsOf(api).map((op) => {
    try {
      return {
        api,
        op,
        cases: [...positiveCases(op), ...documentedCases(op), ...negativeCases(op), authCase(op)],
        problems: [],
      };
    } catch (error) {
      return { api, op, cases: [], problems: [(error as Error).message] };
    }
  });
}
