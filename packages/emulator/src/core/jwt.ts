/**
 * The JSON Web Tokens a service account signs (RFC 7519, RS256 only, as Google's service
 * account keys are RSA): read into header and claims, and their signature checked against the
 * account's public keys. Nothing here decides whether the claims are acceptable; oauth.ts does.
 */
import { createPublicKey, type KeyObject, verify, X509Certificate } from 'node:crypto';

export interface JwtHeader {
  alg?: unknown;
  kid?: unknown;
  typ?: unknown;
}

export type JwtClaims = Record<string, unknown>;

export interface ParsedJwt {
  header: JwtHeader;
  claims: JwtClaims;
  /** `header.payload`, the bytes the signature covers. */
  signed: string;
  signature: Buffer;
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

function decodeJson(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The three parts of a compact JWT; undefined when it is not one (no signature check yet). */
export function parseJwt(token: string): ParsedJwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [head, body, signature] = parts as [string, string, string];
  if (!SEGMENT.test(head) || !SEGMENT.test(body) || !SEGMENT.test(signature)) return undefined;
  const header = decodeJson(head);
  const claims = decodeJson(body);
  if (!header || !claims) return undefined;
  return { header, claims, signed: `${head}.${body}`, signature: Buffer.from(signature, 'base64url') };
}

/** Whether the JWT's RS256 signature was made by the private half of `key`. */
export function verifyRs256(jwt: ParsedJwt, key: KeyObject): boolean {
  if (jwt.header.alg !== 'RS256') return false;
  try {
    return verify('RSA-SHA256', Buffer.from(jwt.signed), key, jwt.signature);
  } catch {
    return false;
  }
}

/**
 * An RSA public key from PEM text: a public key (`BEGIN PUBLIC KEY` or `BEGIN RSA PUBLIC KEY`)
 * or an X.509 certificate (`BEGIN CERTIFICATE`, as Google publishes a service account's keys).
 * Throws an Error that says what was expected.
 */
export function readPublicKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = pem.includes('BEGIN CERTIFICATE') ? new X509Certificate(pem).publicKey : createPublicKey(pem);
  } catch {
    throw new Error(
      'expected a PEM public key ("-----BEGIN PUBLIC KEY-----") or X.509 certificate ("-----BEGIN CERTIFICATE-----")',
    );
  }
  if (key.asymmetricKeyType !== 'rsa')
    throw new Error(`expected an RSA key (service account keys are RSA), found ${key.asymmetricKeyType} key`);
  return key;
}
