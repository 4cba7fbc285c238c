import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { isCommonDateTime } from '../src/ajv.ts';
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

  it('date-time accepts exactly what ajv-formats accepts (its fast path included)', () => {
    const plain = new Ajv2020({ strict: false, validateFormats: true });
    addFormats.default(plain);
    const seeds = [
      '2026-11-22T10:00:00Z',
      '2026-11-22t10:00:00.123z',
      '2024-02-29T23:59:59.999999+05:30',
      '2023-02-28T00:00:00-23:59',
      '1900-02-29T12:00:00Z',
      '2000-02-29T12:00:00Z',
      '2026-12-31T23:59:60Z',
      '2026-06-30T23:59:60+00:00',
      '2026-01-01 10:00:00Z',
      '2026-01-01T10:00:00+0530',
      '2026-01-01T10:00:00+05',
      '2026-01-01T10:00:00',
    ];
    // Every seed, and each with one character replaced, removed or doubled.
    const replacements = [
      '0',
      '1',
      '2',
      '3',
      '5',
      '9',
      '-',
      ':',
      '.',
      '+',
      'T',
      't',
      'Z',
      'z',
      ' ',
      '\t',
      'a',
      '\u00a0',
    ];
    const texts = new Set<string>(seeds);
    for (const seed of seeds)
      for (let i = 0; i <= seed.length; i++) {
        for (const r of replacements) texts.add(seed.slice(0, i) + r + seed.slice(i + 1));
        texts.add(seed.slice(0, i) + seed.slice(i + 1));
        texts.add(seed.slice(0, i) + seed.slice(i, i + 1) + seed.slice(i));
      }
    for (const day of [28, 29, 30, 31, 32])
      for (let month = 0; month <= 13; month++)
        for (const year of ['2023', '2024', '2100', '2000'])
          texts.add(`${year}-${String(month).padStart(2, '0')}-${day}T00:00:00Z`);
    const schema = { type: 'string', format: 'date-time' };
    let common = 0;
    for (const text of texts) {
      const expected = plain.validate(schema, text);
      expect(ajv.validate(schema, text), text).toBe(expected);
      if (isCommonDateTime(text)) {
        common++;
        expect(expected, text).toBe(true);
      }
    }
    expect(common).toBeGreaterThan(100);
  });
});
