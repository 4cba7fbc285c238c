/**
 * What a stateful target (the emulator) needs before a positive case can be sent: the spec's
 * examples name resources (a secondary calendar, an event, a sharing rule, an open watch
 * channel) that a fresh emulator does not have. {@link prepareOnStatefulTarget} creates them
 * first, through the same generated client, and puts their ids where the examples' ids were;
 * everything else of the request stays as the spec's examples say. A value that is not one
 * of the examples' ids (an id a behaviour test created itself) is left alone.
 *
 * - a secondary calendar id (the `calendarId` examples other than `primary`, and
 *   `destination`): a calendar created for the case (one per place, so that a move goes
 *   from one calendar to another);
 * - an `eventId`: an event inserted into the case's calendar (the recurring body example of
 *   events.insert for events.instances, else its first body example); an `If-Match` sent
 *   with it gets that event's etag, so that the precondition holds;
 * - a `ruleId` (`user:<email>`): a rule for that scope inserted first;
 * - a watch body: a channel id of its own (an id can be open only once) and, as the address,
 *   an unknown path of the target itself, so that no notification leaves this machine;
 * - channels.stop: a channel opened first on the primary calendar's events;
 * - calendarList.insert: a calendar created and taken off the list, so that it can be added;
 * - Search Ads 360: a fresh emulator knows the entities the examples name, but a conversion
 *   can be inserted once only: the examples' conversion ids get a suffix of their own per
 *   case, and conversion.update first inserts the conversions it changes.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { baseRequest, type RequestPlan } from './cases.ts';
import { currentTarget, expectDocumented, send } from './run.ts';
import {
  type ApiSpec,
  type Json,
  loadSpecs,
  type Operation,
  operationsOf,
  parameterExamples,
  requestBodyOf,
} from './spec.ts';

let calendar: { api: ApiSpec; ops: Map<string, Operation> } | undefined;
function calendarApi(): { api: ApiSpec; ops: Map<string, Operation> } {
  if (!calendar) {
    const api = loadSpecs().find((a) => a.id === 'calendar');
    if (!api) throw new Error('the bundled specs have no calendar API');
    calendar = { api, ops: new Map(operationsOf(api).map((op) => [op.operationId, op])) };
  }
  return calendar;
}

let allOps: Map<string, Operation> | undefined;
/** An operation of any API of the specs. */
function op(operationId: string): Operation {
  allOps ??= new Map(
    loadSpecs()
      .flatMap(operationsOf)
      .map((o) => [o.operationId, o]),
  );
  const found = allOps.get(operationId);
  if (!found) throw new Error(`${operationId} is not in the specs`);
  return found;
}

/** The values the examples give a parameter of this name, across every operation of the API. */
function exampleValues(name: string, keep: (value: unknown) => boolean = () => true): Set<unknown> {
  const values = new Set<unknown>();
  for (const operation of calendarApi().ops.values()) {
    for (const param of operation.parameters) {
      if (param.name !== name) continue;
      for (const [, value] of parameterExamples(operation.api.doc, param)) if (keep(value)) values.add(value);
    }
  }
  return values;
}

/** Sends a fixture request and checks that the target answered it as documented. */
async function fixture(operationId: string, plan: Partial<RequestPlan>, status = 200): Promise<Json> {
  const operation = op(operationId);
  const answer = await send(operation, {
    token: true,
    ...plan,
    params: { path: {}, query: {}, header: {}, ...plan.params },
  });
  expect(
    answer.status,
    `fixture ${operationId} ${JSON.stringify(plan.params)}: ${answer.status} ${answer.text.slice(0, 400)}`,
  ).toBe(status);
  expectDocumented(operation, answer);
  return answer.body as Json;
}

async function newCalendar(why: string): Promise<string> {
  const created = await fixture('calendars.insert', {
    body: { summary: `gspec contract tests: ${why}`, timeZone: 'Europe/Zurich' },
  });
  return created.id as string;
}

/** The first named body example of an operation that `pick` accepts. */
function bodyExample(operationId: string, pick: (body: Json) => boolean): Json {
  const found = requestBodyOf(op(operationId))?.examples.find(([, value]) => pick(value as Json));
  if (!found) throw new Error(`${operationId}: no body example fits`);
  return found[1] as Json;
}

/** The address watch channels get: an unknown path of the target, which answers 404 and drops the message. */
function localAddress(): string {
  return `${currentTarget().origin}/contract-tests/notifications`;
}

function isWatchBody(body: unknown): body is Json {
  return typeof body === 'object' && body !== null && 'address' in body && 'type' in body;
}

/** The request of a positive case, with the resources its examples name created on the target first. */
export async function prepareOnStatefulTarget(
  operation: Operation,
  request: RequestPlan,
): Promise<RequestPlan> {
  if (operation.api.id === 'searchads360') return prepareConversions(operation, request);
  if (operation.api.id !== 'calendar') return request;
  const plan = structuredClone(request);
  const { path, query, header } = plan.params;
  const secondaryIds = exampleValues('calendarId', (v) => v !== 'primary');
  const why = operation.operationId;

  if (secondaryIds.has(path.calendarId)) path.calendarId = await newCalendar(`${why} calendarId`);
  if (secondaryIds.has(query.destination)) query.destination = await newCalendar(`${why} destination`);

  if (exampleValues('eventId').has(path.eventId)) {
    const body =
      operation.operationId === 'events.instances'
        ? bodyExample('events.insert', (b) => Array.isArray(b.recurrence))
        : (baseRequest(op('events.insert')).body as Json);
    const event = await fixture('events.insert', {
      params: { path: { calendarId: path.calendarId }, query: { sendUpdates: 'none' }, header: {} },
      body,
    });
    path.eventId = event.id;
    if ('If-Match' in header) header['If-Match'] = event.etag;
  }

  if (exampleValues('ruleId').has(path.ruleId)) {
    const [type, value] = String(path.ruleId).split(':');
    await fixture('acl.insert', {
      params: { path: { calendarId: path.calendarId }, query: { sendNotifications: false }, header: {} },
      body: { role: 'reader', scope: { type, ...(value ? { value } : {}) } },
    });
  }

  if (isWatchBody(plan.body))
    plan.body = { ...plan.body, id: `contract-${randomUUID()}`, address: localAddress() };

  if (operation.operationId === 'channels.stop') {
    const channel = await fixture('events.watch', {
      params: { path: { calendarId: 'primary' }, query: {}, header: {} },
      body: { id: `contract-${randomUUID()}`, type: 'web_hook', address: localAddress() },
    });
    plan.body = { ...(plan.body as Json), id: channel.id, resourceId: channel.resourceId };
  }

  if (operation.operationId === 'calendarList.insert') {
    const calendarId = await newCalendar(`${why} (taken off the list first)`);
    await fixture('calendarList.delete', { params: { path: { calendarId }, query: {}, header: {} } }, 204);
    plan.body = { ...(plan.body as Json), id: calendarId };
  }

  return plan;
}

/** The conversion ids of the conversion batches' body examples. */
function exampleConversionIds(): Set<unknown> {
  const ids = new Set<unknown>();
  for (const operationId of ['conversion.insert', 'conversion.update'])
    for (const [, body] of requestBodyOf(op(operationId))?.examples ?? [])
      for (const conversion of (body as Json).conversion ?? []) ids.add(conversion.conversionId);
  return ids;
}

/**
 * A conversion batch with the examples' conversion ids made its own (each case inserts anew);
 * for conversion.update, the conversions it changes are inserted first.
 */
async function prepareConversions(operation: Operation, request: RequestPlan): Promise<RequestPlan> {
  const body = request.body as Json;
  if (
    !['conversion.insert', 'conversion.update'].includes(operation.operationId) ||
    !Array.isArray(body?.conversion)
  )
    return request;
  const plan = structuredClone(request);
  const examples = exampleConversionIds();
  const suffix = randomUUID().slice(0, 8);
  const conversions = (plan.body as Json).conversion as Json[];
  const renamed = conversions.filter((c) => examples.has(c.conversionId));
  for (const conversion of renamed) conversion.conversionId = `${conversion.conversionId}-${suffix}`;
  if (operation.operationId === 'conversion.update' && renamed.length > 0) {
    const inserted = renamed.map(({ state: _state, ...conversion }) => conversion);
    await fixture('conversion.insert', { body: { conversion: inserted } });
  }
  return plan;
}
