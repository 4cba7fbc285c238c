import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyBytes, isStoredItems, jsonChunks, releaseBytes, storedItems } from '../src/core/json.ts';

const stringifyBody = (body: unknown) => bodyBytes(body).toString('utf8');

describe('bodyBytes', () => {
  const event = { kind: 'calendar#event', id: 'a1b2c3', start: { dateTime: '2026-03-02T09:00:00Z' } };
  it.each([
    ['a plain object', { kind: 'calendar#events', items: [event], nextSyncToken: 't' }],
    ['stored items among other keys, in their order', { a: 1, items: storedItems([event, event]), z: 'end' }],
    ['undefined members left out', { a: undefined, items: storedItems([event]), b: null }],
    ['empty stored items', { items: storedItems([]) }],
    ['an array', [1, 2]],
    ['null', null],
    ['stored items first', { items: storedItems([event]), kind: 'calendar#events' }],
    ['only stored items, twice', { a: storedItems([event]), b: storedItems([event, event]) }],
    ['a string with quotes and unicode', { items: storedItems([{ summary: 'Ünï "q" \u2028' }]) }],
    ['stored items nested deeper', { page: { items: storedItems([event]), n: 1 }, list: [storedItems([])] }],
    [
      'the same stored items twice',
      (() => {
        const items = storedItems([event]);
        return { a: items, b: items };
      })(),
    ],
    [
      'a large page',
      { items: storedItems(Array.from({ length: 300 }, (_, i) => ({ ...event, id: `e${i}` }))) },
    ],
  ])('writes %s exactly as JSON.stringify does', (_name, body) => {
    expect(stringifyBody(body)).toBe(JSON.stringify(body));
  });

  it('keeps the JSON of a stored item, so a new object is needed for a change to show', () => {
    const stored = { id: 'e1', summary: 'before' };
    expect(stringifyBody({ items: storedItems([stored]) })).toContain('before');
    const replaced = { ...stored, summary: 'after' };
    expect(stringifyBody({ items: storedItems([replaced]) })).toContain('after');
  });

  it('is an array for everything else that reads the body (validation, invoke)', () => {
    const items = storedItems([event]);
    expect(Array.isArray(items)).toBe(true);
    expect(isStoredItems(items)).toBe(true);
    expect(isStoredItems([event])).toBe(false);
    expect(JSON.parse(JSON.stringify({ items }))).toEqual({ items: [event] });
  });

  it('is serialized as a plain array outside bodyBytes', () => {
    const items = storedItems([event]);
    expect(JSON.stringify({ items })).toBe(JSON.stringify({ items: [event] }));
    expect(Object.keys(items)).toEqual(['0']);
  });

  it('reuses a buffer given back, and never one still lent', () => {
    const body = { items: storedItems([event, event]), note: 'x'.repeat(5000) };
    const kept = bodyBytes(body);
    const expected = JSON.stringify(body);
    const given = bodyBytes(body);
    releaseBytes(given);
    const next = bodyBytes({ ...body, note: 'y'.repeat(5000) });
    expect(next.buffer).toBe(given.buffer);
    expect(next.buffer).not.toBe(kept.buffer);
    expect(kept.toString('utf8')).toBe(expected);
    // Given back twice by mistake, it is still lent only once.
    releaseBytes(next);
    releaseBytes(next);
    const first = bodyBytes(body);
    const second = bodyBytes(body);
    expect(first.buffer).not.toBe(second.buffer);
  });
});

describe('jsonChunks (the state dump in pieces)', () => {
  it('joins to exactly what JSON.stringify writes, at any depth and piece size', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 1, max: 64 }),
        (value, depth, size) => {
          expect(jsonChunks(value, depth, size).join('')).toBe(JSON.stringify(value));
        },
      ),
      { seed: 20261125, numRuns: 500 },
    );
  });

  it('leaves out what JSON.stringify leaves out, and uses toJSON', () => {
    const value = { a: undefined, b: () => 1, c: new Date(0), d: { e: undefined, f: [undefined] } };
    expect(jsonChunks(value).join('')).toBe(JSON.stringify(value));
  });

  it('cuts a large value into pieces of about the size asked', () => {
    const state = {
      events: Object.fromEntries(
        Array.from({ length: 2000 }, (_, i) => [`e${i}`, { summary: 'x'.repeat(100) }]),
      ),
    };
    const chunks = jsonChunks(state, 3, 1 << 14);
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBeLessThan((1 << 14) + 200);
    expect(JSON.parse(chunks.join(''))).toEqual(state);
  });
});
