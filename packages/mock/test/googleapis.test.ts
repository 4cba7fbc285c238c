/**
 * The mock as a drop-in for Google's own Node client: `googleapis`, constructed as for the
 * live services with nothing changed but `rootUrl`, succeeds on every operation of both specs,
 * through both base paths. The operation list, parameters and bodies come from the specs, so
 * a new operation is covered here without a change.
 */
import { google } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, loadApis, parseFaults } from '../src/index.ts';
import {
  loadSpecs,
  operationsOf,
  type SpecOperation,
  sampleBody,
  sampleValue,
  successOf,
} from './support/spec.ts';

// An OAuth2 client that already holds a token: googleapis sends it as a bearer token and never
// asks Google for one, so the tests need no network beyond loopback.
function offlineAuth() {
  const auth = new google.auth.OAuth2();
  auth.setCredentials({ access_token: 'test-token', expiry_date: Date.now() + 3_600_000 });
  return auth;
}

/** Both clients, as a user builds them, pointed at `origin`. */
function clientsFor(origin: string, retryConfig?: object) {
  const options = { auth: offlineAuth(), rootUrl: `${origin}/`, ...(retryConfig ? { retryConfig } : {}) };
  return {
    calendar: google.calendar({ version: 'v3', ...options }),
    searchads360: google.doubleclicksearch({ version: 'v2', ...options }),
  };
}

interface GoogleMethodResult {
  status: number;
  data: unknown;
  headers: Headers | Record<string, string>;
  config: { url?: string | URL };
}
type GoogleMethod = (params: Record<string, unknown>) => Promise<GoogleMethodResult>;

/** `events.list` of the Calendar spec is `calendar.events.list(...)` in googleapis. */
function methodOf(clients: ReturnType<typeof clientsFor>, op: SpecOperation): GoogleMethod {
  const [resource, name] = op.operationId.split('.') as [string, string];
  const client = clients[op.api.id as keyof typeof clients] as unknown as Record<
    string,
    Record<string, GoogleMethod>
  >;
  const group = client[resource];
  const method = group?.[name];
  if (!group || !method) throw new Error(`googleapis has no method ${op.api.id}.${op.operationId}`);
  return method.bind(group);
}

/** The request googleapis is given: every path and required parameter, and the body example. */
function paramsFor(op: SpecOperation): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const param of op.parameters) {
    if (param.in === 'path' || param.required) params[param.name] = sampleValue(op.api.doc, param);
  }
  const body = sampleBody(op);
  if (body !== undefined) params.requestBody = body;
  return params;
}

// googleapis' Headers may come from another fetch implementation than the global one, so
// `instanceof Headers` cannot tell; a `get` method can.
function header(headers: GoogleMethodResult['headers'], name: string): string | null {
  const h = headers as { get?: (name: string) => string | null } & Record<string, string>;
  return typeof h.get === 'function' ? h.get(name) : (h[name] ?? null);
}

/** What googleapis (gaxios) rejects with: Google's envelope, parsed, under `response.data`. */
interface GoogleApiError {
  status?: number;
  message: string;
  response?: { data: { error: { errors: { domain: string; reason: string; location?: string }[] } } };
}

const specs = loadSpecs();
const operations = specs.flatMap(operationsOf);

let gateway: Gateway;
let origin: string;
const seen: string[] = [];

beforeAll(async () => {
  gateway = createGateway({
    apis: await loadApis(),
    verbose: true,
    // The request lines tell which path googleapis really asked for.
    log: (line) => {
      if (/^[A-Z]+ /.test(line)) seen.push(line);
    },
  });
  origin = await gateway.listen(0);
});
afterAll(() => gateway.close());

describe('googleapis against the mock', () => {
  it('covers every operation of both specs', () => {
    expect(operations).toHaveLength(44);
    expect(new Set(operations.map((op) => op.api.basePath))).toEqual(
      new Set(['/calendar/v3', '/doubleclicksearch/v2']),
    );
  });

  it.each(operations.map((op) => [op.operationId, op] as const))(
    '%s succeeds with its documented status',
    async (_id, op) => {
      const want = successOf(op);
      const result = await methodOf(clientsFor(origin), op)(paramsFor(op));
      expect(result.status).toBe(want.status);
      expect(new URL(String(result.config.url)).pathname.startsWith(`${op.api.basePath}/`)).toBe(true);
      if (want.mediaType === undefined) {
        expect(result.data).toBe('');
      } else if (want.mediaType === 'application/json') {
        expect(header(result.headers, 'content-type')).toMatch(/^application\/json/);
        // googleapis parses a body only when it is sent as application/json.
        expect(typeof result.data).toBe('object');
        expect(result.data).not.toBeNull();
      } else {
        expect(header(result.headers, 'content-type')).toMatch(new RegExp(`^${want.mediaType}`));
        expect(typeof result.data).toBe('string');
        expect((result.data as string).length).toBeGreaterThan(0);
      }
    },
  );

  it('accepts path parameters percent-encoded the way googleapis sends them', async () => {
    const { calendar } = clientsFor(origin);
    const result = await calendar.acl.get({ calendarId: 'a@example.com', ruleId: 'user:a@example.com' });
    expect(result.status).toBe(200);
    expect(seen.some((line) => line.includes('/calendars/a%40example.com/acl/user%3Aa%40example.com'))).toBe(
      true,
    );
  });

  it('gives googleapis an error it reads as Google’s, naming the parameter at fault', async () => {
    const { calendar } = clientsFor(origin);
    const error = (await calendar.events
      .list({ calendarId: 'primary', maxResults: 0 })
      .catch((e: unknown) => e)) as GoogleApiError;
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/maxResults/);
    expect(error.response?.data.error.errors[0]).toMatchObject({ reason: 'invalid', location: 'maxResults' });
  });
});

describe('googleapis retrying against injected faults', () => {
  let faulty: Gateway;
  let faultyOrigin: string;
  beforeAll(async () => {
    const apis = await loadApis();
    faulty = createGateway({
      apis,
      faults: parseFaults(
        {
          seed: 1,
          operations: {
            'events.list': { sequence: [{ status: 503, retryAfter: 1 }, 503, 'pass'] },
            'colors.get': { sequence: [{ status: 403, reason: 'rateLimitExceeded' }] },
            'calendarList.list': { sequence: [429, 429, 429, 429, 'pass'] },
          },
        },
        apis,
      ),
    });
    faultyOrigin = await faulty.listen(0);
  });
  afterAll(() => faulty.close());

  // Short delays, so that googleapis' three retries take milliseconds, not seconds.
  const quickRetries = { retryDelay: 5, retryDelayMultiplier: 1 };

  it('succeeds on the third call after two 503s, as googleapis retries them', async () => {
    let retries = 0;
    const { calendar } = clientsFor(faultyOrigin, { ...quickRetries, onRetryAttempt: () => void retries++ });
    const result = await calendar.events.list({ calendarId: 'primary' });
    expect(result.status).toBe(200);
    expect(retries).toBe(2);
  });

  it('gives up after its retries when the errors outlast them', async () => {
    const { calendar } = clientsFor(faultyOrigin, quickRetries);
    const error = (await calendar.calendarList.list().catch((e: unknown) => e)) as GoogleApiError;
    expect(error.status).toBe(429);
  });

  it('passes a 403 rateLimitExceeded to the caller, which googleapis does not retry', async () => {
    const { calendar } = clientsFor(faultyOrigin, quickRetries);
    const error = (await calendar.colors.get().catch((e: unknown) => e)) as GoogleApiError;
    expect(error.status).toBe(403);
    expect(error.response?.data.error.errors[0]).toEqual(
      expect.objectContaining({ domain: 'usageLimits', reason: 'rateLimitExceeded' }),
    );
  });
});
