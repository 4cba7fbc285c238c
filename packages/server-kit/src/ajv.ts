/**
 * Ajv for the specs: JSON Schema 2020-12 (the dialect of OpenAPI 3.1) with the formats of
 * ajv-formats and the OpenAPI formats the specs use (`int32`, `int64` as a decimal string,
 * `double`, `float`, `byte`), so that what the emulator accepts and what the contract tests
 * check are the same.
 */
import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * A new Ajv: strict mode off (the specs carry OpenAPI keywords such as `example` and `x-`
 * extensions that Ajv does not know), every error reported, formats checked; `options` adds
 * to or overrides these.
 */
export function createAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, ...options });
  addFormats.default(ajv);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'string', validate: /^-?\d+$/ });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('float', { type: 'number', validate: () => true });
  ajv.addFormat('byte', { type: 'string', validate: () => true });
  return ajv;
}
