/**
 * The refusals of the token endpoints (oauth.ts), in the emulator's registry of refusals
 * (refusals.ts) and answered as OAuth 2.0 errors (`{ error, error_description }`) with the status
 * and error code Google's endpoint gives.
 */
import { type Refusal, refusal } from './errors.js';
import type { Evidence } from './refusals.js';

/** A refusal of the token endpoint, as Google words it. */
export class OAuthRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${error}: ${description}`);
  }
}

/** A refusal of the token endpoints, answered as OAuth 2.0 errors (`{error, error_description}`). */
const tokenRefusal = (
  name: string,
  status: number,
  error: string,
  when: string,
  evidence: Evidence[],
): Refusal =>
  refusal({
    id: `token.${name}`,
    scope: 'token endpoint',
    operations: [],
    status,
    reason: error,
    when,
    evidence: evidence as [Evidence, ...Evidence[]],
  });

export const TOKEN_INVALID_REQUEST = tokenRefusal(
  'invalidRequest',
  400,
  'invalid_request',
  'a parameter the grant needs is missing, or the body is not form-encoded parameters or a JSON object',
  ['fact:conventions:oauthToken/errorStatuses/invalid_request'],
);
export const TOKEN_METHOD = tokenRefusal(
  'methodNotAllowed',
  405,
  'invalid_request',
  'a token endpoint asked with another method than it takes (with `Allow`)',
  ['decision:0054'],
);
export const TOKEN_UNSUPPORTED_GRANT = tokenRefusal(
  'unsupportedGrantType',
  400,
  'unsupported_grant_type',
  'a `grant_type` other than the JWT bearer, refresh token or authorization code grants',
  ['decision:0054'],
);
export const TOKEN_INVALID_GRANT = tokenRefusal(
  'invalidGrant',
  400,
  'invalid_grant',
  'an assertion that does not check out (signature, times, audience, account, `sub`), or a code or refresh token that is unknown, used or revoked',
  ['fact:conventions:oauthToken/errorStatuses/invalid_grant'],
);
export const TOKEN_INVALID_SCOPE = tokenRefusal(
  'invalidScope',
  400,
  'invalid_scope',
  'a scope that is empty or not a scope of the served APIs',
  ['fact:conventions:oauthToken/errorStatuses/invalid_scope'],
);
export const TOKEN_INVALID_CLIENT = tokenRefusal(
  'invalidClient',
  401,
  'invalid_client',
  'an unknown OAuth client, or a wrong client secret',
  ['fact:conventions:oauthToken/errorStatuses/invalid_client'],
);
export const TOKEN_UNAUTHORIZED_CLIENT = tokenRefusal(
  'unauthorizedClient',
  400,
  'unauthorized_client',
  'a refresh token or code used by another client than the one it was issued to',
  ['fact:conventions:oauthToken/errorStatuses/unauthorized_client'],
);
export const TOKEN_INVALID_TOKEN = tokenRefusal(
  'invalidToken',
  400,
  'invalid_token',
  'tokeninfo or revoke of a token the emulator did not issue, or that expired or was revoked',
  ['decision:0047', 'decision:0054'],
);

// A declaration, not an arrow: TypeScript narrows after a call only of a declared `never` function.
export function refuse(entry: Refusal, description: string): never {
  throw new OAuthRefusal(entry.status, entry.reason, description);
}
