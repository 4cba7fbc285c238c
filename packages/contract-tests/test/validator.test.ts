/** The contract tests are only as strict as their validator: it must refuse what the specs refuse. */
import { describe, expect, it } from 'vitest';
import {
  type ApiSpec,
  follow,
  type Json,
  loadSpecs,
  type Operation,
  operationsOf,
  responsesOf,
} from './support/spec.ts';
import { strictDocument, validateBody } from './support/validate.ts';

const specs = loadSpecs();
const calendar = specs.find((api) => api.id === 'calendar') as ApiSpec;
const find = (id: string): Operation => {
  const found = operationsOf(calendar).find((op) => op.operationId === id);
  if (!found) throw new Error(`${id} is missing`);
  return found;
};
const colors = find('colors.get');
const list = find('events.list');
const watch = find('events.watch');
const pointer200 = (op: Operation) => responsesOf(op).get('200')?.pointer as string;
const watchRequest = `/paths/${watch.path.replace(/\//g, '~1')}/post/requestBody`;
const webhook = follow(calendar.doc, watch.operation.requestBody.content['application/json'].examples.webhook)
  .value.value;

const judge = (pointer: string, body: unknown) =>
  validateBody(calendar, pointer, 'application/json', body).length === 0;

describe('the response validator', () => {
  it.each([
    [
      'a valid palette',
      colors,
      { kind: 'calendar#colors', calendar: { '1': { background: '#ac725e', foreground: '#1d1d1d' } } },
      true,
    ],
    [
      'a color that is not #rrggbb',
      colors,
      { calendar: { '1': { background: 'red', foreground: '#1d1d1d' } } },
      false,
    ],
    ['a wrong kind', colors, { kind: 'calendar#events' }, false],
    ['an event status outside its enum', list, { items: [{ status: 'postponed' }] }, false],
    ['a date-time that is not RFC 3339', list, { updated: 'yesterday' }, false],
    ['items that are not an array', list, { items: 'none' }, false],
  ] as const)('judges %s', (_title, op, body, valid) => {
    expect(judge(pointer200(op), body)).toBe(valid);
  });
});

describe('the validator is strict: a property the spec does not declare is a failure', () => {
  it.each([
    ['at the top level', colors, { kind: 'calendar#colors', color: {} }],
    ['in a nested object', list, { items: [{ start: { dateTime: '2026-01-01T10:00:00Z', zone: 'x' } }] }],
    ['in an array item', list, { items: [{ id: 'a', favourite: true }] }],
    [
      'in a map value whose keys are free',
      colors,
      { calendar: { '1': { background: '#ac725e', foreground: '#1d1d1d', alpha: 1 } } },
    ],
  ] as const)('refuses an undeclared property %s', (_where, op, body) => {
    const errors = validateBody(calendar, pointer200(op), 'application/json', body);
    expect(errors.map((e) => e.keyword)).toContain('unevaluatedProperties');
  });

  it('keeps the keys of a map (additionalProperties declared) open', () => {
    const palette = { background: '#ac725e', foreground: '#1d1d1d' };
    expect(judge(pointer200(colors), { calendar: { '1': palette, '24': palette } })).toBe(true);
  });

  it('sees the properties declared through allOf: the composed watch body stays valid, an extra field does not', () => {
    expect(
      follow(calendar.doc, watch.operation.requestBody.content['application/json'].schema).value.allOf,
    ).toBeDefined();
    expect(judge(watchRequest, webhook)).toBe(true);
    expect(judge(watchRequest, { ...webhook, secret: 'x' })).toBe(false);
  });

  it('closes value positions only, and leaves examples and component definitions as written', () => {
    const strict = strictDocument(calendar.doc);
    expect(strict.components.schemas.Channel.unevaluatedProperties).toBeUndefined();
    expect(strict.components.schemas.Channel.properties.params.unevaluatedProperties).toBeUndefined(); // a declared map
    expect(
      strict.paths[watch.path].post.requestBody.content['application/json'].schema.unevaluatedProperties,
    ).toBe(false);
    expect(strict.components.examples).toEqual(calendar.doc.components.examples);
    expect(calendar.doc.components.schemas.Event.unevaluatedProperties).toBeUndefined(); // the original is untouched
  });
});

/** No false alarms: every named example of every documented answer is valid under the strict rules. */
const examples = specs.flatMap((api) =>
  operationsOf(api).flatMap((op) =>
    [...responsesOf(op)].flatMap(([status, { response, pointer }]) =>
      Object.entries<Json>(response.content ?? {}).flatMap(([type, media]) =>
        Object.entries<Json>(media.examples ?? {}).map(
          ([name, raw]) =>
            [
              `${op.operationId} ${status} ${name}`,
              api,
              pointer,
              type,
              follow(api.doc, raw).value.value,
            ] as const,
        ),
      ),
    ),
  ),
);

describe('every named example of a documented answer is valid under the strict validator', () => {
  it('finds the examples', () => {
    expect(examples.length).toBeGreaterThan(100);
  });

  it.each(examples)('%s', (_name, api, pointer, type, value) => {
    expect(validateBody(api, pointer, type, value)).toEqual([]);
  });
});
