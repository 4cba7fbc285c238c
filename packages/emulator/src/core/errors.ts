/**
 * Google's JSON error envelope and the errors the emulator answers with. Handlers throw an
 * ApiError; the server turns it into the envelope, so every refusal looks like Google's.
 */
import {
  authRefusal,
  type GoogleErrorBody,
  type GoogleErrorItem,
  googleError,
  type HttpRefusal,
  MISSING_CREDENTIAL,
} from '@gspec/server-kit';

export type { GoogleErrorBody, GoogleErrorItem } from '@gspec/server-kit';

export class ApiError extends Error {
  override name = 'ApiError';
  readonly body: GoogleErrorBody;
  constructor(
    readonly status: number,
    items: GoogleErrorItem[],
    message = items[0]?.message ?? 'Error',
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.body = googleError(status, items, message);
  }
}

const item = (reason: string, message: string, extra: Partial<GoogleErrorItem> = {}, domain = 'global') => ({
  domain,
  reason,
  message,
  ...extra,
});

export const badRequest = (reason: string, message: string, location?: string): ApiError =>
  new ApiError(400, [item(reason, message, location ? { location, locationType: 'parameter' } : {})]);

export const invalidParameter = (name: string, message: string): ApiError =>
  badRequest('invalid', `Invalid value for parameter ${name}: ${message}`, name);

export const notFound = (what = 'Not Found'): ApiError => new ApiError(404, [item('notFound', what)]);

/** Google's 403 `forbidden`: the caller sees the resource but may not do this to it. */
export const forbidden = (message = 'Forbidden'): ApiError => new ApiError(403, [item('forbidden', message)]);

export const duplicate = (message: string): ApiError => new ApiError(409, [item('duplicate', message)]);

export const conditionNotMet = (): ApiError =>
  new ApiError(412, [
    item('conditionNotMet', 'Precondition Failed', { location: 'If-Match', locationType: 'header' }),
  ]);

export const alreadyDeleted = (): ApiError =>
  new ApiError(410, [item('deleted', 'Resource has been deleted')]);

export { MISSING_CREDENTIAL, WWW_AUTHENTICATE } from '@gspec/server-kit';

/** A refusal of the shared HTTP layer (server-kit) as the emulator throws it. */
export const fromRefusal = (refusal: HttpRefusal): ApiError =>
  new ApiError(refusal.status, refusal.body.error.errors, refusal.body.error.message, refusal.headers);

export const authError = (message = MISSING_CREDENTIAL): ApiError => fromRefusal(authRefusal(message));

export const notImplemented = (operationId: string): ApiError =>
  new ApiError(501, [
    item(
      'notImplemented',
      `${operationId} is not implemented by the emulator yet; see packages/emulator/README.md`,
    ),
  ]);

export const pathNotFound = (path: string): ApiError =>
  new ApiError(404, [item('notFound', `Not Found: no operation at ${path}`)]);

export const methodNotAllowed = (method: string, path: string, allowed: string[]): ApiError =>
  new ApiError(405, [item('httpMethodNotAllowed', `Method ${method} is not allowed on ${path}`)], undefined, {
    allow: allowed.join(', '),
  });
