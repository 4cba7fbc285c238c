/**
 * Fault injection, configured once at start from a JSON file (`--faults faults.json`), so that
 * a user can test a client's retry logic against the mock: added latency, a random error rate,
 * scripted answers per operation (the first two calls 503, then success), and a default
 * example or status per operation for clients that cannot send `Prefer`.
 *
 * The file is checked against the specs when it is read: every operation id, status and
 * example it names must exist, so a typo fails the start with the field at fault rather than
 * silently never firing.
 */
import { STATUS_CODES } from 'node:http';
import { JsonFileError, readJsonFile } from '@gspec/server-kit';
import type { IHttpOperation } from '@stoplight/types';
import type { MockApi } from './apis.js';
import { type GoogleErrorBody, simpleError } from './google-errors.js';

/** One answer of a rule: the normal answer, an injected Google error, or a spec example. */
export type FaultStep =
  | { kind: 'pass' }
  | {
      kind: 'error';
      status: number;
      reason: string;
      domain: string;
      message: string;
      /** The Retry-After header, seconds or an HTTP date. */
      retryAfter?: string;
    }
  | { kind: 'example'; code?: number; exampleKey?: string };

export interface OperationFaults {
  /** Added before every answer of the operation, in ms: fixed, or drawn from [min, max]. */
  latencyMs?: [min: number, max: number];
  /** The share of valid calls (0 to 1) answered with `error` once `sequence` is used up. */
  errorRate: number;
  error: FaultStep;
  /** The answers of the first calls, in order. */
  sequence: FaultStep[];
  /** Start `sequence` over when it is used up, instead of answering normally. */
  repeat: boolean;
  /** The example or status answered when the request names none (no Prefer, no __code). */
  respond?: { code?: number; exampleKey?: string };
}

export interface FaultConfig {
  /** Where the rules came from, for messages. */
  source: string;
  seed: number;
  /** Whether the file fixed the seed; if not, the mock prints the one it drew. */
  seeded: boolean;
  /** The rules of each operation, by operationId, with those of `"*"` merged in. */
  operations: Map<string, OperationFaults>;
}

export class FaultConfigError extends Error {
  override name = 'FaultConfigError';
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Google's usage-limit reasons live in the `usageLimits` domain; the others in `global`. */
const USAGE_LIMIT_REASONS = new Set([
  'rateLimitExceeded',
  'userRateLimitExceeded',
  'quotaExceeded',
  'dailyLimitExceeded',
]);

/** What Google sends for each status, used when a rule gives only the status. */
const DEFAULTS: Record<number, { reason: string; message: string }> = {
  400: { reason: 'badRequest', message: 'Bad Request' },
  401: { reason: 'authError', message: 'Invalid Credentials' },
  403: { reason: 'forbidden', message: 'Forbidden' },
  404: { reason: 'notFound', message: 'Not Found' },
  409: { reason: 'duplicate', message: 'The requested identifier already exists.' },
  410: { reason: 'deleted', message: 'Resource has been deleted' },
  412: { reason: 'conditionNotMet', message: 'Precondition Failed' },
  429: { reason: 'rateLimitExceeded', message: 'Rate Limit Exceeded' },
  500: { reason: 'backendError', message: 'Backend Error' },
  503: { reason: 'backendError', message: 'The service is currently unavailable.' },
};

const REASON_MESSAGES: Record<string, string> = {
  rateLimitExceeded: 'Rate Limit Exceeded',
  userRateLimitExceeded: 'User Rate Limit Exceeded',
  quotaExceeded: 'Quota exceeded for this project.',
  dailyLimitExceeded: 'Daily Limit Exceeded',
};

const MAX_LATENCY_MS = 600_000;

const NAME = { type: 'string', minLength: 1 };
const ERROR_STATUS = { type: 'integer', minimum: 400, maximum: 599 };
const ANY_STATUS = { type: 'integer', minimum: 100, maximum: 599 };
const ERROR_STEP = {
  oneOf: [
    { ...ERROR_STATUS, description: 'An injected error with this status and what Google sends with it.' },
    {
      type: 'object',
      description: 'A spec example of the operation, of its success status unless status says.',
      required: ['example'],
      additionalProperties: false,
      properties: { example: NAME, status: ANY_STATUS },
    },
    {
      type: 'object',
      description: "An injected error; reason, message and domain default to Google's for the status.",
      required: ['status'],
      additionalProperties: false,
      properties: {
        status: ERROR_STATUS,
        reason: NAME,
        message: NAME,
        domain: NAME,
        retryAfter: {
          description: 'The Retry-After header: whole seconds, or an HTTP date.',
          anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string' }],
        },
      },
    },
  ],
};
const MILLISECONDS = { type: 'number', minimum: 0, maximum: MAX_LATENCY_MS };

/**
 * The fault file's shape, published as dist/schemas/faults.schema.json for editors. parseFaults
 * checks the same with messages of its own, and then what only the specs can tell (operation
 * ids, documented statuses, example names); a test holds the two to the same verdicts on shape.
 */
export const FAULTS_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'gspec mock fault file (--faults)',
  description: 'Latency, errors and scripted answers per operation, to test a client against the mock.',
  type: 'object',
  required: ['operations'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string', description: 'Where an editor finds this schema; ignored by the mock.' },
    seed: { type: 'integer', description: 'Fixes the random draws (latency ranges, error rates).' },
    operations: {
      type: 'object',
      description: 'Rules by operationId (events.list, conversion.insert), and "*" for every operation.',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          latencyMs: {
            description: 'Added before every answer: milliseconds, or a range [min, max] drawn per call.',
            anyOf: [MILLISECONDS, { type: 'array', items: MILLISECONDS, minItems: 2, maxItems: 2 }],
          },
          errorRate: {
            type: 'number',
            minimum: 0,
            maximum: 1,
            description: 'The share of calls answered with error.',
          },
          error: { ...ERROR_STEP, description: 'The error of errorRate; 503 unless given.' },
          sequence: {
            type: 'array',
            minItems: 1,
            description: 'The answers of the first calls, in order: "pass", an error or an example.',
            items: { anyOf: [{ const: 'pass' }, ERROR_STEP] },
          },
          repeat: { type: 'boolean', description: 'Play sequence over and over.' },
          respond: {
            type: 'object',
            description: 'The example or status answered when the request asks for none.',
            minProperties: 1,
            additionalProperties: false,
            properties: { status: ANY_STATUS, example: NAME },
          },
        },
      },
    },
  },
};

/** The statuses an operation documents, and the example names under each. */
function documented(operation: IHttpOperation): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  for (const response of operation.responses) {
    const code = Number(response.code);
    if (!Number.isInteger(code)) continue;
    const keys = new Set<string>();
    for (const content of response.contents ?? [])
      for (const example of content.examples ?? []) keys.add(example.key);
    out.set(code, keys);
  }
  return out;
}

function successCode(operation: IHttpOperation): number | undefined {
  return operation.responses.map((r) => Number(r.code)).find((code) => code >= 200 && code < 300);
}

class Reader {
  constructor(private readonly source: string) {}

  fail(where: string, what: string): never {
    throw new FaultConfigError(`${this.source}: ${where}: ${what}`);
  }

  found(value: unknown): string {
    return `found ${JSON.stringify(value)}`;
  }

  keys(where: string, value: Json, allowed: string[]): void {
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key))
        this.fail(`${where}.${key}`, `unknown field; expected one of ${allowed.join(', ')}`);
    }
  }

  status(where: string, value: unknown, min = 100): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > 599)
      this.fail(where, `expected an HTTP status from ${min} to 599, ${this.found(value)}`);
    return value;
  }

  /** Checks a status or example against what each operation the rule applies to documents. */
  answerable(where: string, operations: IHttpOperation[], code?: number, exampleKey?: string): void {
    for (const operation of operations) {
      const responses = documented(operation);
      const status = code ?? successCode(operation);
      const examples = status === undefined ? undefined : responses.get(status);
      if (examples === undefined) {
        this.fail(
          where,
          `${operation.iid} documents no ${status} answer (it documents ${[...responses.keys()].join(', ')})`,
        );
      }
      if (exampleKey !== undefined && !examples.has(exampleKey)) {
        this.fail(
          where,
          `${operation.iid} has no example "${exampleKey}" for ${status} (it has ${[...examples].map((k) => `"${k}"`).join(', ') || 'none'})`,
        );
      }
    }
  }

  step(where: string, value: unknown, operations: IHttpOperation[]): FaultStep {
    if (value === 'pass') return { kind: 'pass' };
    if (typeof value === 'number') return this.step(where, { status: value }, operations);
    if (!isObject(value))
      this.fail(
        where,
        `expected "pass", a status such as 503, or an object such as {"status": 429, "retryAfter": 2}, ${this.found(value)}`,
      );
    if (value.example !== undefined) {
      this.keys(where, value, ['example', 'status']);
      if (typeof value.example !== 'string' || value.example === '')
        this.fail(
          `${where}.example`,
          `expected the name of an example in the spec, ${this.found(value.example)}`,
        );
      const code = value.status === undefined ? undefined : this.status(`${where}.status`, value.status);
      this.answerable(where, operations, code, value.example);
      return { kind: 'example', exampleKey: value.example, ...(code !== undefined ? { code } : {}) };
    }
    this.keys(where, value, ['status', 'reason', 'message', 'domain', 'retryAfter', 'example']);
    if (value.status === undefined)
      this.fail(`${where}.status`, 'missing; an injected error needs its HTTP status, such as 503');
    const status = this.status(`${where}.status`, value.status, 400);
    this.answerable(`${where}.status`, operations, status);
    for (const key of ['reason', 'message', 'domain'] as const) {
      if (value[key] !== undefined && (typeof value[key] !== 'string' || value[key] === ''))
        this.fail(`${where}.${key}`, `expected a non-empty string, ${this.found(value[key])}`);
    }
    const fallback = DEFAULTS[status] ?? {
      reason: status >= 500 ? 'backendError' : 'badRequest',
      message: STATUS_CODES[status] ?? 'Error',
    };
    const reason = (value.reason as string | undefined) ?? fallback.reason;
    const message =
      (value.message as string | undefined) ??
      (value.reason !== undefined ? REASON_MESSAGES[reason] : undefined) ??
      fallback.message;
    const domain =
      (value.domain as string | undefined) ?? (USAGE_LIMIT_REASONS.has(reason) ? 'usageLimits' : 'global');
    let retryAfter: string | undefined;
    if (value.retryAfter !== undefined) {
      const ra = value.retryAfter;
      if (typeof ra === 'number' && Number.isInteger(ra) && ra >= 0) retryAfter = String(ra);
      else if (typeof ra === 'string' && !Number.isNaN(Date.parse(ra)))
        retryAfter = new Date(ra).toUTCString();
      else
        this.fail(
          `${where}.retryAfter`,
          `expected whole seconds (such as 2) or an HTTP date, ${this.found(ra)}`,
        );
    }
    return {
      kind: 'error',
      status,
      reason,
      domain,
      message,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
    };
  }

  latency(where: string, value: unknown): [number, number] {
    const ok = (n: unknown): n is number =>
      typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= MAX_LATENCY_MS;
    if (ok(value)) return [value, value];
    if (Array.isArray(value) && value.length === 2 && ok(value[0]) && ok(value[1]) && value[0] <= value[1])
      return [value[0], value[1]];
    this.fail(
      where,
      `expected milliseconds from 0 to ${MAX_LATENCY_MS}, or a range [min, max], ${this.found(value)}`,
    );
  }

  /** One entry of `operations`, as the fields it sets (to merge over those of "*"). */
  rule(where: string, value: unknown, operations: IHttpOperation[]): Partial<OperationFaults> {
    if (!isObject(value)) this.fail(where, `expected an object of fault rules, ${this.found(value)}`);
    this.keys(where, value, ['latencyMs', 'errorRate', 'error', 'sequence', 'repeat', 'respond']);
    const out: Partial<OperationFaults> = {};
    if (value.latencyMs !== undefined) out.latencyMs = this.latency(`${where}.latencyMs`, value.latencyMs);
    if (value.errorRate !== undefined) {
      const rate = value.errorRate;
      if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1))
        this.fail(
          `${where}.errorRate`,
          `expected a share from 0 to 1 (0.1 is one call in ten), ${this.found(rate)}`,
        );
      out.errorRate = rate;
    }
    if (value.error !== undefined) {
      out.error = this.step(`${where}.error`, value.error, operations);
      if (out.error.kind === 'pass')
        this.fail(`${where}.error`, '"pass" is not an error; give a status such as 503');
    }
    if (value.sequence !== undefined) {
      if (!Array.isArray(value.sequence) || value.sequence.length === 0)
        this.fail(
          `${where}.sequence`,
          `expected a non-empty array of answers, ${this.found(value.sequence)}`,
        );
      out.sequence = value.sequence.map((step, i) => this.step(`${where}.sequence[${i}]`, step, operations));
    }
    if (value.repeat !== undefined) {
      if (typeof value.repeat !== 'boolean')
        this.fail(`${where}.repeat`, `expected true or false, ${this.found(value.repeat)}`);
      out.repeat = value.repeat;
    }
    if (value.respond !== undefined) {
      const respond = value.respond;
      if (!isObject(respond))
        this.fail(
          `${where}.respond`,
          `expected {"status": N} and/or {"example": "name"}, ${this.found(respond)}`,
        );
      this.keys(`${where}.respond`, respond, ['status', 'example']);
      const code =
        respond.status === undefined ? undefined : this.status(`${where}.respond.status`, respond.status);
      if (respond.example !== undefined && (typeof respond.example !== 'string' || respond.example === ''))
        this.fail(
          `${where}.respond.example`,
          `expected the name of an example in the spec, ${this.found(respond.example)}`,
        );
      const exampleKey = respond.example as string | undefined;
      if (code === undefined && exampleKey === undefined)
        this.fail(`${where}.respond`, 'give a status, an example, or both');
      this.answerable(`${where}.respond`, operations, code, exampleKey);
      out.respond = {
        ...(code !== undefined ? { code } : {}),
        ...(exampleKey !== undefined ? { exampleKey } : {}),
      };
    }
    return out;
  }
}

/**
 * Checks a parsed fault file against the APIs' operations and resolves it into rules per
 * operation. `source` names the file in error messages.
 */
export function parseFaults(
  value: unknown,
  apis: MockApi[],
  source = 'faults',
  randomSeed: () => number = () => Math.floor(Math.random() * 2 ** 31),
): FaultConfig {
  // Annotated, so that TypeScript sees `read.fail(...)` never returns and narrows after it.
  const read: Reader = new Reader(source);
  if (!isObject(value))
    read.fail('the file', `expected a JSON object with "operations", ${read.found(value)}`);
  read.keys('the file', value, ['$schema', 'seed', 'operations']);
  let seed: number;
  const seeded = value.seed !== undefined;
  if (seeded) {
    if (typeof value.seed !== 'number' || !Number.isSafeInteger(value.seed))
      read.fail('seed', `expected a whole number, ${read.found(value.seed)}`);
    seed = value.seed;
  } else {
    seed = randomSeed();
  }
  if (!isObject(value.operations))
    read.fail(
      'operations',
      `expected an object of rules by operationId (such as "events.list") or "*", ${read.found(value.operations)}`,
    );

  const all = apis.flatMap((api) => api.operations);
  const byId = new Map<string, IHttpOperation[]>();
  for (const operation of all) {
    const id = operation.iid ?? operation.id;
    byId.set(id, [...(byId.get(id) ?? []), operation]);
  }
  const star =
    value.operations['*'] === undefined ? {} : read.rule('operations["*"]', value.operations['*'], all);
  const own = new Map<string, Partial<OperationFaults>>();
  for (const [id, rule] of Object.entries(value.operations)) {
    if (id === '*') continue;
    const operations = byId.get(id);
    if (!operations) {
      const close = [...byId.keys()].filter((known) => known.split('.')[0] === id.split('.')[0]);
      read.fail(
        `operations["${id}"]`,
        `no operation has this operationId${close.length > 0 ? `; did you mean ${close.map((k) => `"${k}"`).join(', ')}?` : ' (ids look like "events.list")'}`,
      );
    }
    own.set(id, read.rule(`operations["${id}"]`, rule, operations));
  }
  const operations = new Map<string, OperationFaults>();
  const starSet = Object.keys(star).length > 0;
  for (const id of byId.keys()) {
    const mine = own.get(id);
    if (!starSet && !mine) continue;
    const rule: OperationFaults = {
      errorRate: 0,
      error: read.step('the default error', 503, byId.get(id) as IHttpOperation[]),
      sequence: [],
      repeat: false,
      ...star,
      ...mine,
    };
    if (rule.repeat && rule.sequence.length === 0)
      read.fail(`operations["${own.has(id) ? id : '*'}"].repeat`, 'there is no sequence to repeat');
    operations.set(id, rule);
  }
  return { source, seed, seeded, operations };
}

export function readFaultFile(file: string, apis: MockApi[]): FaultConfig {
  let value: unknown;
  try {
    // A syntax error says FILE:LINE:COLUMN and shows the line (server-kit's json-file.ts).
    value = readJsonFile(file);
  } catch (error) {
    if (error instanceof JsonFileError) throw new FaultConfigError(error.message);
    throw error;
  }
  return parseFaults(value, apis, file);
}

/** A small seeded generator (mulberry32): the same seed gives the same faults. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a, so that each operation draws from its own stream whatever the others do. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

interface OperationState {
  rule: OperationFaults;
  calls: number;
  random: () => number;
}

/** The running side of a FaultConfig: counts calls and draws faults, per operation. */
export class FaultInjector {
  private readonly state = new Map<string, OperationState>();

  constructor(readonly config: FaultConfig) {
    this.reset();
  }

  /** Starts every sequence and random stream over, as after a restart. */
  reset(): void {
    this.state.clear();
    for (const [id, rule] of this.config.operations)
      this.state.set(id, { rule, calls: 0, random: generator(this.config.seed ^ hash(id)) });
  }

  /** The default example or status of an operation, for a request that names none. */
  respond(operationId: string): { code?: number; exampleKey?: string } | undefined {
    return this.state.get(operationId)?.rule.respond;
  }

  /** The delay before answering a call of the operation, in ms. */
  latency(operationId: string): number {
    const state = this.state.get(operationId);
    const range = state?.rule.latencyMs;
    if (!state || !range) return 0;
    const [min, max] = range;
    return min === max ? min : Math.round(min + state.random() * (max - min));
  }

  /** The answer for the next valid call of the operation; counts the call. */
  next(operationId: string): FaultStep {
    const state = this.state.get(operationId);
    if (!state) return PASS;
    const { rule } = state;
    const index = state.calls++;
    if (rule.sequence.length > 0 && (index < rule.sequence.length || rule.repeat))
      return rule.sequence[index % rule.sequence.length] as FaultStep;
    if (rule.errorRate > 0 && state.random() < rule.errorRate) return rule.error;
    return PASS;
  }

  /** How many valid calls each operation with rules has had. */
  calls(): Record<string, number> {
    return Object.fromEntries([...this.state].map(([id, s]) => [id, s.calls]));
  }
}

const PASS: FaultStep = { kind: 'pass' };

/** The Google error envelope of an injected error step. */
export function injectedError(step: Extract<FaultStep, { kind: 'error' }>): GoogleErrorBody {
  return simpleError(step.status, step.reason, step.message, {
    domain: step.domain,
    // Google names the header at fault for an auth error; a client may read it.
    ...(step.reason === 'authError' ? { location: 'Authorization', locationType: 'header' as const } : {}),
  });
}
