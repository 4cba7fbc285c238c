/**
 * The fault file: what it accepts, how it refuses a mistake (naming the field), and how the
 * rules play out call by call.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  FAULTS_SCHEMA,
  FaultConfigError,
  FaultInjector,
  type FaultStep,
  loadApis,
  type MockApi,
  parseFaults,
  readFaultFile,
} from '../src/index.ts';

let apis: MockApi[];
beforeAll(async () => {
  apis = await loadApis();
});

const fixedSeed = () => 7;

describe('a fault file is refused, naming the field at fault, when', () => {
  it.each<[string, unknown, string | RegExp]>([
    ['it is not an object', [], 'the file: expected a JSON object'],
    ['it has an unknown top-level field', { operations: {}, rules: [] }, 'the file.rules: unknown field'],
    ['operations is missing', { seed: 1 }, 'operations: expected an object of rules'],
    [
      'the seed is not a whole number',
      { seed: 1.5, operations: {} },
      'seed: expected a whole number, found 1.5',
    ],
    [
      'an operation id is unknown',
      { operations: { 'events.lsit': { errorRate: 0.1 } } },
      /operations\["events\.lsit"\]: no operation has this operationId; did you mean "events\.list"/,
    ],
    [
      'a rule has an unknown field',
      { operations: { 'events.list': { errorrate: 0.1 } } },
      'operations["events.list"].errorrate: unknown field; expected one of latencyMs, errorRate',
    ],
    [
      'the error rate is above 1',
      { operations: { 'events.list': { errorRate: 10 } } },
      'operations["events.list"].errorRate: expected a share from 0 to 1',
    ],
    [
      'the latency is negative',
      { operations: { '*': { latencyMs: -5 } } },
      'operations["*"].latencyMs: expected milliseconds from 0',
    ],
    [
      'a latency range runs backwards',
      { operations: { 'events.list': { latencyMs: [200, 100] } } },
      'operations["events.list"].latencyMs: expected milliseconds',
    ],
    [
      'a sequence is empty',
      { operations: { 'events.list': { sequence: [] } } },
      'operations["events.list"].sequence: expected a non-empty array',
    ],
    [
      'a sequence step is neither "pass", a status nor an object',
      { operations: { 'events.list': { sequence: [503, 'ok'] } } },
      'operations["events.list"].sequence[1]: expected "pass", a status such as 503',
    ],
    [
      'an injected error is not an error status',
      { operations: { 'events.list': { sequence: [{ status: 200, reason: 'x' }] } } },
      'operations["events.list"].sequence[0].status: expected an HTTP status from 400 to 599, found 200',
    ],
    [
      'the operation does not document the status',
      { operations: { 'colors.get': { sequence: [409] } } },
      /operations\["colors\.get"\]\.sequence\[0\]\.status: colors\.get documents no 409 answer \(it documents 200, /,
    ],
    [
      'a "*" status is not documented by every operation',
      { operations: { '*': { error: 410 } } },
      /operations\["\*"\]\.error\.status: calendars\.insert documents no 410 answer/,
    ],
    [
      'Retry-After is neither seconds nor a date',
      { operations: { 'events.list': { sequence: [{ status: 503, retryAfter: 'soon' }] } } },
      'operations["events.list"].sequence[0].retryAfter: expected whole seconds (such as 2) or an HTTP date, found "soon"',
    ],
    [
      'a scripted example does not exist',
      { operations: { 'events.list': { sequence: [{ status: 410, example: 'gone' }] } } },
      /operations\["events\.list"\]\.sequence\[0\]: events\.list has no example "gone" for 410 \(it has "fullSyncRequired"/,
    ],
    [
      'the default answer names neither status nor example',
      { operations: { 'events.list': { respond: {} } } },
      'operations["events.list"].respond: give a status, an example, or both',
    ],
    [
      'the error of an error rate is "pass"',
      { operations: { 'events.list': { errorRate: 0.5, error: 'pass' } } },
      'operations["events.list"].error: "pass" is not an error',
    ],
    [
      'repeat has no sequence',
      { operations: { 'events.list': { repeat: true } } },
      'operations["events.list"].repeat: there is no sequence to repeat',
    ],
  ])('%s', (_title, file, message) => {
    expect(() => parseFaults(file, apis, 'faults.json', fixedSeed)).toThrow(FaultConfigError);
    expect(() => parseFaults(file, apis, 'faults.json', fixedSeed)).toThrow(
      typeof message === 'string' ? `faults.json: ${message}` : message,
    );
  });

  it('the file is not JSON', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gspec-faults-'));
    const file = path.join(dir, 'faults.json');
    writeFileSync(file, '{ "operations": ');
    expect(() => readFaultFile(file, apis)).toThrow(`${file}:1:17: `);
  });

  it('the file does not exist', () => {
    expect(() => readFaultFile('/no/such/faults.json', apis)).toThrow('/no/such/faults.json: no such file');
  });
});

describe('a fault step written as', () => {
  it.each<[string, unknown, FaultStep]>([
    ['"pass"', 'pass', { kind: 'pass' }],
    [
      'a bare 503',
      503,
      {
        kind: 'error',
        status: 503,
        reason: 'backendError',
        domain: 'global',
        message: 'The service is currently unavailable.',
      },
    ],
    [
      'a 429 with Retry-After',
      { status: 429, retryAfter: 2 },
      {
        kind: 'error',
        status: 429,
        reason: 'rateLimitExceeded',
        domain: 'usageLimits',
        message: 'Rate Limit Exceeded',
        retryAfter: '2',
      },
    ],
    [
      'a 403 rateLimitExceeded',
      { status: 403, reason: 'rateLimitExceeded' },
      {
        kind: 'error',
        status: 403,
        reason: 'rateLimitExceeded',
        domain: 'usageLimits',
        message: 'Rate Limit Exceeded',
      },
    ],
    [
      'a 403 with its own message and domain',
      { status: 403, reason: 'insufficientPermissions', message: 'No scope', domain: 'global' },
      {
        kind: 'error',
        status: 403,
        reason: 'insufficientPermissions',
        domain: 'global',
        message: 'No scope',
      },
    ],
    [
      'a Retry-After date',
      { status: 503, retryAfter: '2026-01-01T00:00:00Z' },
      {
        kind: 'error',
        status: 503,
        reason: 'backendError',
        domain: 'global',
        message: 'The service is currently unavailable.',
        retryAfter: 'Thu, 01 Jan 2026 00:00:00 GMT',
      },
    ],
    [
      'a spec example',
      { status: 410, example: 'fullSyncRequired' },
      { kind: 'example', code: 410, exampleKey: 'fullSyncRequired' },
    ],
  ])('%s is read as the step it means', (_title, step, want) => {
    const config = parseFaults({ operations: { 'events.list': { sequence: [step] } } }, apis, 'f', fixedSeed);
    expect(config.operations.get('events.list')?.sequence).toEqual([want]);
  });
});

describe('the rules of a fault file', () => {
  it('apply "*" to every operation and let an operation override its fields', () => {
    const config = parseFaults(
      { seed: 3, operations: { '*': { latencyMs: 20, errorRate: 0.1 }, 'events.list': { errorRate: 0 } } },
      apis,
    );
    expect(config.operations.size).toBe(44);
    expect(config.operations.get('colors.get')).toMatchObject({ latencyMs: [20, 20], errorRate: 0.1 });
    expect(config.operations.get('events.list')).toMatchObject({ latencyMs: [20, 20], errorRate: 0 });
  });

  it('draw a seed when the file sets none, and say so', () => {
    const config = parseFaults({ operations: {} }, apis, 'f', fixedSeed);
    expect(config).toMatchObject({ seed: 7, seeded: false });
  });
});

/** The kinds (or statuses) of the next `n` answers of an operation. */
function play(injector: FaultInjector, id: string, n: number): (string | number)[] {
  return Array.from({ length: n }, () => {
    const step = injector.next(id);
    return step.kind === 'error' ? step.status : step.kind;
  });
}

describe('the fault injector', () => {
  it('plays a sequence once, then answers normally', () => {
    const injector = new FaultInjector(
      parseFaults({ seed: 1, operations: { 'events.list': { sequence: [503, 503, 'pass', 429] } } }, apis),
    );
    expect(play(injector, 'events.list', 6)).toEqual([503, 503, 'pass', 429, 'pass', 'pass']);
    expect(play(injector, 'colors.get', 2)).toEqual(['pass', 'pass']);
  });

  it('plays a repeated sequence over and over', () => {
    const injector = new FaultInjector(
      parseFaults(
        { seed: 1, operations: { 'events.list': { sequence: [503, 'pass'], repeat: true } } },
        apis,
      ),
    );
    expect(play(injector, 'events.list', 5)).toEqual([503, 'pass', 503, 'pass', 503]);
  });

  it('starts over on reset', () => {
    const injector = new FaultInjector(
      parseFaults({ seed: 1, operations: { 'events.list': { sequence: [503] } } }, apis),
    );
    expect(play(injector, 'events.list', 2)).toEqual([503, 'pass']);
    injector.reset();
    expect(injector.calls()['events.list']).toBe(0);
    expect(play(injector, 'events.list', 2)).toEqual([503, 'pass']);
  });

  it('injects errors at about the configured rate, the same ones for the same seed', () => {
    const file = { seed: 42, operations: { 'events.list': { errorRate: 0.25, error: { status: 429 } } } };
    const first = play(new FaultInjector(parseFaults(file, apis)), 'events.list', 2000);
    const second = play(new FaultInjector(parseFaults(file, apis)), 'events.list', 2000);
    expect(second).toEqual(first);
    const errors = first.filter((answer) => answer === 429).length;
    expect(errors).toBeGreaterThan(400);
    expect(errors).toBeLessThan(600);
    const other = play(new FaultInjector(parseFaults({ ...file, seed: 43 }, apis)), 'events.list', 2000);
    expect(other).not.toEqual(first);
  });

  it('draws each operation from its own stream, so other traffic does not change its faults', () => {
    const file = {
      seed: 5,
      operations: { 'events.list': { errorRate: 0.5 }, 'colors.get': { errorRate: 0.5 } },
    };
    const alone = play(new FaultInjector(parseFaults(file, apis)), 'events.list', 50);
    const mixed = new FaultInjector(parseFaults(file, apis));
    const interleaved = Array.from({ length: 50 }, () => {
      mixed.next('colors.get');
      const step = mixed.next('events.list');
      return step.kind === 'error' ? step.status : step.kind;
    });
    expect(interleaved).toEqual(alone);
  });

  it('adds a fixed latency, or one drawn from the range', () => {
    const injector = new FaultInjector(
      parseFaults(
        { seed: 9, operations: { 'colors.get': { latencyMs: 150 }, 'events.list': { latencyMs: [10, 20] } } },
        apis,
      ),
    );
    expect(injector.latency('colors.get')).toBe(150);
    expect(injector.latency('events.get')).toBe(0);
    const drawn = Array.from({ length: 200 }, () => injector.latency('events.list'));
    expect(Math.min(...drawn)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...drawn)).toBeLessThanOrEqual(20);
    expect(new Set(drawn).size).toBeGreaterThan(5);
  });

  it('gives the default answer of an operation for requests that name none', () => {
    const injector = new FaultInjector(
      parseFaults(
        { operations: { 'events.list': { respond: { status: 410, example: 'updatedMinTooLongAgo' } } } },
        apis,
      ),
    );
    expect(injector.respond('events.list')).toEqual({ code: 410, exampleKey: 'updatedMinTooLongAgo' });
    expect(injector.respond('events.get')).toBeUndefined();
  });
});

describe('the README', () => {
  // The examples users copy must stay valid as the specs change.
  const readme = readFileSync(path.resolve(import.meta.dirname, '../README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] as string));

  it.each(blocks.map((block, i) => [i + 1, block] as const))(
    'shows a valid fault file in JSON block %i',
    (_i, block) => {
      expect(() => parseFaults(block, apis, 'README', fixedSeed)).not.toThrow();
    },
  );

  it('shows at least the full example of the fault file', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
  });
});

describe('faults.schema.json (published) and parseFaults give the same verdicts on shape', () => {
  const file = path.resolve(import.meta.dirname, '../dist/schemas/faults.schema.json');
  const schema = JSON.parse(readFileSync(file, 'utf8'));
  // A validator that knows nothing but the published file, as an editor.
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
  const parses = (value: unknown) => {
    try {
      parseFaults(value, apis, 'faults.json', fixedSeed);
      return true;
    } catch {
      return false;
    }
  };

  it('the built file is FAULTS_SCHEMA, and the package exports it', () => {
    expect(schema).toEqual(FAULTS_SCHEMA);
    const manifest = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../package.json'), 'utf8'));
    expect(manifest.exports['./schemas/*.json']).toBe('./dist/schemas/*.json');
  });

  it("takes the README's fault file, and with $schema too", () => {
    const readme = readFileSync(path.resolve(import.meta.dirname, '../README.md'), 'utf8');
    const block = /<!-- consumer-test: faults-file -->\s*```json\n([\s\S]*?)```/.exec(readme)?.[1];
    const value = JSON.parse(block ?? 'null');
    expect([validate(value), parses(value)]).toEqual([true, true]);
    const named = { $schema: './node_modules/@gspec/mock/dist/schemas/faults.schema.json', ...value };
    expect([validate(named), parses(named)]).toEqual([true, true]);
  });

  it.each<[string, unknown]>([
    ['no operations', { seed: 1 }],
    ['an unknown field', { operations: {}, retries: 3 }],
    ['a seed that is not whole', { seed: 1.5, operations: {} }],
    ['a rule that is not an object', { operations: { 'events.list': 503 } }],
    ['an unknown rule field', { operations: { 'events.list': { delay: 5 } } }],
    ['an error rate over 1', { operations: { 'events.list': { errorRate: 2 } } }],
    ['a latency range of three', { operations: { 'events.list': { latencyMs: [1, 2, 3] } } }],
    ['a negative latency', { operations: { 'events.list': { latencyMs: -1 } } }],
    ['an empty sequence', { operations: { 'events.list': { sequence: [] } } }],
    ['a step that is a word', { operations: { 'events.list': { sequence: ['ok'] } } }],
    [
      'an injected success status',
      { operations: { 'events.list': { sequence: [{ status: 200, reason: 'x' }] } } },
    ],
    ['an empty reason', { operations: { 'events.list': { sequence: [{ status: 503, reason: '' }] } } }],
    ['a step without status or example', { operations: { 'events.list': { sequence: [{ reason: 'x' }] } } }],
    ['repeat that is not a boolean', { operations: { 'events.list': { sequence: [503], repeat: 'yes' } } }],
    ['an empty respond', { operations: { 'events.list': { respond: {} } } }],
    ['a respond with an unknown field', { operations: { 'events.list': { respond: { code: 404 } } } }],
    ['a good rule', { operations: { 'events.list': { latencyMs: [1, 5], errorRate: 0.5, error: 429 } } }],
    [
      'a good example step',
      { operations: { 'events.list': { sequence: [{ status: 410, example: 'fullSyncRequired' }] } } },
    ],
  ])('%s', (_name, value) => {
    expect(validate(value)).toBe(parses(value));
  });
});
