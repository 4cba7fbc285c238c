/** isoTime writes what Date#toISOString writes, whichever times come before. */
import { describe, expect, it } from 'vitest';
import { isoTime } from '../src/core/state.ts';

describe('isoTime', () => {
  const base = Date.parse('2026-11-22T13:14:59.998Z');
  it.each([
    ['one time', [base]],
    ['the same time twice', [base, base]],
    ['across a second, a minute and an hour', [base, base + 1, base + 2, base + 3, base + 1002]],
    ['within one second, out of order', [base + 2, base + 500, base + 3, base + 999]],
    ['before 1970', [-1, -999, -1000, -1001, 0]],
    ['far in the future', [253402300799999, 253402300800000, 8.64e15]],
    ['going back in time', [base + 5000, base, base + 5000]],
  ])('%s', (_name, times) => {
    for (const time of times) expect(isoTime(time)).toBe(new Date(time).toISOString());
  });

  it('refuses what toISOString refuses', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
