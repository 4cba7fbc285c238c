/**
 * The batch reader under generated input (fast-check). A server reads a batch body and its
 * Content-Type before it checks any credential, so whatever arrives, the reader must
 *
 * - answer calls or throw BatchFormatError (BatchLimitError is one): nothing else, no
 *   TypeError or RangeError that a server would turn into a 500;
 * - finish: the bodies are built from the pieces that once made it backtrack (runs of line
 *   breaks, blanks, boundary look-alikes), and a run that does not end is a failed run;
 * - read back what the writers wrote: requests and answers with any method, target, header
 *   names (`constructor` and `__proto__` among them), values, bodies and Content-IDs.
 *
 * The runs are seeded: `FUZZ_SEED=<integer>` replays a run, `FUZZ_SEED=random` draws a seed
 * (printed on failure by fast-check), and `FUZZ_SCALE=<n>` multiplies the number of runs, as in
 * `FUZZ_SEED=random FUZZ_SCALE=10 npx vitest run test/multipart.fuzz.test.ts`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BatchFormatError,
  type BatchPartRequest,
  type BatchPartResponse,
  boundaryOf,
  encodeBatchRequest,
  encodeBatchResponse,
  parseBatchRequest,
  parseBatchResponse,
} from '../src/multipart.ts';

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

/** What the reader may do with any input: answer, or refuse with its own error. */
function readsOrRefuses(read: () => unknown): void {
  try {
    read();
  } catch (error) {
    if (!(error instanceof BatchFormatError)) throw error;
  }
}

const BOUNDARY = 'b_1';
const TYPE = `multipart/mixed; boundary=${BOUNDARY}`;

/** The pieces of a hostile body: line breaks of every kind, blanks, delimiters and their look-alikes. */
const PIECES = [
  '\r\n',
  '\n',
  '\r',
  ' ',
  '\t',
  '-',
  '--',
  `--${BOUNDARY}`,
  `--${BOUNDARY}--`,
  '--b_',
  `--${BOUNDARY}x`,
  'Content-Type: application/http',
  'Content-Type: application/json',
  'Content-ID: <1>',
  'Content-ID: <',
  'GET /calendar/v3/colors HTTP/1.1',
  'POST http://example.com/x?y=1 HTTP/1.1',
  'GET http://[ HTTP/1.1',
  'HTTP/1.1 200 OK',
  'HTTP/1.1 404',
  'constructor: 1',
  '__proto__: 1',
  'X-A: 1',
  ':',
  'x',
  '{}',
  '\u2028',
];

/** A piece, now and then repeated into a long run. */
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PIECES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...PIECES), fc.integer({ min: 2, max: 3000 }))
      .map(([text, times]) => text.repeat(times)),
  },
);
const hostileBody = fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join(''));

/** A valid batch of two calls, for mutations. */
const VALID = encodeBatchRequest(
  [
    { method: 'GET', target: '/calendar/v3/colors', headers: {}, contentId: '1' },
    { method: 'POST', target: '/x', headers: { 'content-type': 'application/json' }, body: '{}' },
  ],
  BOUNDARY,
).body;

/** The valid batch with pieces put in, in place of what was there, at generated places. */
const mutatedBody = fc
  .array(fc.tuple(fc.nat(VALID.length), fc.nat(8), piece), { minLength: 1, maxLength: 6 })
  .map((edits) => {
    let body = VALID;
    for (const [at, cut, text] of edits) {
      const where = at % (body.length + 1);
      body = `${body.slice(0, where)}${text}${body.slice(where + cut)}`;
    }
    return body;
  });

/** Text made of pieces, now and then a long run of one. */
const pieces = (list: readonly string[], maxLength: number) =>
  fc.array(fc.oneof(fc.constantFrom(...list), piece), { maxLength }).map((chosen) => chosen.join(''));

/** What is right, three times in four; else what is nearly right, or hostile. */
const mostly = (right: string, ...others: fc.Arbitrary<string>[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(right) },
    ...others.map((arbitrary) => ({ weight: 1, arbitrary })),
  );
const lineBreak = mostly('\r\n', fc.constantFrom('\n', '\r\n\r\n', '\n\n', '', '\r'), piece);

/**
 * Batches shaped as batches, each element of a part (its delimiter line, headers, blank line,
 * request line, headers, body) drawn from what is right, nearly right and hostile.
 */
const shapedBody = fc
  .array(
    fc.tuple(
      mostly(
        `--${BOUNDARY}`,
        fc.constantFrom(`--${BOUNDARY} \t`, `--${BOUNDARY}x`, `--${BOUNDARY}--`, '--b_'),
      ),
      lineBreak,
      mostly(
        'Content-Type: application/http',
        pieces(['Content-Type: application/http', 'Content-ID: <1>', 'Content-ID: 2', '\r\n'], 3),
      ),
      lineBreak,
      lineBreak,
      fc.oneof(
        fc.constantFrom(
          'GET /calendar/v3/colors HTTP/1.1',
          'get /x',
          'POST https://example.com/calendar/v3/calendars?x=1 HTTP/1.1',
          'GET http://[ HTTP/1.1',
          'GET https:// HTTP/1.1',
          'GET http://a:b@[::1]:99999/x HTTP/1.1',
          'GET x HTTP/1.1',
          'HTTP/1.1 200 OK',
          'HTTP/1.1 999 Whatever',
        ),
        piece,
      ),
      lineBreak,
      mostly('', pieces(['X-A: 1', 'constructor: x', '__proto__: y', 'Content-Type: application/json'], 3)),
      lineBreak,
      lineBreak,
      mostly('', pieces(['{}', '\n', '\r\n', 'x'], 4)),
      lineBreak,
    ),
    { maxLength: 4 },
  )
  .chain((parts) =>
    fc
      .constantFrom(`--${BOUNDARY}--`, `--${BOUNDARY}-- \r\nepilogue`, '')
      .map((closing) => `${parts.map((part) => part.join('')).join('')}${closing}`),
  );

describe('the batch reader under generated input', () => {
  it.each([
    ['hostile bodies', hostileBody],
    ['batches shaped as batches', shapedBody],
    ['valid batches with pieces put in', mutatedBody],
  ])('answers %s or throws BatchFormatError, nothing else', (_name, bodies) => {
    fc.assert(
      fc.property(bodies, fc.integer({ min: 1, max: 3 }), (body, maxParts) => {
        readsOrRefuses(() => parseBatchRequest(TYPE, body, { maxParts }));
        readsOrRefuses(() => parseBatchRequest(TYPE, body));
        readsOrRefuses(() => parseBatchResponse(TYPE, body));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('reads a boundary of 1 to 70 characters from a Content-Type, or throws BatchFormatError', () => {
    const typePiece = fc.oneof(
      fc.constantFrom(
        'multipart/mixed',
        'Multipart/Mixed',
        ';',
        '; ',
        'boundary',
        'BOUNDARY',
        '=',
        '"',
        ' ',
        '\t',
        'b',
        'charset=utf-8',
      ),
      fc.string({ maxLength: 3 }),
      fc
        .tuple(fc.constantFrom(';', ' ', '"', 'b', '; boundary', '='), fc.integer({ min: 2, max: 5000 }))
        .map(([text, times]) => text.repeat(times)),
    );
    fc.assert(
      fc.property(fc.array(typePiece, { maxLength: 12 }), (pieces) => {
        try {
          const boundary = boundaryOf(pieces.join(''));
          expect(boundary.length).toBeGreaterThanOrEqual(1);
          expect(boundary.length).toBeLessThanOrEqual(70);
        } catch (error) {
          if (!(error instanceof BatchFormatError)) throw error;
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

// What the writers take and the readers give back as it was.

/** A boundary as RFC 2046 allows it unquoted (no blank, no `;`): 8 to 70 characters. */
const boundary = fc.string({
  unit: fc.constantFrom(..."ABCXYZabcxyz0189'()+_,-./:=?"),
  minLength: 8,
  maxLength: 70,
});
const method = fc.oneof(
  fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
  fc.string({ unit: fc.constantFrom(...'abcXYZ'), minLength: 1, maxLength: 8 }).map((m) => m.toUpperCase()),
);
/** A path and query: no blank of any kind, as a request line needs. */
const target = fc
  .string({ unit: fc.constantFrom(...'abz09/?=&%._~-+:@!$é中'), maxLength: 40 })
  .map((rest) => `/${rest}`);
/** Header names as the reader gives them: tokens in lower case, prototype names among them. */
const headerName = fc.oneof(
  fc.constantFrom('constructor', '__proto__', 'content-type', 'if-match', 'x-a'),
  fc.string({ unit: fc.constantFrom(..."abz09!#$%&'*+.^_`|~-"), minLength: 1, maxLength: 12 }),
);
/** A header value as the reader gives it: one line, no blank at either end. */
const headerValue = fc.string({ maxLength: 20 }).map((value) => value.replace(/[\r\n]/g, '').trim());
const headers = fc
  .uniqueArray(fc.tuple(headerName, headerValue), { selector: ([name]) => name, maxLength: 5 })
  .map((pairs) => {
    const out: Record<string, string> = {};
    for (const [name, value] of pairs)
      Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    return out;
  });
/** A body as the reader gives it: any text but one ending with a line break (those are the part's). */
const body = fc.option(
  fc
    .string({
      unit: fc.oneof(fc.constantFrom('\r', '\n', '\r\n', '-', '{', '}'), fc.string({ maxLength: 1 })),
    })
    .filter((text) => text !== '' && !text.endsWith('\n')),
  { nil: undefined },
);
const contentId = fc.option(
  fc.string({ maxLength: 12 }).map((id) => id.replace(/[\r\n]/g, '')),
  { nil: undefined },
);

/** The part without the members the writer leaves out (an undefined body or Content-ID). */
function defined<Part extends object>(part: Part): Part {
  return Object.fromEntries(Object.entries(part).filter(([, value]) => value !== undefined)) as Part;
}

/** Whether any text of the parts holds the boundary, which would cut a part short. */
const holds = (text: string, parts: readonly object[]) => JSON.stringify(parts).includes(text);

describe('the batch writers and readers', () => {
  it('read back the requests written', () => {
    const request = fc.record({ method, target, headers, body, contentId });
    fc.assert(
      fc.property(fc.array(request, { maxLength: 4 }), boundary, (parts, chosen) => {
        fc.pre(!holds(chosen, parts));
        const encoded = encodeBatchRequest(parts as BatchPartRequest[], chosen);
        expect(parseBatchRequest(encoded.contentType, encoded.body)).toEqual(parts.map(defined));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('read back the answers written', () => {
    const answer = fc.record({
      status: fc.oneof(fc.constantFrom(200, 204, 304, 404, 412, 503), fc.integer({ min: 100, max: 599 })),
      headers,
      body,
      contentId,
    });
    fc.assert(
      fc.property(fc.array(answer, { maxLength: 4 }), boundary, (parts, chosen) => {
        fc.pre(!holds(chosen, parts));
        const encoded = encodeBatchResponse(parts as BatchPartResponse[], chosen);
        expect(parseBatchResponse(encoded.contentType, encoded.body)).toEqual(parts.map(defined));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
