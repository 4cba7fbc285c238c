/**
 * Google's JSON error envelope, as both local servers answer it: `error.code` (the HTTP
 * status), `error.message`, `error.status` (the canonical name of the status, where there is
 * one) and `error.errors`, the items with `domain`, `reason`, `message` and, for a parameter
 * or header at fault, `location` and `locationType`.
 */
export interface GoogleErrorItem {
  domain: string;
  reason: string;
  message: string;
  location?: string;
  locationType?: 'parameter' | 'header';
}

export interface GoogleErrorBody {
  error: { code: number; message: string; status?: string; errors: GoogleErrorItem[] };
}

/** The `status` of the envelope for each HTTP status the servers answer with. */
export const CANONICAL_STATUS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'ALREADY_EXISTS',
  410: 'FAILED_PRECONDITION',
  412: 'FAILED_PRECONDITION',
  413: 'INVALID_ARGUMENT',
  // No canonical code is for 415; the body cannot be read as the method's message: invalid.
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
};

/** The envelope of an error; `message` is the first item's unless given. */
export function googleError(
  code: number,
  items: GoogleErrorItem[],
  message = items[0]?.message ?? 'Error',
): GoogleErrorBody {
  const status = CANONICAL_STATUS[code];
  return { error: { code, message, ...(status ? { status } : {}), errors: items } };
}

/**
 * What the mock and the emulator say of an event's `dateTime` without a UTC offset and without
 * `timeZone` (decision 0036), in place of the validator's "must match format".
 */
export const DATE_TIME_NEEDS_OFFSET =
  'needs a UTC offset (such as 2027-03-01T10:00:00+01:00, or Z) unless timeZone names the zone';
