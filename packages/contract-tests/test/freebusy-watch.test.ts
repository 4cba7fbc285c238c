/**
 * Free/busy and watch channels as the live service answers them (decision 0056), as behaviour
 * tests: they need a stateful target, and are skipped on the mock with "needs a stateful
 * target".
 *
 * - freebusy.query refuses a range longer than 90 days with 400 `timeRangeTooLong`, answers one
 *   of 90 days, and answers an id that names no calendar inside its answer (`notFound`), not
 *   as a refusal. Read-only: they run on the live services too.
 * - events.watch with a list parameter (`q`) tells its channel only of the changes that list
 *   would show. The channel's receiver is on this machine, so it runs on the emulator only (the
 *   live service delivers only to a verified HTTPS domain).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { baseRequest, type RequestPlan } from './support/cases.ts';
import { type Answer, currentTarget, expectDocumented, send } from './support/run.ts';
import { type Json, loadSpecs, type Operation, operationsOf } from './support/spec.ts';
import { SKIP } from './support/target.ts';

const operations = new Map(
  loadSpecs().flatMap((api) => operationsOf(api).map((op) => [op.operationId, op] as const)),
);

function op(operationId: string): Operation {
  const found = operations.get(operationId);
  if (!found) throw new Error(`${operationId} is not in the bundled specs`);
  return found;
}

const meta = (operationId: string) => ({
  meta: { api: op(operationId).api.name, operationId, caseKind: 'rule' },
});

/** Calls an operation with the ids and values given (nothing of the examples' ids is created). */
async function call(
  operationId: string,
  status: number,
  given: { path?: Json; query?: Json; body?: unknown } = {},
): Promise<Json> {
  const operation = op(operationId);
  const base = baseRequest(operation);
  const plan: RequestPlan = {
    ...base,
    params: {
      path: { ...base.params.path, ...given.path },
      query: { ...base.params.query, ...given.query },
      header: base.params.header,
    },
    ...('body' in given ? { body: given.body } : {}),
  };
  const answer: Answer = await send(operation, plan);
  expect(answer.status, `${operationId}: ${answer.status} ${answer.text.slice(0, 400)}`).toBe(status);
  expectDocumented(operation, answer);
  return answer.body as Json;
}

/** Behaviour: a stateful target (the emulator, or the live services for what only reads). */
function stateful(ctx: TestContext, options: { localReceiver?: boolean; writes?: boolean } = {}): void {
  const target = currentTarget();
  if (target.kind === 'mock') ctx.skip(SKIP.stateless);
  if (target.kind === 'live' && options.localReceiver)
    ctx.skip('the live service delivers notifications only to a verified HTTPS domain');
  if (target.kind === 'live' && options.writes && !target.allowWrites) ctx.skip(SKIP.liveReadOnly);
}

const DAY = 24 * 3600 * 1000;
const START = Date.parse('2030-01-07T00:00:00Z');
const after = (days: number) => new Date(START + days * DAY).toISOString();

describe('behaviour: freebusy.query answers per calendar, and refuses only the request itself', () => {
  it(
    'behaviour: a range of 90 days is answered, a longer one is 400 timeRangeTooLong',
    meta('freebusy.query'),
    async (ctx) => {
      stateful(ctx);
      const answered = await call('freebusy.query', 200, {
        body: { timeMin: after(0), timeMax: after(90), items: [{ id: 'primary' }] },
      });
      expect(answered.kind).toBe('calendar#freeBusy');
      const refused = await call('freebusy.query', 400, {
        body: { timeMin: after(0), timeMax: after(200), items: [{ id: 'primary' }] },
      });
      expect(refused.error.errors.map((e: Json) => e.reason)).toContain('timeRangeTooLong');
    },
  );

  it(
    'behaviour: an id that names no calendar is answered with errors notFound inside a 200',
    meta('freebusy.query'),
    async (ctx) => {
      stateful(ctx);
      const id = `no-such-calendar-${randomUUID()}@group.calendar.google.com`;
      const answer = await call('freebusy.query', 200, {
        body: { timeMin: after(0), timeMax: after(1), items: [{ id }] },
      });
      expect(answer.calendars[id].errors).toContainEqual(expect.objectContaining({ reason: 'notFound' }));
      expect(answer.calendars[id].busy ?? []).toEqual([]);
    },
  );
});

describe('behaviour: a watch channel is told only of the changes its list would show', () => {
  const states: string[] = [];
  const receiver = createServer((request, response) => {
    states.push(String(request.headers['x-goog-resource-state']));
    request.resume();
    response.end();
  });
  const created: string[] = [];
  beforeAll(() => new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve)));
  afterAll(async () => {
    for (const calendarId of created.splice(0)) await call('calendars.delete', 204, { path: { calendarId } });
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  /** Waits (at most 10 s) until `count` messages have arrived. */
  async function received(count: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (states.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} notifications, got ${states.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it(
    'behaviour: events.watch with q: an event it does not match is not told, one it matches is',
    meta('events.watch'),
    async (ctx) => {
      stateful(ctx, { localReceiver: true, writes: true });
      const calendar = await call('calendars.insert', 200, {
        body: { summary: `gspec contract tests: filtered watch ${new Date().toISOString()}` },
      });
      const calendarId = calendar.id as string;
      created.push(calendarId);
      const address = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const channel = await call('events.watch', 200, {
        path: { calendarId },
        query: { q: 'standup' },
        body: { id: `contract-${randomUUID()}`, type: 'web_hook', address },
      });
      await received(1);
      const event = (summary: string, hour: number) => ({
        summary,
        start: { dateTime: `2030-01-07T${hour}:00:00Z` },
        end: { dateTime: `2030-01-07T${hour}:30:00Z` },
      });
      // Messages of a channel arrive in order: had the lunch been told, it would come first.
      await call('events.insert', 200, {
        path: { calendarId },
        query: { sendUpdates: 'none' },
        body: event('Lunch', 12),
      });
      await call('events.insert', 200, {
        path: { calendarId },
        query: { sendUpdates: 'none' },
        body: event('Daily standup', 10),
      });
      await call('events.insert', 200, {
        path: { calendarId },
        query: { sendUpdates: 'none' },
        body: event('Standup notes', 11),
      });
      await received(3);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(states).toEqual(['sync', 'exists', 'exists']);
      await call('channels.stop', 204, { body: { id: channel.id, resourceId: channel.resourceId } });
    },
  );
});
