/**
 * Conformance of the emulator to both specs, with the checks Schemathesis runs
 * (support/conformance.ts), over requests generated from the specs (support/fuzz-requests.ts):
 * at least 10,000 cases per API per run, against an in-process emulator in strict mode with a
 * users map (so that an unknown token is a wrong credential). Every check also runs against a
 * proxy in front of the emulator that breaks one route in the way the check catches, and must
 * report a failure there (and none on the same cases without the proxy).
 *
 * The run is seeded: `FUZZ_SEED=<n>` replays one, `FUZZ_SEED=random` draws one (printed),
 * `FUZZ_SCALE=<n>` multiplies the cases. The report (by check and by operation) is printed and
 * written to reports/conformance.json and reports/conformance.md (reports/ is not committed).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../src/core/server.ts';
import type { Service } from '../src/core/services.ts';
import { follow, isObject, type JsonObject, type OperationSpec, readApiSpec } from '../src/core/spec.ts';
import { createEmulator } from '../src/emulator.ts';
import {
  type Breakage,
  brokenProxy,
  CaseChecker,
  CHECKS,
  type CheckId,
  ConformanceReport,
  describeRequest,
  type Exclusions,
  jsonAnswer,
} from './support/conformance.ts';
import {
  type Answer,
  type Draft,
  envNumber,
  IdPool,
  RequestGenerator,
  send,
  toWire,
  type Wire,
  writeCalendarFixtures,
} from './support/fuzz-requests.ts';
import { spec as calendarSpec, TEST_ADMIN_TOKEN } from './support/harness.ts';
import { createResponseCheck } from './support/spec-check.ts';

const SEED = envNumber('FUZZ_SEED', 20_260_422);
const SCALE = Math.max(1, envNumber('FUZZ_SCALE', 1));
/** Cases per API: requests in sequences of SEQUENCE from a fresh state. */
const CASES_PER_API = 10_000 * SCALE;
const SEQUENCE = 50;
/** Create → read → delete → read-again sequences per run. */
const FLOWS = 300 * SCALE;

const OWNER = 'conformance-owner@example.com';
const OTHER = 'conformance-other@example.com';
const TOKENS = { owner: 'owner-token', other: 'other-token' };
const USERS = { [TOKENS.owner]: OWNER, [TOKENS.other]: OTHER };
/** A bearer token the users map does not know: in strict mode, a wrong credential. */
const STRANGER = 'Bearer stranger-token';

/**
 * Checks turned off for an operation, each narrowed to the refusal it is about and with its
 * reason.
 */
const LEAP_SECOND = {
  when: /^400 invalid (start|end) is not a date or time that can be placed in time/,
  reason:
    "a leap second (:60), which RFC 3339 and so the spec's dateTime pattern allow: the emulator cannot place it in time and refuses it; whether Google takes one is not known",
};
const EXCLUSIONS: Exclusions = {
  positive_data_acceptance: {
    'events.insert': LEAP_SECOND,
    'events.import': LEAP_SECOND,
    'events.update': LEAP_SECOND,
    'events.patch': LEAP_SECOND,
  },
};

const report = new ConformanceReport(SEED);
let emulator: Emulator;
let origin: string;
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  console.log(`conformance: seed ${SEED} (FUZZ_SEED), scale ${SCALE} (FUZZ_SCALE)`);
  receiver = createServer((request, response) => {
    request.resume();
    response.end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notify`;
  emulator = createEmulator({
    strict: true,
    users: USERS,
    admin: { token: TEST_ADMIN_TOKEN },
    specs: { calendar: calendarSpec },
  });
  origin = await emulator.listen(0);
});

afterAll(async () => {
  await emulator?.notifier.idle();
  await emulator?.close();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  mkdirSync(new URL('../reports/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL('../reports/conformance.json', import.meta.url),
    `${JSON.stringify(report.toJson(), null, 2)}\n`,
  );
  writeFileSync(new URL('../reports/conformance.md', import.meta.url), report.toMarkdown());
  console.log(report.summary());
});

/** One API's generator, pool and checker against an origin (the emulator, or a proxy before it). */
class Runner {
  readonly generator: RequestGenerator;
  readonly pool = new IdPool();
  readonly checker: CaseChecker;

  constructor(
    readonly service: Service,
    readonly into: ConformanceReport,
    /** Where the requests go: the emulator, or a proxy in front of it. */
    public target: string,
    /** The emulator behind it, for resets and in-process writes. */
    readonly behind: () => { emulator: Emulator; origin: string } = () => ({ emulator, origin }),
  ) {
    this.generator = new RequestGenerator(service);
    this.checker = new CaseChecker(
      service,
      createResponseCheck(service.spec, service.notImplemented),
      into,
      EXCLUSIONS,
    );
  }

  op(id: string): OperationSpec {
    const op = this.service.spec.byId.get(id);
    if (!op) throw new Error(`no operation ${id}`);
    return op;
  }

  /** A fresh state with something to find (calendars, events, a rule), its ids in the pool. */
  async fresh(): Promise<void> {
    const { emulator, origin } = this.behind();
    const reset = await send(origin, {
      method: 'POST',
      target: '/__emulator/reset',
      headers: { 'x-emulator-admin-token': TEST_ADMIN_TOKEN },
    });
    if (reset.status !== 204) throw new Error(`reset answered ${reset.status}: ${reset.text}`);
    this.pool.clear();
    this.generator.seedPool(this.pool);
    if (this.service.name !== 'calendar') return;
    const write = (operationId: string, path: Record<string, string>, body?: JsonObject) => {
      const result = emulator.invoke(OWNER, operationId, { path, query: {}, ...(body ? { body } : {}) });
      this.generator.harvest(this.pool, this.op(operationId), path, {
        status: result.status,
        headers: {},
        body: result.body,
        text: '',
      });
      return result.body as JsonObject;
    };
    writeCalendarFixtures(write, OWNER, OTHER);
  }

  wire(draft: Draft) {
    return toWire(
      draft,
      this.op(draft.operationId),
      this.service.spec.basePath,
      this.pool,
      TOKENS,
      receiverUrl,
    );
  }

  /** Sends a draft, checks the answer, harvests its ids. */
  async case(draft: Draft): Promise<{ wire: Wire; answer: Answer }> {
    const op = this.op(draft.operationId);
    const wire = this.wire(draft);
    let answer: Answer;
    try {
      answer = await send(this.target, wire);
    } catch (error) {
      throw new Error(`${describeRequest(wire)}: no answer: ${(error as Error).message}`);
    }
    this.checker.check(draft, op, wire, answer);
    if (!draft.mutation) this.generator.harvest(this.pool, op, wire.pathParams, answer);
    return { wire, answer };
  }

  /** Drafts of every operation, valid and broken, and some with a token no user has. */
  drafts(): fc.Arbitrary<Draft> {
    const stranger = fc
      .constantFrom(...this.generator.operations)
      .chain((op) => this.generator.valid(op))
      .map((draft): Draft => ({ ...draft, mutation: { kind: 'badCredentials', authorization: STRANGER } }));
    return fc.oneof({ weight: 19, arbitrary: this.generator.draft() }, { weight: 1, arbitrary: stranger });
  }
}

/**
 * Create → read → delete → read, update and delete again, for every resource the spec lets a
 * client create, read and delete by id: a POST on a collection answering the schema the GET of
 * `collection/{id}` answers, and a DELETE on that path.
 */
interface Flow {
  creator: OperationSpec;
  getter: OperationSpec;
  deleter: OperationSpec;
  updaters: OperationSpec[];
  idName: string;
}

function successRef(service: Service, op: OperationSpec): string | undefined {
  let response = op.responses[String(op.successStatus)];
  if (isObject(response) && typeof response.$ref === 'string')
    response = follow(service.spec.document, response.$ref, op.where);
  const content =
    isObject(response) && isObject(response.content) ? response.content['application/json'] : undefined;
  const schema = isObject(content) ? content.schema : undefined;
  return isObject(schema) && typeof schema.$ref === 'string' ? schema.$ref : undefined;
}

function flowsOf(service: Service, implemented: OperationSpec[]): Flow[] {
  const flows: Flow[] = [];
  for (const getter of implemented) {
    const last = /^(.*)\/\{([^}]+)\}$/.exec(getter.path);
    if (getter.method !== 'GET' || !last) continue;
    const [, collection, idName] = last as unknown as [string, string, string];
    const ref = successRef(service, getter);
    const deleter = implemented.find((o) => o.method === 'DELETE' && o.path === getter.path);
    const updaters = implemented.filter(
      (o) => (o.method === 'PATCH' || o.method === 'PUT') && o.path === getter.path,
    );
    for (const creator of implemented)
      if (
        creator.method === 'POST' &&
        creator.path === collection &&
        ref &&
        successRef(service, creator) === ref &&
        deleter
      )
        flows.push({ creator, getter, deleter, updaters, idName });
  }
  return flows;
}

/** A 200 that shows the resource deleted, as the spec documents for kept deletions (sync, showDeleted). */
const markedDeleted = (body: unknown): boolean =>
  isObject(body) && (body.status === 'cancelled' || body.deleted === true || body.role === 'none');

const gone = (answer: Answer): boolean => answer.status === 404 || answer.status === 410;

async function runFlow(runner: Runner, flow: Flow, draft: Draft): Promise<void> {
  const api = runner.service.name;
  const { wire, answer: created } = await runner.case(draft);
  const request = describeRequest(wire);
  const record = (check: CheckId, outcome: Parameters<ConformanceReport['record']>[3]) =>
    runner.into.record(api, flow.creator.id, check, outcome);
  if (
    created.status < 200 ||
    created.status > 299 ||
    !isObject(created.body) ||
    typeof created.body.id !== 'string'
  ) {
    const skip = `the creation was refused (${created.status})`;
    record('ensure_resource_availability', { skip });
    record('use_after_free', { skip });
    return;
  }
  const sent = JSON.parse(wire.body ?? '{}') as JsonObject;
  const body = created.body;
  const id = body.id as string;
  const names = [...flow.getter.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  const params = { ...wire.pathParams, [flow.idName]: id };
  const pathOf = (op: OperationSpec) =>
    `${runner.service.spec.basePath}${op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      encodeURIComponent(params[name] ?? ''),
    )}`;
  if (!names.every((name) => name in params))
    throw new Error(`${flow.getter.id}: no value for a path parameter`);
  if (Object.values(params).some((value) => /\p{Cs}/u.test(value))) {
    // The service took a lone surrogate (valid JSON, \ud800) into the id; no URL can carry it.
    const skip = 'the id holds a lone surrogate, which no URL can carry';
    record('ensure_resource_availability', { skip });
    record('use_after_free', { skip });
    return;
  }
  const call = (op: OperationSpec, method = op.method, payload?: unknown) =>
    send(runner.target, {
      method,
      target: pathOf(op),
      headers: {
        authorization: `Bearer ${TOKENS.owner}`,
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(payload !== undefined ? { body: JSON.stringify(payload) } : {}),
    });

  // 11. Readable once created: the same id, and every field sent as the creation stored it.
  const read = await call(flow.getter);
  const readBody = read.body;
  const problems: string[] = [];
  if (read.status !== 200) problems.push(`GET answered ${read.status}`);
  else if (!isObject(readBody) || readBody.id !== id)
    problems.push(`GET answered id ${String(isObject(readBody) ? readBody.id : readBody)}`);
  else
    for (const key of Object.keys(sent))
      if (key in body && JSON.stringify(readBody[key]) !== JSON.stringify(body[key]))
        problems.push(
          `${key} reads ${JSON.stringify(readBody[key])?.slice(0, 80)}, created ${JSON.stringify(body[key])?.slice(0, 80)}`,
        );
  record(
    'ensure_resource_availability',
    problems.length === 0
      ? { pass: true }
      : {
          fail: `ensure_resource_availability of ${flow.creator.id} → ${flow.getter.id}: ${request} then GET ${pathOf(flow.getter)} → ${read.status}: ${problems.join('; ')} ${read.text.slice(0, 200)}`,
        },
  );

  // 10. Gone once deleted: a read is 404/410 (or 200 marked deleted where the spec keeps deleted
  // ones for sync), and a write or a second delete is 404/410.
  const deleted = await call(flow.deleter);
  if (deleted.status < 200 || deleted.status > 299) {
    record('use_after_free', { skip: `the delete was refused (${deleted.status} ${flow.deleter.id})` });
    return;
  }
  const after: string[] = [];
  const again = await call(flow.getter);
  if (!gone(again) && !(again.status === 200 && markedDeleted(again.body)))
    after.push(
      `${flow.getter.id} answered ${again.status}${again.status === 200 ? ' with the resource not marked deleted' : ''}`,
    );
  const twice = await call(flow.deleter);
  if (!gone(twice)) after.push(`${flow.deleter.id} again answered ${twice.status}`);
  // Writing the deleted resource back as read (or an empty patch) must not bring it back.
  for (const updater of flow.updaters) {
    const answer = await call(
      updater,
      updater.method,
      updater.method === 'PUT' ? (again.status === 200 ? again.body : sent) : {},
    );
    if (!gone(answer) && !(answer.status === 200 && markedDeleted(answer.body)))
      after.push(
        `${updater.id} answered ${answer.status}${answer.status === 200 ? ' with the resource not marked deleted' : ''}`,
      );
  }
  record(
    'use_after_free',
    after.length === 0
      ? { pass: true }
      : {
          fail: `use_after_free of ${flow.creator.id}: ${request}, then DELETE ${pathOf(flow.deleter)}: ${after.join('; ')}`,
        },
  );
}

const serviceOf = (emu: Emulator, name: string): Service => {
  const service = emu.services.list.find((s) => s.name === name);
  if (!service) throw new Error(`no service ${name}`);
  return service;
};

describe('conformance to the specs', () => {
  for (const name of ['calendar', 'searchads360'])
    it(`${name}: every check on ${CASES_PER_API} generated cases`, async () => {
      const runner = new Runner(serviceOf(emulator, name), report, origin);
      const before = report.cases.get(name) ?? 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(runner.drafts(), { minLength: SEQUENCE, maxLength: SEQUENCE }),
          async (sequence) => {
            await runner.fresh();
            for (const draft of sequence) await runner.case(draft);
          },
        ),
        { seed: SEED, numRuns: Math.ceil(CASES_PER_API / SEQUENCE), endOnFailure: true },
      );
      if (
        !runner.generator.operations.some((op) => op.parameters.some((p) => p.in === 'header' && p.required))
      )
        report.record(name, '(all)', 'missing_required_header', {
          skip: 'no operation documents a required header parameter (the required X-Goog-* headers are those of the notifications the emulator sends); shown on a spec copy below',
        });
      const flows = flowsOf(runner.service, runner.generator.operations);
      if (flows.length === 0)
        for (const check of ['use_after_free', 'ensure_resource_availability'] as const)
          report.record(name, '(all)', check, {
            skip: "no operation creates a resource that a GET of collection/{id} reads back (Search Ads 360 reads conversions by a date-range query; the pairing comes with the spec's OpenAPI links)",
          });
      else
        await fc.assert(
          fc.asyncProperty(
            fc
              .constantFrom(...flows)
              .chain((flow) => runner.generator.valid(flow.creator).map((draft) => ({ flow, draft }))),
            async ({ flow, draft }) => {
              await runner.fresh();
              await runFlow(runner, flow, { ...draft, asOther: false });
            },
          ),
          { seed: SEED, numRuns: FLOWS },
        );
      expect(report.cases.get(name) ?? 0).toBeGreaterThanOrEqual(before + CASES_PER_API);
      const failures = report.failures.filter(
        (f) => emulator.services.operation(f.operationId)?.service.name === name,
      );
      expect(failures.map((f) => `${f.check}: ${f.message}`).slice(0, 15), 'conformance failures').toEqual(
        [],
      );
    });
});

/**
 * Each check against a proxy that breaks one Calendar route the way the check catches: the
 * same cases find no failure of that check on the emulator itself, and at least one through
 * the broken route.
 */
describe('each check fails on a route broken its way', () => {
  let proxy: { origin: string; server: Server };
  let breakage: Breakage | undefined;
  /** The emulator the proxy forwards to. */
  let behindOrigin = '';
  /** The emulator of the missing-header check: events.update with If-Match made required. */
  let strictIfMatch: { emulator: Emulator; origin: string };
  const CASES = 25;
  const envelope = (status: number, reason: string, message: string) =>
    jsonAnswer(status, { error: { code: status, message, errors: [{ domain: 'global', reason, message }] } });

  beforeAll(async () => {
    proxy = await brokenProxy(
      () => behindOrigin,
      () => breakage,
    );
    const document = structuredClone(calendarSpec.document) as JsonObject;
    const paths = document.paths as Record<string, Record<string, { parameters: JsonObject[] }>>;
    const update = paths['/calendars/{calendarId}/events/{eventId}']?.put;
    if (!update) throw new Error('no events.update in the spec');
    update.parameters = update.parameters.map((p) =>
      p.$ref === '#/components/parameters/IfMatch'
        ? { name: 'If-Match', in: 'header', required: true, schema: { type: 'string' } }
        : p,
    );
    const other = createEmulator({
      strict: true,
      users: USERS,
      admin: { token: TEST_ADMIN_TOKEN },
      specs: { calendar: readApiSpec(document) },
    });
    strictIfMatch = { emulator: other, origin: await other.listen(0) };
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => proxy?.server.close(() => resolve()));
    await strictIfMatch?.emulator.close();
  });

  /** The operation a request through the proxy is for. */
  const is = (service: Service, wire: { method: string; target: string }, operationId: string) => {
    const path = wire.target.split('?')[0] as string;
    const routed = service.router.route(wire.method, path.slice(service.spec.basePath.length));
    return routed.kind === 'operation' && routed.operation.id === operationId;
  };

  /**
   * Sends the same cases to the emulator and through the broken proxy; returns the failures of
   * `check` each time. `drafts` gets the runner (for its generator).
   */
  async function compare(
    check: CheckId,
    drafts: (runner: Runner) => fc.Arbitrary<Draft>,
    broken: (service: Service) => Breakage,
    behind: { emulator: Emulator; origin: string } = { emulator, origin },
    flow?: (runner: Runner, draft: Draft) => Promise<void>,
  ): Promise<{ intact: number; broken: number; cases: number; messages: string[] }> {
    const service = serviceOf(behind.emulator, 'calendar');
    const counts: number[] = [];
    let messages: string[] = [];
    let cases = 0;
    for (const breaking of [undefined, broken(service)]) {
      const local = new ConformanceReport(SEED);
      const runner = new Runner(service, local, breaking ? proxy.origin : behind.origin, () => behind);
      breakage = breaking;
      behindOrigin = behind.origin;
      await runner.fresh();
      for (const draft of fc.sample(drafts(runner), { seed: SEED, numRuns: CASES })) {
        if (flow) await flow(runner, draft);
        else await runner.case(draft);
      }
      breakage = undefined;
      counts.push(local.failed(check));
      cases = [...local.byCheck]
        .filter(([key]) => key.endsWith(` ${check}`))
        .reduce((n, [, t]) => n + t.cases, 0);
      messages = local.failures.filter((f) => f.check === check).map((f) => f.message);
    }
    return { intact: counts[0] as number, broken: counts[1] as number, cases, messages };
  }

  const valid = (id: string) => (runner: Runner) =>
    runner.generator
      .valid(runner.op(id))
      .map((d): Draft => ({ ...d, fromPool: d.fromPool ?? 0, asOther: false }));
  const answering =
    (id: string, change: (answer: Answer) => Answer) =>
    (service: Service): Breakage => ({
      answer: (wire, answer) => (is(service, wire, id) ? change(answer) : answer),
    });
  const eventsGet = valid('events.get');

  const cases: [CheckId, string, () => ReturnType<typeof compare>][] = [
    [
      'not_a_server_error',
      'events.get answers 500',
      () =>
        compare('not_a_server_error', eventsGet, (service) => ({
          request: (wire) =>
            is(service, wire, 'events.get') ? envelope(500, 'backendError', 'Broken on purpose') : undefined,
        })),
    ],
    [
      'status_code_conformance',
      'events.get answers 202, which it does not document',
      () =>
        compare(
          'status_code_conformance',
          eventsGet,
          answering('events.get', (a) => (a.status === 200 ? { ...a, status: 202 } : a)),
        ),
    ],
    [
      'content_type_conformance',
      'events.get answers text/plain',
      () =>
        compare(
          'content_type_conformance',
          eventsGet,
          answering('events.get', (a) => ({ ...a, headers: { ...a.headers, 'content-type': 'text/plain' } })),
        ),
    ],
    [
      'response_schema_conformance',
      'events.get answers summary as a number',
      () =>
        compare(
          'response_schema_conformance',
          eventsGet,
          answering('events.get', (a) =>
            a.status === 200 && isObject(a.body) ? jsonAnswer(200, { ...a.body, summary: 12345 }) : a,
          ),
        ),
    ],
    [
      'negative_data_rejection',
      'events.insert accepts invalid data',
      () =>
        compare(
          'negative_data_rejection',
          (runner) =>
            runner.generator
              .invalid(runner.op('events.insert'))
              .filter((d) =>
                ['wrongFieldType', 'badFieldValue', 'missingField', 'notAnObject', 'wrongParameter'].includes(
                  d.mutation?.kind ?? '',
                ),
              )
              .map((d): Draft => ({ ...d, fromPool: d.fromPool ?? 0, asOther: false })),
          answering('events.insert', (a) =>
            a.status >= 400 && a.status < 500
              ? jsonAnswer(200, { kind: 'calendar#event', id: 'accepted', status: 'confirmed' })
              : a,
          ),
        ),
    ],
    [
      'positive_data_acceptance',
      'events.insert refuses valid data',
      () =>
        compare('positive_data_acceptance', valid('events.insert'), (service) => ({
          request: (wire) =>
            is(service, wire, 'events.insert') ? envelope(400, 'invalid', 'Refused on purpose') : undefined,
        })),
    ],
    [
      'missing_required_header',
      'events.update (If-Match required) ignores its absence',
      () =>
        compare(
          'missing_required_header',
          (runner) =>
            valid('events.update')(runner).map(
              (d): Draft => ({
                ...d,
                mutation: { kind: 'missingParameter', name: 'If-Match', in: 'header' },
              }),
            ),
          (service) => ({
            request: (wire) => {
              if (is(service, wire, 'events.update') && wire.headers['if-match'] === undefined)
                wire.headers['if-match'] = '*';
              return undefined;
            },
          }),
          strictIfMatch,
        ),
    ],
    [
      'unsupported_method',
      'a wrong method on events/{eventId} answers 404',
      () =>
        compare(
          'unsupported_method',
          (runner) =>
            eventsGet(runner).map(
              (d): Draft => ({ ...d, mutation: { kind: 'wrongMethod', method: 'COPY' } }),
            ),
          () => ({ answer: (_wire, a) => (a.status === 405 ? envelope(404, 'notFound', 'Not Found') : a) }),
        ),
    ],
    [
      'ignored_auth',
      'events.list lets a missing or wrong credential through',
      () =>
        compare(
          'ignored_auth',
          (runner) =>
            fc
              .tuple(
                valid('events.list')(runner),
                fc.constantFrom(null, '', 'Bearer', 'Basic dXNlcjpwYXNz', STRANGER),
              )
              .map(
                ([d, authorization]): Draft => ({
                  ...d,
                  mutation: { kind: 'badCredentials', authorization },
                }),
              ),
          (service) => ({
            request: (wire) => {
              if (is(service, wire, 'events.list')) wire.headers.authorization = `Bearer ${TOKENS.owner}`;
              return undefined;
            },
          }),
        ),
    ],
  ];
  for (const flowCheck of ['use_after_free', 'ensure_resource_availability'] as const) {
    const title =
      flowCheck === 'use_after_free'
        ? 'events.delete does not delete'
        : 'events.get does not find a created event';
    cases.push([
      flowCheck,
      title,
      () =>
        compare(
          flowCheck,
          valid('events.insert'),
          (service) => ({
            request: (wire) => {
              if (flowCheck === 'use_after_free' && is(service, wire, 'events.delete'))
                return { status: 204, headers: {}, text: '' };
              if (flowCheck === 'ensure_resource_availability' && is(service, wire, 'events.get'))
                return envelope(404, 'notFound', 'Not Found');
              return undefined;
            },
          }),
          undefined,
          async (runner, draft) => {
            const flow = flowsOf(runner.service, runner.generator.operations).find(
              (f) => f.creator.id === 'events.insert',
            );
            if (!flow) throw new Error('no events.insert → events.get flow');
            await runFlow(runner, flow, draft);
          },
        ),
    ]);
  }

  it('covers every check', () => {
    expect(cases.map(([check]) => check).sort()).toEqual(CHECKS.map((c) => c.id).sort());
  });
  for (const [check, title, run] of cases)
    it(`${check}: ${title}`, async () => {
      const result = await run();
      expect(result.cases, `${check} applied to no case`).toBeGreaterThan(0);
      expect(result.intact, `${check} failed on the emulator itself: ${result.messages.join('\n')}`).toBe(0);
      expect(result.broken, `${check} did not see the broken route`).toBeGreaterThan(0);
    });
});
