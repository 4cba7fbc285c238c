/**
 * A running emulator for a test file, with every answer checked against the spec (see
 * spec-check.ts). `expectSpecCompliance()` runs after each test: an answer that breaks the
 * spec fails the test that caused it.
 *
 * With `EMULATOR_TEST_STORE=postgres` the emulator keeps its state in a PostgreSQL database of
 * the file's own; with `EMULATOR_TEST_STORE=postgres-3` three emulators (the same options each)
 * share that database and `origin` is a round-robin front (@gspec/scripts/round-robin) that
 * sends each request to the next of them, so consecutive requests of a test land on different
 * processes. `emulator` is then the first of them, for in-process access, except that its
 * `notifier.idle()` waits for the deliveries of all three (a change is told by the process that
 * committed it).
 */
import type { ValidatingProxy, ViolationReport } from '@gspec/mock';
import { type RoundRobin, startRoundRobin } from '@gspec/scripts/round-robin';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { loadCalendarSpec } from '../../src/apis/calendar/spec.ts';
import type { Emulator, EmulatorOptions, Exchange } from '../../src/core/server.ts';
import type { ApiName } from '../../src/core/spec.ts';
import { createEmulator } from '../../src/emulator.ts';
import { instancesOnPostgres, suitesOnPostgres, usePostgres } from './postgres.ts';
import { createResponseCheck, type ResponseCheck } from './spec-check.ts';

export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test answers are read freely; the spec check types them.
  body: any;
  /** The body as sent; `body` is it parsed when the answer is JSON, else undefined. */
  text: string;
}

export interface CallOptions {
  token?: string | null;
  query?: Record<string, string | number | boolean | string[]>;
  body?: unknown;
  headers?: Record<string, string>;
  /** The API whose base path `path` is under; Calendar when not given. */
  api?: ApiName;
}

export interface Harness {
  emulator: Emulator;
  /** Every emulator of the harness: `[emulator]`, or the three with `EMULATOR_TEST_STORE=postgres-3`. */
  instances: Emulator[];
  origin: string;
  base: string;
  call(method: string, path: string, options?: CallOptions): Promise<Reply>;
  reset(): Promise<void>;
  /**
   * Runs in-process work on `emulator` (`applySeed`, `invoke`...). On a shared store it runs in
   * a turn's transaction, as a request does (`emulator.shared.run`): memory is brought up to
   * date with what the other processes wrote first, and what the work changed is committed
   * before the promise resolves, so every instance sees it. Else it just runs.
   */
  inProcess<T>(work: () => T): Promise<T>;
  /** The spec violations of the answers so far in the running test; emptied after each test. */
  violations: string[];
}

export const spec = loadCalendarSpec();

/**
 * The admin credential of the emulators tests make (core/admin.ts): strict mode locks the
 * control plane without one. `call` sends it to every path under /__emulator.
 */
export const TEST_ADMIN_TOKEN = 'admin-credential-of-the-tests';

/**
 * What `useEmulator` puts before the emulator. `throughProxy`: the mock's validating proxy
 * (`gspec-mock --proxy`), through which every API call of the tests then goes (the control
 * plane, `/__emulator`, does not: the proxy relays only the APIs); the object's `report` is set
 * to the proxy's report.
 */
export interface HarnessOptions {
  throughProxy?: { report?: ViolationReport };
}

export function useEmulator(options: EmulatorOptions = {}, harnessOptions: HarnessOptions = {}): Harness {
  const proxy = harnessOptions.throughProxy;
  const violations: string[] = [];
  const harness = { violations } as Harness;
  // EMULATOR_TEST_STORE=postgres: the same tests on a shared store, in a database of the file's own.
  const database = suitesOnPostgres && !options.persist ? usePostgres('suite') : undefined;
  // Each API's answers against its own spec; paths under no API's base path by the first.
  let checks: { basePath: string; check: ResponseCheck }[] = [];
  const checkOf = (exchange: Exchange) =>
    (checks.find((c) => exchange.path.startsWith(`${c.basePath}/`)) ?? (checks[0] as (typeof checks)[number]))
      .check;
  let front: RoundRobin | undefined;
  /** The emulator's own origin (the front's, on a shared store), and the proxy before it if any. */
  let direct = '';
  let validating: ValidatingProxy | undefined;
  beforeAll(async () => {
    const make = () =>
      createEmulator({
        admin: { token: TEST_ADMIN_TOKEN },
        ...options,
        ...(database ? { store: database.url } : {}),
        specs: { calendar: spec },
        onResponse: (exchange) => violations.push(...checkOf(exchange)(exchange)),
      });
    const first = make();
    harness.instances = [first];
    harness.emulator = first;
    checks = first.services.list.map((s) => ({
      basePath: s.spec.basePath,
      check: createResponseCheck(s.spec, s.notImplemented),
    }));
    // The first one makes the database's state (from the options' seed, say); the others load it.
    const origins = [await first.listen(0)];
    if (database && instancesOnPostgres > 1) {
      const others = Array.from({ length: instancesOnPostgres - 1 }, make);
      harness.instances.push(...others);
      origins.push(...(await Promise.all(others.map((other) => other.listen(0)))));
      front = await startRoundRobin(origins);
      harness.emulator = withSharedNotifier(first, harness.instances);
    }
    direct = front?.origin ?? (origins[0] as string);
    harness.origin = direct;
    if (proxy) {
      const mock = await import('@gspec/mock');
      proxy.report = new mock.ViolationReport(direct, () => undefined);
      validating = mock.createProxy({ apis: await mock.loadApis(), upstream: direct, report: proxy.report });
      harness.origin = await validating.listen(0);
    }
    harness.base = `${harness.origin}${spec.basePath}`;
  });
  afterAll(async () => {
    await validating?.close();
    await front?.close();
    await Promise.all((harness.instances ?? []).map((instance) => instance.close()));
  });
  afterEach(() => {
    const found = violations.splice(0);
    expect(found, 'answers that break the spec').toEqual([]);
  });
  harness.call = async (method, path, callOptions = {}) => {
    const api = harness.emulator.services.list.find((s) => s.name === callOptions.api);
    const base = api ? `${harness.origin}${api.spec.basePath}` : harness.base;
    const url = new URL(path.startsWith('/__') ? `${direct}${path}` : `${base}${path}`);
    for (const [key, value] of Object.entries(callOptions.query ?? {})) {
      for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(one));
    }
    const headers: Record<string, string> = {
      ...(path.startsWith('/__emulator') ? { 'x-emulator-admin-token': TEST_ADMIN_TOKEN } : {}),
      ...callOptions.headers,
    };
    const token = callOptions.token === undefined ? 'ana@example.com' : callOptions.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (callOptions.body !== undefined) {
      body = typeof callOptions.body === 'string' ? callOptions.body : JSON.stringify(callOptions.body);
      headers['content-type'] ??= 'application/json';
    }
    const init = { method, headers, ...(body !== undefined ? { body } : {}) };
    const response = await fetch(url, init).catch((error: unknown) => {
      // fetch pools its connections per origin across the worker's test files: on a busy
      // machine a pooled socket to a server that has closed (one that had the same port) can be
      // picked before its close is seen, and the request never reaches this emulator. Such a
      // reset is sent again once, on a new connection; any other failure is the test's.
      const code = (error as { cause?: { code?: string } }).cause?.code;
      if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return fetch(url, init);
      throw error;
    });
    const text = await response.text();
    const json = /json/.test(response.headers.get('content-type') ?? '');
    const parsed = text && json ? JSON.parse(text) : undefined;
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  harness.inProcess = async (work) => {
    const shared = harness.emulator.shared;
    if (!shared) return work();
    const outcome = await shared.run(work);
    if (!outcome.ran || outcome.failure) throw outcome.failure;
    return outcome.value;
  };
  harness.reset = async () => {
    const reply = await harness.call('POST', '/__emulator/reset');
    expect(reply.status).toBe(204);
  };
  return harness;
}

/**
 * The first emulator, as it is, but for `notifier.idle()`, which waits until every instance's
 * deliveries are done: a test that waits for "every delivery under way" waits for all of them,
 * whichever process committed the change.
 */
function withSharedNotifier(first: Emulator, all: Emulator[]): Emulator {
  const idle = async () => {
    await Promise.all(all.map((instance) => instance.notifier.idle()));
  };
  const notifier = new Proxy(first.notifier, {
    get(target, key) {
      if (key === 'idle') return idle;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return new Proxy(first, {
    get(target, key) {
      return key === 'notifier' ? notifier : Reflect.get(target, key, target);
    },
  });
}

/** An event body with the given start hour on 2026-03-02 (UTC), one hour long. */
export function timedEvent(summary: string, hour = 9, extra: Record<string, unknown> = {}) {
  const at = (h: number) => `2026-03-02T${String(h).padStart(2, '0')}:00:00Z`;
  return { summary, start: { dateTime: at(hour) }, end: { dateTime: at(hour + 1) }, ...extra };
}
