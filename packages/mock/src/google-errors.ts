/**
 * Google's JSON error envelope, and the translation of Prism's problem+json errors into it,
 * so that a client written for the live service reads the mock's errors the same way.
 */
import {
  DATE_TIME_NEEDS_OFFSET,
  type GoogleErrorBody,
  type GoogleErrorItem,
  googleError,
} from '@gspec/server-kit';

export { type GoogleErrorBody, type GoogleErrorItem, googleError } from '@gspec/server-kit';

export function simpleError(
  code: number,
  reason: string,
  message: string,
  extra: Partial<GoogleErrorItem> = {},
) {
  return googleError(code, [{ domain: 'global', reason, message, ...extra }]);
}

/** One finding of Prism's request validation. */
export interface Diagnostic {
  path?: string[];
  code?: string | number;
  message: string;
  severity?: string | number;
}

/** What Prism rejects a request with: a ProblemJsonError. */
export interface PrismProblem {
  name?: string;
  message?: string;
  status?: number;
  detail?: string;
  additional?: { validation?: Diagnostic[]; headers?: Record<string, string> };
}

export function isError(diagnostic: Diagnostic): boolean {
  return diagnostic.severity === 0 || diagnostic.severity === 'Error' || diagnostic.severity === undefined;
}

/** Whether a finding is Prism's security check failing (no or malformed credentials). */
export function isSecurityFinding(diagnostic: Diagnostic): boolean {
  return diagnostic.code === 401 || diagnostic.code === '401';
}

/** Prism reports query and header names in lower case; this gives back the spec's spelling. */
export type NameLookup = (lowerCaseName: string) => string;

/** `['conversion', '0', 'agencyId']` becomes `conversion[0].agencyId`. */
function fieldPath(parts: string[]): string {
  return parts.reduce(
    (out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part),
    '',
  );
}

/** Turns one validation finding into an error item that names the parameter at fault. */
export function itemFromDiagnostic(
  diagnostic: Diagnostic,
  canonical: NameLookup = (name) => name,
): GoogleErrorItem {
  // Prism reports a missing body with no path at all.
  if (!diagnostic.path?.length && /^body parameter is required$/i.test(diagnostic.message)) {
    return {
      domain: 'global',
      reason: 'required',
      message: 'Required: a request body',
      location: 'body',
      locationType: 'parameter',
    };
  }
  const [where, ...rest] = diagnostic.path ?? [];
  const missing = /required property '([^']+)'/.exec(diagnostic.message)?.[1];
  const parts = [...rest, ...(missing ? [missing] : [])];
  // A parameter is named by itself, whatever item of its value is wrong (eventTypes, not
  // eventTypes[0]); a body field is named by its whole path (conversion[0].agencyId).
  const field =
    where === 'body'
      ? fieldPath(parts)
      : parts.length > 0
        ? canonical((parts[0] as string).toLowerCase())
        : '';
  const reason = diagnostic.code === 'required' ? 'required' : 'invalid';
  const message =
    reason === 'required'
      ? `Required ${where === 'body' ? 'field' : where === 'header' ? 'header' : 'parameter'}: ${field || where}`
      : `Invalid value for ${where === 'body' ? 'field' : where === 'header' ? 'header' : 'parameter'} ${field || where}: ${diagnostic.message.replace(/^Request (\w+ )?(parameter |property )?\S* ?/, '')}`;
  return {
    domain: 'global',
    reason,
    message,
    ...(field || where ? { location: field || (where as string) } : {}),
    locationType: where === 'header' ? 'header' : 'parameter',
  };
}

export const MISSING_CREDENTIAL =
  'Request is missing required authentication credential. Expected an OAuth 2 access token as "Authorization: Bearer <token>".';

export const AUTH_ERROR = (message = MISSING_CREDENTIAL): GoogleErrorBody =>
  simpleError(401, 'authError', message, {
    location: 'Authorization',
    locationType: 'header',
  });

/**
 * The envelope for a request Prism's validation refused. Prism itself answers such requests
 * with the spec's first 400 or 401 example, which cannot name the parameter at fault.
 */
export function fromFindings(findings: Diagnostic[], canonical?: NameLookup): GoogleErrorBody | undefined {
  const all = findings.filter(isError);
  // An if/then/else schema fails twice: inside the branch (the informative finding) and as
  // "must match "else" schema"; keep the first only.
  const informative = all.filter((finding) => !isBranchFinding(finding));
  const errors = (informative.length > 0 ? informative : all).map(explainOffset);
  if (errors.length === 0) return undefined;
  if (errors.some(isSecurityFinding)) return AUTH_ERROR();
  const items = errors.map((finding) => itemFromDiagnostic(finding, canonical));
  return googleError(
    400,
    items,
    items.length === 1 ? items[0]?.message : `${items.length} problems with the request; see errors`,
  );
}

function isBranchFinding(diagnostic: Diagnostic): boolean {
  return diagnostic.code === 'if' || /^must match "(then|else)" schema$/.test(diagnostic.message);
}

/**
 * An event's `dateTime` refused by `format: date-time`, which the spec asks for only when
 * `timeZone` is absent (decision 0036): say that the offset is missing and how to fix it.
 */
function explainOffset(diagnostic: Diagnostic): Diagnostic {
  const field = diagnostic.path ?? [];
  if (field[0] !== 'body' || field[field.length - 1] !== 'dateTime') return diagnostic;
  if (!/must match format "date-time"/.test(diagnostic.message)) return diagnostic;
  return {
    ...diagnostic,
    message: DATE_TIME_NEEDS_OFFSET,
  };
}

/** The status and envelope for an error Prism returned instead of a mocked answer. */
export function fromPrismProblem(
  problem: PrismProblem,
  request: { method: string; path: string },
  canonical?: NameLookup,
): GoogleErrorBody {
  const kind = (problem.name ?? '').split('#').pop();
  switch (kind) {
    case 'UNPROCESSABLE_ENTITY':
      return (
        fromFindings(problem.additional?.validation ?? [], canonical) ??
        simpleError(400, 'badRequest', problem.detail || 'Invalid request')
      );
    case 'UNAUTHORIZED':
      return AUTH_ERROR();
    case 'NO_PATH_MATCHED_ERROR':
    case 'NO_RESOURCE_PROVIDED_ERROR':
    case 'NO_SERVER_MATCHED_ERROR':
      return simpleError(404, 'notFound', `Not Found: no operation at ${request.path}`);
    case 'NO_METHOD_MATCHED_ERROR':
      return simpleError(
        405,
        'httpMethodNotAllowed',
        `Method ${request.method} is not allowed on ${request.path}`,
      );
    case 'NOT_ACCEPTABLE':
      return simpleError(406, 'notAcceptable', 'No answer of this operation matches the Accept header', {
        location: 'Accept',
        locationType: 'header',
      });
    case 'INVALID_CONTENT_TYPE':
      return simpleError(
        415,
        'unsupportedMediaType',
        problem.detail || 'The request body has a media type this operation does not take',
        {
          location: 'Content-Type',
          locationType: 'header',
        },
      );
    case 'NOT_FOUND':
      return simpleError(
        400,
        'invalid',
        `The operation documents no answer for what was asked: ${problem.detail ?? ''}`.trim(),
        {
          location: 'Prefer',
          locationType: 'header',
        },
      );
    default:
      return simpleError(
        500,
        'backendError',
        `The mock could not answer: ${problem.detail || problem.message || kind || 'unknown error'}`,
      );
  }
}
