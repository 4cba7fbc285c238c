/**
 * Google's JSON error envelope and the errors the emulator answers with. Handlers throw an
 * ApiError, made from a declared refusal (core/refusals.ts), so every refusal looks like
 * Google's and is in the refusal table with its evidence; the server turns it into the
 * envelope. The entries here are those of the request pipeline every API shares.
 */
import {
  type GoogleErrorBody,
  type GoogleErrorItem,
  googleError,
  type HttpRefusal,
  MISSING_CREDENTIAL,
  type PathRouter,
  type RoutedOperation,
  type ServedApi,
  WWW_AUTHENTICATE,
} from '@gspec/server-kit';
import { type ErrorOptions, type Refusal, refusal } from './refusals.js';

export type { GoogleErrorBody, GoogleErrorItem } from '@gspec/server-kit';
export { type ErrorOptions, type Refusal, refusal } from './refusals.js';

export class ApiError extends Error {
  override name = 'ApiError';
  readonly body: GoogleErrorBody;
  readonly status: number;
  /**
   * The answer of `refusal`: its status, with `items` (one per problem; a batch's may be
   * items of other refusals, each made by its own entry) and the envelope's `message`.
   */
  constructor(
    readonly refusal: Refusal,
    items: GoogleErrorItem[],
    message = items[0]?.message ?? 'Error',
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = refusal.status;
    this.body = googleError(refusal.status, items, message);
  }
}

/** The ApiError of one occurrence of `refusal`. */
export const refuse = (refusal: Refusal, message: string, options: ErrorOptions = {}): ApiError =>
  new ApiError(refusal, [refusal.item(message, options)], message, options.headers);

export { MISSING_CREDENTIAL, WWW_AUTHENTICATE } from '@gspec/server-kit';

// ---------------------------------------------------------------------------------------
// The request pipeline's refusals (every API)

export const NO_OPERATION = refusal({
  id: 'any.noOperation',
  scope: 'every API',
  operations: [],
  status: 404,
  reason: 'notFound',
  when: 'no operation of the API has the request path',
  evidence: ['fact:conventions:errors/reasons/notFound'],
});

export const METHOD_NOT_ALLOWED = refusal({
  id: 'any.methodNotAllowed',
  scope: 'every API',
  operations: [],
  status: 405,
  reason: 'httpMethodNotAllowed',
  when: 'the path is an operation’s, but no operation there takes the method (with `Allow`)',
  evidence: ['decision:0054'],
});

export const NOT_IMPLEMENTED = refusal({
  id: 'any.notImplemented',
  scope: 'every API',
  operations: [],
  status: 501,
  reason: 'notImplemented',
  when: 'an operation of a spec has no handler (none today: health lists `notImplemented: []`)',
  evidence: ['decision:0054'],
});

export const AUTH = refusal({
  id: 'any.authError',
  scope: 'every API',
  operations: [],
  status: 401,
  reason: 'authError',
  location: 'Authorization (header)',
  when: 'no credential, a malformed one, or a token the emulator did not issue or that expired',
  evidence: ['fact:conventions:errors/reasons/authError'],
});

export const CONDITION_NOT_MET = refusal({
  id: 'any.conditionNotMet',
  scope: 'every API',
  operations: [],
  status: 412,
  reason: 'conditionNotMet',
  location: 'If-Match (header)',
  when: '`If-Match` names an etag the resource no longer has',
  evidence: [
    'fact:conventions:conditionalRequests/ifMatchChanged',
    'fact:conventions:errors/reasons/conditionNotMet',
  ],
});

export const PARSE_ERROR = refusal({
  id: 'http.parseError',
  scope: 'every API',
  operations: [],
  status: 400,
  reason: 'parseError',
  when: 'the body is not JSON, or nests deeper than 100',
  evidence: ['decision:0052', 'decision:0054'],
});

export const BATCH_BAD_REQUEST = refusal({
  id: 'http.batchBadRequest',
  scope: 'every API',
  operations: [],
  status: 400,
  reason: 'badRequest',
  when: 'a batch body that is not `multipart/mixed` with a boundary, or a part that is no HTTP request',
  evidence: ['fact:conventions:batch/contentType', 'fact:conventions:errors/reasons/badRequest'],
});

export const INVALID_FIELDS = refusal({
  id: 'http.invalidFields',
  scope: 'every API',
  operations: [],
  status: 400,
  reason: 'invalidParameter',
  location: 'fields',
  when: 'a `fields` selection that does not parse, names no field, or nests deeper than 100',
  evidence: ['fact:conventions:partialResponses/invalidSelectionStatus'],
});

/** The refusals of the shared HTTP layer (server-kit), by reason, as the emulator answers them. */
const KIT: Record<string, Refusal> = {
  hostNotAllowed: refusal({
    id: 'http.hostNotAllowed',
    scope: 'every API',
    operations: [],
    status: 403,
    reason: 'hostNotAllowed',
    location: 'Host (header)',
    when: 'the `Host` is not an IP address, `localhost` or a name `--allowed-hosts` allows',
    evidence: ['decision:0052'],
  }),
  crossOriginRequest: refusal({
    id: 'http.crossOriginRequest',
    scope: 'control plane',
    operations: [],
    status: 403,
    reason: 'crossOriginRequest',
    location: 'Origin (header)',
    when: 'a control-plane request from another site’s page (`Origin`, `Sec-Fetch-Site`)',
    evidence: ['decision:0052'],
  }),
  uploadTooLarge: refusal({
    id: 'http.uploadTooLarge',
    scope: 'every API',
    operations: [],
    status: 413,
    reason: 'uploadTooLarge',
    when: 'the body is longer than its path’s limit, declared or as it streams in',
    evidence: ['decision:0052'],
  }),
  unsupportedMediaType: refusal({
    id: 'http.unsupportedMediaType',
    scope: 'every API',
    operations: [],
    status: 415,
    reason: 'unsupportedMediaType',
    when: 'a body that is not JSON where JSON is read (an API body, a control-plane write)',
    evidence: ['decision:0052', 'decision:0054'],
  }),
  parseError: PARSE_ERROR,
  badRequest: BATCH_BAD_REQUEST,
  invalidParameter: INVALID_FIELDS,
  authError: AUTH,
};

/** A refusal of the shared HTTP layer (server-kit) as the emulator throws it, under its entry. */
export const fromRefusal = (refused: HttpRefusal): ApiError => {
  const reason = refused.body.error.errors[0]?.reason ?? '';
  const entry = KIT[reason];
  if (!entry) throw new Error(`No refusal entry for the HTTP layer's reason ${reason}`);
  return new ApiError(entry, refused.body.error.errors, refused.body.error.message, refused.headers);
};

/** The reasons of the HTTP layer that have an entry (test/refusals.test.ts checks it against server-kit). */
export const KIT_REASONS: readonly string[] = Object.keys(KIT);

export const authError = (message = MISSING_CREDENTIAL): ApiError =>
  refuse(AUTH, message, {
    location: 'Authorization',
    locationType: 'header',
    headers: { 'www-authenticate': WWW_AUTHENTICATE },
  });

export const notImplemented = (operationId: string): ApiError =>
  refuse(
    NOT_IMPLEMENTED,
    `${operationId} is not implemented by the emulator yet; see packages/emulator/README.md`,
  );

/**
 * The 404 of a path no operation has. `hint` (server-kit's notFoundHint) continues the
 * sentence: the base path the path lacks and the base URL to give a client, the batch
 * endpoints, or the base paths served.
 */
export const pathNotFound = (path: string, hint = ''): ApiError =>
  refuse(NO_OPERATION, `Not Found: no operation at ${path}${hint}`);

/** A service as server-kit's notFoundHint and landing page take it. */
export const servedApi = (service: {
  name: string;
  module: { title: string };
  spec: { basePath: string };
  router: PathRouter<RoutedOperation>;
}): ServedApi => ({
  name: service.name,
  title: service.module.title,
  basePath: service.spec.basePath,
  router: service.router,
});

export const methodNotAllowed = (method: string, path: string, allowed: string[]): ApiError =>
  refuse(METHOD_NOT_ALLOWED, `Method ${method} is not allowed on ${path}`, {
    headers: { allow: allowed.join(', ') },
  });

export const conditionNotMet = (): ApiError =>
  refuse(CONDITION_NOT_MET, 'Precondition Failed', { location: 'If-Match', locationType: 'header' });
