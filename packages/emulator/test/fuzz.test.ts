/**
 * The emulator under generated requests (fast-check). Requests come from the specs of every
 * API the emulator serves (`emulator.services.list`; see support/fuzz-requests.ts), valid
 * and broken, in sequences from a fresh state with a few calendars and events; every answer
 * must be
 *
 * - below 500 (operations listed in `notImplemented` are left out, and counted);
 * - Google's error envelope when it is not 2xx, with `code` equal to the status;
 * - the refusal the breakage calls for (400 for a wrong value, 401, 405, 415, ...);
 * - valid against the spec (the harness's spec check).
 *
 * The server runs in-process; an unhandled rejection or exception fails the test, and the
 * server must still answer afterwards. A second property runs random sequences of event
 * writes and reads against a model (fc.commands): an etag changes on every write and never on
 * a read, an event lives in exactly one calendar (moved ones are gone from their source), and
 * a sync token replays exactly the events written since (deleted or moved away as
 * `cancelled`), after which the next token replays nothing.
 *
 * The runs are seeded: `FUZZ_SEED=<integer>` replays a run, `FUZZ_SEED=random` draws a seed
 * (printed), and `FUZZ_SCALE=<n>` multiplies the number of runs of both properties, as in
 * `FUZZ_SEED=random FUZZ_SCALE=10 npx vitest run test/fuzz.test.ts`.
 */
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/core/spec.ts';
import {
  type Answer,
  type Draft,
  envelopeProblems,
  envNumber,
  expectedRefusal,
  IdPool,
  RequestGenerator,
  send,
  textArbitrary,
  toWire,
  writeCalendarFixtures,
} from './support/fuzz-requests.ts';
import { useEmulator } from './support/harness.ts';

const SEED = envNumber('FUZZ_SEED', 20_260_302);
const SCALE = Math.max(1, envNumber('FUZZ_SCALE', 1));
const FUZZ_RUNS = 150 * SCALE;
const MODEL_RUNS = 60 * SCALE;

const OWNER = 'fuzz-owner@example.com';
const OTHER = 'fuzz-other@example.com';

const harness = useEmulator();

/** What was sent, for the closing report. */
const stats = {
  requests: 0,
  byClass: new Map<string, number>(),
  byOperation: new Map<string, { sent: number; ok: number }>(),
  byKind: new Map<string, number>(),
  excluded: [] as string[],
};

function count(operationId: string, kind: string, status: number): void {
  stats.requests++;
  const statusClass = `${Math.floor(status / 100)}xx`;
  stats.byClass.set(statusClass, (stats.byClass.get(statusClass) ?? 0) + 1);
  const operation = stats.byOperation.get(operationId) ?? { sent: 0, ok: 0 };
  operation.sent++;
  if (status >= 200 && status < 300) operation.ok++;
  stats.byOperation.set(operationId, operation);
  stats.byKind.set(kind, (stats.byKind.get(kind) ?? 0) + 1);
}

/** Unhandled rejections and exceptions while the fuzz runs: any one fails it. */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtExceptionMonitor', onUnhandled);
  // Watch channels deliver here, never to the addresses of the spec's examples.
  receiver = createServer((request, response) => {
    request.resume();
    response.end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notify`;
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtExceptionMonitor', onUnhandled);
  await harness.emulator?.notifier.idle();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  const classes = [...stats.byClass].sort().map(([k, v]) => `${k} ${v}`);
  const operations = [...stats.byOperation].sort(([a], [b]) => a.localeCompare(b));
  console.log(
    [
      `fuzz: seed ${SEED} (FUZZ_SEED), scale ${SCALE} (FUZZ_SCALE); ${stats.requests} requests: ${classes.join(', ')}`,
      `fuzz: by kind: ${[...stats.byKind].map(([k, v]) => `${k} ${v}`).join(', ')}`,
      `fuzz: ${operations.length} operations reached (sent/2xx): ${operations.map(([id, o]) => `${id} ${o.sent}/${o.ok}`).join(', ')}`,
      `fuzz: ${stats.excluded.length} operations left out as not implemented yet${stats.excluded.length ? `: ${stats.excluded.join(', ')}` : ''}`,
    ].join('\n'),
  );
});

/**
 * Fails with what went wrong so far: unhandled errors, a server that stopped listening, or
 * properties written onto Object.prototype (an id such as `__proto__` used as a key).
 */
async function checkAlive(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (unhandled.length > 0)
    throw new Error(`unhandled: ${String((unhandled[0] as Error)?.stack ?? unhandled[0])}`);
  if (!harness.emulator.server.listening) throw new Error('the server stopped listening');
  const polluted: string[] = [];
  for (const key in {}) polluted.push(key);
  if (polluted.length > 0) throw new Error(`Object.prototype gained ${polluted.join(', ')}`);
}

describe('generated requests from both specs', () => {
  let generators: Map<string, RequestGenerator>;
  let pools: Map<string, IdPool>;

  beforeAll(() => {
    generators = new Map(harness.emulator.services.list.map((s) => [s.name, new RequestGenerator(s)]));
    pools = new Map(harness.emulator.services.list.map((s) => [s.name, new IdPool()]));
    stats.excluded = harness.emulator.services.list.flatMap((s) => s.notImplemented);
  });

  /** A fresh state with something to find: calendars, events (one recurring), a sharing rule. */
  async function freshState(): Promise<void> {
    await harness.reset();
    for (const [name, generator] of generators) {
      const pool = pools.get(name) as IdPool;
      pool.clear();
      generator.seedPool(pool);
    }
    const calendar = generators.get('calendar') as RequestGenerator;
    const pool = pools.get('calendar') as IdPool;
    const write = (operationId: string, path: Record<string, string>, body?: JsonObject) => {
      const result = harness.emulator.invoke(OWNER, operationId, {
        path,
        query: {},
        ...(body ? { body } : {}),
      });
      const op = harness.emulator.services.operation(operationId)?.op;
      if (op)
        calendar.harvest(pool, op, path, { status: result.status, headers: {}, body: result.body, text: '' });
      return result.body as JsonObject;
    };
    writeCalendarFixtures(write, OWNER, OTHER);
  }

  async function exchange(draft: Draft): Promise<void> {
    const generator = generators.get(draft.api) as RequestGenerator;
    const pool = pools.get(draft.api) as IdPool;
    const op = generator.service.spec.byId.get(draft.operationId);
    if (!op) throw new Error(`no operation ${draft.operationId}`);
    const wire = toWire(
      draft,
      op,
      generator.service.spec.basePath,
      pool,
      { owner: OWNER, other: OTHER },
      receiverUrl,
    );
    let answer: Answer;
    try {
      answer = await send(harness.origin, wire);
    } catch (error) {
      throw new Error(`${wire.method} ${wire.target.slice(0, 200)}: no answer: ${(error as Error).message}`);
    }
    count(op.id, draft.mutation?.kind ?? 'valid', answer.status);
    const problems: string[] = [];
    if (answer.status >= 500) problems.push(`a ${answer.status}`);
    problems.push(...envelopeProblems(answer));
    const expected = expectedRefusal(draft, op, generator.service, wire.target);
    if (expected === 'any4xx' && (answer.status < 400 || answer.status > 499))
      problems.push(`expected a 4xx for ${draft.mutation?.kind}`);
    if (typeof expected === 'number' && answer.status !== expected)
      problems.push(`expected ${expected} for ${draft.mutation?.kind}`);
    problems.push(...harness.violations.splice(0));
    if (problems.length > 0)
      throw new Error(
        `${wire.method} ${wire.target.slice(0, 300)} (${op.id}) → ${answer.status}: ${problems.join('; ')}\n${answer.text.slice(0, 600)}`,
      );
    generator.harvest(pool, op, wire.pathParams, answer);
  }

  it('answers every generated request below 500, in the envelope, as the spec says', async () => {
    // Each API in proportion to its number of operations.
    const drafts = fc.oneof(
      ...[...generators.values()]
        .filter((g) => g.operations.length > 0)
        .map((g) => ({ weight: g.operations.length, arbitrary: g.draft() })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(drafts, { minLength: 5, maxLength: 40, size: 'max' }), async (sequence) => {
        await freshState();
        for (const draft of sequence) await exchange(draft);
        await checkAlive();
      }),
      { seed: SEED, numRuns: FUZZ_RUNS },
    );
    const health = await send(harness.origin, { method: 'GET', target: '/__emulator/health', headers: {} });
    expect(health.status).toBe(200);
    expect(stats.requests).toBeGreaterThan(1000);
  }, 120_000);

  it('answers a body over the limit, overlong headers and what is not HTTP in the envelope', async () => {
    await freshState();
    const auth = { authorization: `Bearer ${OWNER}`, 'content-type': 'application/json' };
    const big = await send(harness.origin, {
      method: 'POST',
      target: '/calendar/v3/calendars/primary/events',
      headers: auth,
      body: JSON.stringify({ summary: 'x'.repeat(11 * 2 ** 20) }),
    });
    count('events.insert', 'oversized', big.status);
    expect(big.status).toBe(413);
    expect(envelopeProblems(big)).toEqual([]);
    const long = await send(harness.origin, {
      method: 'GET',
      target: `/calendar/v3/calendars/primary/events?q=${'q'.repeat(20_000)}`,
      headers: auth,
    });
    count('events.list', 'oversized', long.status);
    expect(long.status).toBe(431);
    expect(envelopeProblems(long)).toEqual([]);
    // Not HTTP at all: Node's parser refuses it before any handler runs.
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(harness.origin).port), '127.0.0.1', () =>
        socket.end('NOT HTTP AT ALL\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk;
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const [head = '', body = ''] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(envelopeProblems({ status: 400, headers: {}, body: JSON.parse(body), text: body })).toEqual([]);
    await checkAlive();
  });
});

describe('invariants of event writes (model-based)', () => {
  type Status = 'confirmed' | 'cancelled';
  interface Model {
    /** The owner's primary calendar and two others. */
    calendars: string[];
    /** The events not deleted: where each lives, its current etag and every etag it had. */
    live: Map<string, { calendar: string; etag: string; history: string[] }>;
    /** Every etag any event has had: a write must give one never seen. */
    etags: Set<string>;
    /** Per calendar: the last sync token, and what was written since (id → status). */
    sync: Map<string, { token: string; changed: Map<string, Status> }>;
  }
  type Real = Record<string, never>;
  type Command = fc.AsyncCommand<Model, Real>;

  const enc = encodeURIComponent;
  const eventsOf = (calendar: string) => `/calendar/v3/calendars/${enc(calendar)}/events`;

  /** A request of the model run: counted, and checked for the envelope and against the spec. */
  async function api(
    operationId: string,
    method: string,
    path: string,
    options: { query?: Record<string, string>; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const query = new URLSearchParams(options.query).toString();
    const answer = await send(harness.origin, {
      method,
      target: `${path}${query ? `?${query}` : ''}`,
      headers: {
        authorization: `Bearer ${OWNER}`,
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
    count(operationId, 'model', answer.status);
    const problems = [...envelopeProblems(answer), ...harness.violations.splice(0)];
    if (problems.length > 0) throw new Error(`${method} ${path} → ${answer.status}: ${problems.join('; ')}`);
    return answer;
  }

  // biome-ignore lint/suspicious/noExplicitAny: answers are read freely; the spec check types them.
  const bodyOf = (answer: Answer): any => answer.body;

  function written(model: Model, calendar: string, id: string, status: Status): void {
    model.sync.get(calendar)?.changed.set(id, status);
  }

  function newEtag(model: Model, etag: unknown, what: string): string {
    expect(typeof etag, `${what}: an etag`).toBe('string');
    expect(model.etags.has(etag as string), `${what}: etag ${String(etag)} seen before`).toBe(false);
    model.etags.add(etag as string);
    return etag as string;
  }

  const liveIds = (model: Model) => [...model.live.keys()];
  const calendarOf = (model: Model, n: number) => model.calendars[n % model.calendars.length] as string;

  const times = fc
    .record({
      day: fc.integer({ min: 1, max: 28 }),
      hour: fc.integer({ min: 0, max: 22 }),
      allDay: fc.boolean(),
    })
    .map(({ day, hour, allDay }) => {
      const date = `2026-04-${String(day).padStart(2, '0')}`;
      if (allDay) {
        const next = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
        return { start: { date }, end: { date: next } };
      }
      const at = (h: number) => `${date}T${String(h).padStart(2, '0')}:00:00Z`;
      return { start: { dateTime: at(hour) }, end: { dateTime: at(hour + 1) } };
    });
  const fields = fc.record(
    {
      summary: textArbitrary(0, 30),
      description: textArbitrary(0, 60),
      location: textArbitrary(0, 20),
      transparency: fc.constantFrom('opaque', 'transparent'),
      extendedProperties: fc.record({
        private: fc.dictionary(textArbitrary(1, 8), textArbitrary(0, 8), { maxKeys: 2 }),
      }),
    },
    { requiredKeys: [] },
  );
  const fullBody = fc.tuple(fields, times).map(([f, t]) => ({ ...f, ...t }));
  const patchBody = fc.tuple(fields, fc.option(times, { nil: undefined })).map(([f, t]) => ({ ...f, ...t }));

  class Insert implements Command {
    constructor(
      readonly calendar: number,
      readonly body: unknown,
    ) {}
    check = () => true;
    async run(model: Model) {
      const calendar = calendarOf(model, this.calendar);
      const answer = await api('events.insert', 'POST', eventsOf(calendar), { body: this.body });
      expect(answer.status, answer.text).toBe(200);
      const { id, etag } = bodyOf(answer);
      const tag = newEtag(model, etag, 'insert');
      model.live.set(id, { calendar, etag: tag, history: [tag] });
      written(model, calendar, id, 'confirmed');
    }
    toString = () => `insert(${this.calendar}, ${JSON.stringify(this.body)})`;
  }

  class Write implements Command {
    constructor(
      readonly method: 'PATCH' | 'PUT',
      readonly event: number,
      readonly body: unknown,
      readonly precondition: 'current' | 'stale' | 'none',
    ) {}
    check = (model: Readonly<Model>) => model.live.size > 0;
    async run(model: Model) {
      const id = liveIds(model)[this.event % model.live.size] as string;
      const event = model.live.get(id) as NonNullable<ReturnType<Model['live']['get']>>;
      const operationId = this.method === 'PATCH' ? 'events.patch' : 'events.update';
      const stale =
        event.history.find((tag) => tag !== event.etag) ??
        [...model.etags].find((tag) => tag !== event.etag) ??
        '"0"';
      const ifMatch =
        this.precondition === 'current' ? event.etag : this.precondition === 'stale' ? stale : undefined;
      const answer = await api(operationId, this.method, `${eventsOf(event.calendar)}/${enc(id)}`, {
        body: this.body,
        ...(ifMatch ? { headers: { 'if-match': ifMatch } } : {}),
      });
      if (this.precondition === 'stale') {
        expect(answer.status, answer.text).toBe(412);
        // Neither the refused write nor this read changes the etag.
        const read = await api('events.get', 'GET', `${eventsOf(event.calendar)}/${enc(id)}`);
        expect(bodyOf(read).etag).toBe(event.etag);
        return;
      }
      expect(answer.status, answer.text).toBe(200);
      event.etag = newEtag(model, bodyOf(answer).etag, operationId);
      event.history.push(event.etag);
      written(model, event.calendar, id, 'confirmed');
    }
    toString = () => `${this.method}(${this.event}, ${JSON.stringify(this.body)}, ${this.precondition})`;
  }

  class Delete implements Command {
    constructor(
      readonly event: number,
      readonly withIfMatch: boolean,
    ) {}
    check = (model: Readonly<Model>) => model.live.size > 0;
    async run(model: Model) {
      const id = liveIds(model)[this.event % model.live.size] as string;
      const event = model.live.get(id) as NonNullable<ReturnType<Model['live']['get']>>;
      const path = `${eventsOf(event.calendar)}/${enc(id)}`;
      const answer = await api(
        'events.delete',
        'DELETE',
        path,
        this.withIfMatch ? { headers: { 'if-match': event.etag } } : {},
      );
      expect(answer.status, answer.text).toBe(204);
      model.live.delete(id);
      written(model, event.calendar, id, 'cancelled');
      // A deletion is a write too: the cancelled event has an etag of its own.
      const read = await api('events.get', 'GET', path);
      expect(bodyOf(read).status).toBe('cancelled');
      newEtag(model, bodyOf(read).etag, 'delete');
    }
    toString = () => `delete(${this.event}, ifMatch=${this.withIfMatch})`;
  }

  class Move implements Command {
    constructor(
      readonly event: number,
      readonly destination: number,
    ) {}
    check = (model: Readonly<Model>) => model.live.size > 0;
    async run(model: Model) {
      const id = liveIds(model)[this.event % model.live.size] as string;
      const event = model.live.get(id) as NonNullable<ReturnType<Model['live']['get']>>;
      const source = event.calendar;
      const others = model.calendars.filter((c) => c !== source);
      const destination = others[this.destination % others.length] as string;
      const answer = await api('events.move', 'POST', `${eventsOf(source)}/${enc(id)}/move`, {
        query: { destination },
      });
      expect(answer.status, answer.text).toBe(200);
      expect(bodyOf(answer).id).toBe(id);
      event.etag = newEtag(model, bodyOf(answer).etag, 'move');
      event.history.push(event.etag);
      event.calendar = destination;
      written(model, source, id, 'cancelled');
      written(model, destination, id, 'confirmed');
      // Gone from the source (only its cancelled copy, for sync, is left), there in the destination.
      const before = await api('events.get', 'GET', `${eventsOf(source)}/${enc(id)}`);
      if (before.status === 200) expect(bodyOf(before).status).toBe('cancelled');
      else expect(before.status).toBe(404);
      const after = await api('events.get', 'GET', `${eventsOf(destination)}/${enc(id)}`);
      expect(bodyOf(after)).toMatchObject({ status: 'confirmed', etag: event.etag });
    }
    toString = () => `move(${this.event}, ${this.destination})`;
  }

  class Get implements Command {
    constructor(readonly event: number) {}
    check = (model: Readonly<Model>) => model.live.size > 0;
    async run(model: Model) {
      const id = liveIds(model)[this.event % model.live.size] as string;
      const event = model.live.get(id) as NonNullable<ReturnType<Model['live']['get']>>;
      const answer = await api('events.get', 'GET', `${eventsOf(event.calendar)}/${enc(id)}`);
      expect(answer.status).toBe(200);
      expect(bodyOf(answer)).toMatchObject({ id, status: 'confirmed', etag: event.etag });
    }
    toString = () => `get(${this.event})`;
  }

  /** Every calendar's list holds exactly its live events, with their current etags. */
  async function checkLists(model: Model): Promise<void> {
    const seen = new Map<string, string[]>();
    for (const calendar of model.calendars) {
      const answer = await api('events.list', 'GET', eventsOf(calendar), { query: { maxResults: '2500' } });
      expect(answer.status).toBe(200);
      for (const item of bodyOf(answer).items as { id: string; etag: string }[]) {
        seen.set(item.id, [...(seen.get(item.id) ?? []), calendar]);
        expect(item.etag, `etag of ${item.id} in a list`).toBe(model.live.get(item.id)?.etag);
      }
    }
    const expected = new Map([...model.live].map(([id, e]) => [id, [e.calendar]]));
    expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(expected));
  }

  class List implements Command {
    check = () => true;
    run = (model: Model) => checkLists(model);
    toString = () => 'list()';
  }

  /** The calendar's changes since its token are exactly the model's; the next token has none. */
  async function checkSync(model: Model, calendar: string, pageSize: number): Promise<void> {
    const sync = model.sync.get(calendar) as NonNullable<ReturnType<Model['sync']['get']>>;
    const found = new Map<string, Status>();
    let query: Record<string, string> = { syncToken: sync.token, maxResults: String(pageSize) };
    let next: string | undefined;
    for (let page = 0; page < 100 && !next; page++) {
      const answer = await api('events.list', 'GET', eventsOf(calendar), { query });
      expect(answer.status, answer.text).toBe(200);
      const body = bodyOf(answer);
      for (const item of body.items as { id: string; status: Status; etag: string }[]) {
        expect(found.has(item.id), `${item.id} twice in one sync`).toBe(false);
        found.set(item.id, item.status);
        if (item.status === 'confirmed') expect(item.etag).toBe(model.live.get(item.id)?.etag);
      }
      if (body.nextSyncToken) next = body.nextSyncToken;
      else query = { syncToken: sync.token, maxResults: String(pageSize), pageToken: body.nextPageToken };
    }
    expect(Object.fromEntries(found), `the changes of ${calendar} since its token`).toEqual(
      Object.fromEntries(sync.changed),
    );
    const again = await api('events.list', 'GET', eventsOf(calendar), {
      query: { syncToken: next as string },
    });
    expect(bodyOf(again).items, 'a second sync right after').toEqual([]);
    sync.token = bodyOf(again).nextSyncToken;
    sync.changed.clear();
  }

  class Sync implements Command {
    constructor(
      readonly calendar: number,
      readonly pageSize: number,
    ) {}
    check = () => true;
    run = (model: Model) => checkSync(model, calendarOf(model, this.calendar), this.pageSize);
    toString = () => `sync(${this.calendar}, pages of ${this.pageSize})`;
  }

  const commands = [
    fc.tuple(fc.nat(), fullBody).map(([c, body]) => new Insert(c, body)),
    fc
      .tuple(
        fc.nat(),
        patchBody,
        fc.constantFrom('current', 'stale', 'none') as fc.Arbitrary<'current' | 'stale' | 'none'>,
      )
      .map(([e, body, p]) => new Write('PATCH', e, body, p)),
    fc
      .tuple(
        fc.nat(),
        fullBody,
        fc.constantFrom('current', 'stale', 'none') as fc.Arbitrary<'current' | 'stale' | 'none'>,
      )
      .map(([e, body, p]) => new Write('PUT', e, body, p)),
    fc.tuple(fc.nat(), fc.boolean()).map(([e, withIfMatch]) => new Delete(e, withIfMatch)),
    fc.tuple(fc.nat(), fc.nat()).map(([e, d]) => new Move(e, d)),
    fc.nat().map((e) => new Get(e)),
    fc.constant(new List()),
    fc.tuple(fc.nat(), fc.constantFrom(1, 2, 3, 2500)).map(([c, size]) => new Sync(c, size)),
  ];

  it('keeps etags, one calendar per event and sync tokens exact through random writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 40, size: 'max' }), async (sequence) => {
        await harness.reset();
        const calendars = [OWNER];
        for (const summary of ['Model A', 'Model B']) {
          const made = await api('calendars.insert', 'POST', '/calendar/v3/calendars', { body: { summary } });
          calendars.push(bodyOf(made).id);
        }
        const model: Model = { calendars, live: new Map(), etags: new Set(), sync: new Map() };
        for (const calendar of calendars) {
          const full = await api('events.list', 'GET', eventsOf(calendar));
          model.sync.set(calendar, { token: bodyOf(full).nextSyncToken, changed: new Map() });
        }
        await fc.asyncModelRun(() => ({ model, real: {} }), sequence);
        // After any sequence: the lists agree with the model, and every calendar's sync is exact.
        await checkLists(model);
        for (const calendar of calendars) await checkSync(model, calendar, 2500);
        await checkAlive();
      }),
      { seed: SEED, numRuns: MODEL_RUNS },
    );
  }, 120_000);
});
