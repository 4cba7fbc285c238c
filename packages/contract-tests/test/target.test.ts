/** How the suite reads its target from the environment (CONTRACT_TARGET, CONTRACT_TOKEN, CONTRACT_ALLOW_WRITES). */
import { describe, expect, it } from 'vitest';
import { authCase, documentedCases, negativeCases, positiveCases } from './support/cases.ts';
import { skipReason } from './support/run.ts';
import { loadSpecs, operationsOf } from './support/spec.ts';
import { EMULATOR_TOKEN, isStateful, MOCK_TOKEN, SKIP, targetFromEnv } from './support/target.ts';

describe('the target', () => {
  it('is the mock by default and with CONTRACT_TARGET=mock', () => {
    expect(targetFromEnv({})).toEqual({ kind: 'mock', token: MOCK_TOKEN, allowWrites: true });
    expect(targetFromEnv({ CONTRACT_TARGET: 'mock' }).kind).toBe('mock');
  });

  it('is the emulator with CONTRACT_TARGET=emulator: started by the run, stateful, writable', () => {
    const target = targetFromEnv({ CONTRACT_TARGET: 'emulator' });
    expect(target).toEqual({ kind: 'emulator', token: EMULATOR_TOKEN, allowWrites: true });
    expect(isStateful(target)).toBe(true);
    expect(isStateful(targetFromEnv({}))).toBe(false);
  });

  it('is the emulator on a shared store with CONTRACT_TARGET=emulator-shared: to the suite, the emulator', () => {
    const target = targetFromEnv({ CONTRACT_TARGET: 'emulator-shared' });
    expect(target).toEqual({ kind: 'emulator', token: EMULATOR_TOKEN, allowWrites: true, shared: true });
    expect(isStateful(target)).toBe(true);
    expect(targetFromEnv({ CONTRACT_TARGET: 'emulator' }).shared).toBeUndefined();
  });

  it('is the live services at a base URL, with a token, read-only unless CONTRACT_ALLOW_WRITES=1', () => {
    expect(targetFromEnv({ CONTRACT_TARGET: 'https://www.googleapis.com/', CONTRACT_TOKEN: 't' })).toEqual({
      kind: 'live',
      origin: 'https://www.googleapis.com',
      token: 't',
      allowWrites: false,
    });
    expect(
      targetFromEnv({
        CONTRACT_TARGET: 'https://www.googleapis.com',
        CONTRACT_TOKEN: 't',
        CONTRACT_ALLOW_WRITES: '1',
      }).allowWrites,
    ).toBe(true);
  });

  it('refuses a base URL without CONTRACT_TOKEN, and a value that is no URL', () => {
    expect(() => targetFromEnv({ CONTRACT_TARGET: 'https://www.googleapis.com' })).toThrow(/CONTRACT_TOKEN/);
    expect(() => targetFromEnv({ CONTRACT_TARGET: 'staging' })).toThrow(
      /"mock", "emulator", "emulator-shared" or an http\(s\) base URL/,
    );
    expect(() => targetFromEnv({ CONTRACT_TARGET: 'ftp://example.com' })).toThrow(/http\(s\) URL/);
  });
});

describe('what runs against the live services', () => {
  const live = {
    kind: 'live' as const,
    origin: 'https://www.googleapis.com',
    token: 't',
    allowWrites: false,
  };
  const ops = new Map(
    loadSpecs()
      .flatMap(operationsOf)
      .map((op) => [op.operationId, op]),
  );
  const first = (id: string) => {
    const op = ops.get(id);
    if (!op) throw new Error(`${id} is missing`);
    return positiveCases(op)[0] as ReturnType<typeof positiveCases>[number];
  };

  it('runs reads, and the no-token case of writes', () => {
    expect(skipReason(first('events.list'), live)).toBeUndefined();
    expect(skipReason(first('freebusy.query'), live)).toBeUndefined();
    const insert = ops.get('events.insert');
    if (!insert) throw new Error('events.insert is missing');
    expect(skipReason(authCase(insert), live)).toBeUndefined();
  });

  it('never writes without CONTRACT_ALLOW_WRITES=1, and generated writes never run there', () => {
    expect(skipReason(first('events.insert'), live)).toBe(SKIP.liveReadOnly);
    expect(skipReason(first('calendars.delete'), { ...live, allowWrites: true })).toBe(
      SKIP.liveOwnCalendarOnly,
    );
  });

  it('never touches conversions, not even to read', () => {
    expect(skipReason(first('conversion.get'), live)).toBe(SKIP.liveNoConversions);
    expect(skipReason(first('conversion.insert'), { ...live, allowWrites: true })).toBe(
      SKIP.liveNoConversions,
    );
  });

  it('skips what only the mock understands (Prefer)', () => {
    const op = ops.get('events.list');
    if (!op) throw new Error('events.list is missing');
    const prefer = positiveCases(op).find((c) => c.request.prefer !== undefined);
    expect(prefer && skipReason(prefer, live)).toBe(SKIP.mockOnly);
  });
});

describe('what runs against the emulator', () => {
  const emulator = { kind: 'emulator' as const, origin: 'http://127.0.0.1:1', token: 't', allowWrites: true };
  const ops = new Map(
    loadSpecs()
      .flatMap(operationsOf)
      .map((op) => [op.operationId, op]),
  );
  const get = (id: string) => {
    const op = ops.get(id);
    if (!op) throw new Error(`${id} is missing`);
    return op;
  };

  it('runs every Search Ads 360 case but the Prefer ones, conversions included', () => {
    for (const id of [
      'conversion.insert',
      'conversion.get',
      'reports.getIdMappingFile',
      'savedColumns.list',
    ]) {
      const op = get(id);
      const cases = [...positiveCases(op), ...negativeCases(op), authCase(op)];
      for (const c of cases.filter((one) => !one.request.prefer))
        expect(skipReason(c, emulator)).toBeUndefined();
      for (const c of cases.filter((one) => one.request.prefer))
        expect(skipReason(c, emulator)).toBe(SKIP.mockOnly);
    }
  });

  it('skips the Prefer cases: documented answers and named success examples', () => {
    const op = get('events.list');
    const prefer = [...positiveCases(op), ...documentedCases(op)].filter((c) => c.request.prefer);
    expect(prefer.length).toBeGreaterThan(1);
    for (const c of prefer) expect(skipReason(c, emulator)).toBe('Prefer is a mock feature');
  });

  it('runs the Calendar positive, negative and no-token cases, writes included', () => {
    const op = get('events.insert');
    const cases = [...positiveCases(op).filter((c) => !c.request.prefer), ...negativeCases(op), authCase(op)];
    expect(cases.length).toBeGreaterThan(10);
    for (const c of cases) expect(skipReason(c, emulator)).toBeUndefined();
  });
});
