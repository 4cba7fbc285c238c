/**
 * Google's batch endpoint (`POST /batch/calendar/v3`, `POST /batch`): the calls of a batch run
 * in order against the state, each answered in its own part as the same call alone would be
 * (status, body, ETag and preconditions, `fields`, validation, strict mode with the outer
 * Authorization or the part's own, quota per call), paired by Content-ID; what is no batch is
 * refused whole with 400; a call the batch cannot carry gets its own 400. The batches are
 * written by hand here (CRLF, LF with a preamble, Content-IDs with and without <>) and read
 * with a parser of this file, so neither side trusts the emulator's codec. Last, a batching
 * client nobody here wrote (@jrmdayn/googleapis-batcher under googleapis) against the built CLI.
 * Every answer, each call's included, is checked against the spec by the harness.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopAll } from '@gspec/scripts/child-process';
import { BATCH_LIMIT } from '@gspec/server-kit';
import { batchFetchImplementation } from '@jrmdayn/googleapis-batcher';
import { google } from 'googleapis';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { notImplementedOperations } from '../src/apis/calendar/handlers.ts';
import type { Emulator } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';
import { startCli } from './support/cli-process.ts';
import { type Harness, spec, TEST_ADMIN_TOKEN, timedEvent, useEmulator } from './support/harness.ts';
import { createResponseCheck } from './support/spec-check.ts';

/** One call as a part writes it. */
interface Call {
  method: string;
  /** The path and query, from the root (`/calendar/v3/...`). */
  path: string;
  /** The part's own headers of the request (Authorization, If-Match, Content-Type...). */
  headers?: Record<string, string>;
  /** Sent as it is: JSON text, with or without a Content-Type among `headers`. */
  body?: string;
  /** The part's Content-ID, as written (with or without <>); none when undefined. */
  id?: string;
}

interface BatchShape {
  boundary?: string;
  /** The line break of every line (Google writes CRLF; some clients LF). */
  eol?: string;
  /** Text before the first boundary, which a reader must skip. */
  preamble?: string;
}

/** A batch body as a client writes it. */
function batchBody(calls: readonly Call[], shape: BatchShape = {}): string {
  const { boundary = 'batch_test', eol = '\r\n', preamble } = shape;
  const lines: string[] = preamble === undefined ? [] : [preamble];
  for (const call of calls) {
    lines.push(`--${boundary}`, 'Content-Type: application/http');
    if (call.id !== undefined) lines.push(`Content-ID: ${call.id}`);
    lines.push('', `${call.method} ${call.path} HTTP/1.1`);
    for (const [name, value] of Object.entries(call.headers ?? {})) lines.push(`${name}: ${value}`);
    lines.push('');
    if (call.body !== undefined) lines.push(call.body);
  }
  lines.push(`--${boundary}--`, '');
  return lines.join(eol);
}

/** One answer of a batch as this file's reader found it. */
interface PartAnswer {
  contentId: string | undefined;
  status: number;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read freely; the spec check types them.
  body: any;
}

interface BatchReply {
  status: number;
  headers: Headers;
  /** The parts, for a 200; else the refusal's JSON. */
  parts: PartAnswer[];
  // biome-ignore lint/suspicious/noExplicitAny: answers are read freely; the spec check types them.
  body: any;
}

/**
 * The parts of a batch answer, read strictly as Google writes them: CRLF line breaks, the
 * boundary of the Content-Type unquoted, each part `application/http` with a status line.
 */
function readAnswer(contentType: string, text: string): PartAnswer[] {
  const boundary = /^multipart\/mixed; boundary=([^\s";]+)$/.exec(contentType)?.[1];
  if (!boundary) throw new Error(`not a batch answer's Content-Type: ${contentType}`);
  expect(text.endsWith(`\r\n--${boundary}--\r\n`), 'the closing boundary ends the answer').toBe(true);
  const chunks = text.split(`--${boundary}`);
  expect(chunks[0], 'nothing before the first boundary').toBe('');
  return chunks.slice(1, -1).map((chunk) => {
    expect(chunk.startsWith('\r\n') && chunk.endsWith('\r\n'), 'each part is framed by CRLF').toBe(true);
    const [outer = '', message = ''] = chunk.slice(2, -2).split(/\r\n\r\n(.*)/s);
    const outerHeaders = Object.fromEntries(
      outer
        .split('\r\n')
        .map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
    );
    expect(outerHeaders['content-type']).toBe('application/http');
    const [head = '', body = ''] = message.split(/\r\n\r\n(.*)/s);
    const [statusLine = '', ...headerLines] = head.split('\r\n');
    const status = /^HTTP\/1\.1 (\d{3}) \S.*$/.exec(statusLine)?.[1];
    if (!status) throw new Error(`no status line: ${statusLine}`);
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const match = /^([\w-]+): (.+)$/.exec(line);
      if (!match) throw new Error(`no header line: ${JSON.stringify(line)}`);
      headers[(match[1] as string).toLowerCase()] = match[2] as string;
    }
    const id = outerHeaders['content-id'];
    return {
      contentId: id === undefined ? undefined : (/^<(.*)>$/.exec(id)?.[1] ?? `unbracketed ${id}`),
      status: Number(status),
      headers,
      body: body === '' ? undefined : JSON.parse(body),
    };
  });
}

const ANA = 'ana@example.com';

interface PostOptions {
  /** `/batch/calendar/v3` unless told. */
  endpoint?: string;
  headers?: Record<string, string>;
  boundary?: string;
  /** The outer request's bearer token: ana's unless told; null for none. */
  token?: string | null;
}

/** Posts a batch body and reads its answer. */
async function postBatch(origin: string, body: string, options: PostOptions = {}): Promise<BatchReply> {
  const { endpoint = '/batch/calendar/v3', boundary = 'batch_test', token = ANA } = options;
  const response = await fetch(`${origin}${endpoint}`, {
    method: 'POST',
    headers: {
      'content-type': `multipart/mixed; boundary=${boundary}`,
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...options.headers,
    },
    body,
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  return {
    status: response.status,
    headers: response.headers,
    parts: response.status === 200 ? readAnswer(contentType, text) : [],
    body: /json/.test(contentType) ? JSON.parse(text) : undefined,
  };
}

/** Sends calls as one batch. */
const batch = (origin: string, calls: readonly Call[], options: PostOptions = {}) =>
  postBatch(origin, batchBody(calls, options.boundary ? { boundary: options.boundary } : {}), options);

const EVENTS = '/calendar/v3/calendars/primary/events';
const json = (value: unknown) => JSON.stringify(value);
const jsonHeaders = { 'Content-Type': 'application/json' };
const insert = (summary: string, extra: Record<string, unknown> = {}): Call => ({
  method: 'POST',
  path: EVENTS,
  headers: jsonHeaders,
  body: json(timedEvent(summary, 9, extra)),
});

/** The summaries of ana's primary calendar, in start order. */
async function summaries(emu: Harness): Promise<string[]> {
  const listed = await emu.call('GET', '/calendars/primary/events', { query: { maxResults: 250 } });
  expect(listed.status).toBe(200);
  return listed.body.items.map((item: { summary: string }) => item.summary);
}

describe('a batch of calls', () => {
  const emu = useEmulator();
  beforeEach(() => emu.reset());

  it('runs the calls in order, each answered in its part with its own status and paired by Content-ID', async () => {
    // The id is the client's own (events.insert takes one), so later parts can name the event.
    const id = 'batchorder1';
    const reply = await batch(emu.origin, [
      { ...insert('First', { id }), id: '<a1>' },
      { method: 'GET', path: `${EVENTS}/${id}`, id: 'b2' },
      {
        method: 'PATCH',
        path: `${EVENTS}/${id}`,
        headers: jsonHeaders,
        body: json({ summary: 'Renamed' }),
        id: '<c3>',
      },
      { method: 'GET', path: `${EVENTS}/missing` },
      { method: 'DELETE', path: `${EVENTS}/${id}`, id: '<e5>' },
      { method: 'GET', path: `${EVENTS}/${id}?fields=id,status,summary`, id: '<f6>' },
    ]);
    expect(reply.status).toBe(200);
    expect(
      reply.parts.map((part) => [part.contentId, part.status, part.body?.summary ?? part.body?.error?.code]),
    ).toEqual([
      ['response-a1', 200, 'First'],
      // Content-ID without <> is taken as the same id; the answer's is always in <>.
      ['response-b2', 200, 'First'],
      ['response-c3', 200, 'Renamed'],
      // A part without a Content-ID has an answer without one.
      [undefined, 404, 404],
      ['response-e5', 204, undefined],
      // Each part sees what the parts before it did: the event is deleted (a cancelled event).
      ['response-f6', 200, 'Renamed'],
    ]);
    expect(reply.parts[5]?.body).toEqual({ id, status: 'cancelled', summary: 'Renamed' });
    expect(reply.parts[3]?.body.error.errors[0]).toMatchObject({ reason: 'notFound' });
    expect(reply.parts[4]?.body).toBeUndefined();
    expect(reply.parts[0]?.headers['content-type']).toBe('application/json; charset=UTF-8');
    // The state after the batch is what the calls left.
    const alone = await emu.call('GET', `/calendars/primary/events/${id}`);
    expect(alone.body).toMatchObject({ status: 'cancelled', summary: 'Renamed' });
  });

  it('answers each call as the same call alone: status, body and headers', async () => {
    const made = await emu.call('POST', '/calendars/primary/events', { body: timedEvent('Kept', 9) });
    const event = `${EVENTS}/${made.body.id}`;
    const etag = String(made.body.etag);
    const cases: [what: string, call: Call][] = [
      ['a read', { method: 'GET', path: event }],
      ['a partial answer (fields)', { method: 'GET', path: `${event}?fields=id,summary` }],
      ['a bad fields mask', { method: 'GET', path: `${event}?fields=nosuchfield` }],
      [
        'If-None-Match with the current etag: 304',
        { method: 'GET', path: event, headers: { 'If-None-Match': etag } },
      ],
      [
        'If-None-Match with another etag',
        { method: 'GET', path: event, headers: { 'If-None-Match': '"0"' } },
      ],
      ['an invalid parameter', { method: 'GET', path: `${EVENTS}?maxResults=abc` }],
      ['a list', { method: 'GET', path: '/calendar/v3/users/me/calendarList' }],
      ['an unknown calendar', { method: 'GET', path: '/calendar/v3/calendars/nobody@example.com' }],
      ['a method the path has not', { method: 'PUT', path: EVENTS, headers: jsonHeaders, body: '{}' }],
      ['a path of no operation', { method: 'GET', path: '/calendar/v3/nowhere' }],
      [
        'a body that is not JSON',
        {
          method: 'POST',
          path: '/calendar/v3/freeBusy',
          headers: { 'Content-Type': 'text/plain' },
          body: 'x',
        },
      ],
      [
        'a body that does not parse',
        { method: 'POST', path: '/calendar/v3/freeBusy', headers: jsonHeaders, body: '{' },
      ],
      [
        'a read with a body',
        {
          method: 'POST',
          path: '/calendar/v3/freeBusy',
          headers: jsonHeaders,
          body: json({
            timeMin: '2026-03-02T00:00:00Z',
            timeMax: '2026-03-03T00:00:00Z',
            items: [{ id: 'primary' }],
          }),
        },
      ],
      [
        'an invalid body',
        { method: 'POST', path: EVENTS, headers: jsonHeaders, body: json({ summary: 'no times' }) },
      ],
    ];
    // The same headers alone as in the part (the outer request's Authorization, written here).
    const aloneAnswers: { status: number; headers: Headers; body: unknown }[] = [];
    for (const [, call] of cases) {
      const response = await fetch(`${emu.origin}${call.path}`, {
        method: call.method,
        headers: { authorization: `Bearer ${ANA}`, ...call.headers },
        ...(call.body !== undefined ? { body: call.body } : {}),
      });
      const text = await response.text();
      aloneAnswers.push({
        status: response.status,
        headers: response.headers,
        body: text ? JSON.parse(text) : undefined,
      });
    }
    const reply = await batch(
      emu.origin,
      cases.map(([, call]) => call),
    );
    expect(reply.status).toBe(200);
    cases.forEach(([what], i) => {
      const alone = aloneAnswers[i] as { status: number; headers: Headers; body: unknown };
      const part = reply.parts[i] as PartAnswer;
      expect({ what, status: part.status, body: part.body }).toEqual({
        what,
        status: alone.status,
        body: alone.body,
      });
      for (const name of ['etag', 'allow', 'content-type', 'x-emulator-quota-cost'])
        expect([what, name, part.headers[name]]).toEqual([what, name, alone.headers.get(name) ?? undefined]);
    });
    expect(reply.parts.map((part) => part.status)).toEqual([
      200, 200, 400, 304, 200, 400, 200, 404, 405, 404, 415, 400, 200, 400,
    ]);
  });

  it('takes a JSON body without Content-Type as JSON, in a part as in a call alone', async () => {
    const reply = await batch(emu.origin, [
      { method: 'POST', path: EVENTS, body: json(timedEvent('No type in a part')) },
    ]);
    expect(reply.parts[0]).toMatchObject({ status: 200, body: { summary: 'No type in a part' } });
    // A call alone without Content-Type (fetch would add text/plain; node:http adds none).
    const alone = await new Promise<number | undefined>((resolve, reject) => {
      const url = new URL(`${emu.base}/calendars/primary/events`);
      const request = httpRequest(
        url,
        { method: 'POST', headers: { authorization: `Bearer ${ANA}` } },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode));
        },
      );
      request.on('error', reject);
      request.end(json(timedEvent('No type alone', 10)));
    });
    expect(alone).toBe(200);
    expect(await summaries(emu)).toEqual(['No type in a part', 'No type alone']);
  });

  it('checks If-Match per part: the stale one is 412, the others go on', async () => {
    const made = await emu.call('POST', '/calendars/primary/events', { body: timedEvent('Original') });
    const event = `${EVENTS}/${made.body.id}`;
    const etag = String(made.body.etag);
    const patch = (summary: string, ifMatch: string): Call => ({
      method: 'PATCH',
      path: event,
      headers: { ...jsonHeaders, 'If-Match': ifMatch },
      body: json({ summary }),
    });
    const reply = await batch(emu.origin, [
      patch('Wrong tag', '"1234"'),
      patch('Second', etag),
      // The etag of part 2's change is no longer `etag`: the same precondition now fails.
      patch('Stale', etag),
      insert('Other'),
      { method: 'GET', path: event },
    ]);
    expect(reply.parts.map((part) => part.status)).toEqual([412, 200, 412, 200, 200]);
    expect(reply.parts[0]?.body.error.errors[0]).toMatchObject({
      reason: 'conditionNotMet',
      location: 'If-Match',
    });
    expect(reply.parts[4]?.body.summary).toBe('Second');
    expect(reply.parts[4]?.body.etag).toBe(reply.parts[1]?.body.etag);
    expect(await summaries(emu)).toEqual(['Second', 'Other']);
  });

  it('charges each call its quota as if sent alone, and the batch itself nothing', async () => {
    const id = 'batchquota1';
    const reply = await batch(emu.origin, [
      insert('Charged', { id }),
      { method: 'PATCH', path: `${EVENTS}/${id}`, headers: jsonHeaders, body: json({ summary: 'Patched' }) },
      { method: 'GET', path: `${EVENTS}/${id}` },
      { method: 'GET', path: `${EVENTS}/missing` },
    ]);
    expect(
      reply.parts.map((part) => [
        part.headers['x-emulator-quota-cost'],
        part.headers['x-emulator-quota-used'],
      ]),
    ).toEqual([
      ['1', '1'],
      ['3', '4'],
      ['1', '5'],
      ['1', '6'],
    ]);
    expect(reply.headers.get('x-emulator-quota-cost')).toBeNull();
    const quota = await emu.call('GET', '/__emulator/quota');
    expect(quota.body).toMatchObject({
      total: 6,
      byUser: { [ANA]: 6 },
      byOperation: {
        'events.insert': { calls: 1, units: 1 },
        'events.patch': { calls: 1, units: 3 },
        'events.get': { calls: 2, units: 2 },
      },
    });
  });

  it('gives the outer headers to every part, and a part its own where it sets one', async () => {
    const reply = await batch(
      emu.origin,
      [
        { method: 'GET', path: '/calendar/v3/calendars/primary' },
        {
          method: 'GET',
          path: '/calendar/v3/calendars/primary',
          headers: { Authorization: 'Bearer bo@example.com' },
        },
        // Outer Content-Type (multipart/mixed) is not passed on: this body is JSON, not a batch.
        { method: 'POST', path: EVENTS, body: json(timedEvent('Inherits no Content-Type')) },
      ],
      { token: 'carol@example.com' },
    );
    expect(reply.parts.map((part) => [part.status, part.body.organizer?.email ?? part.body.id])).toEqual([
      [200, 'carol@example.com'],
      [200, 'bo@example.com'],
      [200, 'carol@example.com'],
    ]);
  });

  it("keeps to the spec's limit (x-batch.maxCalls of batch.execute)", () => {
    const { paths } = spec.document as {
      paths: Record<string, { post?: { 'x-batch'?: { maxCalls?: number } } }>;
    };
    expect(paths['/batch/calendar/v3']?.post?.['x-batch']?.maxCalls).toBe(BATCH_LIMIT);
    expect(BATCH_LIMIT).toBe(50);
  });

  it.each([
    [51, 400],
    [50, 200],
  ])('takes at most 50 calls: %i calls → %i', async (count, status) => {
    const reply = await batch(
      emu.origin,
      Array.from({ length: count }, (__, i) => insert(`Event ${i + 1}`)),
    );
    expect(reply.status).toBe(status);
    if (status === 400) {
      expect(reply.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
      expect(reply.body.error.message).toBe('A batch request may hold at most 50 calls.');
      // Refused whole: no call ran.
      expect(await summaries(emu)).toEqual([]);
    } else {
      expect(reply.parts).toHaveLength(50);
      expect(reply.parts.every((part) => part.status === 200)).toBe(true);
      expect(await summaries(emu)).toHaveLength(50);
    }
  });

  const RUNS = [insert('Must not be written')];
  it.each([
    [
      'a part that is no HTTP request',
      batchBody([...RUNS, { method: 'not a', path: 'request line' }]),
      'multipart/mixed; boundary=batch_test',
      /part 2: expected a request line such as "GET \/calendar\/v3\/colors HTTP\/1\.1", found "not a request line HTTP\/1\.1"/,
      undefined,
    ],
    [
      'a part that is not application/http',
      batchBody(RUNS).replace(
        /--batch_test--/,
        '--batch_test\r\nContent-Type: text/plain\r\n\r\nhello\r\n--batch_test--',
      ),
      'multipart/mixed; boundary=batch_test',
      /part 2: each part is Content-Type: application\/http, not "text\/plain"/,
      undefined,
    ],
    [
      'a body that is not multipart/mixed',
      json({ summary: 'not a batch' }),
      'application/json',
      /a batch is multipart\/mixed, not "application\/json"/,
      'Content-Type',
    ],
    [
      'a multipart/mixed without boundary',
      batchBody(RUNS),
      'multipart/mixed',
      /the multipart\/mixed Content-Type has no boundary/,
      'Content-Type',
    ],
    [
      'a body never closed',
      batchBody(RUNS).replace('--batch_test--', ''),
      'multipart/mixed; boundary=batch_test',
      /ends before its closing line/,
      undefined,
    ],
    [
      'a batch without a call',
      '--batch_test--\r\n',
      'multipart/mixed; boundary=batch_test',
      /holds no call/,
      undefined,
    ],
  ])('refuses %s whole with 400, naming what is wrong', async (_, body, contentType, message, location) => {
    const response = await fetch(`${emu.origin}/batch/calendar/v3`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${ANA}` },
      body,
    });
    expect(response.status).toBe(400);
    const refusal = (await response.json()) as {
      error: { message: string; errors: Record<string, string>[] };
    };
    expect(refusal.error.message).toMatch(message);
    expect(refusal.error.errors[0]?.reason).toBe('badRequest');
    expect(refusal.error.errors[0]?.location).toBe(location);
    expect(await summaries(emu)).toEqual([]);
  });

  it('reads a batch with LF line breaks, a preamble, a quoted boundary and Content-IDs without <>', async () => {
    const body = `\nThis preamble is not a part.\n${batchBody(
      [
        {
          method: 'POST',
          path: EVENTS,
          headers: { Accept: 'application/json' },
          body: json(timedEvent('Lf one')),
          id: '1',
        },
        {
          method: 'POST',
          path: EVENTS,
          headers: { Accept: 'application/json' },
          body: json(timedEvent('Lf two', 10)),
          id: '2',
        },
        { method: 'GET', path: `${EVENTS}?maxResults=1&fields=items(summary)`, id: '3' },
      ],
      { boundary: 'lf0boundary', eol: '\n' },
      // The closing line without its line break, as the batcher below writes it.
    ).replace(/\n$/, '')}`;
    const reply = await postBatch(emu.origin, body, {
      headers: { 'content-type': 'multipart/mixed; boundary="lf0boundary"' },
    });
    expect(reply.status).toBe(200);
    expect(reply.parts.map((part) => [part.contentId, part.status])).toEqual([
      ['response-1', 200],
      ['response-2', 200],
      ['response-3', 200],
    ]);
    expect(reply.parts[2]?.body).toEqual({ items: [{ summary: 'Lf one' }] });
  });

  it('answers a call the batch cannot carry in its own part with 400, and runs the others', async () => {
    const made = await emu.call('POST', '/calendars/primary/events', { body: timedEvent('Survives') });
    const other = '/doubleclicksearch/v2/agency/1/advertiser/2/engine/3/conversion';
    const reply = await batch(emu.origin, [
      { method: 'GET', path: other },
      { method: 'POST', path: '/__emulator/reset' },
      {
        method: 'POST',
        path: '/batch/calendar/v3',
        headers: { 'Content-Type': 'multipart/mixed; boundary=x' },
      },
      { method: 'POST', path: '/token' },
      insert('Runs'),
    ]);
    expect(reply.parts.map((part) => part.status)).toEqual([400, 400, 400, 400, 200]);
    const messages = reply.parts.slice(0, 4).map((part) => part.body.error.message);
    expect(messages).toEqual([
      `Part 1: GET ${other} cannot be sent in /batch/calendar/v3, which takes calls under /calendar/v3 only; send it alone, or in /batch/doubleclicksearch/v2.`,
      'Part 2: POST /__emulator/reset cannot be sent in /batch/calendar/v3, which takes calls under /calendar/v3 only.',
      'Part 3: POST /batch/calendar/v3 is a batch request; a batch cannot hold another batch.',
      'Part 4: POST /token cannot be sent in /batch/calendar/v3, which takes calls under /calendar/v3 only.',
    ]);
    // The control plane did not run: the event made before is still there.
    expect(await summaries(emu)).toEqual(['Survives', 'Runs']);
    expect(made.status).toBe(200);
  });

  it('/batch takes the calls of every API served, each answered as alone; /batch/<api>/<v> of no API is 404', async () => {
    const other =
      '/doubleclicksearch/v2/agency/1/advertiser/2/engine/3/conversion?startDate=20260301&endDate=20260302&startRow=0&rowCount=10';
    const reply = await batch(emu.origin, [insert('Any API'), { method: 'GET', path: other }], {
      endpoint: '/batch',
    });
    const alone = await fetch(`${emu.origin}${other}`, { headers: { authorization: `Bearer ${ANA}` } });
    expect(reply.parts.map((part) => part.status)).toEqual([200, alone.status]);
    expect(reply.parts[1]?.body).toEqual(await alone.json());
    expect(reply.parts[1]?.headers['x-emulator-quota-cost']).toBe('1');

    const unknown = await batch(emu.origin, [insert('Nowhere')], { endpoint: '/batch/gmail/v1' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe(
      'Not Found: no operation at /batch/gmail/v1; the batch endpoints are /batch/calendar/v3, /batch/doubleclicksearch/v2 and /batch',
    );
    expect(await summaries(emu)).toEqual(['Any API']);
  });

  it('is served to POST only, with CORS as every path', async () => {
    const get = await fetch(`${emu.origin}/batch/calendar/v3`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(((await get.json()) as { error: { errors: { reason: string }[] } }).error.errors[0]?.reason).toBe(
      'httpMethodNotAllowed',
    );
    const preflight = await fetch(`${emu.origin}/batch`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.test', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://app.test');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    const reply = await batch(emu.origin, [insert('Cors')], { headers: { origin: 'http://app.test' } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('access-control-allow-origin')).toBe('http://app.test');
  });
});

describe('a batch in strict mode', () => {
  const CALENDAR_READONLY = 'https://www.googleapis.com/auth/calendar.readonly';
  const emu = useEmulator({
    strict: true,
    users: { 'tok-ana': ANA, 'tok-bo': 'bo@example.com', 'tok-read': 'reader@example.com' },
    scopes: { 'tok-read': [CALENDAR_READONLY] },
  });

  const primary: Call = { method: 'GET', path: '/calendar/v3/calendars/primary' };
  const own = (token: string): Call => ({ ...primary, headers: { Authorization: `Bearer ${token}` } });

  it.each([
    ['the outer token applies to a part without one', 'tok-ana', primary, 200, ANA],
    ["a part's own token overrides the outer one", 'tok-ana', own('tok-bo'), 200, 'bo@example.com'],
    [
      "a part's unknown token is refused, whatever the outer one",
      'tok-ana',
      own('tok-nobody'),
      401,
      'authError',
    ],
    ['no outer token: a part without one is refused', undefined, primary, 401, 'authError'],
    ['no outer token: a part with its own is served', undefined, own('tok-bo'), 200, 'bo@example.com'],
    ["the outer token's scopes: a read is served", 'tok-read', primary, 200, 'reader@example.com'],
    [
      "the outer token's scopes: a write is refused",
      'tok-read',
      insert('Not allowed'),
      403,
      'insufficientPermissions',
    ],
  ])('%s', async (_, outer, call, status, seen) => {
    const reply = await batch(emu.origin, [call], { token: outer ?? null });
    expect(reply.status).toBe(200);
    const part = reply.parts[0] as PartAnswer;
    expect(part.status).toBe(status);
    expect(status === 200 ? part.body.id : part.body.error.errors[0].reason).toBe(seen);
    if (status === 401) expect(part.headers['www-authenticate']).toMatch(/^Bearer /);
  });
});

describe('a batch under the rate limit', () => {
  const emu = useEmulator({ rateLimit: { units: 3 } });

  it('counts each call against the limit as if sent alone', async () => {
    const reply = await batch(
      emu.origin,
      Array.from({ length: 5 }, () => ({ method: 'GET', path: '/calendar/v3/colors' })),
    );
    expect(reply.parts.map((part) => part.status)).toEqual([200, 200, 200, 403, 403]);
    expect(reply.parts[3]?.body.error.errors[0].reason).toBe('rateLimitExceeded');
  });
});

describe('a batch with --persist', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gspec-emulator-batch-'));
  const check = createResponseCheck(spec, notImplementedOperations(spec));
  const violations: string[] = [];
  const running: Emulator[] = [];
  const start = async (file: string) => {
    const emulator = createEmulator({
      specs: { calendar: spec },
      persist: { file, onError: () => {} },
      onResponse: (exchange) => violations.push(...check(exchange)),
    });
    running.push(emulator);
    return { emulator, origin: await emulator.listen(0) };
  };
  afterEach(async () => {
    await Promise.all(running.splice(0).map((emulator) => emulator.close()));
    expect(violations.splice(0), 'answers that break the spec').toEqual([]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps the batch's writes across a restart", async () => {
    const file = path.join(dir, 'kept.db');
    const first = await start(file);
    const reply = await batch(first.origin, [insert('One'), insert('Two', { id: 'batchpersist2' })]);
    expect(reply.parts.map((part) => part.status)).toEqual([200, 200]);
    await first.emulator.close();
    const again = await start(file);
    const listed = await fetch(`${again.origin}${EVENTS}`, { headers: { authorization: `Bearer ${ANA}` } });
    const items = ((await listed.json()) as { items: { summary: string }[] }).items;
    expect(items.map((item) => item.summary)).toEqual(['One', 'Two']);
  });

  it('when the commit fails, only the parts that wrote are 503; the reads keep their answers', async () => {
    const file = path.join(dir, 'full.db');
    const { emulator, origin } = await start(file);
    const made = await batch(origin, [insert('Saved', { id: 'batchsaved1' })]);
    expect(made.parts[0]?.status).toBe(200);
    // SQLite's own limit on the file's pages: the commit fails as on a full disk.
    emulator.persistence?.limitPages(emulator.persistence.pageCount());
    const reply = await batch(origin, [
      { method: 'GET', path: `${EVENTS}/batchsaved1` },
      insert('Unsaved', { description: 'x'.repeat(6000) }),
      { method: 'GET', path: `${EVENTS}/missing` },
    ]);
    expect(reply.status).toBe(200);
    expect(reply.parts.map((part) => part.status)).toEqual([200, 503, 404]);
    expect(reply.parts[0]?.body.summary).toBe('Saved');
    expect(reply.parts[1]?.body.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
    expect(reply.parts[1]?.headers['x-emulator-quota-cost']).toBe('1');
  });
});

describe('a batching client nobody here wrote: @jrmdayn/googleapis-batcher under googleapis', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gspec-emulator-batcher-'));
  afterAll(async () => {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends inserts, patches and a failing get in one batch to the built CLI; each caller gets its own answer', async () => {
    // Strict mode: the calls are served only if the batch's own Authorization reaches them
    // (the batcher writes none in the parts).
    const usersFile = path.join(dir, 'users.json');
    writeFileSync(usersFile, json({ 'batcher-token': 'dana@example.com' }));
    const run = startCli(['--strict', '--users', usersFile, '--verbose'], {
      env: { GSPEC_EMULATOR_ADMIN_TOKEN: TEST_ADMIN_TOKEN },
    });
    const origin = await run.ready;
    const plain = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(`${origin}/calendar/v3${route}`, {
        method,
        headers: {
          authorization: 'Bearer batcher-token',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: json(body) } : {}),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const first = await plain('POST', '/calendars/primary/events', timedEvent('To patch A', 8));
    const second = await plain('POST', '/calendars/primary/events', timedEvent('To patch B', 9));

    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: 'batcher-token' });
    const calendar = google.calendar({
      version: 'v3',
      rootUrl: `${origin}/`,
      fetchImplementation: batchFetchImplementation({ maxBatchSize: 50 }),
      auth,
    });
    const calendarId = 'primary';
    // In one tick: the batcher gathers them into one request to `${origin}/batch`.
    const settled = await Promise.allSettled([
      calendar.events.insert({ calendarId, requestBody: timedEvent('Batched 1', 10) }),
      calendar.events.patch({
        calendarId,
        eventId: String(first.body.id),
        requestBody: { summary: 'Patched A' },
      }),
      calendar.events.insert({ calendarId, requestBody: timedEvent('Batched 2', 11) }),
      calendar.events.get({ calendarId, eventId: 'missing' }),
      calendar.events.patch({
        calendarId,
        eventId: String(second.body.id),
        requestBody: { summary: 'Patched B' },
      }),
      calendar.events.insert({ calendarId, requestBody: timedEvent('Batched 3', 12) }),
    ]);
    const outcome = settled.map((result) =>
      result.status === 'fulfilled'
        ? [result.value.status, result.value.data.summary]
        : [(result.reason as { code?: unknown }).code, (result.reason as Error).message],
    );
    expect(outcome).toEqual([
      [200, 'Batched 1'],
      [200, 'Patched A'],
      [200, 'Batched 2'],
      [404, 'Not Found'],
      [200, 'Patched B'],
      [200, 'Batched 3'],
    ]);
    // googleapis' own error, as for a call alone: the status and Google's envelope from the part.
    const failure = (settled[3] as PromiseRejectedResult).reason as {
      status?: number;
      response?: { data?: { error?: { errors?: unknown[] } } };
    };
    expect(failure.status).toBe(404);
    expect(failure.response?.data?.error?.errors).toEqual([
      { domain: 'global', reason: 'notFound', message: 'Not Found' },
    ]);

    // One batch went out, and each call was answered in it (--verbose logs both).
    // The log comes through a pipe of its own, maybe after the answers.
    await vi.waitFor(() => expect(run.output().err.match(/^ {2}part \d+: /gm)).toHaveLength(6), {
      timeout: 10_000,
    });
    expect(run.output().err.match(/^POST \/batch 200$/gm)).toHaveLength(1);
    expect(run.output().err).not.toMatch(
      /^(POST|PATCH|GET) \/calendar\/v3\/calendars\/primary\/events\/(missing|\w+) /m,
    );
    // The state, read with plain calls.
    const listed = await plain('GET', '/calendars/primary/events');
    expect((listed.body.items as { summary: string }[]).map((item) => item.summary)).toEqual([
      'Patched A',
      'Patched B',
      'Batched 1',
      'Batched 2',
      'Batched 3',
    ]);
    const quota = await fetch(`${origin}/__emulator/quota`, {
      headers: { 'x-emulator-admin-token': TEST_ADMIN_TOKEN },
    });
    expect(((await quota.json()) as { byOperation: Record<string, unknown> }).byOperation).toMatchObject({
      'events.insert': { calls: 5, units: 5 },
      'events.patch': { calls: 2, units: 6 },
      'events.get': { calls: 1, units: 1 },
    });
    await run.stop();
  }, 120_000);
});
