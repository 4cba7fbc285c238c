/**
 * The batch endpoint's shared part (src/batch.ts): which paths are batch endpoints, the calls
 * of a batch with the outer headers they inherit, the batches refused as a whole (and how the
 * refusal reads), and the answer written in the calls' order with `response-` Content-IDs.
 */
import { encodeBatchRequest, parseBatchResponse } from '@gspec/runtime/multipart';
import { describe, expect, it } from 'vitest';
import { BATCH_LIMIT, batchPath, HttpRefusal, readBatch, writeBatch } from '../src/index.ts';

describe('batchPath', () => {
  it.each([
    ['/batch/calendar/v3', { prefix: '/calendar/v3' }],
    ['/batch/calendar/v3/', { prefix: '/calendar/v3' }],
    ['/batch', {}],
    ['/batch/calendar', undefined],
    ['/batch/calendar/v3/events', undefined],
    ['/calendar/v3/batch', undefined],
  ])('%s → %j', (pathname, expected) => {
    expect(batchPath(pathname)).toEqual(expected);
  });
});

const calls = (count: number) =>
  encodeBatchRequest(
    Array.from({ length: count }, (_, i) => ({
      method: 'GET',
      target: `/calendar/v3/calendars/c${i}`,
      headers: {},
      contentId: `c${i}`,
    })),
  );

describe('readBatch', () => {
  it('gives every call the outer headers but the Content- ones and the connection, unless it sets its own', () => {
    const { contentType, body } = encodeBatchRequest([
      { method: 'GET', target: '/calendar/v3/colors', headers: {} },
      {
        method: 'POST',
        target: '/calendar/v3/calendars',
        headers: { authorization: 'Bearer own', 'content-type': 'application/json' },
        body: '{}',
      },
    ]);
    const read = readBatch(
      {
        'content-type': contentType,
        'content-length': String(body.length),
        host: '127.0.0.1:4011',
        connection: 'keep-alive',
        authorization: 'Bearer outer',
        prefer: 'code=404',
        'x-goog-api-client': 'gl-node/20',
      },
      body,
    );
    expect(read.map((call) => [call.index, call.headers])).toEqual([
      [1, { authorization: 'Bearer outer', prefer: 'code=404', 'x-goog-api-client': 'gl-node/20' }],
      [
        2,
        {
          authorization: 'Bearer own',
          prefer: 'code=404',
          'x-goog-api-client': 'gl-node/20',
          'content-type': 'application/json',
        },
      ],
    ]);
  });

  it(`takes ${BATCH_LIMIT} calls`, () => {
    const { contentType, body } = calls(BATCH_LIMIT);
    expect(readBatch({ 'content-type': contentType }, body)).toHaveLength(BATCH_LIMIT);
  });

  const overLimit = calls(BATCH_LIMIT + 1);
  const refusal = (headers: Record<string, string>, body: string | undefined, limit?: number) => {
    try {
      readBatch(headers, body, limit);
    } catch (error) {
      expect(error).toBeInstanceOf(HttpRefusal);
      const { status, body: envelope } = error as HttpRefusal;
      return { status, ...(envelope.error.errors[0] as object) };
    }
    throw new Error('expected a refusal');
  };

  it.each<[string, Record<string, string>, string | undefined, object]>([
    [
      `${BATCH_LIMIT + 1} calls`,
      { 'content-type': overLimit.contentType },
      overLimit.body,
      { reason: 'badRequest', message: `A batch request may hold at most ${BATCH_LIMIT} calls.` },
    ],
    [
      'a JSON body',
      { 'content-type': 'application/json' },
      '{}',
      {
        reason: 'badRequest',
        message: 'The batch request is malformed: a batch is multipart/mixed, not "application/json".',
        location: 'Content-Type',
        locationType: 'header',
      },
    ],
    [
      'no body',
      { 'content-type': 'multipart/mixed; boundary=abc' },
      undefined,
      { reason: 'badRequest', message: 'The batch request is malformed: the body has no line --abc.' },
    ],
    [
      'a part that is no request',
      { 'content-type': 'multipart/mixed; boundary=abc' },
      '--abc\r\nContent-Type: application/http\r\n\r\nhello\r\n--abc--',
      {
        reason: 'badRequest',
        message:
          'The batch request is malformed: part 1: expected a request line such as "GET /calendar/v3/colors HTTP/1.1", found "hello".',
      },
    ],
    [
      'no call',
      { 'content-type': 'multipart/mixed; boundary=abc' },
      '--abc--',
      { reason: 'badRequest', message: 'The batch request holds no call.' },
    ],
    // What an attacker sends before any credential is checked.
    [
      'a boundary of 1 MB',
      { 'content-type': `multipart/mixed; boundary=${'b'.repeat(2 ** 20)}` },
      '--b--',
      {
        reason: 'badRequest',
        message: 'The batch request is malformed: the boundary is longer than 70 characters.',
        location: 'Content-Type',
        locationType: 'header',
      },
    ],
    [
      'a Content-Type of 100,000 semicolons',
      { 'content-type': `multipart/mixed${';'.repeat(100_000)}` },
      '--b--',
      {
        reason: 'badRequest',
        message: 'The batch request is malformed: the multipart/mixed Content-Type has no boundary.',
        location: 'Content-Type',
        locationType: 'header',
      },
    ],
    [
      'a body without its boundary, whose boundary reads "boundary" (the body is at fault, not the header)',
      { 'content-type': 'multipart/mixed; boundary=boundary' },
      'x',
      { reason: 'badRequest', message: 'The batch request is malformed: the body has no line --boundary.' },
    ],
    [
      '60,000 line breaks and no closing line',
      { 'content-type': 'multipart/mixed; boundary=abc' },
      `--abc\r\nContent-Type: application/http\r\n\r\nPOST /x HTTP/1.1\r\n\r\n${'\n'.repeat(60_000)}x`,
      {
        reason: 'badRequest',
        message: 'The batch request is malformed: the body ends before its closing line --abc--.',
      },
    ],
    [
      '30,000 CRLF before a part that is no request',
      { 'content-type': 'multipart/mixed; boundary=abc' },
      `--abc\r\nContent-Type: application/http\r\n\r\n${'\r\n'.repeat(30_000)}{}\r\n--abc--`,
      {
        reason: 'badRequest',
        message:
          'The batch request is malformed: part 1: expected a request line such as "GET /calendar/v3/colors HTTP/1.1", found "{}".',
      },
    ],
    [
      'a call whose absolute target is no URL',
      { 'content-type': 'multipart/mixed; boundary=abc' },
      '--abc\r\nContent-Type: application/http\r\n\r\nGET http://[ HTTP/1.1\r\n--abc--',
      {
        reason: 'badRequest',
        message: 'The batch request is malformed: part 1: the request target "http://[" is no URL.',
      },
    ],
  ])('refuses %s with 400 as a whole', (_name, headers, body, item) => {
    expect(refusal(headers, body)).toEqual({ status: 400, domain: 'global', ...item });
  });

  it('reads a call whose body is 60,000 line breaks and text', () => {
    const body = `--abc\r\nContent-Type: application/http\r\n\r\nPOST /x HTTP/1.1\r\n\r\n${'\n'.repeat(60_000)}x\r\n--abc--`;
    const [call] = readBatch({ 'content-type': 'multipart/mixed; boundary=abc' }, body);
    expect(call).toMatchObject({ index: 1, method: 'POST', target: '/x' });
    expect(call?.body === `${'\n'.repeat(60_000)}x`).toBe(true);
  });

  it('keeps to a lower limit when given one', () => {
    const { contentType, body } = calls(3);
    expect(refusal({ 'content-type': contentType }, body, 2)).toMatchObject({
      message: 'A batch request may hold at most 2 calls.',
    });
  });
});

describe('writeBatch', () => {
  it('answers in the calls’ order, response-ID for a call with an ID, without framing or empty headers', () => {
    const { contentType, body } = encodeBatchRequest([
      { method: 'GET', target: '/a', headers: {}, contentId: 'first' },
      { method: 'GET', target: '/b', headers: {} },
    ]);
    const read = readBatch({ 'content-type': contentType }, body);
    const written = writeBatch(read, [
      {
        status: 200,
        headers: { 'content-type': 'application/json', 'content-length': '9', etag: '"1"', 'x-empty': '' },
        body: '{"id":"a"}',
      },
      { status: 404, headers: { 'transfer-encoding': 'chunked' }, body: '' },
    ]);
    expect(written.contentType).toMatch(/^multipart\/mixed; boundary=batch_[0-9a-f]+$/);
    expect(parseBatchResponse(written.contentType, written.body)).toEqual([
      {
        status: 200,
        headers: { 'content-type': 'application/json', etag: '"1"' },
        body: '{"id":"a"}',
        contentId: 'response-first',
      },
      { status: 404, headers: {} },
    ]);
  });
});
