/**
 * The web inspector's side of the control plane (README, Inspector): its page and script under
 * `/__emulator/ui/`, the journal of requests and deliveries (journal.ts), the open watch
 * channels, the users, read-only operations run as a user for its views, each API's own views
 * of its state (`ApiModule.inspect`), and a stream of server-sent events. Like the rest of the
 * control plane they need the admin credential when the gate asks for one (admin.ts); the
 * page's own files do not (they hold no state), and its sign-in (`POST /ui/session`) turns the
 * credential into a session, named by a cookie.
 *
 * The live stream writes each event to every reader as it happens. A reader that does not read
 * (a tab in the background of a stalled machine, a client that opened it and forgot it) would
 * make the emulator hold everything written to it since, without end; so a reader whose
 * unsent output passes `streamBacklogBytes` (1 MiB by default) is dropped, and the page
 * reconnects when it reads again. A reader that reads keeps up and is never dropped.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { INDEX_HTML, STYLE_CSS } from '../ui/page.js';
import type { AdminGate } from './admin.js';
import type { Answer } from './answers.js';
import type { InspectorPage } from './api-module.js';
import { type Refusal, refuse } from './errors.js';
import type { Journal, JournalOptions } from './journal.js';
import type { Notifier } from './notifier.js';
import type { InvokeInput, InvokeResult } from './operations.js';
import { own } from './own.js';
import { ownRefusal } from './refusals.js';
import type { Services } from './services.js';
import type { Store } from './store.js';

/** The page's policy: nothing but its own origin, no inline script or style. */
export const INSPECTOR_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The paths under the control prefix that are the inspector's. */
const INSPECTOR_PATHS =
  /^\/(?:ui(?:\/.*)?|journal(?:\/\d+)?|deliveries|channels|users|invoke|stream|apis(?:\/[^/]+){0,2})$/;

/** How much unsent output a reader of the live stream may have before it is dropped: 1 MiB. */
export const STREAM_BACKLOG_BYTES = 1024 * 1024;

/** The inspector's options (`createEmulator({ inspector })`). */
export interface InspectorOptions {
  /** What the journal keeps (journal.ts). */
  journal?: JournalOptions;
  /** The unsent output, in bytes, past which a reader of the live stream is dropped. */
  streamBacklogBytes?: number;
}

export interface InspectorDeps {
  prefix: string;
  journal: Journal;
  notifier: Notifier;
  services: Services;
  store: Pick<Store, 'state'>;
  invoke(email: string, operationId: string, input?: InvokeInput): InvokeResult;
  /** Who may read the inspector's data (the page's files are anyone's). */
  admin: AdminGate;
  /** The unsent output past which a stream reader is dropped: `STREAM_BACKLOG_BYTES` by default. */
  streamBacklogBytes?: number;
}

const inspector = (id: string, status: number, reason: string, when: string): Refusal =>
  ownRefusal('inspector', id, status, reason, when);

export const INSPECTOR_PAGE_METHOD = inspector(
  'pageMethod',
  405,
  'methodNotAllowed',
  'the inspector’s page asked for with another method than GET',
);
export const INSPECTOR_NO_ENDPOINT = inspector(
  'noEndpoint',
  404,
  'notFound',
  'no inspector endpoint has the path',
);
export const INSPECTOR_NOT_JSON = inspector(
  'notJson',
  400,
  'parseError',
  'a sign-in or invoke body that is not JSON',
);
export const INSPECTOR_REQUIRED = inspector(
  'required',
  400,
  'required',
  'a sign-in without `token`, or an invoke without `user` and `operationId`',
);
export const INSPECTOR_NO_OPERATION = inspector(
  'noOperation',
  404,
  'notFound',
  'an invoke of an operation no API has',
);
export const INSPECTOR_NO_USER = inspector(
  'noUser',
  404,
  'notFound',
  'an invoke as a user the state does not have',
);
export const INSPECTOR_NO_JOURNAL_ENTRY = inspector(
  'noJournalEntry',
  404,
  'notFound',
  'a journal entry the bounded journal does not hold (any more)',
);
export const INSPECTOR_NO_VIEW = inspector(
  'noView',
  404,
  'notFound',
  'an API or view the inspector does not have',
);
export const INSPECTOR_SESSION_METHOD = inspector(
  'sessionMethod',
  405,
  'methodNotAllowed',
  'the sign-in asked with another method than GET, POST or DELETE',
);
export const INSPECTOR_READ_ONLY = inspector(
  'readOnly',
  403,
  'readOnly',
  'an invoke of an operation that is not a GET: the inspector only reads',
);
export const INSPECTOR_NOT_BUILT = inspector(
  'notBuilt',
  404,
  'notBuilt',
  'the page’s script was not built (`npm run build`)',
);
export const INSPECTOR_NO_FILE = inspector(
  'noFile',
  404,
  'notFound',
  'a page file the inspector does not have',
);

const problem = (entry: Refusal, message: string) => refuse(entry, message);

/**
 * The page's scripts, under js/ as they are laid out in dist/, so that the imports between them
 * are the compiled relative imports as they are: js/ui/app.js and the modules of dist/ui it
 * imports (js/ui/kit.js, js/ui/views/requests.js), and each API's page (`ApiModule.page`),
 * js/apis/<name>/inspector-page.js with the modules beside it named inspector-*.js, whose
 * import of `../../ui/kit.js` is then js/ui/kit.js: the one kit the page loaded. Their names:
 * lower-case words; nothing else.
 */
const UI_SCRIPT = /^js\/ui\/((?:[a-z0-9-]+\/)?[a-z0-9-]+\.js)$/;
const PAGE_SCRIPT = /^js\/apis\/([a-z0-9-]+)\/(inspector-[a-z0-9-]+\.js)$/;

/**
 * Where a built script is, in dist/ beside dist/core or, when run from src/, in the package's
 * dist/: a file of dist/ui, or a module of the page of an API among `pages` (in the folder of
 * the file its module names as `script`, which stands for inspector-page.js).
 */
function scriptFile(name: string, pages: ReadonlyMap<string, InspectorPage>): URL | undefined {
  const ui = UI_SCRIPT.exec(name);
  const [, api = '', module = ''] = PAGE_SCRIPT.exec(name) ?? [];
  const page = pages.get(api);
  if (!ui && !page) return undefined;
  const built = ui ? `ui/${ui[1]}` : `apis/${api}/${module}`;
  const places = page?.script
    ? [module === 'inspector-page.js' ? page.script : new URL(module, page.script)]
    : [new URL(`../${built}`, import.meta.url), new URL(`../../dist/${built}`, import.meta.url)];
  return places.find((file) => existsSync(file));
}

export class Inspector {
  /** The scripts read so far, by name (they do not change while the emulator runs). */
  private readonly scripts = new Map<string, string>();

  /** The unsent output past which a stream reader is dropped. */
  private readonly backlog: number;

  /** The APIs with a page of their own (`ApiModule.page`), by name. */
  private readonly pages: ReadonlyMap<string, InspectorPage>;

  /** The style sheet: the page's own rules, then each API page's. */
  private readonly style: string;

  constructor(private readonly deps: InspectorDeps) {
    const withPage = deps.services.list.filter((s) => s.module.page);
    this.pages = new Map(withPage.map((s) => [s.name, s.module.page as InspectorPage]));
    this.style = [STYLE_CSS, ...withPage.map((s) => s.module.page?.style ?? '')].join('\n');
    const backlog = deps.streamBacklogBytes ?? STREAM_BACKLOG_BYTES;
    if (!Number.isSafeInteger(backlog) || backlog < 1)
      throw new RangeError(
        `inspector.streamBacklogBytes: must be a whole number of bytes, at least 1; got ${String(backlog)}`,
      );
    this.backlog = backlog;
  }

  /** Whether `sub` (the path under the control prefix) is the inspector's. */
  static serves(sub: string): boolean {
    return INSPECTOR_PATHS.test(sub);
  }

  /**
   * Whether a request is to the page's files or its sign-in, which anyone may make: they read
   * no state (the server asks the gate for every other path under the prefix).
   */
  static isPublic(method: string, sub: string): boolean {
    return (method === 'GET' && (sub === '/ui' || sub.startsWith('/ui/'))) || sub === '/ui/session';
  }

  /** Answers a request to one of the inspector's paths (`sub`, under the prefix). */
  answer(
    method: string,
    sub: string,
    query: URLSearchParams,
    headers: IncomingHttpHeaders,
    body?: string,
  ): Answer {
    const { prefix, journal, admin } = this.deps;
    if (sub === '/ui/session') return this.session(method, headers, body);
    if (sub === '/ui' || sub.startsWith('/ui/')) {
      if (method !== 'GET') throw problem(INSPECTOR_PAGE_METHOD, `The inspector's page is read with GET`);
      if (sub === '/ui') return { status: 301, headers: { location: `${prefix}/ui/` } };
      return this.asset(sub.slice('/ui/'.length));
    }
    if (!admin.admits(headers)) throw admin.refusal();
    const route = `${method} ${sub}`;
    const entry = /^GET \/journal\/(\d+)$/.exec(route);
    if (entry) {
      const found = journal.entry(Number(entry[1]));
      if (!found)
        throw problem(
          INSPECTOR_NO_JOURNAL_ENTRY,
          `No journal entry ${entry[1]} (it may have been dropped: the journal is bounded)`,
        );
      return { status: 200, headers: {}, body: found };
    }
    const apiView = /^GET \/apis(?:\/([^/]+)(?:\/([^/]+))?)?$/.exec(route);
    if (apiView) return this.apiView(apiView[1], apiView[2], query);
    switch (route) {
      case 'GET /journal': {
        const after = query.get('after');
        return {
          status: 200,
          headers: {},
          body: {
            ...journal.usage(),
            entries: journal.list({
              ...(query.get('operation') ? { operation: query.get('operation') as string } : {}),
              ...(query.get('status') ? { status: query.get('status') as string } : {}),
              ...(query.get('user') ? { user: query.get('user') as string } : {}),
              ...(query.get('mentions') ? { mentions: query.get('mentions') as string } : {}),
              ...(after && /^\d+$/.test(after) ? { after: Number(after) } : {}),
            }),
          },
        };
      }
      case 'GET /deliveries':
        return { status: 200, headers: {}, body: { deliveries: journal.deliveries() } };
      case 'GET /channels': {
        const now = Date.now();
        const channels = [...this.deps.notifier.channels.values()]
          .filter((channel) => channel.expiration > now && !channel.stopped)
          .map((channel) => ({
            id: channel.id,
            address: channel.address,
            expiration: new Date(channel.expiration).toISOString(),
            resourceId: channel.resourceId,
            resourceUri: channel.resourceUri,
            owner: channel.owner,
            messages: channel.messages,
          }));
        return { status: 200, headers: {}, body: { channels } };
      }
      case 'GET /users':
        return { status: 200, headers: {}, body: { users: Object.keys(this.deps.store.state.users).sort() } };
      case 'POST /invoke':
        return this.invoke(body);
      default:
        throw problem(INSPECTOR_NO_ENDPOINT, `No inspector endpoint ${route} under ${prefix}`);
    }
  }

  /**
   * `GET /apis`: each API with the names of its views and the label of its page's tab (null
   * without a page); `GET /apis/<api>/<view>`: one view of an API's state, as its module
   * answers it (`ApiModule.inspect`).
   */
  private apiView(api: string | undefined, view: string | undefined, query: URLSearchParams): Answer {
    const { list } = this.deps.services;
    const viewsOf = (service: (typeof list)[number]) => Object.keys(service.module.inspect ?? {});
    if (api === undefined)
      return {
        status: 200,
        headers: {},
        body: {
          apis: list.map((s) => ({
            name: s.name,
            title: s.module.title,
            views: viewsOf(s),
            page: s.module.page ? { label: s.module.page.label } : null,
          })),
        },
      };
    const service = list.find((s) => s.name === api);
    if (!service)
      throw problem(
        INSPECTOR_NO_VIEW,
        `No API ${api} in the inspector; the APIs are ${list.map((s) => s.name).join(', ')}`,
      );
    const named = view === undefined ? undefined : own(service.module.inspect, view);
    if (!named) {
      const views = viewsOf(service);
      const known = views.length > 0 ? `its views are ${views.join(', ')}` : 'it has none';
      throw problem(
        INSPECTOR_NO_VIEW,
        view === undefined
          ? `Name a view of ${api}: ${this.deps.prefix}/apis/${api}/<view>; ${known}`
          : `No inspector view ${view} of ${api}; ${known}`,
      );
    }
    return { status: 200, headers: {}, body: named({ store: service.store, spec: service.spec, query }) };
  }

  /**
   * The page's sign-in: `GET` says whether the credential is needed and whether the request has
   * it; `POST {"token"}` checks it and starts a session, named by an HttpOnly cookie of the
   * control prefix; `DELETE` ends the session and clears the cookie.
   */
  private session(method: string, headers: IncomingHttpHeaders, body: string | undefined): Answer {
    const { admin } = this.deps;
    const noStore = { 'cache-control': 'no-store' };
    if (method === 'GET')
      return {
        status: 200,
        headers: noStore,
        body: { required: admin.required, configured: admin.configured, signedIn: admin.admits(headers) },
      };
    if (method === 'DELETE')
      return {
        status: 204,
        headers: { ...noStore, 'set-cookie': admin.signOut(headers) },
      };
    if (method !== 'POST')
      throw problem(
        INSPECTOR_SESSION_METHOD,
        'The sign-in is read with GET, made with POST and ended with DELETE',
      );
    let token: unknown;
    try {
      ({ token } = JSON.parse(body ?? '') as { token?: unknown });
    } catch {
      throw problem(INSPECTOR_NOT_JSON, 'The body is not JSON: {"token": "<the admin credential>"}');
    }
    if (typeof token !== 'string' || token === '')
      throw problem(INSPECTOR_REQUIRED, '"token" is required: the admin credential, a string');
    if (!admin.matches(token)) throw admin.refusal();
    return { status: 204, headers: { ...noStore, 'set-cookie': admin.signIn() } };
  }

  /** A read-only operation run in-process as an existing user, for the inspector's views. */
  private invoke(body: string | undefined): Answer {
    let input: { user?: unknown; operationId?: unknown; path?: unknown; query?: unknown };
    try {
      input = JSON.parse(body ?? '');
    } catch {
      throw problem(INSPECTOR_NOT_JSON, 'The body is not JSON: {"user","operationId","path","query"}');
    }
    const { user, operationId } = input;
    if (typeof user !== 'string' || typeof operationId !== 'string')
      throw problem(INSPECTOR_REQUIRED, '"user" and "operationId" are required strings');
    const found = this.deps.services.operation(operationId);
    if (!found) throw problem(INSPECTOR_NO_OPERATION, `No operation ${operationId}`);
    if (found.op.method.toUpperCase() !== 'GET')
      throw problem(
        INSPECTOR_READ_ONLY,
        `The inspector runs only reads; ${operationId} is ${found.op.method.toUpperCase()}`,
      );
    // Reading as a user must not make one.
    if (!Object.hasOwn(this.deps.store.state.users, user))
      throw problem(INSPECTOR_NO_USER, `No user ${user}`);
    const result = this.deps.invoke(user, operationId, {
      ...(input.path && typeof input.path === 'object' ? { path: input.path as Record<string, string> } : {}),
      ...(input.query && typeof input.query === 'object'
        ? { query: input.query as Record<string, string | number | boolean> }
        : {}),
    });
    return { status: 200, headers: {}, body: result };
  }

  private asset(name: string): Answer {
    const headers = {
      'content-security-policy': INSPECTOR_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    };
    if (name === '' || name === 'index.html')
      return { status: 200, headers, text: { contentType: 'text/html; charset=utf-8', body: INDEX_HTML } };
    if (name === 'style.css')
      return { status: 200, headers, text: { contentType: 'text/css; charset=utf-8', body: this.style } };
    if (UI_SCRIPT.test(name) || PAGE_SCRIPT.test(name)) {
      let script = this.scripts.get(name);
      if (script === undefined) {
        const file = scriptFile(name, this.pages);
        if (!file) {
          if (name === 'js/ui/app.js')
            throw problem(
              INSPECTOR_NOT_BUILT,
              `The inspector's script (dist/ui/app.js) is missing; run npm run build`,
            );
          throw problem(INSPECTOR_NO_FILE, `No inspector file ${name}`);
        }
        script = readFileSync(file, 'utf8');
        this.scripts.set(name, script);
      }
      return {
        status: 200,
        headers,
        text: { contentType: 'text/javascript; charset=utf-8', body: script },
      };
    }
    throw problem(INSPECTOR_NO_FILE, `No inspector file ${name}`);
  }

  /**
   * `GET <prefix>/stream`: the journal's entries, deliveries and resets as server-sent events.
   * A reader too far behind is dropped, and so is one whose session has ended (signed out or
   * expired) at the next thing written to it.
   */
  stream(request: IncomingMessage, response: ServerResponse): void {
    const admitted = this.deps.admin.watch(request.headers);
    if (!admitted()) {
      const error = this.deps.admin.refusal();
      response.writeHead(error.status, { 'content-type': 'application/json; charset=UTF-8' });
      response.end(JSON.stringify(error.body));
      return;
    }
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    response.write('retry: 1000\n\n');
    // `writableLength` is what was written and not yet taken by the operating system: it grows
    // only while the reader reads slower than events come.
    const send = (text: string) => {
      if (response.destroyed) return;
      if (admitted()) {
        response.write(text);
        if (response.writableLength <= this.backlog) return;
      }
      end();
      response.destroy();
    };
    const unsubscribe = this.deps.journal.subscribe((event, data) => {
      send(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    });
    // A comment now and then keeps proxies and idle timeouts from closing the stream.
    const beat = setInterval(() => send(': beat\n\n'), 15_000);
    beat.unref();
    const end = () => {
      clearInterval(beat);
      unsubscribe();
    };
    request.on('close', end);
    response.on('error', end);
  }
}
