/**
 * Google's batch endpoints on the mock (`/batch/calendar/v3`, `/batch`): each call of a batch
 * gets the answer it would get alone (Prism's validation and examples, auth, Prefer, partial
 * responses, conditional reads, faults), in its own part, in order, paired by Content-ID; what
 * is no batch is refused whole with 400. The batches here are written and read by hand, as the
 * wire format is documented, rather than with the codec the mock uses; the last block proves the
 * endpoint with a batcher nobody here wrote, against the built CLI.
 */
import path from 'node:path';
import { type ChildRun, startProcess, stopAll } from '@gspec/scripts/child-process';
import { batchFetchImplementation } from '@jrmdayn/googleapis-batcher';
import { google } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, loadApis, type MockApi, parseFaults } from '../src/index.ts';
import { faultFile } from './support/fixtures.ts';
import { follow, loadSpecs } from './support/spec.ts';

const auth = { authorization: 'Bearer test-token' };
const json = { 'content-type': 'application/json' };
const eventBody = JSON.stringify({
  summary: 'Kick-off',
  start: { dateTime: '2026-12-01T14:00:00Z' },
  end: { dateTime: '2026-12-01T15:00:00Z' },
});

/** One call as a test writes it into a batch. */
interface PartRequest {
  method: string;
  target: string;
  headers?: Record<string, string>;
  body?: string;
  /** Written as given: `<c1>`, or `c1` as some batchers send it. */
  contentId?: string;
}

/** One answer part as read off the wire. */
interface PartAnswer {
  contentId?: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

const BOUNDARY = 'test_boundary_7c1f';

/** A batch body, by hand: CRLF lines unless told, each part `application/http`. */
function encode(parts: readonly PartRequest[], { eol = '\r\n', preamble = '' } = {}): string {
  let text = preamble;
  for (const part of parts) {
    text += `--${BOUNDARY}${eol}Content-Type: application/http${eol}`;
    if (part.contentId !== undefined) text += `Content-ID: ${part.contentId}${eol}`;
    text += `${eol}${part.method} ${part.target} HTTP/1.1${eol}`;
    for (const [name, value] of Object.entries(part.headers ?? {})) text += `${name}: ${value}${eol}`;
    text += eol;
    if (part.body !== undefined) text += `${part.body}${eol}`;
  }
  return `${text}--${BOUNDARY}--${eol}`;
}

/**
 * The parts of a batch answer, read strictly as Google writes them: the boundary unquoted in
 * `multipart/mixed; boundary=`, CRLF line ends, each part `application/http` with a status line.
 */
function decode(contentType: string | null, text: string): PartAnswer[] {
  const boundary = /^multipart\/mixed; boundary=([^\s;"]+)$/.exec(contentType ?? '')?.[1];
  if (!boundary) throw new Error(`not a batch answer: Content-Type ${contentType}`);
  const chunks = text.split(`--${boundary}`);
  expect(chunks.shift()).toBe('');
  expect(chunks.pop()).toBe('--\r\n');
  return chunks.map((chunk) => {
    expect(chunk.startsWith('\r\n')).toBe(true);
    const [outer = '', ...message] = chunk.slice(2).split('\r\n\r\n');
    const outerHeaders = headerMap(outer.split('\r\n'));
    expect(outerHeaders['content-type']).toBe('application/http');
    const [head = '', ...body] = message.join('\r\n\r\n').split('\r\n\r\n');
    const [statusLine = '', ...lines] = head.split('\r\n');
    const status = /^HTTP\/1\.1 (\d{3}) \S/.exec(statusLine)?.[1];
    if (!status) throw new Error(`no status line: ${JSON.stringify(statusLine)}`);
    const id = outerHeaders['content-id'];
    return {
      ...(id !== undefined ? { contentId: id } : {}),
      status: Number(status),
      headers: headerMap(lines),
      body: body.join('\r\n\r\n').replace(/\r\n$/, ''),
    };
  });
}

function headerMap(lines: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines) {
    const match = /^([^:\s]+): (.+)$/.exec(line);
    if (!match) throw new Error(`no header line: ${JSON.stringify(line)}`);
    out[(match[1] as string).toLowerCase()] = match[2] as string;
  }
  return out;
}

interface Sent {
  status: number;
  contentType: string | null;
  text: string;
}

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Sent> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': `multipart/mixed; boundary=${BOUNDARY}`, ...headers },
    body,
  });
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    text: await response.text(),
  };
}

/** Sends the parts as one batch and reads its answer; fails the test unless it is a 200 batch. */
async function batch(
  url: string,
  parts: readonly PartRequest[],
  outer: Record<string, string> = auth,
): Promise<PartAnswer[]> {
  const sent = await post(url, encode(parts), outer);
  expect(sent.status, sent.text).toBe(200);
  return decode(sent.contentType, sent.text);
}

/** What a client relies on in an answer: status, the headers that carry meaning, the body. */
function essence(answer: { status: number; headers: Record<string, string>; body: string }) {
  const kept = ['content-type', 'etag', 'allow', 'www-authenticate', 'retry-after'];
  const type = answer.headers['content-type'] ?? '';
  return {
    status: answer.status,
    headers: Object.fromEntries(
      kept.filter((name) => name in answer.headers).map((n) => [n, answer.headers[n]]),
    ),
    body: /json/.test(type) ? JSON.parse(answer.body) : answer.body,
  };
}

/** The same call sent alone, with the outer headers a batch part would inherit. */
async function alone(origin: string, part: PartRequest, outer: Record<string, string> = auth) {
  const response = await fetch(`${origin}${part.target}`, {
    method: part.method,
    headers: { ...outer, ...part.headers },
    // Bytes, not a string: fetch would label a string text/plain, and a part may have no type.
    ...(part.body !== undefined ? { body: Buffer.from(part.body) } : {}),
  });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body: await response.text() };
}

const reasonOf = (answer: PartAnswer) => JSON.parse(answer.body).error.errors[0].reason as string;

let apis: MockApi[];
let gateway: Gateway;
let origin: string;

beforeAll(async () => {
  apis = await loadApis();
  gateway = createGateway({ apis });
  origin = await gateway.listen(0);
});
afterAll(() => gateway.close());

/** Calls of every kind of answer the mock gives, with the status each must get. */
const calendarCalls: [title: string, call: PartRequest, status: number][] = [
  ['a read', { method: 'GET', target: '/calendar/v3/colors' }, 200],
  [
    'a partial response',
    { method: 'GET', target: '/calendar/v3/calendars/primary/events?fields=kind,items(id,summary)' },
    200,
  ],
  [
    'a conditional read that hits',
    {
      method: 'GET',
      target: '/calendar/v3/calendars/primary/events/abc123',
      headers: { 'if-none-match': '*' },
    },
    304,
  ],
  [
    'a conditional read that misses',
    {
      method: 'GET',
      target: '/calendar/v3/calendars/primary/events/abc123',
      headers: { 'if-none-match': '"not-the-etag"' },
    },
    200,
  ],
  [
    'an insert with a JSON body',
    { method: 'POST', target: '/calendar/v3/calendars/primary/events', headers: json, body: eventBody },
    200,
  ],
  [
    'an insert whose JSON body has no Content-Type',
    { method: 'POST', target: '/calendar/v3/calendars/primary/events', body: eventBody },
    200,
  ],
  [
    'an insert the spec refuses',
    {
      method: 'POST',
      target: '/calendar/v3/calendars/primary/events',
      headers: json,
      body: JSON.stringify({ ...JSON.parse(eventBody), id: 'Kick-off' }),
    },
    400,
  ],
  ['a delete', { method: 'DELETE', target: '/calendar/v3/calendars/primary/events/abc123' }, 204],
  [
    'a parameter out of range',
    { method: 'GET', target: '/calendar/v3/calendars/primary/events?maxResults=0' },
    400,
  ],
  ['a wrong method', { method: 'PUT', target: '/calendar/v3/colors' }, 405],
  ['an unknown path under the API', { method: 'GET', target: '/calendar/v3/nothing/here' }, 404],
  [
    'an example asked for with Prefer',
    {
      method: 'GET',
      target: '/calendar/v3/calendars/primary/events',
      headers: { prefer: 'code=410, example=fullSyncRequired' },
    },
    410,
  ],
  [
    'a status asked for with __code',
    { method: 'GET', target: '/calendar/v3/calendars/primary/events/abc123?__code=404' },
    404,
  ],
  [
    'malformed JSON',
    { method: 'POST', target: '/calendar/v3/calendars/primary/events', headers: json, body: '{"summary": ' },
    400,
  ],
  [
    'a body that is not JSON',
    {
      method: 'POST',
      target: '/calendar/v3/calendars/primary/events',
      headers: { 'content-type': 'text/plain' },
      body: 'lunch',
    },
    415,
  ],
];

const searchAds360Calls: typeof calendarCalls = [
  [
    'a Search Ads 360 insert',
    {
      method: 'POST',
      target: '/doubleclicksearch/v2/conversion',
      headers: json,
      body: JSON.stringify({
        conversion: [{ agencyId: '1', advertiserId: '2', conversionId: 'c', conversionTimestamp: '1' }],
      }),
    },
    200,
  ],
  [
    'a CSV download',
    {
      method: 'GET',
      target: '/doubleclicksearch/v2/agency/1/advertiser/2/idmapping?alt=media',
      headers: { accept: '*/*' },
    },
    200,
  ],
];

describe('a batch answers each call as the call alone', () => {
  it.each([
    ['/batch/calendar/v3', calendarCalls],
    ['/batch', [...calendarCalls, ...searchAds360Calls]],
  ] as const)('through %s, in order and paired by Content-ID', async (endpoint, calls) => {
    // Content-IDs with and without angle brackets, and one part without any.
    const parts = calls.map(([, call], i) => ({
      ...call,
      ...(i === 1 ? {} : { contentId: i % 2 === 0 ? `<call-${i}>` : `call-${i}` }),
    }));
    const answers = await batch(`${origin}${endpoint}`, parts);
    expect(answers.map((a) => a.contentId)).toEqual(
      parts.map((_, i) => (i === 1 ? undefined : `<response-call-${i}>`)),
    );
    expect(answers.map((a) => a.status)).toEqual(calls.map(([, , status]) => status));
    for (const [i, [title, call]] of calls.entries()) {
      expect(essence(answers[i] as PartAnswer), title).toEqual(essence(await alone(origin, call)));
    }
  });

  it('answers a call the spec refuses beside calls that succeed, naming the field at fault', async () => {
    const [before, refused, after] = await batch(`${origin}/batch/calendar/v3`, [
      { method: 'POST', target: '/calendar/v3/calendars/primary/events', body: eventBody, contentId: '<a>' },
      {
        method: 'POST',
        target: '/calendar/v3/calendars/primary/events',
        body: JSON.stringify({ ...JSON.parse(eventBody), id: 'Kick-off' }),
        contentId: '<b>',
      },
      { method: 'GET', target: '/calendar/v3/colors', contentId: '<c>' },
    ]);
    expect([before?.status, refused?.status, after?.status]).toEqual([200, 400, 200]);
    expect(JSON.parse(refused?.body ?? '').error.errors[0]).toMatchObject({
      reason: 'invalid',
      location: 'id',
    });
    expect(JSON.parse(before?.body ?? '').kind).toBe('calendar#event');
  });
});

describe('headers per part', () => {
  const list = { method: 'GET', target: '/calendar/v3/calendars/primary/events' };

  it.each([
    ['a part’s own Prefer, beside a part without', {}, [{ prefer: 'code=404' }, {}], [404, 200]],
    ['the outer Prefer in every part that sets none', { prefer: 'code=410' }, [{}, {}], [410, 410]],
    ['a part’s Prefer over the outer one', { prefer: 'code=410' }, [{ prefer: 'code=200' }, {}], [200, 410]],
    ['a malformed Prefer in its own part only', {}, [{ prefer: 'code=abc' }, {}], [400, 200]],
  ] as const)('applies %s', async (_title, outer, partHeaders, statuses) => {
    const answers = await batch(
      `${origin}/batch/calendar/v3`,
      partHeaders.map((headers) => ({ ...list, headers })),
      { ...auth, ...outer },
    );
    expect(answers.map((a) => a.status)).toEqual(statuses);
  });

  it.each([
    ['the outer token signs every part', auth, [{}, {}], [200, 200]],
    [
      'a part’s own credentials replace the outer token',
      auth,
      [{ authorization: 'Basic dTpw' }, {}],
      [401, 200],
    ],
    ['a part without a token fails alone when the outer request has none', {}, [auth, {}], [200, 401]],
  ] as const)('checks auth per part: %s', async (_title, outer, partHeaders, statuses) => {
    const answers = await batch(
      `${origin}/batch/calendar/v3`,
      partHeaders.map((headers) => ({ method: 'GET', target: '/calendar/v3/colors', headers })),
      outer,
    );
    expect(answers.map((a) => a.status)).toEqual(statuses);
    for (const answer of answers.filter((a) => a.status === 401)) {
      expect(reasonOf(answer)).toBe('authError');
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer /);
    }
  });

  it('takes a token in a part’s access_token query parameter', async () => {
    const [answer] = await batch(
      `${origin}/batch`,
      [{ method: 'GET', target: '/calendar/v3/colors?access_token=t' }],
      {},
    );
    expect(answer?.status).toBe(200);
  });
});

describe('what a batch serves', () => {
  const colors = { method: 'GET', target: '/calendar/v3/colors' };
  const conversion = searchAds360Calls[0]?.[1] as PartRequest;

  it.each([
    [
      'a call of another API',
      '/batch/calendar/v3',
      conversion,
      'Part 2: POST /doubleclicksearch/v2/conversion cannot be sent in /batch/calendar/v3, which takes calls under /calendar/v3 only; send it alone, or in /batch/doubleclicksearch/v2.',
    ],
    [
      'a path of no API',
      '/batch',
      { method: 'GET', target: '/healthz' },
      'Part 2: GET /healthz cannot be sent in /batch, which takes calls under /calendar/v3 or /doubleclicksearch/v2 only.',
    ],
    [
      'a batch inside /batch',
      '/batch',
      { method: 'POST', target: '/batch/calendar/v3' },
      'Part 2: POST /batch/calendar/v3 is a batch request; a batch cannot hold another batch.',
    ],
    [
      'a batch inside /batch/calendar/v3',
      '/batch/calendar/v3',
      { method: 'POST', target: '/batch' },
      'Part 2: POST /batch is a batch request; a batch cannot hold another batch.',
    ],
  ])(
    'answers %s in %s with 400 in its own part, beside the calls it carries',
    async (_title, endpoint, part, message) => {
      const answers = await batch(`${origin}${endpoint}`, [colors, part, colors]);
      expect(answers.map((a) => a.status)).toEqual([200, 400, 200]);
      expect(JSON.parse(answers[1]?.body ?? '').error).toMatchObject({
        code: 400,
        message,
        errors: [{ domain: 'global', reason: 'badRequest', message }],
      });
    },
  );

  it('serves calls of both APIs through /batch/doubleclicksearch/v2 and /batch as their own', async () => {
    const [ads] = await batch(`${origin}/batch/doubleclicksearch/v2`, [conversion]);
    expect(ads?.status).toBe(200);
    expect((await batch(`${origin}/batch`, [colors, conversion])).map((a) => a.status)).toEqual([200, 200]);
  });

  it('answers the batch endpoint of an API it does not serve with 404', async () => {
    const sent = await post(`${origin}/batch/drive/v3`, encode([colors]), auth);
    expect(sent.status).toBe(404);
    expect(JSON.parse(sent.text).error.message).toBe(
      'Not Found: /batch/drive/v3 is no batch endpoint of the mock; those are /batch, /batch/calendar/v3, /batch/doubleclicksearch/v2',
    );
  });

  it('allows only POST', async () => {
    const response = await fetch(`${origin}/batch/calendar/v3`, { headers: auth });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect((await response.json()).error.errors[0].reason).toBe('httpMethodNotAllowed');
  });

  it('answers a CORS preflight and sends CORS headers, as on every path', async () => {
    const preflight = await fetch(`${origin}/batch/calendar/v3`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://app.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://app.test');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    const response = await fetch(`${origin}/batch/calendar/v3`, {
      method: 'POST',
      headers: {
        ...auth,
        origin: 'http://app.test',
        'content-type': `multipart/mixed; boundary=${BOUNDARY}`,
      },
      body: encode([colors]),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://app.test');
    await response.text();
  });
});

describe('what the wire may look like', () => {
  it('answers the batch example of the Calendar spec, part for part', async () => {
    const calendar = loadSpecs().find((api) => api.basePath === '/calendar/v3');
    const content =
      calendar?.doc.paths?.['/batch/calendar/v3']?.post?.requestBody?.content?.['multipart/mixed'];
    if (!calendar || !content?.examples) throw new Error('the Calendar spec documents no batch example');
    const example = follow(calendar.doc, Object.values<object>(content.examples)[0]).value as string;
    // The example's description gives its boundary; the body itself does too, on its first line.
    const boundary = /^--(\S+)\r\n/.exec(example)?.[1];
    const sent = await post(`${origin}/batch/calendar/v3`, example, {
      ...auth,
      'content-type': `multipart/mixed; boundary=${boundary}`,
    });
    expect(sent.status, sent.text).toBe(200);
    const ids = [...example.matchAll(/^Content-ID: <([^>]+)>\r$/gm)].map((match) => `<response-${match[1]}>`);
    expect(ids.length).toBeGreaterThan(0);
    expect(decode(sent.contentType, sent.text).map((a) => a.contentId)).toEqual(ids);
  });

  it('reads LF line ends, a preamble and a quoted boundary, as third-party batchers send them', async () => {
    const body = encode(
      [
        { method: 'GET', target: '/calendar/v3/colors', contentId: '1' },
        { method: 'POST', target: '/calendar/v3/calendars/primary/events', body: eventBody, contentId: '2' },
      ],
      { eol: '\n', preamble: '\nThis is a preamble.\n' },
    );
    const sent = await post(`${origin}/batch`, body, {
      ...auth,
      'content-type': `multipart/mixed; boundary="${BOUNDARY}"`,
    });
    expect(sent.status, sent.text).toBe(200);
    const answers = decode(sent.contentType, sent.text);
    expect(answers.map((a) => [a.contentId, a.status])).toEqual([
      ['<response-1>', 200],
      ['<response-2>', 200],
    ]);
  });

  it('takes 50 calls and answers each', async () => {
    const parts = Array.from({ length: 50 }, (_, i) => ({
      method: 'GET',
      target: '/calendar/v3/colors',
      contentId: `<${i}>`,
    }));
    const answers = await batch(`${origin}/batch/calendar/v3`, parts);
    expect(answers).toHaveLength(50);
    expect(answers.every((a, i) => a.status === 200 && a.contentId === `<response-${i}>`)).toBe(true);
  });

  it.each([
    [
      '51 calls',
      `multipart/mixed; boundary=${BOUNDARY}`,
      encode(Array.from({ length: 51 }, () => ({ method: 'GET', target: '/calendar/v3/colors' }))),
      'A batch request may hold at most 50 calls.',
      undefined,
    ],
    [
      'a part that is no HTTP request, naming it',
      `multipart/mixed; boundary=${BOUNDARY}`,
      encode([
        { method: 'GET', target: '/calendar/v3/colors' },
        { method: 'FETCH ME', target: 'colors' },
      ]),
      'The batch request is malformed: part 2: expected a request line such as "GET /calendar/v3/colors HTTP/1.1", found "FETCH ME colors HTTP/1.1".',
      undefined,
    ],
    [
      'a body that is not multipart',
      'application/json',
      JSON.stringify({ calls: [] }),
      'The batch request is malformed: a batch is multipart/mixed, not "application/json".',
      'Content-Type',
    ],
    [
      'a batch with no call',
      `multipart/mixed; boundary=${BOUNDARY}`,
      encode([]),
      'The batch request holds no call.',
      undefined,
    ],
  ])('refuses %s whole with 400', async (_title, contentType, body, message, location) => {
    const sent = await post(`${origin}/batch/calendar/v3`, body, { ...auth, 'content-type': contentType });
    expect(sent.status).toBe(400);
    expect(sent.contentType).toMatch(/^application\/json/);
    const error = JSON.parse(sent.text).error;
    expect(error.code).toBe(400);
    expect(error.message).toBe(message);
    expect(error.errors[0].location).toBe(location);
  });
});

describe('faults per part', () => {
  let faulty: Gateway;
  let base: string;
  beforeAll(async () => {
    faulty = createGateway({
      apis,
      faults: parseFaults(
        {
          seed: 3,
          operations: {
            'colors.get': { sequence: [{ status: 503, retryAfter: 2 }, 'pass'] },
            'calendarList.list': { respond: { status: 410, example: 'fullSyncRequired' } },
            'settings.list': { latencyMs: 300 },
          },
        },
        apis,
      ),
    });
    base = await faulty.listen(0);
  });
  afterAll(() => faulty.close());

  const reset = async () => {
    await fetch(`${base}/__mock/reset`, { method: 'POST' });
  };

  it('plays a fault sequence over the parts in their order, as over calls sent one by one', async () => {
    await reset();
    const colors = { method: 'GET', target: '/calendar/v3/colors' };
    const answers = await batch(`${base}/batch/calendar/v3`, [
      colors,
      { method: 'GET', target: '/calendar/v3/colors?prettyPrint=maybe' },
      colors,
      colors,
    ]);
    expect(answers.map((a) => [a.status, a.headers['retry-after']])).toEqual([
      [503, '2'],
      [400, undefined],
      [200, undefined],
      [200, undefined],
    ]);
    expect(reasonOf(answers[0] as PartAnswer)).toBe('backendError');
    // Only valid calls count, as for calls alone: the invalid part left the sequence alone.
    const state = await (await fetch(`${base}/__mock/faults`)).json();
    expect(state.calls['colors.get']).toBe(3);
  });

  it('answers the default example of the rule file in a part, and a part’s Prefer over it', async () => {
    const list = { method: 'GET', target: '/calendar/v3/users/me/calendarList' };
    const answers = await batch(`${base}/batch`, [list, { ...list, headers: { prefer: 'code=200' } }]);
    expect(answers.map((a) => a.status)).toEqual([410, 200]);
    expect(reasonOf(answers[0] as PartAnswer)).toBe('fullSyncRequired');
  });

  it('waits out the longest latency of its parts, not their sum', async () => {
    const settings = { method: 'GET', target: '/calendar/v3/users/me/settings' };
    const started = performance.now();
    const answers = await batch(`${base}/batch/calendar/v3`, [settings, settings, settings]);
    const elapsed = performance.now() - started;
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    // A timer never fires early; the sum would be 900 ms, far above the upper bound.
    expect(elapsed).toBeGreaterThanOrEqual(295);
    expect(elapsed).toBeLessThan(850);
  });
});

describe('a third-party batcher (@jrmdayn/googleapis-batcher) against the built CLI', () => {
  const cli = path.resolve(import.meta.dirname, '../dist/cli.js');
  // The batcher sends no per-call headers, so no Prefer: a fault rule makes events.get fail.
  const file = faultFile({ operations: { 'events.get': { sequence: [404], repeat: true } } });
  let mock: ChildRun;
  let cliOrigin: string;
  beforeAll(async () => {
    const env = { ...process.env };
    delete env.PORT;
    mock = startProcess(
      'gspec-mock --port 0 --verbose --faults',
      [cli, '--port', '0', '--verbose', '--faults', file],
      {
        env,
      },
    );
    cliOrigin = await mock.ready;
  });
  afterAll(() => stopAll());

  /** The per-request lines of the mock's log (the request line, then its status). */
  const requestLines = () =>
    mock
      .output()
      .err.split('\n')
      .filter((line) => /^[A-Z]+ \//.test(line));

  it('sends the calls of one tick as one batch and gets each answer back, a failure apart', async () => {
    const oauth = new google.auth.OAuth2();
    oauth.setCredentials({ access_token: 'test-token', expiry_date: Date.now() + 3_600_000 });
    const calendar = google.calendar({
      version: 'v3',
      rootUrl: `${cliOrigin}/`,
      fetchImplementation: batchFetchImplementation({ maxBatchSize: 50 }),
      auth: oauth,
    });
    const [inserted, patched, got] = await Promise.allSettled([
      calendar.events.insert({ calendarId: 'primary', requestBody: JSON.parse(eventBody) }),
      calendar.events.patch({ calendarId: 'primary', eventId: 'abc123', requestBody: { summary: 'Moved' } }),
      calendar.events.get({ calendarId: 'primary', eventId: 'abc123' }),
    ]);
    expect(inserted.status === 'fulfilled' && [inserted.value.status, inserted.value.data.kind]).toEqual([
      200,
      'calendar#event',
    ]);
    expect(patched.status === 'fulfilled' && [patched.value.status, patched.value.data.kind]).toEqual([
      200,
      'calendar#event',
    ]);
    expect(got.status).toBe('rejected');
    const error = (got as PromiseRejectedResult).reason as {
      status?: number;
      response?: { data: { error: { errors: { reason: string }[] } } };
    };
    expect(error.status).toBe(404);
    expect(error.response?.data.error.errors[0]?.reason).toBe('notFound');

    // One request reached the mock, at /batch, with the three calls as its parts.
    while (requestLines().length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(requestLines()).toEqual([expect.stringMatching(/^POST \/batch -> 200 /)]);
    expect(mock.output().err).toMatch(
      /part 1: POST \/calendar\/v3\/calendars\/primary\/events -> 200\n.*part 2: PATCH \/calendar\/v3\/calendars\/primary\/events\/abc123 -> 200\n.*part 3: GET \/calendar\/v3\/calendars\/primary\/events\/abc123 -> 404\n/,
    );
  });
});
