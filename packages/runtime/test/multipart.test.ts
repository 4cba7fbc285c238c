/**
 * The batch wire format (src/multipart.ts): what the readers take (CRLF or LF, a preamble and
 * an epilogue, Content-ID with or without angle brackets, absolute request targets), what they
 * refuse and how they say it, and that what the writers write reads back as it was.
 */
import { describe, expect, it } from 'vitest';
import {
  BatchFormatError,
  BatchLimitError,
  type BatchPartRequest,
  type BatchPartResponse,
  boundaryOf,
  encodeBatchRequest,
  encodeBatchResponse,
  newBoundary,
  parseBatchRequest,
  parseBatchResponse,
} from '../src/multipart.ts';

const TYPE = 'multipart/mixed; boundary=abc';
const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');

/** Two calls, as a third-party batcher writes them: LF line breaks, a leading blank line, bare Content-IDs. */
const TWO_CALLS = `
--abc
Content-Type: application/http
Content-ID: 1

GET /calendar/v3/calendars/primary/events/e1?fields=id HTTP/1.1
Accept: application/json


--abc
Content-Type: application/http
Content-ID: <two>

POST https://www.googleapis.com/calendar/v3/calendars/primary/events HTTP/1.1
Content-Type: application/json
If-Match: "1"

{"summary":"Review",
 "location":"Room 2"}


--abc--
an epilogue, ignored
`;

const EXPECTED_CALLS: BatchPartRequest[] = [
  {
    method: 'GET',
    target: '/calendar/v3/calendars/primary/events/e1?fields=id',
    headers: { accept: 'application/json' },
    contentId: '1',
  },
  {
    method: 'POST',
    target: '/calendar/v3/calendars/primary/events',
    headers: { 'content-type': 'application/json', 'if-match': '"1"' },
    body: '{"summary":"Review",\n "location":"Room 2"}',
    contentId: 'two',
  },
];

describe('boundaryOf', () => {
  it.each([
    ['multipart/mixed; boundary=abc', 'abc'],
    ['multipart/mixed; boundary="a b:c"', 'a b:c'],
    ['Multipart/Mixed;charset=utf-8;BOUNDARY=batch_1', 'batch_1'],
  ])('reads %s', (type, boundary) => {
    expect(boundaryOf(type)).toBe(boundary);
  });

  it.each([
    [undefined, 'a batch is multipart/mixed, not a body without Content-Type'],
    ['application/json', 'a batch is multipart/mixed, not "application/json"'],
    [
      'multipart/form-data; boundary=abc',
      'a batch is multipart/mixed, not "multipart/form-data; boundary=abc"',
    ],
    ['multipart/mixed', 'the multipart/mixed Content-Type has no boundary'],
    [`multipart/mixed; boundary=${'b'.repeat(71)}`, 'the boundary is longer than 70 characters'],
  ])('refuses %s', (type, message) => {
    expect(() => boundaryOf(type)).toThrow(new BatchFormatError(message));
  });
});

describe('parseBatchRequest', () => {
  it.each([
    ['LF line breaks', TWO_CALLS],
    ['CRLF line breaks', crlf(TWO_CALLS)],
  ])('reads calls written with %s, with a preamble and an epilogue', (_name, body) => {
    const calls = parseBatchRequest(TYPE, body);
    expect(calls).toEqual(
      EXPECTED_CALLS.map((call) =>
        call.body && body.includes('\r\n') ? { ...call, body: call.body.replace('\n', '\r\n') } : call,
      ),
    );
  });

  it('reads a part without headers of its own as a part of no type, and refuses it', () => {
    expect(() => parseBatchRequest(TYPE, '--abc\r\n\r\nGET /x HTTP/1.1\r\n\r\n--abc--')).toThrow(
      new BatchFormatError('each part is Content-Type: application/http, not a part without one', 1),
    );
  });

  it('joins a header given twice, and takes a request line without its HTTP version', () => {
    const [call] = parseBatchRequest(
      TYPE,
      crlf('--abc\nContent-Type: application/http\n\ndelete /x\nX-A: 1\nx-a: 2\n\n--abc--'),
    );
    expect(call).toEqual({ method: 'DELETE', target: '/x', headers: { 'x-a': '1, 2' } });
  });

  it.each<[string, string, string]>([
    ['a body with no boundary line', 'GET /x HTTP/1.1\r\n', 'the body has no line --abc'],
    [
      'a body cut before its closing line',
      '--abc\r\nContent-Type: application/http\r\n\r\nGET /x HTTP/1.1\r\n',
      'the body ends before its closing line --abc--',
    ],
    [
      'a part of another type',
      '--abc\r\nContent-Type: application/json\r\n\r\n{}\r\n--abc--',
      'part 1: each part is Content-Type: application/http, not "application/json"',
    ],
    [
      'a part whose request line is none',
      '--abc\r\nContent-Type: application/http\r\n\r\nGET /x\r\n--abc\r\nContent-Type: application/http\r\n\r\n{"summary":"x"}\r\n--abc--',
      'part 2: expected a request line such as "GET /calendar/v3/colors HTTP/1.1", found "{\\"summary\\":\\"x\\"}"',
    ],
    [
      'a request target that is no path',
      '--abc\r\nContent-Type: application/http\r\n\r\nGET colors HTTP/1.1\r\n--abc--',
      'part 1: the request target "colors" is no path',
    ],
    [
      'a header line without a name',
      '--abc\r\nContent-Type: application/http\r\n\r\nGET /x HTTP/1.1\r\nnot a header\r\n\r\n--abc--',
      'part 1: the request header line "not a header" is no "Name: value" header',
    ],
    [
      'a part header line without a name',
      '--abc\r\nContent-Type application/http\r\n\r\nGET /x HTTP/1.1\r\n--abc--',
      'part 1: the part header line "Content-Type application/http" is no "Name: value" header',
    ],
  ])('refuses %s, saying where', (_name, body, message) => {
    expect(() => parseBatchRequest(TYPE, body)).toThrow(message);
    expect(() => parseBatchRequest(TYPE, body)).toThrow(BatchFormatError);
  });

  it('refuses more parts than maxParts with a BatchLimitError, and takes as many', () => {
    const calls = Array.from({ length: 3 }, () => ({ method: 'GET', target: '/colors', headers: {} }));
    const { contentType, body } = encodeBatchRequest(calls);
    expect(parseBatchRequest(contentType, body, { maxParts: 3 })).toHaveLength(3);
    const refusal = (() => {
      try {
        parseBatchRequest(contentType, body, { maxParts: 2 });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(BatchLimitError);
    expect((refusal as BatchLimitError).limit).toBe(2);
  });

  // RFC 2046: close-delimiter transport-padding [CRLF epilogue]. The padding is spaces and tabs;
  // the line may also end in LF alone or CR alone, as the rest of the reader takes them.
  it.each([
    ['nothing', ''],
    ['CRLF', '\r\n'],
    ['LF', '\n'],
    ['a lone CR', '\r'],
    ['padding and a lone CR', ' \t \r'],
    ['padding, CRLF and an epilogue', ' \t\r\nan epilogue\r\n--abc\r\n'],
    ['a lone CR and an epilogue', '\ran epilogue'],
    ['LF and an epilogue of line breaks', '\n\r\r\n\n'],
  ])('takes a closing line followed by %s', (_name, after) => {
    const body = `--abc\r\nContent-Type: application/http\r\n\r\nGET /x HTTP/1.1\r\n--abc--${after}`;
    expect(parseBatchRequest(TYPE, body)).toEqual([{ method: 'GET', target: '/x', headers: {} }]);
  });

  it.each([
    ['a closing line with text after it', '--abc--x\r\n'],
    ['a delimiter cut before its second dash', '--abc-\r'],
    ['a delimiter followed by a lone CR', '--abc\r'],
  ])('still refuses %s as no closing line', (_name, last) => {
    const body = `--abc\r\nContent-Type: application/http\r\n\r\nGET /x HTTP/1.1\r\n${last}`;
    expect(() => parseBatchRequest(TYPE, body)).toThrow('the body ends before its closing line --abc--');
  });

  it('does not take a line that only begins with the boundary for one', () => {
    const body = crlf(
      '--abc\nContent-Type: application/http\n\nPOST /x HTTP/1.1\n\n--abcdef is text\n--abc--',
    );
    expect(parseBatchRequest(TYPE, body)).toEqual([
      { method: 'POST', target: '/x', headers: {}, body: '--abcdef is text' },
    ]);
  });
});

/**
 * What an attacker sends before any credential is checked: long runs of line breaks, blanks and
 * boundary look-alikes, where a backtracking reader took seconds (a run of line breaks followed
 * by text took quadratic time). Each row is answered as a short body of the same shape is.
 */
describe('hostile bodies', () => {
  const refusalOf = (read: () => unknown): unknown => {
    try {
      read();
    } catch (error) {
      return error;
    }
    throw new Error('expected a refusal');
  };
  const RUN = 60_000;
  const part = (message: string) => `--abc\r\nContent-Type: application/http\r\n\r\n${message}`;
  it.each<[string, string, BatchPartRequest[] | string]>([
    [
      'a run of LF in a body, then text',
      `${part(`POST /x HTTP/1.1\r\n\r\n${'\n'.repeat(RUN)}x`)}\r\n--abc--`,
      [{ method: 'POST', target: '/x', headers: {}, body: `${'\n'.repeat(RUN)}x` }],
    ],
    [
      'a run of CRLF in a body, then text',
      `${part(`POST /x HTTP/1.1\r\n\r\n${'\r\n'.repeat(RUN / 2)}x`)}\r\n--abc--`,
      [{ method: 'POST', target: '/x', headers: {}, body: `${'\r\n'.repeat(RUN / 2)}x` }],
    ],
    [
      'a run of line breaks ending a body',
      `${part(`POST /x HTTP/1.1\r\n\r\nx${'\r\n\n'.repeat(RUN / 3)}`)}--abc--`,
      [{ method: 'POST', target: '/x', headers: {}, body: 'x' }],
    ],
    [
      'a run of lone CRs in a body',
      `${part(`POST /x HTTP/1.1\r\n\r\n${'\r'.repeat(RUN)}`)}\r\n--abc--`,
      [{ method: 'POST', target: '/x', headers: {}, body: '\r'.repeat(RUN) }],
    ],
    [
      'a run of line breaks before the request line',
      `${part(`${'\n'.repeat(RUN)}GET /x HTTP/1.1`)}\r\n--abc--`,
      [{ method: 'GET', target: '/x', headers: {} }],
    ],
    [
      'a run of line breaks and no closing line',
      `${part(`POST /x HTTP/1.1\r\n\r\n${'\n'.repeat(RUN)}x`)}`,
      'the body ends before its closing line --abc--',
    ],
    [
      'a run of line breaks before a part that is no request',
      `${part(`${'\r\n'.repeat(RUN / 2)}{`)}\r\n--abc--`,
      'part 1: expected a request line such as "GET /calendar/v3/colors HTTP/1.1", found "{"',
    ],
    ['nothing but line breaks', '\r\n'.repeat(RUN), 'the body has no line --abc'],
    ['boundary look-alikes', '\n--ab'.repeat(RUN / 5), 'the body has no line --abc'],
    [
      'a delimiter followed by a run of blanks, then text',
      `${part('GET /x HTTP/1.1\r\n')}\r\n--abc${' \t'.repeat(RUN / 2)}x\r\n--abc--`,
      [{ method: 'GET', target: '/x', headers: {}, body: `--abc${' \t'.repeat(RUN / 2)}x` }],
    ],
    [
      'a header line of blanks',
      `${part(`GET /x HTTP/1.1\r\nX-A:${' '.repeat(RUN)}1`)}\r\n--abc--`,
      [{ method: 'GET', target: '/x', headers: { 'x-a': '1' } }],
    ],
    [
      'a request line with a long target and blanks, then text',
      `${part(`GET /${'a'.repeat(RUN)}${' '.repeat(RUN)}x`)}\r\n--abc--`,
      `part 1: expected a request line such as "GET /calendar/v3/colors HTTP/1.1", found "GET /${'a'.repeat(RUN)}${' '.repeat(RUN)}x"`,
    ],
    [
      'an absolute target that is no URL',
      `${part('GET http://[ HTTP/1.1')}\r\n--abc--`,
      'part 1: the request target "http://[" is no URL',
    ],
  ])('reads %s as it reads a short one', (_name, body, expected) => {
    if (typeof expected === 'string') {
      const error = refusalOf(() => parseBatchRequest(TYPE, body));
      expect(error).toBeInstanceOf(BatchFormatError);
      // Compared as a whole, not diffed: some messages quote 120,000 characters.
      expect((error as Error).message === expected, (error as Error).message.slice(0, 200)).toBe(true);
      return;
    }
    expect(parseBatchRequest(TYPE, body)).toEqual(expected);
  });

  it.each([
    [
      'a boundary of 1 MB',
      `multipart/mixed; boundary=${'b'.repeat(2 ** 20)}`,
      'the boundary is longer than 70 characters',
    ],
    [
      'a quoted boundary of 1 MB never closed',
      `multipart/mixed; boundary="${'b'.repeat(2 ** 20)}`,
      'the boundary is longer than 70 characters',
    ],
    [
      '100,000 semicolons',
      `multipart/mixed${';'.repeat(100_000)}`,
      'the multipart/mixed Content-Type has no boundary',
    ],
    [
      '100,000 "; boundary" without =',
      `multipart/mixed${'; boundary '.repeat(100_000)}`,
      'the multipart/mixed Content-Type has no boundary',
    ],
    [
      'a run of blanks, then text',
      `multipart/mixed${' '.repeat(100_000)}x`,
      `a batch is multipart/mixed, not "multipart/mixed${' '.repeat(100_000)}x"`,
    ],
  ])('refuses a Content-Type with %s', (_name, type, message) => {
    expect(() => boundaryOf(type)).toThrow(new BatchFormatError(message));
  });

  it.each(['constructor', '__proto__'])('keeps a header named %s as any other, repeats joined', (name) => {
    const body = `${part(`GET /x HTTP/1.1\r\n${name}: 1\r\n${name}: 2`)}\r\n--abc--`;
    const [call] = parseBatchRequest(TYPE, body);
    expect(Object.getPrototypeOf(call?.headers)).toBe(Object.prototype);
    expect(Object.entries(call?.headers ?? {})).toEqual([[name, '1, 2']]);
  });

  it('reads back a Content-ID holding a line separator', () => {
    const { contentType, body } = encodeBatchRequest([
      { method: 'GET', target: '/x', headers: {}, contentId: 'a\u2028b' },
    ]);
    expect(parseBatchRequest(contentType, body)[0]?.contentId).toBe('a\u2028b');
  });
});

describe('parseBatchResponse', () => {
  it('reads status, headers, body and Content-ID of each answer, in the order they came', () => {
    const body = crlf(`--batch_x
Content-Type: application/http
Content-ID: <response-2>

HTTP/1.1 404 Not Found
Content-Type: application/json; charset=UTF-8

{"error":{"code":404}}
--batch_x
Content-Type: application/http
Content-ID: <response-1>

HTTP/1.1 204 No Content


--batch_x--
`);
    expect(parseBatchResponse('multipart/mixed; boundary=batch_x', body)).toEqual([
      {
        status: 404,
        headers: { 'content-type': 'application/json; charset=UTF-8' },
        body: '{"error":{"code":404}}',
        contentId: 'response-2',
      },
      { status: 204, headers: {}, contentId: 'response-1' },
    ]);
  });

  it('refuses a part whose first line is no status line, naming the part', () => {
    const body = '--b\r\nContent-Type: application/http\r\n\r\nGET /x HTTP/1.1\r\n--b--';
    expect(() => parseBatchResponse('multipart/mixed; boundary=b', body)).toThrow(
      new BatchFormatError('expected a status line such as "HTTP/1.1 200 OK", found "GET /x HTTP/1.1"', 1),
    );
  });
});

describe('the writers', () => {
  it('write CRLF, an unquoted boundary, <Content-ID>, and read back as written', () => {
    const calls: BatchPartRequest[] = [
      { method: 'GET', target: '/calendar/v3/colors', headers: {}, contentId: 'a' },
      {
        method: 'PATCH',
        target: '/calendar/v3/calendars/c1?fields=id',
        headers: { 'content-type': 'application/json' },
        body: '{"summary":"Two\\nlines"}',
        contentId: 'b',
      },
    ];
    const request = encodeBatchRequest(calls, 'batch_fixed');
    expect(request.contentType).toBe('multipart/mixed; boundary=batch_fixed');
    expect(request.body.replace(/\r\n/g, '')).not.toContain('\n');
    expect(request.body).toContain('\r\nContent-ID: <a>\r\n');
    expect(request.body.endsWith('--batch_fixed--\r\n')).toBe(true);
    expect(parseBatchRequest(request.contentType, request.body)).toEqual(calls);

    const answers: BatchPartResponse[] = [
      { status: 200, headers: { etag: '"7"' }, body: '{"id":"c1"}', contentId: 'response-b' },
      { status: 503, headers: {}, contentId: 'response-a' },
    ];
    const response = encodeBatchResponse(answers);
    expect(response.body).toContain('\r\nHTTP/1.1 503 Service Unavailable\r\n');
    expect(parseBatchResponse(response.contentType, response.body)).toEqual(answers);
  });

  it('refuse a header that would break its line', () => {
    expect(() =>
      encodeBatchRequest([{ method: 'GET', target: '/x', headers: { 'x-a': 'one\r\nX-B: two' } }]),
    ).toThrow(new TypeError('the header "x-a" holds a line break'));
  });

  it('make a new boundary each time, one no JSON body holds by chance', () => {
    const [a, b] = [newBoundary(), newBoundary()];
    expect(a).toMatch(/^batch_[0-9a-f]{36}$/);
    expect(a).not.toBe(b);
  });
});
