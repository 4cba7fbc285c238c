/**
 * The HTTP layer the mock and the emulator share (server-kit): run against each of them in
 * turn, these cases hold both to the same answers before any operation is looked at: the
 * refusal of a body over the limit that the client can read, of a body that is not JSON, of a
 * malformed credential; a path parameter with escapes; a method the path does not have; a
 * CORS preflight. The live services are left out (413 and 415 are the local servers' own).
 */
import { Agent, request } from 'node:http';
import { describe, expect, it, type TestContext } from 'vitest';
import { currentTarget } from './support/run.ts';
import { SKIP } from './support/target.ts';

function local(ctx: TestContext) {
  const target = currentTarget();
  if (target.kind === 'live') ctx.skip(SKIP.localOnly);
  return target;
}

const EVENTS = '/calendar/v3/calendars/primary/events';
// Not an operation's case: these count in the suite's own row of the report.
const meta = { timeout: 120_000 };

async function call(path: string, init: RequestInit = {}) {
  const target = currentTarget();
  // The server itself, not the validating proxy before the emulator: these are the server's own answers.
  const response = await fetch(`${target.directOrigin}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${target.token}`, ...(init.headers as Record<string, string>) },
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/**
 * `call` on a connection of its own, dropped after the answer: a server that answers 413 while
 * the client is still sending may close that connection whenever it likes, and a later
 * request of the shared fetch pool must not be the one that finds it reset. The connection is
 * kept alive, as fetch's are: a client that asks for `Connection: close` lets the server close
 * as soon as its answer is out, and the rest of the body it is still sending then meets a reset
 * that can reach the client before the answer does.
 */
function callAlone(path: string, init: { method: string; headers: Record<string, string>; body: string }) {
  const target = currentTarget();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const sent = request(`${target.directOrigin}${path}`, {
      method: init.method,
      agent,
      headers: { authorization: `Bearer ${target.token}`, ...init.headers },
    });
    let answered = false;
    let failure: Error | undefined;
    sent.on('response', (answer) => {
      answered = true;
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: answer.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
      });
      answer.on('error', reject);
    });
    // The server may stop reading once it has answered: a write failing then is no failure of
    // the call; a connection closed with no answer is.
    sent.on('error', (error) => {
      failure = error;
    });
    sent.on('close', () => {
      if (!answered) reject(failure ?? new Error('the connection closed with no answer'));
    });
    sent.end(init.body);
  }).finally(() => agent.destroy());
}

describe('the HTTP layer of the local servers', () => {
  it(
    'a body over 10 MB is refused with 413 in the envelope, read by the client while it was still sending',
    meta,
    async (ctx) => {
      local(ctx);
      const answer = await callAlone(EVENTS, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ summary: 'x'.repeat(11 * 1024 * 1024) }),
      });
      expect(answer.status).toBe(413);
      expect((answer.body as { error: unknown }).error).toMatchObject({
        code: 413,
        status: 'INVALID_ARGUMENT',
        errors: [{ domain: 'global', reason: 'uploadTooLarge' }],
      });
    },
  );

  it('a body that is not JSON is refused with 415, naming the Content-Type', meta, async (ctx) => {
    local(ctx);
    const answer = await call(EVENTS, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'summary=x',
    });
    expect(answer.status).toBe(415);
    expect(answer.body.error).toEqual({
      code: 415,
      message: 'The request body must be application/json, not text/plain',
      status: 'INVALID_ARGUMENT',
      errors: [
        {
          domain: 'global',
          reason: 'unsupportedMediaType',
          message: 'The request body must be application/json, not text/plain',
          location: 'Content-Type',
          locationType: 'header',
        },
      ],
    });
  });

  it.for([
    ['Basic dXNlcjpwdw==', 'The Authorization header uses the Basic scheme'],
    ['Bearer', 'The bearer token is empty.'],
  ])('the credential %j is a 401 that says what is wrong', meta, async ([authorization, message], ctx) => {
    local(ctx);
    const answer = await call(EVENTS, { headers: { authorization: authorization as string } });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toContain('Bearer');
    expect(answer.body.error.code).toBe(401);
    expect(answer.body.error.errors[0]).toMatchObject({ reason: 'authError', location: 'Authorization' });
    expect(answer.body.error.message).toContain(message as string);
  });

  it('a path parameter with escapes is one segment', meta, async (ctx) => {
    local(ctx);
    const answer = await call('/calendar/v3/users/me/settings/timezone%20x');
    // The mock answers the example, the emulator has no such setting: both routed it to settings.get.
    expect([200, 404]).toContain(answer.status);
    if (answer.status === 404) expect(answer.body.error.errors[0].reason).toBe('notFound');
  });

  it('a method the path does not have is 405 with the methods it has', meta, async (ctx) => {
    local(ctx);
    const answer = await call('/calendar/v3/colors', { method: 'DELETE' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET');
    expect(answer.body.error.code).toBe(405);
  });

  it('a CORS preflight is answered for any origin', meta, async (ctx) => {
    const target = local(ctx);
    const response = await fetch(`${target.origin}${EVENTS}`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE');
    expect(response.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
  });
});
