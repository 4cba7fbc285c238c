import { describe, expect, it } from 'vitest';
import { MAX_KEPT_KEY, MAX_MASK_DEPTH } from '../src/fields.ts';
import {
  applyFieldMask,
  CheckedMasks,
  checkFieldMask,
  type FieldMask,
  FieldMaskError,
  fieldMaskErrorItem,
  parseFieldMask,
  pointerResolver,
} from '../src/index.ts';

const event = {
  kind: 'calendar#event',
  etag: '"1"',
  id: 'e1',
  summary: 'Standup',
  start: { dateTime: '2026-01-05T09:00:00+01:00', timeZone: 'Europe/Berlin' },
  end: { dateTime: '2026-01-05T09:15:00+01:00' },
  attendees: [
    { email: 'a@example.com', responseStatus: 'accepted' },
    { email: 'b@example.com', responseStatus: 'needsAction', optional: true },
  ],
  extendedProperties: { private: { room: '4', floor: '2' } },
};
const page = {
  kind: 'calendar#events',
  etag: '"9"',
  nextPageToken: 'p2',
  items: [event, { ...event, id: 'e2' }],
};

describe('applyFieldMask', () => {
  it.each([
    ['id', event, { id: 'e1' }],
    ['id,summary', event, { id: 'e1', summary: 'Standup' }],
    [' id , summary ', event, { id: 'e1', summary: 'Standup' }],
    ['start/dateTime', event, { start: { dateTime: '2026-01-05T09:00:00+01:00' } }],
    ['start(dateTime,timeZone)', event, { start: event.start }],
    ['start', event, { start: event.start }],
    ['start/dateTime,start', event, { start: event.start }],
    ['attendees/email', event, { attendees: [{ email: 'a@example.com' }, { email: 'b@example.com' }] }],
    [
      'attendees(email,optional)',
      event,
      { attendees: [{ email: 'a@example.com' }, { email: 'b@example.com', optional: true }] },
    ],
    ['extendedProperties/private/room', event, { extendedProperties: { private: { room: '4' } } }],
    ['extendedProperties/*/room', event, { extendedProperties: { private: { room: '4' } } }],
    ['start/*', event, { start: event.start }],
    ['*', event, event],
    ['description', event, {}],
    ['start/date', event, {}],
    [
      'items(id,summary),nextPageToken',
      page,
      {
        nextPageToken: 'p2',
        items: [
          { id: 'e1', summary: 'Standup' },
          { id: 'e2', summary: 'Standup' },
        ],
      },
    ],
    [
      'items/start/timeZone',
      page,
      { items: [{ start: { timeZone: 'Europe/Berlin' } }, { start: { timeZone: 'Europe/Berlin' } }] },
    ],
    ['items(description)', page, { items: [{}, {}] }],
    ['items(attendees(email)),etag', { ...page, items: [] }, { etag: '"9"', items: [] }],
  ])('%s', (mask, value, expected) => {
    expect(applyFieldMask(value, parseFieldMask(mask))).toEqual(expected);
  });

  it.each(['__proto__', '*'])('keeps a member named __proto__ as a member (mask %s)', (mask) => {
    const value = JSON.parse('{"__proto__": {"x": 1}, "id": "a"}') as unknown;
    const trimmed = applyFieldMask(value, parseFieldMask(mask)) as object;
    expect(Object.getPrototypeOf(trimmed)).toBe(Object.prototype);
    expect(JSON.stringify(trimmed)).toContain('"__proto__":{"x":1}');
  });

  it('leaves the value it trims as it was', () => {
    const copy = structuredClone(event);
    applyFieldMask(copy, parseFieldMask('start/dateTime,attendees(email)'));
    expect(copy).toEqual(event);
  });
});

describe('parseFieldMask', () => {
  it.each([
    ['', 'the mask is empty'],
    ['id(((', 'expected a field name or * at character 4, found "("'],
    ['id(', 'expected a field name or * at character 4, found the end of the mask'],
    ['id(summary', 'expected "," or ")" at character 11, found the end of the mask'],
    ['id)', 'expected "," or the end of the mask at character 3, found ")"'],
    ['id,', 'expected a field name or * at character 4, found the end of the mask'],
    [',id', 'expected a field name or * at character 1, found ","'],
    ['a//b', 'expected a field name or * at character 3, found "/"'],
    ['a()', 'expected a field name or * at character 3, found ")"'],
    ['a b', 'expected "," or the end of the mask at character 3, found "b"'],
    ['*x', 'expected "," or the end of the mask at character 2, found "x"'],
    ['a(b)c', 'expected "," or the end of the mask at character 5, found "c"'],
  ])('refuses %j', (mask, what) => {
    expect(() => parseFieldMask(mask)).toThrow(FieldMaskError);
    expect(() => parseFieldMask(mask)).toThrow(what);
    expect(() => parseFieldMask(mask)).toThrow(`Invalid field selection${mask ? ` ${mask}` : ''}`);
  });

  it('gives the error item on the fields parameter', () => {
    let caught: unknown;
    try {
      parseFieldMask('id(((');
    } catch (error) {
      caught = error;
    }
    expect(fieldMaskErrorItem(caught as FieldMaskError)).toEqual({
      domain: 'global',
      reason: 'invalidParameter',
      message: expect.stringContaining('Invalid field selection id(((') as string,
      location: 'fields',
      locationType: 'parameter',
    });
  });
});

/** What an attacker sends as a mask: deep nesting, long runs of punctuation, huge lists. */
describe('hostile masks', () => {
  const deep = (levels: number, open: string, close = '') =>
    `${open.repeat(levels - 1)}a${close.repeat(levels - 1)}`;
  /** A mask `levels` fields deep, each level named `a`, as the parser must read it. */
  const nested = (levels: number): FieldMask => {
    let mask: FieldMask = { fields: new Map([['a', true]]) };
    for (let i = 1; i < levels; i++) mask = { fields: new Map([['a', mask]]) };
    return mask;
  };
  const refusalOf = (mask: string): FieldMaskError => {
    try {
      parseFieldMask(mask);
    } catch (error) {
      expect(error).toBeInstanceOf(FieldMaskError);
      return error as FieldMaskError;
    }
    throw new Error(`expected ${mask.slice(0, 40)} to be refused`);
  };

  it.each([
    ['7,000 nested a(', 'a('.repeat(7000), 'the mask nests fields more than 100 deep at character 201'],
    [
      '7,000 nested a( closed',
      deep(7000, 'a(', ')'),
      'the mask nests fields more than 100 deep at character 201',
    ],
    ['a path 7,000 deep', deep(7000, 'a/'), 'the mask nests fields more than 100 deep at character 201'],
    ['101 levels of a(', deep(101, 'a(', ')'), 'the mask nests fields more than 100 deep at character 201'],
    [
      '101 levels of a/ and a(',
      `${'a/'.repeat(50)}${deep(51, 'a(', ')')}`,
      'more than 100 deep at character 201',
    ],
    ['7,000 (', '('.repeat(7000), 'expected a field name or * at character 1, found "("'],
    ['7,000 )', ')'.repeat(7000), 'expected a field name or * at character 1, found ")"'],
    ['7,000 ,', ','.repeat(7000), 'expected a field name or * at character 1, found ","'],
    ['100,000 blanks', ' '.repeat(100_000), 'the mask is empty'],
    [
      'a( then 100,000 blanks',
      `a(${' '.repeat(100_000)}`,
      'expected a field name or * at character 100003, found the end of the mask',
    ],
  ])('refuses %s with FieldMaskError, saying where', (_name, mask, what) => {
    const error = refusalOf(mask);
    expect(error.message).toContain(what);
    expect(error.selection).toBe(mask);
    expect(fieldMaskErrorItem(error)).toMatchObject({
      reason: 'invalidParameter',
      location: 'fields',
      locationType: 'parameter',
    });
  });

  it('quotes the first 100 characters of a long mask it refuses', () => {
    const mask = 'a('.repeat(7000);
    expect(refusalOf(mask).message).toBe(
      `Invalid field selection ${mask.slice(0, 100)}...: the mask nests fields more than 100 deep at character 201`,
    );
  });

  it.each([
    ['100 levels of a(', deep(100, 'a(', ')'), nested(100)],
    ['a path 100 deep', deep(100, 'a/'), nested(100)],
    ['100,000 names', 'a,'.repeat(100_000).slice(0, -1), { fields: new Map([['a', true]]) }],
    [
      'a(b) 20,000 times',
      'a(b),'.repeat(20_000).slice(0, -1),
      { fields: new Map([['a', { fields: new Map([['b', true]]) }]]) },
    ],
  ])('reads %s', (_name, mask, expected) => {
    expect(parseFieldMask(mask)).toEqual(expected);
  });

  it('merges, checks and trims with the deepest mask it reads', () => {
    const text = deep(MAX_MASK_DEPTH, 'a/');
    const mask = parseFieldMask(`${text},${text}`);
    expect(mask).toEqual(nested(MAX_MASK_DEPTH));
    let value: unknown = 1;
    let schema: object = { type: 'integer' };
    for (let i = 0; i < MAX_MASK_DEPTH; i++) {
      value = { a: value, b: 2 };
      schema = { type: 'object', properties: { a: schema, b: { type: 'integer' } } };
    }
    expect(() => checkFieldMask(mask, schema, () => undefined)).not.toThrow();
    const trimmed = applyFieldMask(value, mask);
    expect(JSON.stringify(trimmed)).toBe(`${'{"a":'.repeat(MAX_MASK_DEPTH)}1${'}'.repeat(MAX_MASK_DEPTH)}`);
  });
});

describe('checkFieldMask', () => {
  const document = {
    components: {
      schemas: {
        Events: {
          type: 'object',
          properties: {
            etag: { type: 'string' },
            nextPageToken: { type: 'string' },
            items: { type: 'array', items: { $ref: '#/components/schemas/Event' } },
          },
        },
        Event: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            start: { $ref: '#/components/schemas/EventDateTime' },
            attendees: {
              type: 'array',
              items: { type: 'object', properties: { email: { type: 'string' } } },
            },
            extendedProperties: {
              type: 'object',
              properties: { private: { type: 'object', additionalProperties: { type: 'string' } } },
            },
            conferenceData: { type: 'object' },
          },
        },
        EventDateTime: { allOf: [{ type: 'object', properties: { dateTime: { type: 'string' } } }] },
      },
    },
  };
  const resolve = pointerResolver(document);
  const schema = { $ref: '#/components/schemas/Events' };

  it.each([
    'items(id,start/dateTime),nextPageToken',
    'items/attendees/email',
    'items/extendedProperties/private/anyKey',
    'items/conferenceData/anything/below',
    'items/*/x',
    '*',
  ])('accepts %s', (mask) => {
    expect(() => checkFieldMask(parseFieldMask(mask), schema, resolve)).not.toThrow();
  });

  it.each(['items/anything', 'items(id,colour)'])('accepts %s under a $ref it cannot follow', (mask) => {
    const unresolved = { type: 'object', properties: { items: { $ref: '#/components/schemas/Elsewhere' } } };
    expect(() => checkFieldMask(parseFieldMask(mask), unresolved, resolve)).not.toThrow();
  });

  it.each([
    ['colour', 'colour', 'the answer has no field colour'],
    ['items(id,colour)', 'items/colour', 'no field colour in items'],
    ['items/start/dateTime/x', 'items/start/dateTime/x', 'items/start/dateTime is a plain value'],
    ['items/extendedProperties/private/room/x', 'items/extendedProperties/private/room/x', 'plain value'],
  ])('refuses %s naming %s', (mask, path, what) => {
    let caught: unknown;
    try {
      checkFieldMask(parseFieldMask(mask), schema, resolve);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FieldMaskError);
    expect((caught as FieldMaskError).selection).toBe(path);
    expect((caught as FieldMaskError).message).toContain(`Invalid field selection ${path}`);
    expect((caught as FieldMaskError).message).toContain(what);
  });
});

describe('CheckedMasks', () => {
  const schema = { type: 'object', properties: { id: { type: 'string' }, summary: { type: 'string' } } };
  const none = () => undefined;

  it('parses and checks a mask once per key, and refuses a bad one every time', () => {
    const masks = new CheckedMasks(8);
    const first = masks.get('op id', 'id', schema, none);
    expect(masks.get('op id', 'id', schema, none)).toBe(first);
    expect(applyFieldMask({ id: 'e1', summary: 'x' }, first)).toEqual({ id: 'e1' });
    for (let i = 0; i < 2; i++) {
      expect(() => masks.get('op colour', 'colour', schema, none)).toThrow(FieldMaskError);
      expect(() => masks.get('op id(((', 'id(((', schema, none)).toThrow(FieldMaskError);
    }
  });

  it(`keeps no mask whose key is longer than ${MAX_KEPT_KEY} characters: it is parsed each time`, () => {
    const masks = new CheckedMasks(8);
    const long = 'id,'.repeat(MAX_KEPT_KEY).slice(0, -1);
    const first = masks.get(long, long, schema, none);
    expect(first).toEqual({ fields: new Map([['id', true]]) });
    expect(masks.get(long, long, schema, none)).not.toBe(first);
    const short = 'id,'.repeat(100).slice(0, -1);
    expect(masks.get(short, short, schema, none)).toBe(masks.get(short, short, schema, none));
  });

  it('starts over when full, so that masks from clients cannot grow it without bound', () => {
    const masks = new CheckedMasks(2);
    const id = masks.get('a', 'id', schema, none);
    masks.get('b', 'summary', schema, none);
    masks.get('c', 'id,summary', schema, none);
    expect(masks.get('a', 'id', schema, none)).not.toBe(id);
    expect(masks.get('a', 'id', schema, none)).toEqual(id);
  });
});
