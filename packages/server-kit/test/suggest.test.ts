import { describe, expect, it } from 'vitest';
import { closestNames, didYouMean, editDistance } from '../src/suggest.ts';

describe('editDistance', () => {
  it.each([
    ['faults', 'faults', 0],
    ['fault', 'faults', 1],
    ['prot', 'port', 1],
    ['sede', 'seed', 1],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
  ])('%s to %s is %i', (a, b, distance) => {
    expect(editDistance(a, b, 10)).toBe(distance);
    expect(editDistance(b, a, 10)).toBe(distance);
  });

  it('stops past the bound', () => {
    expect(editDistance('kitten', 'sitting', 1)).toBe(2);
    expect(editDistance('a', 'a-very-long-option-name', 2)).toBe(3);
  });
});

const NAMES = [
  'port',
  'host',
  'allowed-hosts',
  'faults',
  'replay',
  'proxy',
  'record',
  'docs',
  'specs',
  'verbose',
];

describe('closestNames', () => {
  it.each([
    ['fault', ['faults']],
    ['FAULTS-FILE', []],
    ['spec', ['specs']],
    ['prot', ['port']],
    ['allowed-host', ['allowed-hosts']],
    ['allowedhosts', ['allowed-hosts']],
    ['re', ['record', 'replay']],
    ['doc', ['docs']],
    ['hots', ['host']],
    ['seed', []],
    ['x', []],
    ['', []],
    ['PORT', ['port']],
  ])('%j: %j', (typed, close) => {
    expect(closestNames(typed, NAMES)).toEqual(close);
  });

  it('offers at most three', () => {
    expect(closestNames('a', ['ab', 'ac', 'ad', 'ae'])).toEqual([]);
    expect(closestNames('ab', ['abc', 'abd', 'abe', 'abf'])).toHaveLength(3);
  });

  it('stays fast on a long name', () => {
    const typed = 'x'.repeat(100_000);
    const started = performance.now();
    expect(closestNames(typed, NAMES)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('didYouMean', () => {
  it.each([
    ['fault', '; did you mean --faults?'],
    ['re', '; did you mean --record or --replay?'],
    ['nothing-like-it', ''],
  ])('%j: %j', (typed, text) => {
    expect(didYouMean(typed, NAMES, (n) => `--${n}`)).toBe(text);
  });
});
