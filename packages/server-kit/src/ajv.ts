/**
 * Ajv for the specs: JSON Schema 2020-12 (the dialect of OpenAPI 3.1) with the formats of
 * ajv-formats and the OpenAPI formats the specs use (`int32`, `int64` as a decimal string,
 * `double`, `float`, `byte`), so that what the emulator accepts and what the contract tests
 * check are the same.
 */
import { Ajv2020, type FormatDefinition, type Options } from 'ajv/dist/2020.js';
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
  // ajv-formats' date-time splits the text and runs two regexes with capture groups: about
  // 390 ns and 0.5 KB of garbage for each event time the emulator validates (two per event
  // written). The usual shape is checked first without allocating (about 50 ns); anything else,
  // valid or not, goes to ajv-formats, so the format accepts exactly what it did.
  const full = ajv.formats['date-time'] as FormatDefinition<string> & { validate: (text: string) => boolean };
  ajv.addFormat('date-time', {
    ...full,
    validate: (text: string) => isCommonDateTime(text) || full.validate(text),
  });
  return ajv;
}

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const ZERO = 48;

/** The number of the two ASCII digits at `at`, or -1 when they are not both digits. */
function twoDigits(text: string, at: number): number {
  const tens = text.charCodeAt(at) - ZERO;
  const ones = text.charCodeAt(at + 1) - ZERO;
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : -1;
}

/**
 * Whether `text` is `yyyy-mm-ddThh:mm:ss[.fraction](Z|±hh:mm)` (the T and Z in any case) naming
 * a real day and a time without a leap second: a date-time ajv-formats accepts. False says only
 * that it is not of this shape (ajv-formats decides then).
 */
export function isCommonDateTime(text: string): boolean {
  const length = text.length;
  if (length < 20) return false;
  const century = twoDigits(text, 0);
  const inCentury = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  if (
    century < 0 ||
    inCentury < 0 ||
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    (text.charCodeAt(10) | 32) !== 116 || // t or T
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59
  )
    return false;
  const year = century * 100 + inCentury;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && leap ? 29 : (DAYS[month] as number))) return false;
  let at = 19;
  if (text.charCodeAt(at) === 46) {
    // .
    at += 1;
    const first = at;
    while (at < length && text.charCodeAt(at) >= ZERO && text.charCodeAt(at) <= ZERO + 9) at += 1;
    if (at === first) return false;
  }
  if (at === length - 1) return (text.charCodeAt(at) | 32) === 122; // z or Z
  if (at !== length - 6) return false;
  const sign = text.charCodeAt(at);
  const offsetHours = twoDigits(text, at + 1);
  const offsetMinutes = twoDigits(text, at + 4);
  return (
    (sign === 43 || sign === 45) && // + or -
    text.charCodeAt(at + 3) === 58 &&
    offsetHours >= 0 &&
    offsetHours <= 23 &&
    offsetMinutes >= 0 &&
    offsetMinutes <= 59
  );
}
