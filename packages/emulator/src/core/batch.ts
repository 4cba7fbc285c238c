/**
 * Google's batch endpoint: `POST /batch/<api>/<version>` carries calls of that API, and
 * `POST /batch` calls of any API the emulator serves. Each call is run, in the order of the
 * parts, through the very path it would take alone (operations.answer): its own user and
 * scopes, quota charge, validation, handler, `fields`, ETag and preconditions, and its own
 * status in its own part. The batch as a whole is 200; it is refused whole (400, by
 * @gspec/server-kit's readBatch) only when it is no batch at all: not multipart/mixed, a part
 * that is no HTTP request, more than 50 calls, or none.
 *
 * The calls run one after another in one turn of the event loop and nothing awaits in between,
 * so no other request sees the state halfway through a batch, and the turn's one commit
 * (--persist) holds all its writes. The parts are encoded when the answer is sent
 * (answers.ts), after that commit: a part that wrote can then still become the 503 of a
 * failed commit on its own, while the reads of the batch keep their answers.
 */
import { type BatchCall, HttpRefusal, notFoundHint, readBatch } from '@gspec/server-kit';
import type { Answer, BatchPart } from './answers.js';
import {
  type ApiError,
  fromRefusal,
  methodNotAllowed,
  pathNotFound,
  refusal,
  refuse,
  servedApi,
} from './errors.js';

/** A part a batch endpoint does not take. */
export const PART_NOT_ALLOWED = refusal({
  id: 'http.batchPartNotAllowed',
  scope: 'every API',
  operations: [],
  status: 400,
  reason: 'badRequest',
  when: 'a batch part under another API’s base path than the endpoint’s, or a batch inside a batch',
  evidence: ['fact:conventions:batch/endpoint', 'decision:0048'],
});

import type { ReadBody, RequestHead } from './operations.js';
import type { Service, Services } from './services.js';
import { parseTarget, type Target } from './target.js';

/** A call answered as the same request alone would be: operations.answer, a refusal as its answer. */
export type AnswerCall = (
  head: RequestHead,
  target: Target,
  service: Service,
  body: ReadBody,
  effect: { wrote: boolean },
) => Answer;

/**
 * A part whose call the batch cannot carry: a path of another API than the batch's, or of no
 * API (the control plane, the token endpoint, another batch). Answered 400 in its own part,
 * not 404: the path may well exist on the emulator, and a 404 in a part reads as "no such
 * resource", which a client may act on (create what it thinks is missing). A 400 says the
 * request, not the resource, is wrong, and the message says which batch endpoint takes it.
 */
function notInBatch(
  call: BatchCall,
  pathname: string,
  batch: string,
  accepted: readonly string[],
  other: Service | undefined,
): ApiError {
  const where = `Part ${call.index}: ${call.method} ${pathname}`;
  const message = /^\/batch(\/|$)/.test(pathname)
    ? `${where} is a batch request; a batch cannot hold another batch.`
    : `${where} cannot be sent in ${batch}, which takes calls under ${accepted.join(' or ')} only${
        other ? `; send it alone, or in /batch${other.spec.basePath}` : ''
      }.`;
  return refuse(PART_NOT_ALLOWED, message);
}

/** The answer of a refusal made here, as the server makes those of operations. */
const refusalAnswer = (error: ApiError): Answer => ({
  status: error.status,
  headers: { ...error.headers },
  body: error.body,
});

/**
 * Answers a request to a batch endpoint (`prefix` is the API's base path of
 * `/batch/<api>/<version>`, absent for `/batch`). Refusals of the batch as a whole are thrown
 * as ApiError; the calls' own are in their parts. `effect.wrote` says whether any call wrote.
 */
export function answerBatch(
  services: Services,
  answerCall: AnswerCall,
  request: RequestHead,
  pathname: string,
  prefix: string | undefined,
  body: ReadBody,
  effect: { wrote: boolean },
): Answer {
  // `/batch/<api>/<version>` of an API not served is an unknown path, like any other.
  const served =
    prefix === undefined ? services.list : services.list.filter((s) => s.spec.basePath === prefix);
  if (served.length === 0) throw pathNotFound(pathname, notFoundHint(pathname, services.list.map(servedApi)));
  const method = request.method ?? 'GET';
  if (method !== 'POST') throw methodNotAllowed(method, pathname, ['POST']);
  if (body.error !== undefined) throw body.error;
  let calls: BatchCall[];
  try {
    calls = readBatch(request.headers, body.text);
  } catch (error) {
    throw error instanceof HttpRefusal ? fromRefusal(error) : error;
  }
  const accepted = served.map((s) => s.spec.basePath);
  const parts = calls.map((call): BatchPart => {
    const target = parseTarget(call.target);
    const service = services.forPath(target.pathname);
    if (!service || !served.includes(service))
      return {
        call,
        answer: refusalAnswer(notInBatch(call, target.pathname, pathname, accepted, service)),
        wrote: false,
      };
    // The host is the batch's: the call reaches this emulator as the batch did (watch
    // channels' resourceUri is built from it); readBatch passes on no Host of the outer request.
    const head: RequestHead = {
      method: call.method,
      url: call.target,
      headers: { ...call.headers, ...(request.headers.host ? { host: request.headers.host } : {}) },
    };
    const callEffect = { wrote: false };
    const answer = answerCall(head, target, service, { text: call.body }, callEffect);
    if (callEffect.wrote) effect.wrote = true;
    return { call, answer, wrote: callEffect.wrote };
  });
  return { status: 200, headers: {}, parts };
}
