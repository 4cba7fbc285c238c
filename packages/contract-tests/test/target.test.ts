/** How the suite reads its target from the environment (CONTRACT_TARGET, CONTRACT_TOKEN, CONTRACT_ALLOW_WRITES). */
import { describe, expect, it } from 'vitest';
import { authCase, positiveCases } from './support/cases.ts';
import { skipReason } from './support/run.ts';
import { loadSpecs, operationsOf } from './support/spec.ts';
import { EMULATOR_NOT_READY, MOCK_TOKEN, SKIP, targetFromEnv } from './support/target.ts';

describe('the target', () => {
  it('is the mock by default and with CONTRACT_TARGET=mock', () => {
    expect(targetFromEnv({})).toEqual({ kind: 'mock', token: MOCK_TOKEN, allowWrites: true });
    expect(targetFromEnv({ CONTRACT_TARGET: 'mock' }).kind).toBe('mock');
  });

  it('refuses the emulator, which does not cover every operation yet, with a clear message', () => {
    expect(() => targetFromEnv({ CONTRACT_TARGET: 'emulator' })).toThrow(EMULATOR_NOT_READY);
    expect(EMULATOR_NOT_READY).toMatch(/does not cover the whole Calendar API yet/);
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
      /"mock", "emulator" or an http\(s\) base URL/,
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
