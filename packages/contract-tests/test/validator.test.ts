/** The contract tests are only as strict as their validator: it must refuse what the specs refuse. */
import { describe, expect, it } from 'vitest';
import { loadSpecs, operationsOf, successResponse } from './support/spec.ts';
import { validateBody } from './support/validate.ts';

const calendar = loadSpecs().find((api) => api.id === 'calendar');
if (!calendar) throw new Error('the calendar spec is missing');
const colors = operationsOf(calendar).find((op) => op.operationId === 'colors.get');
const list = operationsOf(calendar).find((op) => op.operationId === 'events.list');
if (!colors || !list) throw new Error('colors.get or events.list is missing');

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
    const { pointer } = successResponse(op);
    expect(validateBody(calendar, pointer, 'application/json', body).length === 0).toBe(valid);
  });
});
