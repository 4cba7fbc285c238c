/**
 * Sends a contract case through the generated client of its API to the target, and checks
 * the answer against the spec: status, documented content type, strict body validation,
 * documented headers, and for errors Google's envelope naming the parameter at fault.
 */
import { createCalendarClient } from '@gspec/calendar';
import { createSearchAds360Client } from '@gspec/searchads360';
import { expect, inject } from 'vitest';
import type { ContractCase, RequestPlan } from './cases.ts';
import { type ApiSpec, documentedResponse, isReadOnly, type Json, type Operation } from './spec.ts';
import { SKIP, type Target, targetFromEnv } from './target.ts';
import { describeErrors, validateBody, validateHeaders } from './validate.ts';

declare module 'vitest' {
  interface TaskMeta {
    /** The API (`calendar@v3`) and operation (`events.list`) a test belongs to, for the report. */
    api?: string;
    operationId?: string;
    caseKind?: string;
  }
}

const clients = {
  calendar: createCalendarClient,
  searchads360: createSearchAds360Client,
} as const;

export type LooseClient = {
  request(
    method: string,
    path: string,
    init: Record<string, unknown>,
  ): Promise<{ response: Response; data?: unknown; error?: unknown }>;
};

let resolved: Required<Target> | undefined;

/** The target of this run: from the environment, with the origin the global setup resolved. */
export function currentTarget(): Required<Target> {
  const error = inject('targetError');
  if (error) throw new Error(`the contract tests have no target: ${error}`);
  if (!resolved)
    resolved = {
      ...targetFromEnv(),
      origin: inject('targetOrigin'),
      directOrigin: inject('targetDirectOrigin'),
    } as Required<Target>;
  return resolved;
}

/** The generated client of an API, pointed at the target; without a token when `token` is false. */
export function clientFor(api: ApiSpec, token = true): LooseClient {
  const create = clients[api.id as keyof typeof clients];
  if (!create) throw new Error(`no generated client for ${api.name}; add it to the table in support/run.ts`);
  const target = currentTarget();
  const baseUrl = `${target.origin}${api.basePath}`;
  return create({ baseUrl, ...(token ? { accessToken: target.token } : {}) }) as unknown as LooseClient;
}

export interface Answer {
  status: number;
  headers: Headers;
  /** The media type, without parameters. */
  contentType: string;
  /** The body: parsed JSON for a JSON answer, else the text ('' when there is none). */
  body: unknown;
  text: string;
}

/** Sends a request plan for an operation through its generated client. */
export async function send(
  op: Operation,
  plan: RequestPlan,
  client = clientFor(op.api, plan.token),
): Promise<Answer> {
  const init: Record<string, unknown> = { params: plan.params, parseAs: 'text' };
  if (plan.prefer) init.headers = { Prefer: plan.prefer };
  if (plan.rawBody !== undefined) {
    init.body = plan.rawBody;
    init.bodySerializer = (raw: string) => raw;
  } else if (plan.body !== undefined) {
    init.body = plan.body;
  }
  const { response, data, error } = await client.request(op.method, op.path, init);
  const received = response.ok ? data : error;
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const text =
    received === undefined ? '' : typeof received === 'string' ? received : JSON.stringify(received);
  let body: unknown = received ?? '';
  if (typeof received === 'string' && /json/.test(contentType)) {
    try {
      body = JSON.parse(received);
    } catch {
      body = received;
    }
  }
  return { status: response.status, headers: response.headers, contentType, body, text };
}

/** Why a case cannot run against this target, or undefined when it can. */
export function skipReason(c: ContractCase, target: Target): string | undefined {
  if (target.kind === 'mock') return undefined;
  if (c.request.prefer !== undefined || c.kind === 'documented') return SKIP.mockOnly;
  if (target.kind === 'live') {
    if (c.op.operationId.startsWith('conversion.')) return SKIP.liveNoConversions;
    if (c.kind !== 'auth' && !isReadOnly(c.op))
      return target.allowWrites ? SKIP.liveOwnCalendarOnly : SKIP.liveReadOnly;
  }
  return undefined;
}

function show(answer: Answer): string {
  return `${answer.status} ${answer.contentType} ${answer.text.slice(0, 600)}`;
}

/**
 * Checks that an answer is one the spec documents for the operation, and valid against it;
 * `trimmed` for the answer of a `fields` mask, which need not carry the required fields.
 */
export function expectDocumented(op: Operation, answer: Answer, options: { trimmed?: boolean } = {}): Json {
  const documented = documentedResponse(op, answer.status);
  expect(documented, `${op.operationId} documents no ${answer.status}: ${show(answer)}`).toBeDefined();
  const { response, pointer } = documented as { response: Json; pointer: string };
  if (!response.content) {
    expect(answer.text, `${answer.status} is documented without a body`).toBe('');
  } else {
    expect(Object.keys(response.content), `the content type of ${show(answer)}`).toContain(
      answer.contentType,
    );
    const trimmed = options.trimmed === true && answer.status >= 200 && answer.status < 300;
    const errors = validateBody(op.api, pointer, answer.contentType, answer.body, trimmed);
    expect(errors, `${describeErrors(errors)}\nin ${show(answer)}`).toEqual([]);
  }
  expect(validateHeaders(op.api, pointer, answer.headers)).toEqual([]);
  return response;
}

/** Checks an answer against what a case expects. */
export function checkAnswer(c: ContractCase, answer: Answer, target: Target): void {
  const wanted = c.expect;
  const lenient = target.kind === 'live' && c.kind === 'positive';
  if (lenient && answer.status !== wanted.status) {
    // The live account may not have the examples' resources: any documented non-5xx answer holds.
    expect(answer.status, show(answer)).toBeLessThan(500);
    expectDocumented(c.op, answer);
    return;
  }
  expect(answer.status, show(answer)).toBe(wanted.status);
  expectDocumented(c.op, answer);
  if (wanted.kind === 'answer') {
    if (wanted.example !== undefined) expect(answer.body).toEqual(wanted.example);
    return;
  }
  const items = ((answer.body as Json)?.error?.errors ?? []) as { reason?: string; location?: string }[];
  const named = items.some(
    (item) =>
      wanted.reasons.includes(item.reason ?? '') &&
      (wanted.location === undefined || item.location === wanted.location),
  );
  expect(
    named,
    `an error item with reason ${wanted.reasons.join(' or ')}${wanted.location ? ` and location ${wanted.location}` : ''} in ${JSON.stringify(items)}`,
  ).toBe(true);
}
