import { describe, expect, it } from 'vitest';
import { ifNoneMatchHits } from '../src/index.ts';

describe('ifNoneMatchHits', () => {
  it.each([
    ['"7"', '"7"', true],
    ['"6"', '"7"', false],
    ['"6", "7"', '"7"', true],
    ['W/"7"', '"7"', true],
    ['"7"', 'W/"7"', true],
    ['*', '"7"', true],
    [' * ', '"7"', true],
    ['7', '"7"', false],
    ['', '"7"', false],
    [undefined, '"7"', false],
    ['*', undefined, false],
    [['"1"', '"7"'], '"7"', true],
  ])('If-None-Match %j against %j: %s', (header, etag, hits) => {
    expect(ifNoneMatchHits(header, etag)).toBe(hits);
  });
});
