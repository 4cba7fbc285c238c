/**
 * What the mock and the emulator read of a request before they answer it, under generated
 * input (fast-check): the `fields` mask (src/fields.ts) and the batch body with its
 * Content-Type (src/batch.ts). Whatever arrives, they must
 *
 * - answer, or refuse with their own error: FieldMaskError for a mask (the server's 400 on
 *   `fields`), HttpRefusal 400 for a batch; nothing a server would turn into a 500;
 * - finish: the inputs are built from the pieces that once ran the parsers out of stack or
 *   time (deep nesting, long runs of punctuation and line breaks);
 * - read a mask written from a tree of selections back as that tree, and trim and check with
 *   any mask they read.
 *
 * The runs are seeded: `FUZZ_SEED=<integer>` replays a run, `FUZZ_SEED=random` draws a seed
 * (printed on failure by fast-check), and `FUZZ_SCALE=<n>` multiplies the number of runs, as in
 * `FUZZ_SEED=random FUZZ_SCALE=10 npx vitest run test/pre-auth.fuzz.test.ts`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_MASK_DEPTH } from '../src/fields.ts';
import {
  applyFieldMask,
  checkFieldMask,
  type FieldBranch,
  type FieldMask,
  FieldMaskError,
  type FieldSelection,
  HttpRefusal,
  parseFieldMask,
  readBatch,
} from '../src/index.ts';

function envNumber(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (name === 'FUZZ_SEED' && text === 'random') return Math.floor(Math.random() * 2 ** 31);
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not ${text}`);
  return value;
}

const SEED = envNumber('FUZZ_SEED', 20_261_128);
const SCALE = Math.max(1, envNumber('FUZZ_SCALE', 1));
const RUNS = 300 * SCALE;

/** A piece of text, now and then repeated into a long run. */
const runOf = (list: readonly string[], max: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...list) },
    { weight: 1, arbitrary: fc.string({ maxLength: 3 }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...list), fc.integer({ min: 2, max }))
        .map(([text, times]) => text.repeat(times)),
    },
  );

const MASK_PIECES = [
  'a',
  'b',
  'items',
  'id',
  '*',
  '/',
  '(',
  ')',
  ',',
  ' ',
  '\t',
  'a(',
  'a/',
  '__proto__',
  'é',
];
const hostileMask = fc.array(runOf(MASK_PIECES, 5000), { maxLength: 20 }).map((parts) => parts.join(''));

/** How deep a mask nests: `a/b(c)` is 3. */
function depthOf(selection: FieldSelection): number {
  if (selection === true) return 0;
  let deepest = 0;
  for (const inner of selection.fields.values()) deepest = Math.max(deepest, depthOf(inner));
  return deepest + 1;
}

const json = fc.jsonValue({ maxDepth: 6 });
/** A schema in the specs' style, of any shape the checker walks. */
const schema = fc.letrec<{ node: object }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom({ type: 'string' }, { type: 'object' }, { type: 'object', additionalProperties: true }),
    fc.record({
      type: fc.constant('object'),
      properties: fc.dictionary(fc.constantFrom('a', 'b', 'items', 'id'), tie('node'), { maxKeys: 3 }),
    }),
    fc.record({ type: fc.constant('array'), items: tie('node') }),
    fc.record({ allOf: fc.array(tie('node'), { maxLength: 2 }) }),
  ),
})).node;

/** A tree of selections, each level's names unique, written as a mask the parser reads. */
const NAMES = ['a', 'b', 'c', 'items', 'id', '*', 'x_1', 'é'];
const tree = fc.letrec<{ branch: FieldBranch }>((tie) => ({
  branch: fc
    .uniqueArray(fc.tuple(fc.constantFrom(...NAMES), fc.option(tie('branch'), { nil: true as const })), {
      selector: ([name]) => name,
      minLength: 1,
      maxLength: 3,
    })
    .map((members): FieldBranch => ({ fields: new Map<string, FieldSelection>(members) })),
})).branch;

/** A mask's text: `name` for a whole field, `name(…)` or `name/…` for a branch, with blanks now and then. */
function written(branch: FieldBranch, blank: string): string {
  return [...branch.fields]
    .map(([name, inner]) => {
      if (inner === true) return name;
      if (inner.fields.size === 1 && [...inner.fields.values()][0] === true)
        return `${name}${blank}/${blank}${written(inner, blank)}`;
      return `${name}${blank}(${blank}${written(inner, blank)}${blank})`;
    })
    .join(`${blank},${blank}`);
}

describe('fields masks under generated input', () => {
  it('parse or throw FieldMaskError, nest at most MAX_MASK_DEPTH, and trim and check any value', () => {
    fc.assert(
      fc.property(hostileMask, json, schema, (text, value, answerSchema) => {
        let mask: FieldMask;
        try {
          mask = parseFieldMask(text);
        } catch (error) {
          if (!(error instanceof FieldMaskError)) throw error;
          expect(error.message).toMatch(/^Invalid field selection/);
          return;
        }
        expect(depthOf(mask)).toBeLessThanOrEqual(MAX_MASK_DEPTH);
        applyFieldMask(value, mask);
        try {
          checkFieldMask(mask, answerSchema, () => undefined);
        } catch (error) {
          if (!(error instanceof FieldMaskError)) throw error;
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('read a mask written from a tree of selections back as that tree', () => {
    fc.assert(
      fc.property(tree, fc.constantFrom('', ' ', '\t '), (selections, blank) => {
        expect(parseFieldMask(written(selections, blank))).toEqual(selections);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

const BATCH_PIECES = [
  '\r\n',
  '\n',
  '\r',
  ' ',
  '--b',
  '--b--',
  'Content-Type: application/http',
  'GET /calendar/v3/colors?fields=a(a(a( HTTP/1.1',
  'GET http://[ HTTP/1.1',
  'X-A: 1',
  '{}',
];
const CONTENT_TYPES = [
  'multipart/mixed; boundary=b',
  'multipart/mixed; boundary="b"',
  'multipart/mixed',
  'multipart/mixed; boundary=',
  `multipart/mixed; boundary=${'b'.repeat(71)}`,
  'application/json',
  '',
];

describe('batch requests under generated input', () => {
  it('read as calls or refused with HttpRefusal 400, nothing else', () => {
    const contentType = fc.option(
      fc.oneof(
        fc.constantFrom(...CONTENT_TYPES),
        fc
          .array(runOf([';', ' ', 'boundary', '=', '"', 'b', 'multipart/mixed'], 3000), { maxLength: 8 })
          .map((parts) => parts.join('')),
      ),
      { nil: undefined },
    );
    const body = fc.option(
      fc.array(runOf(BATCH_PIECES, 3000), { maxLength: 24 }).map((parts) => parts.join('')),
      { nil: undefined },
    );
    fc.assert(
      fc.property(contentType, body, fc.integer({ min: 1, max: 3 }), (type, text, limit) => {
        try {
          const calls = readBatch(type === undefined ? {} : { 'content-type': type }, text, limit);
          expect(calls.length).toBeGreaterThan(0);
          expect(calls.length).toBeLessThanOrEqual(limit);
        } catch (error) {
          if (!(error instanceof HttpRefusal)) throw error;
          expect(error.status).toBe(400);
          expect(error.body.error.errors[0]?.reason).toBe('badRequest');
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
