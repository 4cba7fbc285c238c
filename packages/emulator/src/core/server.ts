/**
 * The emulator's HTTP server: each API at its live base path (`/calendar/v3`,
 * `/doubleclicksearch/v2`), Google's batch endpoints (`/batch/<api>/<version>`, `/batch`;
 * batch.ts), and the control plane under `/__emulator`. A request is routed by its API's spec,
 * authenticated, charged its quota, validated against the spec and handed to its operation's
 * handler; every refusal is Google's error envelope.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { HttpRefusal, listen, readBody, serveFavicon } from '@gspec/server-kit';
import { AnswerWriter, answerClientError } from './answers.js';
import type { AnyApiModule } from './api-module.js';
import { CONTROL_PREFIX } from './control.js';
import { createDispatcher, underControl } from './dispatch.js';
import type { Emulator, EmulatorOptions } from './emulator-types.js';
import { fromRefusal } from './errors.js';
import { createLanding } from './landing.js';
import type { ReadBody } from './operations.js';
import { createResponder } from './respond.js';
import { parseTarget } from './target.js';
import { wireEmulator } from './wiring.js';

export type { Exchange } from './answers.js';
export type { Emulator, EmulatorOptions } from './emulator-types.js';
export type { InvokeInput, InvokeResult } from './operations.js';

const NO_BODY: ReadBody = { text: undefined };

/** The inspector's live stream: open for as long as its reader reads. */
const STREAM_PATH = `${CONTROL_PREFIX}/stream`;

/** Without Content-Length or Transfer-Encoding an HTTP/1.1 request has no body. */
const hasBody = (request: IncomingMessage): boolean =>
  request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined;

/**
 * The emulator of the APIs of `modules` (src/apis/index.ts lists them; `createEmulator` in
 * src/emulator.ts serves them all): the parts (wiring.ts) behind an HTTP front that refuses what
 * it must before reading a body, routes by path (dispatch.ts) and answers by the commit policy
 * (respond.ts).
 */
export function createEmulatorOf(modules: readonly AnyApiModule[], options: EmulatorOptions = {}): Emulator {
  const boundAddress = () => {
    const bound = server.address();
    return bound !== null && typeof bound === 'object' ? bound.address : undefined;
  };
  const parts = wireEmulator(modules, options, { boundAddress, emulator: () => emulator });
  const {
    store,
    services,
    quota,
    notifier,
    journal,
    oauth,
    stateStore,
    persistence,
    shared,
    operations,
    inspector,
  } = parts;
  const landing = createLanding(services, parts.served, options.strict === true);
  const dispatcher = createDispatcher(parts, landing, options.log);
  const onResponse = options.onResponse;
  const writer = new AnswerWriter({
    ...(options.log ? { log: options.log } : {}),
    onResponse: (exchange) => {
      journal.record(exchange, CONTROL_PREFIX);
      // The journal keeps the answer's headers object as it is: the option's hook gets a copy.
      onResponse?.({ ...exchange, headers: { ...exchange.headers } });
    },
    sameOriginOnly: (request) => underControl(parseTarget(request.url ?? '/').pathname),
  });
  const respond = createResponder(writer, dispatcher.answer, stateStore);
  const server = createServer((request, response) => {
    const received = performance.now();
    // Read once: the checks before the body and the answer route by the same path.
    const target = parseTarget(request.url ?? '/');
    const { pathname } = target;
    // Refused before a byte of the body is read: Node drops the rest as it arrives.
    const refused = dispatcher.refusedBeforeReading(request, pathname);
    if (refused) return respond(request, response, target, { text: undefined, refused }, received);
    // The icon a browser asks for at every page and document it opens (no state, not journaled).
    if (serveFavicon(request, response, pathname)) return;
    // The inspector's live stream stays open: it is no answer of a turn.
    if (request.method === 'GET' && pathname === STREAM_PATH) return inspector.stream(request, response);
    // A request without a body (most reads) is answered at once, without a turn of the loop.
    if (!hasBody(request)) return respond(request, response, target, NO_BODY, received);
    readBody(request, dispatcher.bodyLimit(request.method ?? 'GET', pathname)).then(
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
          { text: undefined, error: error instanceof HttpRefusal ? fromRefusal(error) : error },
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
    stateStore,
    ...(persistence ? { persistence } : {}),
    ...(shared ? { shared } : {}),
    invoke: operations.invoke.bind(operations),
    invokeAsSeed: operations.invokeAsSeed.bind(operations),
    checkState: parts.control.checkState,
    async listen(port, host = '127.0.0.1') {
      await stateStore.open();
      return listen(server, port, host);
    },
    async close() {
      notifier.reset();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      // In-process changes (invoke) are saved too; a failure was told to onError already.
      await stateStore.close();
    },
  };
  return emulator;
}
