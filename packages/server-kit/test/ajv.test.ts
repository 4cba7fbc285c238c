import { describe, expect, it } from 'vitest';
import { createAjv } from '../src/index.ts';

const ajv = createAjv();

describe('createAjv', () => {
  it.each([
    ['int32', 2 ** 31 - 1, true],
    ['int32', 2 ** 31, false],
    ['int32', 1.5, false],
    ['int64', '-9223372036854775808', true],
    ['int64', '12a', false],
    ['date-time', '2026-11-22T10:00:00Z', true],
    ['date-time', '2026-02-30T10:00:00Z', false],
    ['date', '2026-11-22', true],
    ['email', 'a@example.com', true],
    ['email', 'not an email', false],
    ['double', 0.1, true],
    ['float', 0.1, true],
    ['byte', 'AAEC', true],
  ])('format %s: %j is valid: %s', (format, value, valid) => {
    const type = typeof value === 'number' ? 'number' : 'string';
    expect(ajv.validate({ type, format }, value)).toBe(valid);
  });

  it('reports every error, and takes options', () => {
    const validate = ajv.compile({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
    });
    expect(validate({ a: 1, b: 2 })).toBe(false);
    expect(validate.errors).toHaveLength(2);
    expect(createAjv({ allErrors: false }).opts.allErrors).toBe(false);
  });
});
