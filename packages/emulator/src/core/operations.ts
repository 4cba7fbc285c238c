/**
 * Running an API's operations: a request routed by its API's spec, its user admitted (strict
 * mode, scopes, the rate limit), its quota charged, validated against the spec and handed to
 * its operation's handler, with partial answers (`fields`) and conditional reads applied to the
 * reply; and the same in-process (`invoke`). Refusals are thrown as ApiError.
 */
import type { IncomingMessage } from 'node:http';
import { notFoundHint } from '@gspec/server-kit';
import type { Answer } from './answers.js';
import type { Context, InvokeInput, InvokeResult, Reply } from './context.js';
import { ApiError, methodNotAllowed, notImplemented, pathNotFound, servedApi } from './errors.js';
import type { Notifier } from './notifier.js';
import { type FieldMask, PartialAnswers } from './partial.js';
import { QUOTA_COST_HEADER, QUOTA_USED_HEADER, type QuotaMeter } from './quota.js';
import type { Service, Services } from './services.js';
import type { StateMark } from './slice.js';
import type { JsonObject, OperationSpec } from './spec.js';
import type { UserRecord } from './state.js';
import type { StateStore } from './state-store.js';
import type { Store } from './store.js';
import type { AccessPolicy } from './strict.js';
import type { Target } from './target.js';
import { readBearer } from './users.js';
import { type RawRequest, validateRequest } from './validate.js';

export type { InvokeInput, InvokeResult } from './context.js';

/**
 * What an API request is read from: its method, target and headers. A request over HTTP is
 * one, and so is each call of a batch (batch.ts), which has no socket of its own.
 */
export type RequestHead = Pick<IncomingMessage, 'method' | 'url' | 'headers'>;

/** The body of a request, or why it could not be read (answered once the request is routed). */
export interface ReadBody {
  text: string | undefined;
  error?: unknown;
  /**
   * A refusal decided before the body was read (its Host, its origin, its credential, its
   * declared size): answered before anything else, and the body is never read.
   */
  refused?: unknown;
}

export interface OperationsDeps {
  services: Services;
  /** The core's store: the state, the users, the changes of a request. */
  store: Store;
  quota: QuotaMeter;
  access: AccessPolicy;
  notifier: Notifier;
  stateStore: Pick<StateStore, 'mark' | 'changedSince'>;
}

export class Operations {
  /** Partial responses and conditional reads, per API (each has its own schemas). */
  private readonly partials: Map<Service, PartialAnswers>;

  constructor(private readonly deps: OperationsDeps) {
    this.partials = new Map(deps.services.list.map((s) => [s, new PartialAnswers(s.spec.document)]));
  }

  /** The checked mask of a `fields` value (undefined when there is none); a bad one is a 400. */
  private checkMask(service: Service, op: OperationSpec, fields: string | null): FieldMask | undefined {
    return fields ? this.partials.get(service)?.mask(op, fields) : undefined;
  }

  /**
   * Validates a request of an operation and runs its handler; refusals throw ApiError. With
   * `mask`, the request's `fields` is checked after the other parameters and left there.
   */
  run(
    service: Service,
    op: OperationSpec,
    user: UserRecord,
    raw: RawRequest,
    origin: string,
    mask?: { value: FieldMask | undefined },
    seed = false,
  ): Reply {
    const { spec, tools } = service;
    const handler = service.handlers[op.id];
    // A seed's batch is refused whole for any bad row: the seed's error names the row.
    const batchList = seed ? undefined : handler?.batchList;
    const valid = validateRequest(op, raw, tools, batchList ? { batchList } : {});
    // A `fields` mask is checked with the other parameters, before the handler: a refused
    // mask never lets a write happen.
    if (mask) mask.value = this.checkMask(service, op, raw.query.get('fields'));
    if (!handler) throw notImplemented(op.id);
    const context: Context = {
      spec,
      tools,
      store: service.store,
      user,
      op,
      request: valid,
      notifier: this.deps.notifier,
      origin,
      strict: this.deps.access.strict,
      seeding: seed,
    };
    // Changes made before the handler (a new user's calendar list) are told before it runs,
    // so that a channel the handler opens hears only of later ones. With no channel open
    // (most of the time) there is no one to tell.
    const { notifier, store } = this.deps;
    if (notifier.channels.size > 0) notifier.dispatch(store.drainChanges());
    else store.dropChanges();
    try {
      return handler(context);
    } finally {
      // Notifications go out after the answer, whatever the handler wrote before any refusal.
      if (notifier.channels.size > 0) {
        const changes = store.drainChanges();
        if (changes.size > 0) notifier.dispatchLater(changes);
      } else store.dropChanges();
    }
  }

  /** An operation run in-process as the user `email` (Emulator.invoke). */
  invoke(email: string, operationId: string, input: InvokeInput = {}): InvokeResult {
    return this.call(this.deps.store.user(email), operationId, input, false);
  }

  /**
   * An operation run in-process for a seed, as no user (none is made): ids the seed does not
   * name are refused, not created, and a batch with a bad row is refused whole.
   */
  invokeAsSeed(operationId: string, input: InvokeInput = {}): InvokeResult {
    return this.call({ email: '' }, operationId, input, true);
  }

  private call(user: UserRecord, operationId: string, input: InvokeInput, seed: boolean): InvokeResult {
    const found = this.deps.services.operation(operationId);
    if (!found) throw new Error(`no operation ${operationId} in the specs`);
    const { service, op } = found;
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(input.query ?? {})) query.append(key, String(value));
    const mask: { value: FieldMask | undefined } = { value: undefined };
    const reply = this.run(
      service,
      op,
      user,
      {
        pathParams: input.path ?? {},
        query,
        headers: {},
        body: input.body === undefined ? undefined : JSON.stringify(input.body),
        contentType: 'application/json',
      },
      'http://127.0.0.1',
      query.has('fields') ? mask : undefined,
      seed,
    );
    const status = reply.status ?? op.successStatus;
    if (status === 204) return { status };
    if (reply.text) return { status, text: reply.text.body };
    const body = mask.value
      ? (PartialAnswers.trim(mask.value, status, reply.body) as JsonObject | undefined)
      : reply.body;
    return { status, ...(body !== undefined ? { body } : {}) };
  }

  /**
   * Answers an API request, its body read (or the reason it could not be); nothing in it
   * awaits, so what changes in the state while it runs is this request's.
   */
  answer(
    request: RequestHead,
    target: Target,
    service: Service,
    body: ReadBody,
    effect: { wrote: boolean },
  ): Answer {
    const { store, quota, access, stateStore } = this.deps;
    const method = request.method ?? 'GET';
    const route = service.router.route(method, target.pathname.slice(service.spec.basePath.length));
    if (route.kind === 'noPath')
      throw pathNotFound(target.pathname, notFoundHint(target.pathname, [servedApi(service)]));
    if (route.kind === 'noMethod') throw methodNotAllowed(method, target.pathname, route.allowed);
    const op = route.operation;
    const headers: Record<string, string> = {};
    let before: StateMark | undefined;
    let email: string | undefined;
    try {
      if (body.error !== undefined) throw body.error;
      before = stateStore.mark();
      const query = target.query();
      const token = readBearer(request.headers.authorization, query.get('access_token'));
      // Strict mode and the rate limit refuse before the request is charged or validated.
      const user = store.user(access.admit(token, service.name, op));
      email = user.email;
      const used = quota.charge(user.email, op.id, op.quotaCost);
      headers[QUOTA_COST_HEADER] = String(op.quotaCost);
      headers[QUOTA_USED_HEADER] = String(used);
      const raw: RawRequest = {
        pathParams: route.pathParams,
        query,
        headers: request.headers,
        body: body.text,
        contentType: request.headers['content-type'],
      };
      const origin = `http://${request.headers.host ?? '127.0.0.1'}`;
      // Partial responses and conditional reads: nothing to do for requests with neither.
      const fields = query.get('fields');
      const ifNoneMatch = request.headers['if-none-match'];
      const partial = fields || ifNoneMatch !== undefined ? this.partials.get(service) : undefined;
      const mask: { value: FieldMask | undefined } = { value: undefined };
      const reply = this.run(service, op, user, raw, origin, fields ? mask : undefined);
      const status = reply.status ?? op.successStatus;
      if (reply.headers) Object.assign(headers, reply.headers);
      const answer: Answer = { status, headers, operationId: op.id, user: user.email };
      if (status !== 204) {
        if (reply.text) answer.text = reply.text;
        else answer.body = reply.body;
      }
      if (partial && ifNoneMatch !== undefined && partial.notModified(op, ifNoneMatch, status, answer.body)) {
        answer.status = 304;
        headers.etag = String((answer.body as JsonObject).etag);
        delete answer.body;
      } else if (mask.value) answer.body = PartialAnswers.trim(mask.value, status, answer.body);
      return answer;
    } catch (error) {
      if (error instanceof ApiError)
        throw Object.assign(error, {
          operationId: op.id,
          quotaHeaders: headers,
          ...(email ? { user: email } : {}),
        });
      throw error;
    } finally {
      if (before) effect.wrote = stateStore.changedSince(before);
    }
  }
}
