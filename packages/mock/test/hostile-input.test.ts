/**
 * What an attacker can send the mock before any credential is checked, over HTTP: batch bodies
 * with long runs of line breaks, Content-Types with a boundary of kilobytes or thousands of `;`,
 * `fields` masks nested thousands deep, query strings of thousands of `&`. Each gets the answer
 * a short request of its kind gets (a 400 in Google's envelope, saying what is wrong and where,
 * or the call's own answer), never a 500, and the mock still answers afterwards. How long they
 * take, against a normal request of the same size, is measured by
 * packages/emulator/bench/hostile.bench.ts, not here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, loadApis } from '../src/index.ts';

let gateway: Gateway;
let origin: string;

beforeAll(async () => {
  gateway = createGateway({ apis: await loadApis() });
  origin = await gateway.listen(0);
});
afterAll(() => gateway.close());

const BOUNDARY = 'b';
const BATCH_TYPE = `multipart/mixed; boundary=${BOUNDARY}`;

/** One call of a batch: its request line, headers and body, in a part of its own. */
const part = (message: string) => `--${BOUNDARY}\r\nContent-Type: application/http\r\n\r\n${message}`;
const closed = (body: string) => `${body}\r\n--${BOUNDARY}--\r\n`;

interface Request {
  method?: string;
  path: string;
  contentType?: string;
  body?: string;
}

interface Expected {
  status: number;
  /** The error item of a refusal, or of the batch's only part (with `part`). */
  reason?: string;
  location?: string;
  message?: string | RegExp;
  /** The batch is 200 and its only call was answered this status. */
  part?: number;
}

/** The first part's status line and JSON body of a batch answer. */
function firstPart(text: string): { status: number; body: { error?: { errors: Record<string, string>[] } } } {
  const status = /\r\nHTTP\/1\.1 (\d{3}) /.exec(text)?.[1];
  const json = /\r\n\r\n(\{.*\})\r\n--/s.exec(text.slice(text.indexOf('HTTP/1.1')))?.[1];
  return { status: Number(status), body: json ? JSON.parse(json) : {} };
}

const colors = '/calendar/v3/colors';

describe('hostile requests', () => {
  it.each<[string, Request, Expected]>([
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
    // The URL parser reads `//[` as a host: a 404 of no path, not a failure of the mock.
    ['a target the URL parser refuses', { method: 'GET', path: '//[' }, { status: 404, reason: 'notFound' }],
    [
      'a batch whose call has a target the URL parser refuses',
      { path: '/batch/calendar/v3', body: closed(part('GET //[ HTTP/1.1\r\n')) },
      { status: 200, part: 400, reason: 'badRequest', message: /^Part 1: GET \/\/\[ cannot be sent/ },
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
  ])('answers %s as a short one, and still answers after', async (_name, request, expected) => {
    const response = await fetch(`${origin}${request.path}`, {
      method: request.method ?? 'POST',
      headers: {
        authorization: 'Bearer test-token',
        ...(request.body !== undefined ? { 'content-type': request.contentType ?? BATCH_TYPE } : {}),
      },
      ...(request.body !== undefined ? { body: request.body } : {}),
    });
    const text = await response.text();
    expect(response.status).toBe(expected.status);
    let error: { code?: number; errors: Record<string, string>[] } | undefined;
    if (expected.part !== undefined) {
      const answer = firstPart(text);
      expect(answer.status).toBe(expected.part);
      error = answer.body.error;
    } else if (expected.status !== 200) {
      error = (JSON.parse(text) as { error: { code: number; errors: Record<string, string>[] } }).error;
      expect(error.code).toBe(expected.status);
    }
    if (expected.reason !== undefined) {
      const item = error?.errors[0];
      expect(item?.reason).toBe(expected.reason);
      expect(item?.location).toBe(expected.location);
      if (expected.message !== undefined) expect(item?.message).toMatch(expected.message);
    }
    const health = await fetch(`${origin}/healthz`);
    expect(health.status).toBe(200);
  });
});
