/**
 * What an attacker can send the mock or the emulator before any credential is checked (issue
 * 33), as one table both servers' tests run (packages/emulator/test/hostile-input.test.ts,
 * packages/mock/test/hostile-input.test.ts): batch bodies with long runs of line breaks,
 * Content-Types with a boundary of kilobytes or thousands of `;`, `fields` masks nested
 * thousands deep, query strings of thousands of `&`, targets the URL parser refuses, JSON nested
 * 200,000 deep. Each must get the answer a short request of its kind gets (a 400 in Google's
 * envelope, saying what is wrong and where, or the call's own answer), never a 500. How long
 * they take against a normal request of the same size is the emulator's bench/hostile.bench.ts.
 */

export const BOUNDARY = 'b';
export const BATCH_TYPE = `multipart/mixed; boundary=${BOUNDARY}`;

/** One call of a batch: its request line, headers and body, in a part of its own. */
export const part = (message: string) => `--${BOUNDARY}\r\nContent-Type: application/http\r\n\r\n${message}`;
export const closed = (body: string) => `${body}\r\n--${BOUNDARY}--\r\n`;

export interface HostileRequest {
  method?: string;
  path: string;
  contentType?: string;
  body?: string;
}

export interface HostileAnswer {
  status: number;
  /** The error item of a refusal, or of the batch's only part (with `part`). */
  reason?: string;
  location?: string;
  message?: string | RegExp;
  /** The batch is 200 and its only call was answered this status. */
  part?: number;
}

const colors = '/calendar/v3/colors';

/** Each hostile request, by name, with the answer it must get from either server. */
export const HOSTILE_REQUESTS: [name: string, request: HostileRequest, answer: HostileAnswer][] = [
  [
    'a batch whose call has 60,000 line breaks and text for a body',
    {
      path: '/batch/calendar/v3',
      body: closed(
        part(
          `POST /calendar/v3/calendars HTTP/1.1\r\nContent-Type: application/json\r\n\r\n${'\n'.repeat(60_000)}x`,
        ),
      ),
    },
    { status: 200, part: 400, reason: 'parseError' },
  ],
  [
    'a batch of 60,000 line breaks never closed',
    {
      path: '/batch/calendar/v3',
      body: part(`POST /calendar/v3/calendars HTTP/1.1\r\n\r\n${'\n'.repeat(60_000)}x`),
    },
    {
      status: 400,
      reason: 'badRequest',
      message: 'The batch request is malformed: the body ends before its closing line --b--.',
    },
  ],
  [
    'a batch of 30,000 CRLF before a part that is no request',
    { path: '/batch/calendar/v3', body: closed(part(`${'\r\n'.repeat(30_000)}{`)) },
    { status: 400, reason: 'badRequest', message: /part 1: expected a request line .*, found "\{"\.$/ },
  ],
  [
    'a batch of nothing but 60,000 line breaks',
    { path: '/batch/calendar/v3', body: '\r\n'.repeat(30_000) },
    {
      status: 400,
      reason: 'badRequest',
      message: 'The batch request is malformed: the body has no line --b.',
    },
  ],
  [
    'a batch whose boundary is 12 KB',
    {
      path: '/batch/calendar/v3',
      contentType: `multipart/mixed; boundary=${'b'.repeat(12_000)}`,
      body: '--b--',
    },
    {
      status: 400,
      reason: 'badRequest',
      location: 'Content-Type',
      message: 'The batch request is malformed: the boundary is longer than 70 characters.',
    },
  ],
  [
    'a batch whose Content-Type has 12,000 semicolons',
    { path: '/batch/calendar/v3', contentType: `multipart/mixed${';'.repeat(12_000)}`, body: '--b--' },
    {
      status: 400,
      reason: 'badRequest',
      location: 'Content-Type',
      message: 'The batch request is malformed: the multipart/mixed Content-Type has no boundary.',
    },
  ],
  [
    'a batch whose call has an absolute target that is no URL',
    { path: '/batch/calendar/v3', body: closed(part('GET http://[ HTTP/1.1\r\n')) },
    {
      status: 400,
      reason: 'badRequest',
      message: 'The batch request is malformed: part 1: the request target "http://[" is no URL.',
    },
  ],
  [
    'a batch whose call has a target the URL parser refuses',
    { path: '/batch/calendar/v3', body: closed(part('GET //[ HTTP/1.1\r\n')) },
    { status: 200, part: 400, reason: 'badRequest', message: /^Part 1: GET \/\/\[ cannot be sent in/ },
  ],
  [
    'a batch whose call has 1,000,000 & in its query',
    {
      path: '/batch/calendar/v3',
      body: closed(part(`GET ${colors}?${'&'.repeat(1_000_000)} HTTP/1.1\r\n`)),
    },
    { status: 200, part: 200 },
  ],
  [
    'a batch whose call has a fields mask of 200,000 nested a(',
    {
      path: '/batch/calendar/v3',
      body: closed(part(`GET ${colors}?fields=${'a('.repeat(200_000)} HTTP/1.1\r\n`)),
    },
    {
      status: 200,
      part: 400,
      reason: 'invalidParameter',
      location: 'fields',
      message: /the mask nests fields more than 100 deep at character 201$/,
    },
  ],
  [
    'a fields mask of 7,000 nested a(',
    { method: 'GET', path: `${colors}?fields=${'a('.repeat(7000)}` },
    {
      status: 400,
      reason: 'invalidParameter',
      location: 'fields',
      message: `Invalid field selection ${'a('.repeat(50)}...: the mask nests fields more than 100 deep at character 201`,
    },
  ],
  [
    'a fields mask of a path 7,000 deep',
    { method: 'GET', path: `${colors}?fields=${'a/'.repeat(7000)}a` },
    {
      status: 400,
      reason: 'invalidParameter',
      location: 'fields',
      message: /more than 100 deep at character 201$/,
    },
  ],
  [
    'a fields mask of 7,000 )',
    { method: 'GET', path: `${colors}?fields=${')'.repeat(7000)}` },
    {
      status: 400,
      reason: 'invalidParameter',
      location: 'fields',
      message: /: expected a field name or \* at character 1, found "\)"$/,
    },
  ],
  ['a query of 15,000 &', { method: 'GET', path: `${colors}?${'&'.repeat(15_000)}` }, { status: 200 }],
  // The URL parser reads `//[` as a host: a 404 of no path, not a failure of the server.
  ['a target the URL parser refuses', { method: 'GET', path: '//' }, { status: 404, reason: 'notFound' }],
  [
    'a target the URL parser reads as a host',
    { method: 'GET', path: '//[' },
    { status: 404, reason: 'notFound' },
  ],
  [
    'a body of JSON nested 200,000 deep',
    {
      path: '/calendar/v3/calendars',
      contentType: 'application/json',
      body: `{"summary":${'['.repeat(200_000)}${']'.repeat(200_000)}}`,
    },
    {
      status: 400,
      reason: 'parseError',
      message: /nests objects and arrays more than 100 deep \(at character 110\)$/,
    },
  ],
];

/** The first part's status line and JSON body of a batch answer. */
function firstPart(text: string): { status: number; body: { error?: { errors: Record<string, string>[] } } } {
  const status = /\r\nHTTP\/1\.1 (\d{3}) /.exec(text)?.[1];
  const json = /\r\n\r\n(\{.*\})\r\n--/s.exec(text.slice(text.indexOf('HTTP/1.1')))?.[1];
  return { status: Number(status), body: json ? JSON.parse(json) : {} };
}

/**
 * Sends a hostile request to `origin` with a bearer `token` and reads what came back in the
 * shape of HostileAnswer: the status, the only part's status for a batch, and the first error
 * item's reason, location and message (fields left out where the answer has none).
 */
export async function answerOf(
  origin: string,
  request: HostileRequest,
  token: string,
): Promise<HostileAnswer> {
  const response = await fetch(`${origin}${request.path}`, {
    method: request.method ?? 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(request.body !== undefined ? { 'content-type': request.contentType ?? BATCH_TYPE } : {}),
    },
    ...(request.body !== undefined ? { body: request.body } : {}),
  });
  const text = await response.text();
  let error: { code?: number; errors: Record<string, string>[] } | undefined;
  let partStatus: number | undefined;
  if (response.status === 200 && /^multipart\//.test(response.headers.get('content-type') ?? '')) {
    const answer = firstPart(text);
    partStatus = answer.status;
    error = answer.body.error;
  } else if (response.status !== 200) {
    error = (JSON.parse(text) as { error: { code: number; errors: Record<string, string>[] } }).error;
    if (error.code !== response.status)
      throw new Error(`the envelope's code ${error.code} is not the status ${response.status}`);
  }
  const item = error?.errors[0];
  return {
    status: response.status,
    ...(partStatus !== undefined ? { part: partStatus } : {}),
    ...(item?.reason !== undefined ? { reason: item.reason } : {}),
    ...(item?.location !== undefined ? { location: item.location } : {}),
    ...(item?.message !== undefined ? { message: item.message } : {}),
  };
}
