import { describe, expect, it } from 'vitest';
import { bodyBytes, StoredItems, storedItems } from '../src/json.ts';

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
    expect(items).toBeInstanceOf(StoredItems);
    expect(JSON.parse(JSON.stringify({ items }))).toEqual({ items: [event] });
  });
});
