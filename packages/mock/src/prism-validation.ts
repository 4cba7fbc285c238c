/**
 * A request checked against its operation with Prism's own request validation (the checks the
 * mock refuses requests by), without answering it: the validating proxy forwards the request
 * whatever the findings, and reports them by what the service then does.
 *
 * Prism's validator is not part of its package's entry point; it is loaded from the package's
 * dist, which @gspec/mock pins to an exact version of @stoplight/prism-http.
 */

import { describeJsonError, jsonNestingPastLimit, shortJson } from '@gspec/server-kit';
import * as validator from '@stoplight/prism-http/dist/validator/index.js';
import type { IHttpOperation } from '@stoplight/types';

interface Diagnostic {
  path?: (string | number)[];
  message: string;
  severity?: number;
  code?: string | number;
}

type Either<L, R> = { _tag: 'Left'; left: L } | { _tag: 'Right'; right: R };

const validateInput = (
  validator as {
    validateInput: (opts: { resource: IHttpOperation; element: unknown }) => Either<Diagnostic[], unknown>;
  }
).validateInput;

/** One thing wrong with a request: where (`/query/maxResults`, `/body/start/dateTime`), expected, got. */
export interface RequestFinding {
  kind: string;
  pointer: string;
  expected: string;
  got: string;
}

const MEDIA_JSON = /^application\/(.+\+)?json$/i;

function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let node = value;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[String(key)];
  }
  return node;
}

/** A parameter's name as the operation spells it, from the lower-case one Prism reports. */
function spelling(operation: IHttpOperation, lowerCase: string): string {
  const { query = [], headers = [] } = operation.request ?? {};
  return [...query, ...headers].find((param) => param.name.toLowerCase() === lowerCase)?.name ?? lowerCase;
}

/** The request's findings; an empty list when it is one the spec describes. */
export function validateRequest(
  operation: IHttpOperation,
  method: string,
  subPath: string,
  query: URLSearchParams,
  headers: Record<string, string | string[] | undefined>,
  body: string | undefined,
): RequestFinding[] {
  const findings: RequestFinding[] = [];
  const queryRecord: Record<string, string | string[]> = {};
  for (const key of new Set(query.keys())) {
    // A credential is the service's to check, not the spec's.
    if (key === 'access_token') continue;
    const all = query.getAll(key);
    queryRecord[key] = all.length === 1 ? (all[0] as string) : all;
  }
  const contentType = String(headers['content-type'] ?? '');
  let parsed: unknown;
  if (body !== undefined && body.length > 0) {
    const json = contentType === '' || MEDIA_JSON.test(contentType.split(';')[0]?.trim() ?? '');
    // A body nested past the servers' limit is not checked: the schema walk would recurse as
    // deep, and no schema of the specs nests that far. The service's answer says what it made of it.
    if (json && jsonNestingPastLimit(body) !== undefined) return findings;
    if (json) {
      try {
        parsed = JSON.parse(body);
      } catch (error) {
        findings.push({
          kind: 'notJson',
          pointer: '/body',
          expected: 'a JSON body',
          got: `${shortJson(body.slice(0, 60))} (${describeJsonError(error)})`,
        });
        return findings;
      }
    } else parsed = body;
  }
  const element = {
    method,
    url: { path: subPath, query: queryRecord },
    headers: {
      ...Object.fromEntries(
        Object.entries(headers).flatMap(([name, value]) =>
          value === undefined ? [] : [[name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value]],
        ),
      ),
      'content-length': String(body === undefined ? 0 : Buffer.byteLength(body)),
    },
    ...(parsed !== undefined ? { body: parsed } : {}),
  };
  const result = validateInput({ resource: operation, element });
  if (result._tag === 'Right') return findings;
  for (const diagnostic of result.left) {
    // Warnings (severity 1 and above) are Prism's advice, not the spec's rules.
    if (diagnostic.severity !== undefined && diagnostic.severity !== 0) continue;
    const [where = 'request', ...named] = (diagnostic.path ?? []).map(String);
    // Prism names query parameters and headers in lower case; the spec's spelling is given back.
    const rest =
      where === 'query' || where === 'header'
        ? [spelling(operation, named[0] ?? ''), ...named.slice(1)]
        : named;
    const missing = /required property '([^']+)'/.exec(diagnostic.message)?.[1];
    const place = [...rest, ...(missing ? [missing] : [])];
    const got =
      missing !== undefined
        ? 'missing'
        : where === 'body'
          ? shortJson(valueAt(parsed, rest))
          : where === 'query'
            ? shortJson(queryRecord[rest[0] ?? ''])
            : where === 'header'
              ? shortJson(element.headers[(rest[0] ?? '').toLowerCase() as 'content-length'])
              : where === 'path'
                ? shortJson(subPath)
                : diagnostic.code === 415
                  ? shortJson(contentType)
                  : 'see expected';
    findings.push({
      kind: diagnostic.code === 415 ? 'contentType' : where,
      pointer: `/${[where, ...place].map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`,
      expected: diagnostic.message,
      got,
    });
  }
  return findings;
}
