/**
 * The emulator's HTTP server: each API at its live base path (`/calendar/v3`,
 * `/doubleclicksearch/v2`), Google's batch endpoints (`/batch/<api>/<version>`, `/batch`;
 * batch.ts), and the control plane under `/__emulator`. A request is routed by its API's spec,
 * authenticated, charged its quota, validated against the spec and handed to its operation's
 * handler; every refusal is Google's error envelope.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  AllowedHosts,
  batchPath,
  crossOriginRefusal,
  curlExample,
  HttpRefusal,
  hostRefusal,
  LANDING_HEADERS,
  type LandingInfo,
  landingHtml,
  landingJson,
  listen,
  MAX_BODY_BYTES,
  nonJsonRefusal,
  notFoundHint,
  preflightHeaders,
  readBody,
  requestOrigin,
  serveFavicon,
  wantsHtml,
} from '@gspec/server-kit';
import {
  type Answer,
  AnswerWriter,
  answerClientError,
  BACKEND_ERROR,
  type Exchange,
  notCommitted,
} from './answers.js';
import type { AnyApiModule } from './api-module.js';
import { answerBatch } from './batch.js';
import {
  type InvokeInput,
  type InvokeResult,
  Operations,
  type ReadBody,
  type RequestHead,
} from './operations.js';

export type { Exchange } from './answers.js';
export type { InvokeInput, InvokeResult } from './operations.js';

import { AdminGate, type AdminOptions } from './admin.js';
import { CONTROL_PREFIX, type ControlDeps, handleControl } from './control.js';
import { ApiError, fromRefusal, pathNotFound, refuse, servedApi } from './errors.js';
import { Inspector, type InspectorOptions } from './inspector.js';
import { Journal } from './journal.js';
import { Notifier, type NotifierOptions } from './notifier.js';
import { type OAuthOptions, OAuthServer } from './oauth.js';
import { type Outcome, SharedStore, type SharedStoreOptions } from './postgres.js';
import { QuotaMeter } from './quota.js';
import { applySeed, createSeedParser } from './seed.js';
import { createServices, type Service, type Services } from './services.js';
import type { ApiName, ApiSpec } from './spec.js';
import { emptyCoreState, type State } from './state.js';
import { createStateChecker } from './state-file.js';
import { Persistence, type PersistOptions } from './storage.js';
import { Store } from './store.js';
import { AccessPolicy, type RateLimitOptions } from './strict.js';
import { parseTarget, type Target } from './target.js';
import type { ScopeMap, UserMap } from './users.js';

/**
 * The control plane takes a whole state (PUT /__emulator/state) and seeds (POST
 * /__emulator/seed): the emulator must load any state it dumped, and 100,000 events dump to
 * about 90 MB. V8's longest string is 512 MiB.
 */
const MAX_STATE_BODY_BYTES = 512 * 1024 * 1024;
/** Every other body but an API call's: the control plane's settings, sign-in, token requests. */
const MAX_SMALL_BODY_BYTES = 1024 * 1024;

export interface EmulatorOptions {
  /** Specs by API name (`calendar`); an API's spec not given is loaded from @gspec/specs. */
  specs?: Partial<Record<ApiName, ApiSpec>>;
  /** Token to email; other tokens still work (see users.ts), except in strict mode. */
  users?: UserMap;
  /**
   * Strict mode (strict.ts): only the tokens of `users` are accepted (others are 401), and each
   * operation needs one of its spec's scopes among the token's `scopes` (else 403).
   */
  strict?: boolean;
  /** Token to the OAuth scopes it was granted (full or short names); a token not in it has all. */
  scopes?: ScopeMap;
  /**
   * The token endpoint (oauth.ts): the service accounts, OAuth clients and refresh tokens it
   * knows (`seedOAuth` reads them from a seed). Served whatever is given; with nothing
   * registered every grant is refused.
   */
  oauth?: OAuthOptions;
  /**
   * Quota units per user and API in any rolling window (a minute unless `windowMs`); over it,
   * 403 or 429. `PUT|DELETE /__emulator/rate-limit` sets, changes or drops it while running.
   */
  rateLimit?: RateLimitOptions;
  onResponse?: (exchange: Exchange) => void;
  /** One line per request, when set. */
  log?: (line: string) => void;
  /**
   * Push notification delivery: retry delays and timeout, the targets allowed (`allow`; needed
   * in a shared sandbox), the caps (`maxChannelsPerUser`, `maxAttemptsPerChange`), the resolver.
   */
  notifications?: Omit<NotifierOptions, 'log'>;
  /**
   * Keeps the state in this database file (core/storage.ts): loaded now when it holds a state
   * (a file that fails to load throws PersistError), and every request that changes the state
   * is answered once the change is committed.
   */
  persist?: string | PersistOptions;
  /**
   * The web inspector (`/__emulator/ui/`): `journal` bounds what it keeps, `streamBacklogBytes`
   * the unsent output past which a reader of its live stream is dropped (1 MiB).
   */
  inspector?: InspectorOptions;
  /**
   * Keeps the state in a PostgreSQL database that several emulators share (core/postgres.ts,
   * `postgres://user:password@host:port/database`): each turn's requests run in one transaction
   * there and are answered once it committed. Connected by `listen` (or `shared.open`); not with `persist`.
   */
  store?: string | SharedStoreOptions;
  /**
   * The admin credential of the control plane and the inspector (core/admin.ts): needed, when
   * set, wherever the emulator listens. Without one, strict mode and a listener beyond loopback
   * lock them (401 to everything but `GET /__emulator/health`).
   */
  admin?: AdminOptions;
  /**
   * Host names the emulator answers to besides IP addresses, `localhost` and names under
   * `.localhost` (decision 0052): `emulator`, `.example.test` for a domain and its names, `*`
   * for any (no protection against DNS rebinding). A list, or one string separated by commas.
   */
  allowedHosts?: string | readonly string[];
}

export interface Emulator {
  server: Server;
  /** Every API served, each with its spec and its own store (`services.list`). */
  services: Services;
  /** The core's store: the whole state (`store.state`), the users. */
  store: Store;
  quota: QuotaMeter;
  notifier: Notifier;
  /** The requests and deliveries the inspector shows, bounded (journal.ts). */
  journal: Journal;
  /** The OAuth 2.0 token endpoint at the root (`/token`, `/tokeninfo`, `/revoke`). */
  oauth: OAuthServer;
  /** With the `persist` option: the database, and `commit()` to save in-process changes (`invoke`). */
  persistence?: Persistence;
  /**
   * With the `store` option: the shared database. `shared.open(initialize)` connects and loads
   * it (`listen` does, when not done yet); `shared.run(work)` runs in-process work (`invoke`)
   * in a transaction, as requests are.
   */
  shared?: SharedStore;
  /**
   * Runs an operation as the user `email`, in-process, validated and handled as over HTTP
   * (no quota charged); a refusal throws the ApiError the request would get.
   */
  invoke(email: string, operationId: string, input?: InvokeInput): InvokeResult;
  /**
   * Runs an operation in-process for a seed, as no user (none is made): ids the seed does not
   * name are refused, not created, and a batch with a bad row is refused whole.
   */
  invokeAsSeed(operationId: string, input?: InvokeInput): InvokeResult;
  /** Checks a dumped state (as `PUT /__emulator/state` does) and returns it; throws StateFileError. */
  checkState(value: unknown): State;
  listen(port: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

const NO_BODY: ReadBody = { text: undefined };

/** Without Content-Length or Transfer-Encoding an HTTP/1.1 request has no body. */
const hasBody = (request: IncomingMessage): boolean =>
  request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined;

/**
 * The emulator of the APIs of `modules` (src/apis/index.ts lists them; `createEmulator` in
 * src/emulator.ts serves them all).
 */
export function createEmulatorOf(modules: readonly AnyApiModule[], options: EmulatorOptions = {}): Emulator {
  const store = new Store(() =>
    Object.assign(emptyCoreState(), ...modules.map((module) => module.state.empty())),
  );
  const services = createServices(modules, store, options.specs);
  // A user seen for the first time gets what each API starts an account with.
  store.onNewUser = (user) => {
    for (const service of services.list) service.module.startUser?.(service.store, user);
  };
  const quota = new QuotaMeter();
  const users = options.users ?? {};
  // A delegated assertion may act as any user the emulator has (seeded, or seen before).
  const oauth = new OAuthServer(options.oauth, (email) => Object.hasOwn(store.state.users, email));
  const access = new AccessPolicy(services, {
    users,
    oauth,
    ...(options.strict ? { strict: true } : {}),
    ...(options.scopes ? { scopes: options.scopes } : {}),
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
  });
  const journal = new Journal(options.inspector?.journal, (pathname) => OAuthServer.serves(pathname));
  const notifier = new Notifier(
    {
      ...options.notifications,
      ...(options.log ? { log: options.log } : {}),
      onDelivery: (report) => {
        journal.recordDelivery(report);
        options.notifications?.onDelivery?.(report);
      },
    },
    // A shared sandbox (shared store, or bound beyond loopback) delivers only to the allow list.
    {
      sharedStore: options.store !== undefined,
      boundTo: () => {
        const bound = server.address();
        return bound !== null && typeof bound === 'object' ? bound.address : undefined;
      },
    },
  );
  // Only changes a channel watches are recorded (most writes have no one to tell).
  store.watched = (key) => notifier.watches(key);
  // The seed endpoint checks documents against these APIs' specs, read when the first comes.
  const seeds = createSeedParser(modules, options.specs);
  const control: ControlDeps = {
    services,
    store,
    quota,
    access,
    seeds: {
      parse: seeds.parse,
      // Called by requests only, once `emulator` below is made.
      apply: (seed, source) => applySeed(emulator, seed, source),
    },
    onReset: () => {
      notifier.reset();
      store.changes.clear();
      journal.clear();
    },
    checkState: createStateChecker(
      modules,
      Object.fromEntries(services.list.map((service) => [service.name, service.spec])),
    ),
  };
  if (options.persist && options.store)
    throw new TypeError(
      'createEmulator: give persist (a SQLite file) or store (a shared database), not both',
    );
  const slices = () => services.list.map((s) => s.module.storage(s.store));
  const shared = options.store
    ? new SharedStore(
        { store, slices: slices(), quota, access, notifier },
        {
          ...(options.log ? { onError: options.log } : {}),
          ...(typeof options.store === 'string' ? { url: options.store } : options.store),
        },
      )
    : undefined;
  const persistence = options.persist
    ? new Persistence(
        store,
        slices(),
        {
          ...(options.log ? { onError: options.log } : {}),
          ...(typeof options.persist === 'string' ? { file: options.persist } : options.persist),
        },
        control.checkState,
      )
    : undefined;

  const operations = new Operations({
    services,
    store,
    quota,
    access,
    notifier,
    ...(persistence ? { persistence } : shared ? { persistence: shared } : {}),
  });
  const invoke = operations.invoke.bind(operations);
  const invokeAsSeed = operations.invokeAsSeed.bind(operations);
  const admin = new AdminGate(options.admin, options.strict === true, CONTROL_PREFIX, () => {
    const bound = server.address();
    return bound !== null && typeof bound === 'object' ? bound.address : undefined;
  });
  const inspector = new Inspector({
    prefix: CONTROL_PREFIX,
    admin,
    journal,
    notifier,
    services,
    store,
    invoke,
    ...(options.inspector?.streamBacklogBytes !== undefined
      ? { streamBacklogBytes: options.inspector.streamBacklogBytes }
      : {}),
  });
  const STREAM_PATH = `${CONTROL_PREFIX}/stream`;
  const allowedHosts = AllowedHosts.parse(options.allowedHosts, 'allowedHosts');

  const served = services.list.map(servedApi);
  /** The landing page's example: the first read of a served API that needs no parameter. */
  const examplePath = (() => {
    for (const service of services.list)
      for (const op of service.spec.operations)
        if (
          op.method.toUpperCase() === 'GET' &&
          !op.path.includes('{') &&
          !op.parameters.some((p) => p.required)
        )
          return `${service.spec.basePath}${op.path}`;
    return services.list[0]?.spec.basePath ?? '';
  })();

  /**
   * The root (`GET /`), where a person's browser goes first: what this server is, the base URL
   * of each API, the inspector and health; a page for a browser, JSON for anything else. It
   * holds no state and no credential.
   */
  function landing(request: IncomingMessage): Answer {
    const origin = requestOrigin(request.headers.host);
    const info: LandingInfo = {
      name: 'gspec emulator',
      description: `A stateful emulator of ${served.map((api) => api.title).join(' and ')}, on this machine. ${
        options.strict
          ? 'It runs in strict mode: only the tokens of its users and seed are accepted; set TOKEN to one of them for the example.'
          : 'Any bearer token is accepted: each token acts as a user of its own.'
      }`,
      origin,
      apis: served,
      links: {
        inspector: {
          path: `${CONTROL_PREFIX}/ui/`,
          text: 'The inspector: requests, state and notifications',
        },
        health: { path: `${CONTROL_PREFIX}/health`, text: 'Health: the APIs and their operations' },
      },
      // In strict mode any-token would be refused: the example takes a token from the shell.
      example: curlExample(`${origin}${examplePath}`, options.strict ? '$TOKEN' : 'any-token'),
    };
    return wantsHtml(request.headers.accept)
      ? {
          status: 200,
          headers: { ...LANDING_HEADERS },
          text: { contentType: 'text/html; charset=utf-8', body: landingHtml(info) },
        }
      : { status: 200, headers: { ...LANDING_HEADERS }, body: landingJson(info) };
  }

  /** Whether a path is the control plane's, or looks like it (`/__emulatorXYZ`). */
  const underControl = (pathname: string) => pathname.startsWith(CONTROL_PREFIX);

  /** The largest body a request may have, by its path: known before a byte of it is read. */
  function bodyLimit(method: string, pathname: string): number {
    if (
      (method === 'PUT' && pathname === `${CONTROL_PREFIX}/state`) ||
      (method === 'POST' && pathname === `${CONTROL_PREFIX}/seed`)
    )
      return MAX_STATE_BODY_BYTES;
    if (services.forPath(pathname) || batchPath(pathname)) return MAX_BODY_BYTES;
    return MAX_SMALL_BODY_BYTES;
  }

  /**
   * What refuses a request before its body is read (decision 0052), most basic first: a Host
   * that is no name of this server; for the control plane, a page of another origin, a missing
   * admin credential and a body that is not JSON. A body over the path's limit is refused as
   * early by readBody.
   */
  function refusedBeforeReading(request: IncomingMessage, pathname: string): ApiError | undefined {
    const refusal = hostRefusal(request, allowedHosts, '--allowed-hosts');
    if (refusal) return fromRefusal(refusal);
    const method = request.method ?? 'GET';
    if (underControl(pathname)) {
      const sub = pathname.slice(CONTROL_PREFIX.length);
      // Health and the inspector's page files hold no state: a link from anywhere may open them.
      const page =
        (method === 'GET' || method === 'HEAD') && (sub === '/health' || Inspector.isPublic('GET', sub));
      if (!page) {
        const foreign = crossOriginRefusal(request, 'The control plane');
        if (foreign) return fromRefusal(foreign);
      }
      const open = (method === 'GET' && sub === '/health') || Inspector.isPublic(method, sub);
      if (!open && !admin.admits(request.headers)) return admin.refusal();
      const notJson = nonJsonRefusal(request, 'The control plane');
      if (notJson) return fromRefusal(notJson);
    }
    // A declared length over the limit is readBody's to refuse, as early: then routed, an API
    // call's 413 names its operation.
    return undefined;
  }

  /** The answer of a refusal (ApiError) or of a failure no handler expected (500). */
  function failed(error: unknown, method: string, pathname: string): Answer {
    if (error instanceof ApiError) {
      const extra = error as ApiError & {
        operationId?: string;
        quotaHeaders?: Record<string, string>;
        user?: string;
      };
      return {
        status: error.status,
        headers: { ...extra.quotaHeaders, ...error.headers },
        body: error.body,
        ...(extra.operationId ? { operationId: extra.operationId } : {}),
        ...(extra.user ? { user: extra.user } : {}),
      };
    }
    const message = `The emulator failed: ${(error as Error).message}`;
    options.log?.(`${method} ${pathname}: ${(error as Error).stack ?? message}`);
    return {
      status: 500,
      headers: {},
      body: refuse(BACKEND_ERROR, message).body,
    };
  }

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

  function answer(
    request: IncomingMessage,
    target: Target,
    body: ReadBody,
    effect: { wrote: boolean },
  ): Answer {
    const method = request.method ?? 'GET';
    try {
      if (body.refused !== undefined) throw body.refused;
      const { pathname } = target;
      // The control plane answers no preflight: no page of another origin may call it.
      if (method === 'OPTIONS' && !underControl(pathname))
        return {
          status: 204,
          headers: preflightHeaders(request),
        };
      if (pathname === CONTROL_PREFIX || pathname.startsWith(`${CONTROL_PREFIX}/`)) {
        // Who may use it was settled before the body was read (refusedBeforeReading).
        const sub = pathname.slice(CONTROL_PREFIX.length);
        if (body.error !== undefined) throw body.error;
        if (Inspector.serves(sub))
          return inspector.answer(method, sub, target.query(), request.headers, body.text);
        const durable = persistence ?? shared;
        const before = durable?.mark();
        try {
          const result = handleControl(control, method, pathname, body.text);
          return {
            status: result.status,
            headers: {},
            ...(result.chunks ? { chunks: result.chunks } : { body: result.body }),
          };
        } finally {
          if (before) effect.wrote = durable?.changedSince(before) ?? false;
        }
      }
      const service = services.forPath(pathname);
      if (service) return answerCall(request, target, service, body, effect);
      const batch = batchPath(pathname);
      if (batch) return answerBatch(services, answerCall, request, pathname, batch.prefix, body, effect);
      if (OAuthServer.serves(pathname)) {
        if (body.error !== undefined) throw body.error;
        return oauth.answer(
          method,
          pathname,
          target.query(),
          body.text,
          request.headers,
          `http://${request.headers.host ?? '127.0.0.1'}`,
        );
      }
      // A body over the limit was not read: that is the answer, whatever the path.
      if (body.error !== undefined) throw body.error;
      if (pathname === '/' && (method === 'GET' || method === 'HEAD')) return landing(request);
      throw pathNotFound(pathname, notFoundHint(pathname, served, requestOrigin(request.headers.host)));
    } catch (error) {
      return failed(error, method, target.pathname);
    }
  }

  const onResponse = options.onResponse;
  const writer = new AnswerWriter({
    ...(options.log ? { log: options.log } : {}),
    onResponse: (exchange) => {
      journal.record(exchange, CONTROL_PREFIX);
      onResponse?.(exchange);
    },
    ...(persistence ? { commit: () => persistence.commit() } : {}),
    sameOriginOnly: (request) => underControl(parseTarget(request.url ?? '/').pathname),
  });

  /**
   * With a shared store: the request is handled in its turn's transaction and answered once
   * that committed (a turn that failed is answered 503 whole: it is undone).
   */
  function respondShared(
    store: SharedStore,
    request: IncomingMessage,
    response: ServerResponse,
    target: Target,
    body: ReadBody,
    received: number,
  ): void {
    store
      .run(() => {
        const effect = { wrote: false };
        return answer(request, target, body, effect);
      })
      .then(
        (outcome: Outcome<Answer>) => {
          const result =
            outcome.ran && !outcome.failure
              ? outcome.value
              : notCommitted(outcome.failure as Error, outcome.ran);
          result.received = received;
          if (body.text !== undefined) result.requestBody = body.text;
          try {
            writer.send(request, response, result);
          } catch (error) {
            writer.unexpected(response, error);
          }
        },
        (error: unknown) => writer.unexpected(response, error),
      );
  }

  /** Answers a request whose body is read, and sends the answer with those of its turn. */
  function respond(
    request: IncomingMessage,
    response: ServerResponse,
    target: Target,
    body: ReadBody,
    received: number,
  ): void {
    if (shared) {
      respondShared(shared, request, response, target, body, received);
      return;
    }
    const effect = { wrote: false };
    let result: Answer;
    try {
      result = answer(request, target, body, effect);
    } catch (error) {
      writer.unexpected(response, error);
      return;
    }
    result.received = received;
    if (body.text !== undefined) result.requestBody = body.text;
    writer.later(request, response, result, effect.wrote);
  }

  const server = createServer((request, response) => {
    const received = performance.now();
    // Read once: the checks before the body and the answer route by the same path.
    const target = parseTarget(request.url ?? '/');
    const { pathname } = target;
    // Refused before a byte of the body is read: Node drops the rest as it arrives.
    const refused = refusedBeforeReading(request, pathname);
    if (refused) {
      respond(request, response, target, { text: undefined, refused }, received);
      return;
    }
    // The icon a browser asks for at every page and document it opens (no state, not journaled).
    if (serveFavicon(request, response, pathname)) return;
    // The inspector's live stream stays open: it is no answer of a turn.
    if (request.method === 'GET' && pathname === STREAM_PATH) {
      inspector.stream(request, response);
      return;
    }
    // A request without a body (most reads) is answered at once, without a turn of the loop.
    if (!hasBody(request)) {
      respond(request, response, target, NO_BODY, received);
      return;
    }
    readBody(request, bodyLimit(request.method ?? 'GET', pathname)).then(
      (bytes) =>
        respond(
          request,
          response,
          target,
          { text: bytes.length > 0 ? bytes.toString('utf8') : undefined },
          received,
        ),
      (error: unknown) =>
        respond(
          request,
          response,
          target,
          {
            text: undefined,
            error: error instanceof HttpRefusal ? fromRefusal(error) : error,
          },
          received,
        ),
    );
  });
  server.on('clientError', answerClientError);

  const emulator: Emulator = {
    server,
    services,
    store,
    quota,
    notifier,
    journal,
    oauth,
    ...(persistence ? { persistence } : {}),
    ...(shared ? { shared } : {}),
    invoke,
    invokeAsSeed,
    checkState: control.checkState,
    async listen(port, host = '127.0.0.1') {
      await shared?.open();
      return listen(server, port, host);
    },
    async close() {
      notifier.reset();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      // In-process changes (invoke) are saved too; a failure was told to onError already.
      persistence?.close();
      await shared?.close();
    },
  };
  return emulator;
}
