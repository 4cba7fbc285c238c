/**
 * The HTTP front's routing: what refuses a request before its body is read, how large a body
 * its path may have, and the answer to a request whose body is read, by the kind of endpoint
 * its path names: an API call (at the API's base path), a batch (`/batch/...`), the control
 * plane and the inspector (`/__emulator`), the token endpoint (`/token`, ...), the landing page
 * (`/`), or a 404 that says where the path was probably meant to go.
 */
import type { IncomingMessage } from 'node:http';
import {
  batchPath,
  crossOriginRefusal,
  hostRefusal,
  MAX_BODY_BYTES,
  nonJsonRefusal,
  notFoundHint,
  preflightHeaders,
  requestOrigin,
} from '@gspec/server-kit';
import type { Answer } from './answers.js';
import { answerBatch } from './batch.js';
import { CONTROL_PREFIX, handleControl } from './control.js';
import { type ApiError, fromRefusal, pathNotFound } from './errors.js';
import { answerOfFailure } from './failures.js';
import { Inspector } from './inspector.js';
import { OAuthServer } from './oauth.js';
import type { ReadBody, RequestHead } from './operations.js';
import type { Service } from './services.js';
import type { Target } from './target.js';
import type { EmulatorParts } from './wiring.js';

/**
 * The control plane takes a whole state (PUT /__emulator/state) and seeds (POST
 * /__emulator/seed): the emulator must load any state it dumped, and 100,000 events dump to
 * about 90 MB. V8's longest string is 512 MiB.
 */
const MAX_STATE_BODY_BYTES = 512 * 1024 * 1024;
/** Every other body but an API call's: the control plane's settings, sign-in, token requests. */
const MAX_SMALL_BODY_BYTES = 1024 * 1024;

/** Whether a path is the control plane's, or looks like it (`/__emulatorXYZ`). */
export const underControl = (pathname: string): boolean => pathname.startsWith(CONTROL_PREFIX);

/** Whether the request's Origin matters for a path of the control plane, and the admin credential. */
function controlRefusal(
  parts: EmulatorParts,
  request: IncomingMessage,
  pathname: string,
): ApiError | undefined {
  const method = request.method ?? 'GET';
  const sub = pathname.slice(CONTROL_PREFIX.length);
  // Health and the inspector's page files hold no state: a link from anywhere may open them.
  const page =
    (method === 'GET' || method === 'HEAD') && (sub === '/health' || Inspector.isPublic('GET', sub));
  if (!page) {
    const foreign = crossOriginRefusal(request, 'The control plane');
    if (foreign) return fromRefusal(foreign);
  }
  const open = (method === 'GET' && sub === '/health') || Inspector.isPublic(method, sub);
  if (!open && !parts.admin.admits(request.headers)) return parts.admin.refusal();
  const notJson = nonJsonRefusal(request, 'The control plane');
  return notJson ? fromRefusal(notJson) : undefined;
}

/** A request to the control plane or the inspector; who may send it was settled before its body was read. */
function answerControl(
  parts: EmulatorParts,
  request: IncomingMessage,
  target: Target,
  body: ReadBody,
  effect: { wrote: boolean },
): Answer {
  const { inspector, control } = parts;
  const { stateStore } = parts;
  const method = request.method ?? 'GET';
  const sub = target.pathname.slice(CONTROL_PREFIX.length);
  if (body.error !== undefined) throw body.error;
  if (Inspector.serves(sub)) return inspector.answer(method, sub, target.query(), request.headers, body.text);
  const before = stateStore.mark();
  try {
    const result = handleControl(control, method, target.pathname, body.text);
    return {
      status: result.status,
      headers: {},
      ...(result.chunks ? { chunks: result.chunks } : { body: result.body }),
    };
  } finally {
    effect.wrote = stateStore.changedSince(before);
  }
}

/** A request to no API, batch or control path: the token endpoint, the landing page, or a 404. */
function answerOther(
  parts: EmulatorParts,
  landing: (request: IncomingMessage) => Answer,
  request: IncomingMessage,
  target: Target,
  body: ReadBody,
): Answer {
  const method = request.method ?? 'GET';
  const { pathname } = target;
  if (OAuthServer.serves(pathname)) {
    if (body.error !== undefined) throw body.error;
    const issuer = `http://${request.headers.host ?? '127.0.0.1'}`;
    return parts.oauth.answer(method, pathname, target.query(), body.text, request.headers, issuer);
  }
  // A body over the limit was not read: that is the answer, whatever the path.
  if (body.error !== undefined) throw body.error;
  if (pathname === '/' && (method === 'GET' || method === 'HEAD')) return landing(request);
  throw pathNotFound(pathname, notFoundHint(pathname, parts.served, requestOrigin(request.headers.host)));
}

export interface Dispatcher {
  /** The largest body a request may have, by its path: known before a byte of it is read. */
  bodyLimit(method: string, pathname: string): number;
  /**
   * What refuses a request before its body is read (decision 0052), most basic first: a Host
   * that is no name of this server; for the control plane, a page of another origin, a missing
   * admin credential and a body that is not JSON. A body over the path's limit is refused as
   * early by readBody.
   */
  refusedBeforeReading(request: IncomingMessage, pathname: string): ApiError | undefined;
  /** The answer to a request whose body is read; `effect.wrote` tells whether it changed the state. */
  answer(request: IncomingMessage, target: Target, body: ReadBody, effect: { wrote: boolean }): Answer;
}

export function createDispatcher(
  parts: EmulatorParts,
  landing: (request: IncomingMessage) => Answer,
  log?: (line: string) => void,
): Dispatcher {
  const { services, operations } = parts;
  const failed = (error: unknown, method: string, pathname: string) =>
    answerOfFailure(error, method, pathname, log);

  /**
   * An API call: what every request to an API's base path gets, and each call of a batch, so
   * that a call in a batch is answered exactly as it would be alone.
   */
  function answerCall(
    head: RequestHead,
    target: Target,
    service: Service,
    body: ReadBody,
    effect: { wrote: boolean },
  ): Answer {
    try {
      return operations.answer(head, target, service, body, effect);
    } catch (error) {
      return failed(error, head.method ?? 'GET', target.pathname);
    }
  }

  return {
    bodyLimit(method, pathname) {
      if (
        (method === 'PUT' && pathname === `${CONTROL_PREFIX}/state`) ||
        (method === 'POST' && pathname === `${CONTROL_PREFIX}/seed`)
      )
        return MAX_STATE_BODY_BYTES;
      if (services.forPath(pathname) || batchPath(pathname)) return MAX_BODY_BYTES;
      return MAX_SMALL_BODY_BYTES;
    },

    refusedBeforeReading(request, pathname) {
      const refusal = hostRefusal(request, parts.allowedHosts, '--allowed-hosts');
      if (refusal) return fromRefusal(refusal);
      // A declared length over the limit is readBody's to refuse, as early: then routed, an API
      // call's 413 names its operation.
      return underControl(pathname) ? controlRefusal(parts, request, pathname) : undefined;
    },

    answer(request, target, body, effect) {
      const method = request.method ?? 'GET';
      try {
        if (body.refused !== undefined) throw body.refused;
        const { pathname } = target;
        // The control plane answers no preflight: no page of another origin may call it.
        if (method === 'OPTIONS' && !underControl(pathname))
          return { status: 204, headers: preflightHeaders(request) };
        if (pathname === CONTROL_PREFIX || pathname.startsWith(`${CONTROL_PREFIX}/`))
          return answerControl(parts, request, target, body, effect);
        const service = services.forPath(pathname);
        if (service) return answerCall(request, target, service, body, effect);
        const batch = batchPath(pathname);
        if (batch) return answerBatch(services, answerCall, request, pathname, batch.prefix, body, effect);
        return answerOther(parts, landing, request, target, body);
      } catch (error) {
        return failed(error, method, target.pathname);
      }
    },
  };
}
