import { describe, expect, it } from 'vitest';
import { bodyBytes, isStoredItems, releaseBytes, storedItems } from '../src/core/json.ts';

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
