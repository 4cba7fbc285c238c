/**
 * Partial responses (`fields`) and conditional reads (`If-None-Match`, 304) on the target,
 * for every operation the specs give them to (decision 0038). The reads come from the
 * specs: every GET with a JSON answer is asked for a mask of two of its fields, and every
 * operation that documents 304 is read again with the etag it answered. On the emulator
 * the resources the examples name are created first; the live services are left out, as
 * the examples' resources are not theirs.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import { baseRequest, type RequestPlan } from './support/cases.ts';
import { prepareOnStatefulTarget } from './support/fixtures.ts';
import { type Answer, currentTarget, expectDocumented, send } from './support/run.ts';
import { documentedResponse, type Json, loadSpecs, type Operation, operationsOf } from './support/spec.ts';
import { SKIP } from './support/target.ts';

const operations = loadSpecs().flatMap(operationsOf);

const hasFields = (op: Operation) => op.parameters.some((p) => p.name === 'fields' && p.in === 'query');
const jsonAnswer = (op: Operation) => {
  const success = Object.keys(op.operation.responses ?? {}).find((code) => /^2\d\d$/.test(code));
  return (
    success !== undefined && documentedResponse(op, Number(success))?.response.content?.['application/json']
  );
};
const reads = operations.filter((op) => op.method === 'get' && hasFields(op) && jsonAnswer(op));
const conditional = operations.filter(
  (op) => documentedResponse(op, 304) !== undefined && op.method === 'get',
);

/** The case's operation for the reporter, and a limit that only catches a hang. */
function meta(op: Operation) {
  return { meta: { api: op.api.name, operationId: op.operationId, caseKind: 'rule' }, timeout: 120_000 };
}

function notLive(ctx: TestContext): void {
  if (currentTarget().kind === 'live') ctx.skip(SKIP.liveOwnCalendarOnly);
}

/** The example request of an operation, ready for the target, with `change` applied. */
async function prepared(op: Operation): Promise<RequestPlan> {
  const base = baseRequest(op);
  return currentTarget().kind === 'emulator' ? prepareOnStatefulTarget(op, base) : base;
}

function withParams(
  plan: RequestPlan,
  query: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): RequestPlan {
  return {
    ...plan,
    params: {
      ...plan.params,
      query: { ...plan.params.query, ...query },
      header: { ...plan.params.header, ...header },
    },
  };
}

function expectStatus(op: Operation, answer: Answer, status: number): void {
  expect(answer.status, `${op.operationId}: ${answer.status} ${answer.text.slice(0, 400)}`).toBe(status);
}

describe('fields trims the answer to the selected fields', () => {
  for (const op of reads)
    it(op.operationId, meta(op), async (ctx) => {
      notLive(ctx);
      const plan = await prepared(op);
      const whole = await send(op, plan);
      expectStatus(op, whole, 200);
      const chosen = Object.keys(whole.body as Json).slice(0, 2);
      expect(chosen.length, `${op.operationId} answered no field to select`).toBeGreaterThan(0);
      const trimmed = await send(op, withParams(plan, { fields: chosen.join(',') }));
      expectStatus(op, trimmed, 200);
      expectDocumented(op, trimmed, { trimmed: true });
      expect(Object.keys(trimmed.body as Json).sort()).toEqual([...chosen].sort());
    });
});

describe('a malformed mask, or one naming a field the answer has not, is 400 on fields', () => {
  const cases = reads.flatMap((op) => [
    [op.operationId, 'id(((', op] as const,
    [op.operationId, 'noSuchField', op] as const,
  ]);
  for (const [id, fields, op] of cases)
    it(`${id} with fields=${fields}`, meta(op), async (ctx) => {
      notLive(ctx);
      const answer = await send(op, withParams(await prepared(op), { fields }));
      expectStatus(op, answer, 400);
      expectDocumented(op, answer);
      const items = (answer.body as Json).error.errors as Json[];
      expect(items).toContainEqual(
        expect.objectContaining({
          reason: 'invalidParameter',
          location: 'fields',
          locationType: 'parameter',
        }),
      );
      expect((answer.body as Json).error.message).toContain(`Invalid field selection ${fields}`);
    });
});

describe('If-None-Match with the etag just answered is 304 with no body', () => {
  it('is documented on every Calendar read whose answer has an etag', () => {
    expect(conditional.map((op) => op.operationId).sort()).toEqual([
      'acl.get',
      'acl.list',
      'calendarList.get',
      'calendarList.list',
      'calendars.get',
      'events.get',
      'events.instances',
      'events.list',
      'settings.get',
      'settings.list',
    ]);
  });

  for (const op of conditional)
    it(op.operationId, meta(op), async (ctx) => {
      notLive(ctx);
      const plan = await prepared(op);
      const first = await send(op, plan);
      expectStatus(op, first, 200);
      const etag = (first.body as Json).etag as string;
      expect(typeof etag).toBe('string');
      for (const tag of [etag, '*', `W/${etag}`]) {
        const again = await send(op, withParams(plan, {}, { 'If-None-Match': tag }));
        expectStatus(op, again, 304);
        expectDocumented(op, again);
        expect(again.text).toBe('');
      }
      const other = await send(op, withParams(plan, {}, { 'If-None-Match': '"gspec-not-this-version"' }));
      expectStatus(op, other, 200);
      expectDocumented(op, other);
    });
});
