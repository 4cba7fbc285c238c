/**
 * The seeds' rules as contract tests. Each rule has up to three kinds of test:
 *
 * - spec: what the bundled spec promises in machine-readable form (schemas, documented
 *   answers, examples, extensions); runs on every target;
 * - target: the documented answers asked of the target; on the mock also with `Prefer`
 *   (skipped elsewhere: only the mock understands it). On the emulator the resources the
 *   examples name are created first (support/fixtures.ts), for both APIs;
 * - behaviour: the rule itself, with state (create, change, read back); on the mock it is
 *   skipped with "needs a stateful target". On the live services it writes only with
 *   CONTRACT_ALLOW_WRITES=1, only inside secondary calendars it creates and deletes itself,
 *   never in the primary calendar and never on conversions.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it, type TestContext } from 'vitest';
import { baseRequest, type RequestPlan } from './support/cases.ts';
import { loadSeedTables } from './support/coverage.ts';
import { prepareOnStatefulTarget } from './support/fixtures.ts';
import { type Answer, checkAnswer, currentTarget, expectDocumented, send } from './support/run.ts';
import {
  documentedResponse,
  follow,
  type Json,
  loadSpecs,
  type Operation,
  operationsOf,
  parameterExamples,
  requestBodyOf,
} from './support/spec.ts';
import { SKIP } from './support/target.ts';

const specs = loadSpecs();
const operations = new Map(
  specs.flatMap((api) => operationsOf(api).map((op) => [op.operationId, op] as const)),
);
const seeds = loadSeedTables();

function op(operationId: string): Operation {
  const found = operations.get(operationId);
  if (!found) throw new Error(`${operationId} is not in the bundled specs`);
  return found;
}

function param(operation: Operation, name: string, where = 'query'): Json | undefined {
  return operation.parameters.find((p) => p.name === name && p.in === where);
}

function meta(operationId: string) {
  return { meta: { api: op(operationId).api.name, operationId, caseKind: 'rule' } };
}

interface Overrides {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  header?: Record<string, unknown>;
  body?: unknown;
  prefer?: string;
}

/**
 * Calls an operation with its example request, changed by `overrides`. On the emulator the
 * resources the examples still name are created first (support/fixtures.ts); ids given in
 * `overrides` are left alone.
 */
async function call(operationId: string, overrides: Overrides = {}): Promise<Answer> {
  const operation = op(operationId);
  const base = baseRequest(operation);
  const plan: RequestPlan = {
    ...base,
    params: {
      path: { ...base.params.path, ...overrides.path },
      query: { ...base.params.query, ...overrides.query },
      header: { ...base.params.header, ...overrides.header },
    },
    ...('body' in overrides ? { body: overrides.body } : {}),
    ...(overrides.prefer ? { prefer: overrides.prefer } : {}),
  };
  if (currentTarget().kind !== 'emulator') return send(operation, plan);
  return send(operation, await prepareOnStatefulTarget(operation, plan));
}

/** Calls and checks the answer is documented and has this status; returns the body. */
async function expectCall(operationId: string, status: number, overrides: Overrides = {}): Promise<Json> {
  const answer = await call(operationId, overrides);
  expect(answer.status, `${operationId}: ${answer.status} ${answer.text.slice(0, 400)}`).toBe(status);
  expectDocumented(op(operationId), answer);
  return answer.body;
}

function errorReasons(body: Json): string[] {
  return (body?.error?.errors ?? []).map((e: Json) => e.reason);
}

/** Requests that need `Prefer` run on the mock only. */
function mockOnly(ctx: TestContext): void {
  if (currentTarget().kind !== 'mock') ctx.skip(SKIP.mockOnly);
}

/**
 * Requests with the examples' ids: the mock answers them, the emulator gets the resources
 * created first (see `call`); the live services would be written outside the run's calendar.
 */
function examplesNotLive(ctx: TestContext): void {
  if (currentTarget().kind === 'live') ctx.skip(SKIP.liveOwnCalendarOnly);
}

/** Search Ads 360: the mock and the emulator serve it; conversions are never touched on the live services. */
function searchAds360(ctx: TestContext, options: { conversions?: boolean } = {}): void {
  const target = currentTarget();
  if (target.kind === 'live' && options.conversions) ctx.skip(SKIP.liveNoConversions);
}

/** Requests that write on the target: never on the live primary calendar, nor without leave. */
function writesPrimary(ctx: TestContext): void {
  if (currentTarget().kind === 'live') ctx.skip(SKIP.livePrimary);
}

/** Behaviour checks: stateful targets only; on the live services only with leave to write. */
function stateful(ctx: TestContext, options: { conversions?: boolean } = {}): void {
  const target = currentTarget();
  if (target.kind === 'mock') ctx.skip(SKIP.stateless);
  if (target.kind === 'live') {
    if (options.conversions) ctx.skip(SKIP.liveNoConversions);
    if (!target.allowWrites) ctx.skip(SKIP.liveReadOnly);
  }
}

/** Secondary calendars this run creates for its behaviour checks, and deletes at the end. */
const created: string[] = [];
async function ownCalendar(summary: string): Promise<string> {
  const calendar = await expectCall('calendars.insert', 200, {
    body: { summary: `gspec contract tests: ${summary} ${new Date().toISOString()}` },
  });
  expect(typeof calendar.id).toBe('string');
  created.push(calendar.id);
  return calendar.id as string;
}

afterAll(async () => {
  for (const calendarId of created.splice(0)) {
    await call('calendars.delete', { path: { calendarId } });
  }
});

/** A plain default event (no attendees who could be notified). */
function plainEvent(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    summary: 'Contract test event',
    description: 'Written by the gspec contract tests',
    location: 'Nowhere',
    start: { dateTime: '2030-01-07T09:00:00Z' },
    end: { dateTime: '2030-01-07T09:30:00Z' },
    ...extra,
  };
}

const quiet = { sendUpdates: 'none' };

describe('rule: the primary calendar cannot be deleted, only cleared', () => {
  it(
    'spec: calendars.delete refuses `primary` in its schema and documents 400; calendars.clear answers 204',
    meta('calendars.delete'),
    () => {
      const calendarId = param(op('calendars.delete'), 'calendarId', 'path');
      expect(follow(op('calendars.delete').api.doc, calendarId?.schema).value.not).toEqual({
        const: 'primary',
      });
      expect(documentedResponse(op('calendars.delete'), 400)).toBeDefined();
      expect(documentedResponse(op('calendars.clear'), 204)?.response.content).toBeUndefined();
    },
  );

  it(
    'target: DELETE /calendars/primary is refused with 400 invalid naming calendarId',
    meta('calendars.delete'),
    async (ctx) => {
      writesPrimary(ctx);
      const body = await expectCall('calendars.delete', 400, { path: { calendarId: 'primary' } });
      expect(body.error.errors).toContainEqual(
        expect.objectContaining({ reason: 'invalid', location: 'calendarId' }),
      );
    },
  );

  it(
    'target: POST /calendars/primary/clear answers 204 with no body',
    meta('calendars.clear'),
    async (ctx) => {
      writesPrimary(ctx);
      await expectCall('calendars.clear', 204, { path: { calendarId: 'primary' } });
    },
  );

  it(
    'behaviour: clearing the primary calendar removes its events, and the calendar stays',
    meta('calendars.clear'),
    async (ctx) => {
      stateful(ctx);
      writesPrimary(ctx);
      await expectCall('events.insert', 200, {
        path: { calendarId: 'primary' },
        query: quiet,
        body: plainEvent(),
      });
      await expectCall('calendars.clear', 204, { path: { calendarId: 'primary' } });
      const list = await expectCall('events.list', 200, { path: { calendarId: 'primary' } });
      expect(list.items ?? []).toEqual([]);
      await expectCall('calendars.get', 200, { path: { calendarId: 'primary' } });
    },
  );
});

describe('rule: secondary calendars are created and deleted', () => {
  it(
    'target: calendars.insert answers the created calendar, calendars.delete of a secondary id 204',
    meta('calendars.insert'),
    async (ctx) => {
      if (currentTarget().kind === 'live') ctx.skip(SKIP.liveOwnCalendarOnly);
      const calendar = await expectCall('calendars.insert', 200);
      expect(calendar.id).toEqual(expect.any(String));
      await expectCall('calendars.delete', 204, { path: { calendarId: calendar.id } });
    },
  );

  it(
    'behaviour: a created calendar can be read, then deleted, then is gone (404)',
    meta('calendars.insert'),
    async (ctx) => {
      stateful(ctx);
      const calendarId = await ownCalendar('create and delete');
      const read = await expectCall('calendars.get', 200, { path: { calendarId } });
      expect(read.id).toBe(calendarId);
      await expectCall('calendars.delete', 204, { path: { calendarId } });
      created.splice(created.indexOf(calendarId), 1);
      await expectCall('calendars.get', 404, { path: { calendarId } });
    },
  );
});

describe('rule: events.import and events.move take only default events', () => {
  for (const operationId of ['events.import', 'events.move']) {
    it(`spec: ${operationId} declares x-event-types [default]`, meta(operationId), () => {
      expect(op(operationId).operation['x-event-types']).toEqual(['default']);
    });
  }

  it(
    'spec: the import fallback for other types is a deprecated behaviour, the operation is not deprecated',
    meta('events.import'),
    () => {
      const behaviours = op('events.import').operation['x-deprecated-behavior'] as Json[];
      expect(behaviours.map((b) => b.name)).toEqual(['nonDefaultEventTypeFallback']);
      expect(op('events.import').operation.deprecated).not.toBe(true);
    },
  );

  for (const operationId of ['events.import', 'events.move']) {
    it(`target: ${operationId} of the example answers a default event`, meta(operationId), async (ctx) => {
      examplesNotLive(ctx);
      const body = await expectCall(operationId, 200);
      expect(body.eventType ?? 'default').toBe('default');
    });
  }

  it(
    'behaviour: importing a focusTime event stores a default event (the deprecated fallback)',
    meta('events.import'),
    async (ctx) => {
      stateful(ctx);
      const calendarId = await ownCalendar('import fallback');
      const imported = await expectCall('events.import', 200, {
        path: { calendarId },
        body: plainEvent({
          iCalUID: `gspec-${Date.now()}@contract.test`,
          eventType: 'focusTime',
          focusTimeProperties: { chatStatus: 'doNotDisturb' },
        }),
      });
      expect(imported.eventType ?? 'default').toBe('default');
      expect(imported.focusTimeProperties).toBeUndefined();
    },
  );

  it(
    'behaviour: a default event moves; a non-default event is refused with 400',
    meta('events.move'),
    async (ctx) => {
      stateful(ctx);
      const from = await ownCalendar('move from');
      const to = await ownCalendar('move to');
      const event = await expectCall('events.insert', 200, {
        path: { calendarId: from },
        query: quiet,
        body: plainEvent(),
      });
      const moved = await expectCall('events.move', 200, {
        path: { calendarId: from, eventId: event.id },
        query: { destination: to, ...quiet },
      });
      expect(moved.id).toBe(event.id);
      await expectCall('events.get', 200, { path: { calendarId: to, eventId: event.id } });
      const other = await call('events.insert', {
        path: { calendarId: from },
        query: quiet,
        body: plainEvent({ eventType: 'focusTime', focusTimeProperties: { chatStatus: 'doNotDisturb' } }),
      });
      if (other.status !== 200)
        ctx.skip('the target keeps no focusTime event in a secondary calendar to try moving');
      const refused = await expectCall('events.move', 400, {
        path: { calendarId: from, eventId: (other.body as Json).id },
        query: { destination: to, ...quiet },
      });
      expect(errorReasons(refused).length).toBeGreaterThan(0);
    },
  );
});

describe('rule: events.update replaces the whole event', () => {
  it(
    'spec: events.update is a PUT with a required Event body and answers the Event',
    meta('events.update'),
    () => {
      expect(op('events.update').method).toBe('put');
      expect(requestBodyOf(op('events.update'))?.required).toBe(true);
      expect(documentedResponse(op('events.update'), 200)).toBeDefined();
    },
  );

  it(
    'target: PUT with the example event answers 200 with a valid Event',
    meta('events.update'),
    async (ctx) => {
      examplesNotLive(ctx);
      await expectCall('events.update', 200);
    },
  );

  it('behaviour: fields left out of an update are cleared', meta('events.update'), async (ctx) => {
    stateful(ctx);
    const calendarId = await ownCalendar('update replaces');
    const event = await expectCall('events.insert', 200, {
      path: { calendarId },
      query: quiet,
      body: plainEvent(),
    });
    const { description: _d, location: _l, ...rest } = plainEvent({ summary: 'Replaced' });
    const updated = await expectCall('events.update', 200, {
      path: { calendarId, eventId: event.id },
      query: quiet,
      body: rest,
    });
    expect(updated.summary).toBe('Replaced');
    const read = await expectCall('events.get', 200, { path: { calendarId, eventId: event.id } });
    expect(read.description).toBeUndefined();
    expect(read.location).toBeUndefined();
  });
});

const patches = [...operations.values()].filter((o) => o.method === 'patch');

describe('rule: the three patch semantics', () => {
  it('spec: every PATCH of the seeds is in the spec and takes a JSON body', () => {
    const seedPatches = Object.values(seeds)
      .flat()
      .filter((s) => s.method === 'PATCH')
      .map((s) => s.operationId);
    expect(patches.map((p) => p.operationId).sort()).toEqual(seedPatches.sort());
    for (const patch of patches) expect(requestBodyOf(patch), patch.operationId).toBeDefined();
  });

  for (const patch of patches) {
    it(
      `target: ${patch.operationId} answers its patch example with 200`,
      meta(patch.operationId),
      async (ctx) => {
        examplesNotLive(ctx);
        await expectCall(patch.operationId, 200);
      },
    );
  }

  it(
    'behaviour: a sent field replaces, a left-out field stays, a sent array replaces the whole array',
    meta('events.patch'),
    async (ctx) => {
      stateful(ctx);
      const calendarId = await ownCalendar('patch semantics');
      const attendees = [{ email: 'ana@example.com' }, { email: 'ben@example.com' }];
      const event = await expectCall('events.insert', 200, {
        path: { calendarId },
        query: quiet,
        body: plainEvent({ attendees }),
      });
      const patched = await expectCall('events.patch', 200, {
        path: { calendarId, eventId: event.id },
        query: quiet,
        body: { summary: 'Patched', attendees: [{ email: 'cleo@example.com' }] },
      });
      expect(patched.summary).toBe('Patched');
      expect(patched.description).toBe(plainEvent().description);
      expect((patched.attendees as Json[]).map((a) => a.email)).toEqual(['cleo@example.com']);
    },
  );
});

describe('rule: a field sent as null in a patch is removed (decision 0037)', () => {
  const bodyRef = (operationId: string): string | undefined => requestBodyOf(op(operationId))?.schema?.$ref;

  it.each([
    ['events.patch', 'EventPatch'],
    ['calendars.patch', 'CalendarPatch'],
    ['calendarList.patch', 'CalendarListEntryPatch'],
    ['acl.patch', 'AclRule'],
  ])('spec: %s takes %s', (operationId, schema) => {
    expect(bodyRef(operationId)).toBe(`#/components/schemas/${schema}`);
  });

  it(
    'behaviour: events.patch removes nulled fields and refuses null for start',
    meta('events.patch'),
    async (ctx) => {
      stateful(ctx);
      const calendarId = await ownCalendar('patch null event');
      const event = await expectCall('events.insert', 200, {
        path: { calendarId },
        query: quiet,
        body: plainEvent({ colorId: '3' }),
      });
      const path = { calendarId, eventId: event.id };
      const patched = await expectCall('events.patch', 200, {
        path,
        query: quiet,
        body: { location: null, colorId: null, summary: 'Nulled' },
      });
      expect(patched.summary).toBe('Nulled');
      expect(patched.description).toBe(plainEvent().description);
      const read = await expectCall('events.get', 200, { path });
      expect(read.location).toBeUndefined();
      expect(read.colorId).toBeUndefined();
      const refused = await expectCall('events.patch', 400, { path, query: quiet, body: { start: null } });
      expect(refused.error.errors[0].location).toBe('start');
    },
  );

  it(
    'behaviour: calendars.patch and calendarList.patch remove nulled fields',
    meta('calendars.patch'),
    async (ctx) => {
      stateful(ctx);
      const calendarId = await ownCalendar('patch null calendar');
      await expectCall('calendars.patch', 200, { path: { calendarId }, body: { description: 'To remove' } });
      const calendar = await expectCall('calendars.patch', 200, {
        path: { calendarId },
        body: { description: null },
      });
      expect(calendar.description).toBeUndefined();
      const refused = await expectCall('calendars.patch', 400, {
        path: { calendarId },
        body: { summary: null },
      });
      expect(refused.error.errors[0].location).toBe('summary');
      await expectCall('calendarList.patch', 200, {
        path: { calendarId },
        body: { summaryOverride: 'Mine' },
      });
      const entry = await expectCall('calendarList.patch', 200, {
        path: { calendarId },
        body: { summaryOverride: null },
      });
      expect(entry.summaryOverride).toBeUndefined();
    },
  );

  it('behaviour: acl.patch refuses null for role', meta('acl.patch'), async (ctx) => {
    stateful(ctx);
    const calendarId = await ownCalendar('patch null acl');
    const rule = await expectCall('acl.insert', 200, {
      path: { calendarId },
      query: { sendNotifications: false },
      body: { role: 'freeBusyReader', scope: { type: 'default' } },
    });
    const refused = await expectCall('acl.patch', 400, {
      path: { calendarId, ruleId: rule.id },
      body: { role: null },
    });
    expect(refused.error.errors[0].location).toBe('role');
  });
});

describe('rule: an event time without offset is read on the clock of its timeZone (decision 0036)', () => {
  const zurich = (dateTime: string) => ({ dateTime, timeZone: 'Europe/Zurich' });

  it('spec: EventDateTime needs the offset only without timeZone', meta('events.insert'), () => {
    const schema = op('events.insert').api.doc.components.schemas.EventDateTime;
    expect(schema.properties.dateTime.format).toBeUndefined();
    expect(schema.if.required).toEqual(['timeZone']);
    expect(schema.else.properties.dateTime.format).toBe('date-time');
  });

  it(
    'behaviour: a weekly 10:00 Zurich event written in local time stays at 10:00 across the DST change',
    meta('events.instances'),
    async (ctx) => {
      stateful(ctx);
      const calendarId = await ownCalendar('local times');
      const event = await expectCall('events.insert', 200, {
        path: { calendarId },
        query: quiet,
        body: plainEvent({
          start: zurich('2030-03-18T10:00:00'),
          end: zurich('2030-03-18T11:00:00'),
          recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
        }),
      });
      expect(Date.parse(event.start.dateTime)).toBe(Date.parse('2030-03-18T09:00:00Z'));
      const instances = await expectCall('events.instances', 200, {
        path: { calendarId, eventId: event.id },
      });
      expect((instances.items as Json[]).map((i) => Date.parse(i.start.dateTime))).toEqual(
        ['2030-03-18T09:00:00Z', '2030-03-25T09:00:00Z', '2030-04-01T08:00:00Z'].map(Date.parse),
      );
      const busy = await expectCall('freebusy.query', 200, {
        body: {
          timeMin: '2030-03-31T00:00:00Z',
          timeMax: '2030-04-02T00:00:00Z',
          items: [{ id: calendarId }],
        },
      });
      expect(
        (busy.calendars[calendarId].busy as Json[]).map((b) => [Date.parse(b.start), Date.parse(b.end)]),
      ).toEqual([[Date.parse('2030-04-01T08:00:00Z'), Date.parse('2030-04-01T09:00:00Z')]]);
    },
  );

  it('behaviour: update, patch and import take local times', meta('events.patch'), async (ctx) => {
    stateful(ctx);
    const calendarId = await ownCalendar('local times writes');
    const event = await expectCall('events.insert', 200, {
      path: { calendarId },
      query: quiet,
      body: plainEvent(),
    });
    const path = { calendarId, eventId: event.id };
    const updated = await expectCall('events.update', 200, {
      path,
      query: quiet,
      body: plainEvent({ start: zurich('2030-07-01T10:00:00'), end: zurich('2030-07-01T11:00:00') }),
    });
    expect(Date.parse(updated.start.dateTime)).toBe(Date.parse('2030-07-01T08:00:00Z'));
    const patched = await expectCall('events.patch', 200, {
      path,
      query: quiet,
      body: { start: zurich('2030-01-07T10:00:00'), end: zurich('2030-01-07T11:00:00') },
    });
    expect(Date.parse(patched.end.dateTime)).toBe(Date.parse('2030-01-07T10:00:00Z'));
    const imported = await expectCall('events.import', 200, {
      path: { calendarId },
      body: plainEvent({
        iCalUID: `gspec-local-${Date.now()}@contract.test`,
        start: zurich('2030-01-08T10:00:00'),
        end: zurich('2030-01-08T11:00:00'),
      }),
    });
    expect(Date.parse(imported.start.dateTime)).toBe(Date.parse('2030-01-08T09:00:00Z'));
  });

  it(
    'behaviour: a local time without timeZone is refused, naming the field',
    meta('events.insert'),
    async (ctx) => {
      stateful(ctx);
      const calendarId = await ownCalendar('local times refused');
      const refused = await expectCall('events.insert', 400, {
        path: { calendarId },
        query: quiet,
        body: plainEvent({ start: { dateTime: '2030-01-07T10:00:00' } }),
      });
      expect(refused.error.errors[0].location).toBe('start.dateTime');
    },
  );
});

describe('rule: get-then-update with a stale etag gets 412', () => {
  for (const operationId of ['events.update', 'events.patch', 'events.delete']) {
    it(`spec: ${operationId} takes If-Match and documents 412 conditionNotMet`, meta(operationId), () => {
      expect(param(op(operationId), 'If-Match', 'header')).toBeDefined();
      const failed = documentedResponse(op(operationId), 412)?.response;
      const examples = Object.values<Json>(failed?.content?.['application/json']?.examples ?? {});
      expect(examples.flatMap((e) => errorReasons(follow(op(operationId).api.doc, e).value.value))).toContain(
        'conditionNotMet',
      );
    });
  }

  it(
    'target: PUT with If-Match, asked for 412, answers 412 conditionNotMet',
    meta('events.update'),
    async (ctx) => {
      mockOnly(ctx);
      const etag = parameterExamples(
        op('events.update').api.doc,
        param(op('events.update'), 'If-Match', 'header'),
      )[0]?.[1];
      const body = await expectCall('events.update', 412, {
        header: { 'If-Match': etag },
        prefer: 'code=412',
      });
      expect(errorReasons(body)).toContain('conditionNotMet');
    },
  );

  it(
    'behaviour: an update with the etag read before another change is refused with 412',
    meta('events.update'),
    async (ctx) => {
      stateful(ctx);
      const calendarId = await ownCalendar('stale etag');
      const event = await expectCall('events.insert', 200, {
        path: { calendarId },
        query: quiet,
        body: plainEvent(),
      });
      const read = await expectCall('events.get', 200, { path: { calendarId, eventId: event.id } });
      await expectCall('events.patch', 200, {
        path: { calendarId, eventId: event.id },
        query: quiet,
        body: { summary: 'Changed meanwhile' },
      });
      const stale = await expectCall('events.update', 412, {
        path: { calendarId, eventId: event.id },
        header: { 'If-Match': read.etag },
        query: quiet,
        body: plainEvent({ summary: 'Lost update' }),
      });
      expect(errorReasons(stale)).toContain('conditionNotMet');
      const current = await expectCall('events.get', 200, { path: { calendarId, eventId: event.id } });
      await expectCall('events.update', 200, {
        path: { calendarId, eventId: event.id },
        header: { 'If-Match': current.etag },
        query: quiet,
        body: plainEvent({ summary: 'Fresh update' }),
      });
    },
  );
});

describe('rule: a patch costs 3 quota units, every other call 1', () => {
  for (const operation of operations.values()) {
    const cost = operation.method === 'patch' ? 3 : 1;
    it(`spec: ${operation.operationId} declares x-quota-cost ${cost}`, meta(operation.operationId), () => {
      expect(operation.operation['x-quota-cost']).toBe(cost);
    });
  }
});

describe('rule: an event is looked up by its iCalUID with events.list', () => {
  it('spec: events.list takes iCalUID, events.get does not', meta('events.list'), () => {
    expect(param(op('events.list'), 'iCalUID')).toBeDefined();
    expect(param(op('events.get'), 'iCalUID')).toBeUndefined();
  });

  it('target: events.list with the example iCalUID answers a valid list', meta('events.list'), async () => {
    const iCalUID = parameterExamples(op('events.list').api.doc, param(op('events.list'), 'iCalUID'))[0]?.[1];
    await expectCall('events.list', 200, { query: { iCalUID } });
  });

  it(
    'behaviour: an imported event is found by its iCalUID, and only it',
    meta('events.list'),
    async (ctx) => {
      stateful(ctx);
      const calendarId = await ownCalendar('iCalUID lookup');
      const iCalUID = `gspec-${Date.now()}@contract.test`;
      await expectCall('events.import', 200, { path: { calendarId }, body: plainEvent({ iCalUID }) });
      await expectCall('events.insert', 200, {
        path: { calendarId },
        query: quiet,
        body: plainEvent({ summary: 'Another' }),
      });
      const found = await expectCall('events.list', 200, { path: { calendarId }, query: { iCalUID } });
      expect((found.items as Json[]).map((e) => e.iCalUID)).toEqual([iCalUID]);
    },
  );
});

const deprecated = Object.values(seeds)
  .flat()
  .filter((s) => s.deprecated)
  .map((s) => s.operationId);

describe('rule: the deprecated conversion operations still answer and are marked deprecated', () => {
  it('spec: the seeds deprecate conversion.get and conversion.getByCustomerId', () => {
    expect(deprecated.sort()).toEqual(['conversion.get', 'conversion.getByCustomerId']);
  });

  for (const operationId of deprecated) {
    it(
      `spec: ${operationId} is deprecated: true with x-deprecation (since, replacement)`,
      meta(operationId),
      () => {
        const operation = op(operationId).operation;
        expect(operation.deprecated).toBe(true);
        expect(operation['x-deprecation'].since).toMatch(/^\d{4}-Q[1-4]$/);
        expect(operation['x-deprecation'].replacement).toEqual(
          expect.objectContaining({
            api: expect.any(String),
            resource: expect.any(String),
            migration: expect.any(String),
          }),
        );
      },
    );

    it(`target: ${operationId} still answers 200 with a valid body`, meta(operationId), async (ctx) => {
      searchAds360(ctx, { conversions: true });
      await expectCall(operationId, 200);
    });
  }

  it(
    'behaviour: inserted conversions are read back by both, in time order, within their date window only',
    meta('conversion.get'),
    async (ctx) => {
      stateful(ctx, { conversions: true });
      const [first, second] = ownConversions('read back', '2031-01-15T10:00:00Z', 2) as [Json, Json];
      await expectCall('conversion.insert', 200, { body: { conversion: [second, first] } });
      const day = { startDate: 20310115, endDate: 20310115, startRow: 0, rowCount: 1000 };
      const byEngine = await expectCall('conversion.get', 200, { query: day });
      expect(conversionIds(byEngine)).toEqual([first.conversionId, second.conversionId]);
      const byCustomer = await expectCall('conversion.getByCustomerId', 200, { query: day });
      expect(conversionIds(byCustomer)).toEqual(conversionIds(byEngine));
      const paged = await expectCall('conversion.get', 200, { query: { ...day, startRow: 1, rowCount: 1 } });
      expect(conversionIds(paged)).toEqual([second.conversionId]);
      const dayBefore = { ...day, startDate: 20310114, endDate: 20310114 };
      expect(conversionIds(await expectCall('conversion.get', 200, { query: dayBefore }))).toEqual([]);
    },
  );
});

/** The conversions of the first conversion.insert example, with ids and times of their own. */
function ownConversions(tag: string, iso: string, count: number): Json[] {
  const rows = (baseRequest(op('conversion.insert')).body as Json).conversion as Json[];
  const run = randomUUID().slice(0, 8);
  return Array.from({ length: count }, (_, i) => ({
    ...structuredClone(rows[i % rows.length]),
    conversionId: `gspec-${tag.replace(/\W+/g, '-')}-${run}-${i}`,
    conversionTimestamp: String(Date.parse(iso) + i * 1000),
  }));
}

function conversionIds(list: Json): string[] {
  return (list.conversion ?? []).map((c: Json) => c.conversionId);
}

function errorLocations(body: Json): string[] {
  return (body?.error?.errors ?? []).map((e: Json) => `${e.location} ${e.reason}`);
}

describe('rule: conversion and availability batches are best effort per row', () => {
  const batches = [
    ['conversion.insert', 'conversion', /^conversion\[\d+\]\.\w+$/],
    ['conversion.update', 'conversion', /^conversion\[\d+\]\.\w+$/],
    ['conversion.updateAvailability', 'availabilities', /^availabilities\[\d+\]\.\w+$/],
  ] as const;

  for (const [operationId, list, location] of batches) {
    it(
      `spec: ${operationId} documents a 400 whose examples name each refused row and field, or no row at all`,
      meta(operationId),
      () => {
        const refused = documentedResponse(op(operationId), 400)?.response;
        const examples = Object.values<Json>(refused?.content?.['application/json']?.examples ?? {});
        expect(examples.length).toBeGreaterThan(0);
        expect(refused.description).toMatch(/no entry names was (stored|recorded)/);
        for (const example of examples) {
          const { error } = follow(op(operationId).api.doc, example).value.value;
          const items = error.errors as Json[];
          const inRows = items.filter((item) => location.test(item.location));
          // An answer names rows (the others were written) or concerns the request as a whole.
          if (inRows.length === 0) {
            for (const item of items) expect(item.location).toBe(list);
            continue;
          }
          expect(inRows).toEqual(items);
          // The message counts the refused rows: the distinct indexes the entries name.
          const rows = new Set(items.map((item) => /\[(\d+)\]/.exec(item.location)?.[1]));
          expect(error.message).toMatch(
            new RegExp(
              `^Refused ${rows.size} of (\\d+) \\w+, named in errors; (stored|changed|recorded) the other \\d+\\.$`,
            ),
          );
          const [, total, , rest] =
            /of (\d+) \w+, named in errors; (\w+) the other (\d+)/.exec(error.message) ?? [];
          expect(Number(total) - rows.size).toBe(Number(rest));
        }
      },
    );
  }

  const window = (day: number) => ({ startDate: day, endDate: day, startRow: 0, rowCount: 1000 });

  it(
    'behaviour: a conversion stored before is refused as duplicate, and the rest of its batch is stored',
    meta('conversion.insert'),
    async (ctx) => {
      stateful(ctx, { conversions: true });
      const [kept, fresh] = ownConversions('duplicate', '2031-02-10T10:00:00Z', 2) as [Json, Json];
      await expectCall('conversion.insert', 200, { body: { conversion: [kept] } });
      const refused = await expectCall('conversion.insert', 400, { body: { conversion: [fresh, kept] } });
      expect(errorLocations(refused)).toEqual(['conversion[1].conversionId duplicate']);
      const stored = await expectCall('conversion.get', 200, { query: window(20310210) });
      expect(conversionIds(stored).sort()).toEqual([kept.conversionId, fresh.conversionId].sort());
    },
  );

  it(
    'behaviour: a partly failing batch names each refused row and stores the others; resent fixed, the stored row is a duplicate',
    meta('conversion.insert'),
    async (ctx) => {
      stateful(ctx, { conversions: true });
      const [fine, unknownActivity, noTime] = ownConversions('partly failing', '2031-03-05T10:00:00Z', 3) as [
        Json,
        Json,
        Json,
      ];
      const originals = structuredClone([fine, unknownActivity, noTime]);
      unknownActivity.segmentationName = 'No such activity';
      delete unknownActivity.segmentationId;
      delete noTime.conversionTimestamp;
      const refused = await expectCall('conversion.insert', 400, {
        body: { conversion: [fine, unknownActivity, noTime] },
      });
      expect(errorLocations(refused)).toEqual([
        'conversion[1].segmentationName notFound',
        'conversion[2].conversionTimestamp required',
      ]);
      expect(refused.error.message).toBe('Refused 2 of 3 conversions, named in errors; stored the other 1.');
      expect(conversionIds(await expectCall('conversion.get', 200, { query: window(20310305) }))).toEqual([
        fine.conversionId,
      ]);
      // Fixed and resent whole, the two refused rows are stored and the stored one is a duplicate.
      const again = await expectCall('conversion.insert', 400, { body: { conversion: originals } });
      expect(errorLocations(again)).toEqual(['conversion[0].conversionId duplicate']);
      expect(
        conversionIds(await expectCall('conversion.get', 200, { query: window(20310305) })),
      ).toHaveLength(3);
    },
  );

  it(
    'behaviour: an update changes the rows it can and names the others',
    meta('conversion.update'),
    async (ctx) => {
      stateful(ctx, { conversions: true });
      const [first, second] = ownConversions('update best effort', '2031-04-02T10:00:00Z', 2) as [Json, Json];
      await expectCall('conversion.insert', 200, { body: { conversion: [first, second] } });
      const refused = await expectCall('conversion.update', 400, {
        body: {
          conversion: [
            { ...first, state: 'REMOVED' },
            { ...second, conversionId: `${second.conversionId}-unknown` },
          ],
        },
      });
      expect(errorLocations(refused)).toEqual(['conversion[1].conversionId notFound']);
      const stored = await expectCall('conversion.get', 200, { query: window(20310402) });
      expect(stored.conversion.map((c: Json) => [c.conversionId, c.state])).toEqual([
        [first.conversionId, 'REMOVED'],
        [second.conversionId, 'ACTIVE'],
      ]);
    },
  );

  it(
    'behaviour: an update finds conversions by their keys, changes what may change and refuses the rest',
    meta('conversion.update'),
    async (ctx) => {
      stateful(ctx, { conversions: true });
      const [sale] = ownConversions('update', '2031-04-01T10:00:00Z', 1) as [Json];
      const inserted = await expectCall('conversion.insert', 200, { body: { conversion: [sale] } });
      const changed = await expectCall('conversion.update', 200, {
        body: { conversion: [{ ...sale, revenueMicros: '1000000', state: 'REMOVED' }] },
      });
      expect(changed.conversion[0]).toMatchObject({
        revenueMicros: '1000000',
        state: 'REMOVED',
        dsConversionId: inserted.conversion[0].dsConversionId,
      });
      const unknown = await expectCall('conversion.update', 400, {
        body: { conversion: [{ ...sale, conversionId: `${sale.conversionId}-unknown` }] },
      });
      expect(errorLocations(unknown)).toEqual(['conversion[0].conversionId notFound']);
      const retyped = await expectCall('conversion.update', 400, {
        body: { conversion: [{ ...sale, type: sale.type === 'ACTION' ? 'TRANSACTION' : 'ACTION' }] },
      });
      expect(errorLocations(retyped)).toContain('conversion[0].type invalid');
      const stored = await expectCall('conversion.get', 200, { query: window(20310401) });
      expect(stored.conversion).toEqual(changed.conversion);
    },
  );
});

describe('rule: the ID-mapping file is CSV', () => {
  const idMapping = 'reports.getIdMappingFile';

  it(
    'spec: the 200 answer is text/csv only, a string, with a Content-Disposition header',
    meta(idMapping),
    () => {
      const response = documentedResponse(op(idMapping), 200)?.response;
      expect(Object.keys(response.content)).toEqual(['text/csv']);
      expect(follow(op(idMapping).api.doc, response.content['text/csv'].schema).value.type).toBe('string');
      expect(response.headers['Content-Disposition']).toBeDefined();
    },
  );

  it(
    'target: the answer is a CSV document whose header line is the documented one',
    meta(idMapping),
    async (ctx) => {
      searchAds360(ctx);
      const answer = await call(idMapping);
      if (currentTarget().kind === 'live' && answer.status !== 200)
        ctx.skip('the live account has no advertiser with the example ids');
      checkAnswer(
        {
          api: op(idMapping).api,
          op: op(idMapping),
          kind: 'positive',
          title: 'csv',
          request: baseRequest(op(idMapping)),
          expect: { kind: 'answer', status: 200 },
        },
        answer,
        currentTarget(),
      );
      expect(answer.contentType).toBe('text/csv');
      const example = Object.values<Json>(
        documentedResponse(op(idMapping), 200)?.response.content['text/csv'].examples,
      )[0];
      const documentedHeader = String(follow(op(idMapping).api.doc, example).value.value).split(/\r?\n/)[0];
      const lines = answer.text.split(/\r?\n/).filter((line) => line !== '');
      expect(lines[0]).toBe(documentedHeader);
      const columns = (line: string) =>
        line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)?.filter((c) => c !== '').length;
      for (const line of lines) expect(columns(line), line).toBe(columns(lines[0] as string));
      expect(answer.headers.get('content-disposition')).toMatch(/^attachment; filename=/);
    },
  );
});
