/**
 * Google's OAuth 2.0 token endpoint, served at the emulator's root as Google serves it at
 * `https://oauth2.googleapis.com` (decision 0047):
 *
 * - `POST /token`: the JWT-bearer grant of service accounts (the assertion's RS256 signature
 *   checked against the account's registered public keys; `iss`, `aud`, `iat`, `exp`, `scope`
 *   and, for domain-wide delegation, `sub` checked), and the refresh-token grant of the OAuth
 *   clients and users the seed lists. Refusals are `{ error, error_description }` with the
 *   status and error code Google's endpoint gives.
 * - `GET|POST /tokeninfo?access_token=`: what a token was issued for.
 * - `POST /revoke?token=`: revokes an access token, or a refresh token and every access token
 *   issued from it.
 *
 * An access token it issues stands for the acting user (the `sub` of a delegated assertion,
 * else the service account itself; the refresh token's user) with the scopes asked for;
 * `AccessPolicy` (strict.ts) looks tokens up here. A service account may also send a
 * self-signed JWT as its bearer token (what google-auth-library does when no scope is given),
 * checked the same way. Everything here lives in memory: the tokens end with the process.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Answer } from './answers.js';
import { authError } from './errors.js';
import { type ParsedJwt, parseJwt, verifyRs256 } from './jwt.js';
import {
  checkServiceAccounts,
  numericId,
  type OAuthClientConfig,
  OAuthConfigError,
  type OAuthOptions,
  type RefreshTokenConfig,
  type ServiceAccount,
} from './oauth-config.js';
import {
  OAuthRefusal,
  refuse,
  TOKEN_INVALID_CLIENT,
  TOKEN_INVALID_GRANT,
  TOKEN_INVALID_REQUEST,
  TOKEN_INVALID_SCOPE,
  TOKEN_INVALID_TOKEN,
  TOKEN_METHOD,
  TOKEN_UNAUTHORIZED_CLIENT,
  TOKEN_UNSUPPORTED_GRANT,
} from './oauth-refusals.js';
import { expandScope } from './users.js';

export {
  numericId,
  type OAuthClientConfig,
  OAuthConfigError,
  type OAuthOptions,
  type RefreshTokenConfig,
  type ServiceAccountConfig,
} from './oauth-config.js';

/** The token endpoint Google's libraries sign their assertions for, and the emulator's paths. */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
/** The older address of the same endpoint, which google-auth-library 9 (gtoken 7) still posts to and signs for. */
const LEGACY_TOKEN_URL = 'https://www.googleapis.com/oauth2/v4/token';
export const TOKEN_PATH = '/token';
/** The legacy address's path, served as /token (it reaches the emulator through the www.googleapis.com host). */
const LEGACY_TOKEN_PATH = '/oauth2/v4/token';
export const TOKENINFO_PATH = '/tokeninfo';
export const REVOKE_PATH = '/revoke';
const OAUTH_PATHS = new Set([TOKEN_PATH, LEGACY_TOKEN_PATH, TOKENINFO_PATH, REVOKE_PATH]);

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Google's access tokens start so; the emulator's too, so that one is told from any other bearer string. */
export const ACCESS_TOKEN_PREFIX = 'ya29.';
/** An assertion may live at most an hour (`exp - iat`), as Google's endpoint allows. */
const MAX_ASSERTION_SECONDS = 3600;
/** Clock skew allowed between the signer and the emulator, in seconds. */
const SKEW_SECONDS = 300;

/** Who a token acts as, and what it may do; `scopes` undefined means every scope. */
export interface TokenGrant {
  email: string;
  scopes: string[] | undefined;
}

interface IssuedToken {
  email: string;
  scopes: string[];
  /** In ms since the epoch. */
  expiresAt: number;
  /** The OAuth client or service account it was issued to (tokeninfo's `azp`). */
  clientId: string;
  /** The refresh token it came from; revoking that revokes it. */
  refreshToken?: string;
}

const sameSecret = (a: string, b: string): boolean =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

const SCOPE = /^(https:\/\/www\.googleapis\.com\/auth\/\S+|openid|email|profile)$/;

/** A scope claim or parameter: space-separated, each one a scope; undefined when empty. */
function readScopes(value: unknown): string[] | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const scopes = [...new Set(value.trim().split(/\s+/))];
  const bad = scopes.find((scope) => !SCOPE.test(scope));
  if (bad !== undefined)
    refuse(TOKEN_INVALID_SCOPE, `Invalid OAuth scope or ID token audience provided: ${JSON.stringify(bad)}.`);
  return scopes;
}

/** The form or JSON parameters of a request to the endpoint, the query's beneath them. */
function parameters(
  query: URLSearchParams,
  body: string | undefined,
  contentType: string | undefined,
): URLSearchParams {
  const params = new URLSearchParams(query);
  if (!body) return params;
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    for (const [name, value] of new URLSearchParams(body)) params.set(name, value);
  } else if (type === 'application/json') {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      refuse(TOKEN_INVALID_REQUEST, 'The request body is not valid JSON.');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      refuse(TOKEN_INVALID_REQUEST, 'The request body must be a JSON object of parameters.');
    for (const [name, item] of Object.entries(value)) if (typeof item === 'string') params.set(name, item);
  } else {
    refuse(
      TOKEN_INVALID_REQUEST,
      `Unsupported content type ${JSON.stringify(contentType ?? '')}; send application/x-www-form-urlencoded parameters.`,
    );
  }
  return params;
}

export class OAuthServer {
  private readonly accounts: Map<string, ServiceAccount>;
  private readonly clients = new Map<string, OAuthClientConfig>();
  private readonly refreshTokens = new Map<string, RefreshTokenConfig>();
  private readonly issued = new Map<string, IssuedToken>();
  private readonly lifetimeMs: number;
  /** Issued since the last sweep of expired tokens. */
  private sinceSweep = 0;

  constructor(
    options: OAuthOptions = {},
    /** Whether a user exists (a delegated assertion's `sub` must be one). */
    private readonly isUser: (email: string) => boolean = () => true,
  ) {
    this.accounts = checkServiceAccounts(options.serviceAccounts ?? []);
    (options.clients ?? []).forEach((client, i) => {
      if (this.clients.has(client.clientId))
        throw new OAuthConfigError(`oauthClients[${i}].clientId: ${client.clientId} is registered twice`);
      this.clients.set(client.clientId, client);
    });
    for (const grant of options.refreshTokens ?? []) {
      if (!this.clients.has(grant.clientId))
        throw new OAuthConfigError(
          `the refresh token of ${grant.email} names the OAuth client ${JSON.stringify(grant.clientId)}, which oauthClients does not list`,
        );
      if (this.refreshTokens.has(grant.token))
        throw new OAuthConfigError(`the refresh token of ${grant.email} is given twice`);
      this.refreshTokens.set(grant.token, {
        ...grant,
        email: grant.email.toLowerCase(),
        scopes: grant.scopes.map(expandScope),
      });
    }
    const lifetime = options.tokenLifetimeSeconds ?? 3599;
    if (!(Number.isFinite(lifetime) && lifetime > 0))
      throw new OAuthConfigError(
        `tokenLifetimeSeconds: expected a positive number, found ${JSON.stringify(lifetime)}`,
      );
    this.lifetimeMs = lifetime * 1000;
  }

  /** What the start-up lines say of it. */
  get counts(): { serviceAccounts: number; clients: number; refreshTokens: number } {
    return {
      serviceAccounts: this.accounts.size,
      clients: this.clients.size,
      refreshTokens: this.refreshTokens.size,
    };
  }

  /** Whether anything is registered, so that a token can be had from it at all. */
  get configured(): boolean {
    return this.accounts.size > 0 || this.refreshTokens.size > 0;
  }

  /** Whether the path is one of the endpoint's. */
  static serves(pathname: string): boolean {
    return OAUTH_PATHS.has(pathname);
  }

  /**
   * The grant of a bearer token this server knows: an access token it issued, or a service
   * account's self-signed JWT. Undefined for any other token (the users map decides those).
   * Throws the 401 Google gives for an access token that expired or was revoked, and for a
   * self-signed JWT that does not check out.
   */
  lookup(token: string, now = Date.now()): TokenGrant | undefined {
    if (token.startsWith(ACCESS_TOKEN_PREFIX)) {
      const issued = this.issued.get(token);
      if (!issued || issued.expiresAt <= now) {
        if (issued) this.issued.delete(token);
        throw authError(
          issued
            ? 'Request had invalid authentication credentials. The access token expired; get a new one from the token endpoint.'
            : 'Request had invalid authentication credentials. The access token is not one this emulator issued, or it was revoked (tokens do not outlive the emulator process); get a new one from the token endpoint.',
        );
      }
      return { email: issued.email, scopes: issued.scopes };
    }
    if (this.accounts.size === 0 || !token.startsWith('eyJ')) return undefined;
    const jwt = parseJwt(token);
    const iss = jwt && typeof jwt.claims.iss === 'string' ? jwt.claims.iss.toLowerCase() : undefined;
    const account = iss === undefined ? undefined : this.accounts.get(iss);
    if (!jwt || !account) return undefined;
    try {
      this.checkSignature(jwt, account);
      this.checkTimes(jwt, now);
      const scopes = jwt.claims.scope === undefined ? undefined : readScopes(jwt.claims.scope);
      return { email: account.email, scopes };
    } catch (error) {
      if (!(error instanceof OAuthRefusal)) throw error;
      throw authError(
        `Request had invalid authentication credentials. The self-signed JWT of ${account.email} was refused: ${error.description}`,
      );
    }
  }

  /** Answers a request to one of the endpoint's paths (see `serves`). */
  answer(
    method: string,
    pathname: string,
    query: URLSearchParams,
    body: string | undefined,
    headers: { 'content-type'?: string | undefined; authorization?: string | undefined },
    origin: string,
    now = Date.now(),
  ): Answer {
    try {
      const allowed = pathname === TOKENINFO_PATH ? ['GET', 'POST'] : ['POST'];
      if (!allowed.includes(method))
        throw new OAuthRefusal(
          TOKEN_METHOD.status,
          TOKEN_METHOD.reason,
          `${pathname} takes ${allowed.join(' or ')}, not ${method}.`,
          {
            allow: allowed.join(', '),
          },
        );
      const params = parameters(query, body, headers['content-type']);
      const result =
        pathname === TOKEN_PATH || pathname === LEGACY_TOKEN_PATH
          ? this.token(params, headers.authorization, origin, now)
          : pathname === TOKENINFO_PATH
            ? this.tokenInfo(params, headers.authorization, now)
            : this.revoke(params);
      return { status: 200, headers: { 'cache-control': 'no-store' }, body: result };
    } catch (error) {
      if (!(error instanceof OAuthRefusal)) throw error;
      return {
        status: error.status,
        headers: { 'cache-control': 'no-store', ...error.headers },
        body: { error: error.error, error_description: error.description },
      };
    }
  }

  private token(
    params: URLSearchParams,
    authorization: string | undefined,
    origin: string,
    now: number,
  ): object {
    const grantType = params.get('grant_type');
    if (!grantType) refuse(TOKEN_INVALID_REQUEST, 'Required parameter is missing: grant_type');
    if (grantType === JWT_BEARER) return this.jwtBearer(params, origin, now);
    if (grantType === 'refresh_token') return this.refresh(params, authorization, now);
    return refuse(TOKEN_UNSUPPORTED_GRANT, `Invalid grant_type: ${grantType}`);
  }

  private checkSignature(jwt: ParsedJwt, account: ServiceAccount): void {
    const { kid } = jwt.header;
    if (jwt.header.alg !== 'RS256')
      refuse(
        TOKEN_INVALID_GRANT,
        `Invalid JWT: alg ${JSON.stringify(jwt.header.alg)}; service account JWTs are signed RS256.`,
      );
    // A key id names the key; without one, any of the account's keys may have signed it.
    const keys = typeof kid === 'string' ? [account.keys.get(kid)] : [...account.keys.values()];
    if (!keys.some((key) => key !== undefined && verifyRs256(jwt, key)))
      refuse(
        TOKEN_INVALID_GRANT,
        typeof kid === 'string' && !account.keys.has(kid)
          ? `Invalid JWT Signature. Key ${kid} is not a key of ${account.email}.`
          : 'Invalid JWT Signature.',
      );
  }

  private checkTimes(jwt: ParsedJwt, now: number): void {
    const { iat, exp } = jwt.claims;
    const seconds = now / 1000;
    if (
      typeof iat !== 'number' ||
      typeof exp !== 'number' ||
      exp <= iat ||
      exp - iat > MAX_ASSERTION_SECONDS ||
      iat > seconds + SKEW_SECONDS ||
      exp < seconds - SKEW_SECONDS
    )
      refuse(
        TOKEN_INVALID_GRANT,
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
  }

  private jwtBearer(params: URLSearchParams, origin: string, now: number): object {
    const assertion = params.get('assertion');
    if (!assertion) return refuse(TOKEN_INVALID_REQUEST, 'Missing required parameter: assertion');
    const jwt = parseJwt(assertion);
    if (!jwt)
      return refuse(
        TOKEN_INVALID_GRANT,
        'Invalid JWT: the assertion is not a signed JWT (header.claims.signature).',
      );
    const { iss, sub, aud } = jwt.claims;
    const account = typeof iss === 'string' ? this.accounts.get(iss.toLowerCase()) : undefined;
    if (!account) return refuse(TOKEN_INVALID_GRANT, 'Invalid grant: account not found');
    this.checkSignature(jwt, account);
    const audiences = [GOOGLE_TOKEN_URL, LEGACY_TOKEN_URL, `${origin}${TOKEN_PATH}`];
    if (typeof aud !== 'string' || !audiences.includes(aud))
      refuse(
        TOKEN_INVALID_GRANT,
        `Invalid JWT: Failed audience check. The right audience is ${GOOGLE_TOKEN_URL}`,
      );
    this.checkTimes(jwt, now);
    const scopes = readScopes(jwt.claims.scope);
    if (!scopes) return refuse(TOKEN_INVALID_SCOPE, 'Invalid OAuth scope or ID token audience provided.');
    let email = account.email;
    if (sub !== undefined && sub !== iss) {
      const delegated = account.delegation;
      if (typeof sub !== 'string' || !delegated)
        return refuse(
          TOKEN_UNAUTHORIZED_CLIENT,
          `Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested. (${account.email} has no domain-wide delegation.)`,
        );
      email = sub.toLowerCase();
      if (!this.isUser(email)) return refuse(TOKEN_INVALID_GRANT, 'Invalid email or User ID');
      const missing = scopes.filter((scope) => !delegated.has(scope));
      if (missing.length > 0)
        refuse(
          TOKEN_UNAUTHORIZED_CLIENT,
          `Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested. (Not delegated to ${account.email}: ${missing.join(', ')}.)`,
        );
    }
    return this.issue({ email, scopes, clientId: account.clientId }, now);
  }

  /** The client of a refresh-token request: in the parameters or as HTTP Basic credentials. */
  private client(params: URLSearchParams, authorization: string | undefined): OAuthClientConfig {
    let id = params.get('client_id');
    let secret = params.get('client_secret');
    const basic = authorization === undefined ? undefined : /^\s*Basic\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (basic !== undefined) {
      const decoded = Buffer.from(basic, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) {
        try {
          id = decodeURIComponent(decoded.slice(0, colon));
          secret = decodeURIComponent(decoded.slice(colon + 1));
        } catch {
          refuse(
            TOKEN_INVALID_CLIENT,
            'The Basic credentials are not percent-encoded client_id:client_secret.',
          );
        }
      }
    }
    const client = id ? this.clients.get(id) : undefined;
    if (!client) return refuse(TOKEN_INVALID_CLIENT, 'The OAuth client was not found.');
    if (secret === null || !sameSecret(secret, client.clientSecret))
      refuse(TOKEN_INVALID_CLIENT, 'Unauthorized');
    return client;
  }

  private refresh(params: URLSearchParams, authorization: string | undefined, now: number): object {
    const client = this.client(params, authorization);
    const token = params.get('refresh_token');
    if (!token) return refuse(TOKEN_INVALID_REQUEST, 'Missing required parameter: refresh_token');
    const grant = this.refreshTokens.get(token);
    if (!grant) return refuse(TOKEN_INVALID_GRANT, 'Token has been expired or revoked.');
    if (grant.clientId !== client.clientId) return refuse(TOKEN_UNAUTHORIZED_CLIENT, 'Unauthorized');
    // A narrower set of the granted scopes may be asked for; never a wider one.
    const asked = params.has('scope') ? readScopes(params.get('scope')) : undefined;
    const wider = (asked ?? []).filter((scope) => !grant.scopes.includes(scope));
    if (wider.length > 0)
      refuse(
        TOKEN_INVALID_SCOPE,
        `Some requested scopes were not granted to this refresh token: ${wider.join(', ')}.`,
      );
    const scopes = asked ?? grant.scopes;
    return {
      ...this.issue({ email: grant.email, scopes, clientId: client.clientId, refreshToken: token }, now),
      scope: scopes.join(' '),
    };
  }

  private issue(grant: Omit<IssuedToken, 'expiresAt'>, now: number): object {
    // Expired tokens are dropped every so often, so that a long run's memory stays bounded by
    // the tokens alive at once.
    if (++this.sinceSweep >= 1000) {
      this.sinceSweep = 0;
      for (const [token, issued] of this.issued) if (issued.expiresAt <= now) this.issued.delete(token);
    }
    const token = `${ACCESS_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    this.issued.set(token, { ...grant, expiresAt: now + this.lifetimeMs });
    return { access_token: token, expires_in: Math.floor(this.lifetimeMs / 1000), token_type: 'Bearer' };
  }

  /** The token is the `access_token` parameter, or the request's bearer token (google-auth-library 10 sends it so). */
  private tokenInfo(params: URLSearchParams, authorization: string | undefined, now: number): object {
    const token =
      params.get('access_token') ??
      (authorization ? /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined);
    const issued = token ? this.issued.get(token) : undefined;
    if (!issued || issued.expiresAt <= now) return refuse(TOKEN_INVALID_TOKEN, 'Invalid Value');
    return {
      azp: issued.clientId,
      aud: issued.clientId,
      sub: this.accounts.get(issued.email)?.clientId ?? numericId(issued.email),
      scope: issued.scopes.join(' '),
      exp: String(Math.floor(issued.expiresAt / 1000)),
      expires_in: String(Math.max(0, Math.floor((issued.expiresAt - now) / 1000))),
      email: issued.email,
      email_verified: 'true',
      access_type: issued.refreshToken ? 'offline' : 'online',
    };
  }

  private revoke(params: URLSearchParams): object {
    const token = params.get('token');
    if (!token) return refuse(TOKEN_INVALID_REQUEST, 'Missing required parameter: token');
    if (this.issued.delete(token)) return {};
    if (!this.refreshTokens.delete(token)) return refuse(TOKEN_INVALID_TOKEN, 'Token expired or revoked');
    for (const [access, issued] of this.issued) if (issued.refreshToken === token) this.issued.delete(access);
    return {};
  }
}
