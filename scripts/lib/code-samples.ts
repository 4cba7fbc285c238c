/**
 * Code samples of every operation, made from the spec alone: a curl command against the
 * live service and a TypeScript call through our generated client. The reference shows
 * them (x-codeSamples); the reference's tests type-check every TypeScript sample against
 * the real client packages, so a spec or client change that breaks one fails the tests.
 */
import type { OpenApiDocument } from './apis.ts';
import {
  argumentName,
  isBatchEndpoint,
  type SpecOperation,
  sampleBody,
  sampleValue,
  successResponse,
} from './operations.ts';

export interface CodeSample {
  lang: 'Shell' | 'TypeScript';
  label: string;
  source: string;
}

/** How each API's client is imported and named in samples: the resource client the READMEs lead with. */
export const CLIENTS: Record<
  string,
  { pkg: string; factory: string; variable: string; batch?: { factory: string; calls: string[] } }
> = {
  calendar: {
    pkg: '@gspec/calendar',
    factory: 'createCalendar',
    variable: 'calendar',
    batch: {
      factory: 'createCalendarBatch',
      calls: ['b.colors.get()', "b.events.get({ calendarId: 'primary', eventId: 'abc123' })"],
    },
  },
  searchads360: { pkg: '@gspec/searchads360', factory: 'createSearchAds360', variable: 'searchAds' },
};

interface RequestShape {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  body: unknown;
}

/** The required parameters with their sample values, and the first named body example. */
export function sampleRequest(doc: OpenApiDocument, op: SpecOperation): RequestShape {
  const shape: RequestShape = { path: {}, query: {}, header: {}, body: sampleBody(doc, op) };
  for (const param of op.parameters) {
    if (!param.required) continue;
    const bucket = shape[param.in as 'path' | 'query' | 'header'];
    if (bucket) bucket[param.name] = sampleValue(doc, param);
  }
  return shape;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function queryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function curlSample(doc: OpenApiDocument, op: SpecOperation): string {
  const request = sampleRequest(doc, op);
  const server: string = doc.servers?.[0]?.url ?? '';
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(String(request.path[name])),
  );
  const lines = [
    `curl -X ${op.method.toUpperCase()} ${shellQuote(`${server}${path}${queryString(request.query)}`)}`,
  ];
  lines.push(`-H "Authorization: Bearer $ACCESS_TOKEN"`);
  for (const [name, value] of Object.entries(request.header))
    lines.push(`-H ${shellQuote(`${name}: ${String(value)}`)}`);
  if (request.body !== undefined) {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`-d ${shellQuote(JSON.stringify(request.body, null, 2))}`);
  }
  return lines.join(' \\\n  ');
}

/** A value as a TypeScript literal the way a person writes it: bare keys, single quotes. */
export function tsLiteral(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${inner}${tsLiteral(item, inner)},`).join('\n')}\n${indent}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const lines = entries.map(([key, item]) => {
      const name = /^[A-Za-z_$][\w$]*$/.test(key)
        ? key
        : `'${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
      return `${inner}${name}: ${tsLiteral(item, inner)},`;
    });
    return `{\n${lines.join('\n')}\n${indent}}`;
  }
  if (typeof value === 'string')
    return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  return JSON.stringify(value);
}

/**
 * A call of the generated resource method (`calendar.events.insert({...})`): one object with
 * the required path, query and header parameters next to the fields of the example body.
 */
export function typescriptSample(doc: OpenApiDocument, apiId: string, op: SpecOperation): string {
  const client = CLIENTS[apiId];
  if (!client)
    throw new Error(
      `no client is known for API "${apiId}"; add it to CLIENTS in scripts/lib/code-samples.ts`,
    );
  const request = sampleRequest(doc, op);
  const { response } = successResponse(doc, op);
  const hasAnswer = Object.keys(response.content ?? {}).length > 0;
  const args: Record<string, unknown> = {
    ...request.path,
    ...request.query,
    ...Object.fromEntries(Object.entries(request.header).map(([name, value]) => [argumentName(name), value])),
    ...(request.body && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {}),
  };
  const [resource, method] = op.operationId.split('.');
  const call = `${client.variable}.${resource}.${method}(${Object.keys(args).length > 0 ? tsLiteral(args) : ''})`;
  const deprecated = op.operation.deprecated
    ? '// Deprecated by Google: see the migration note of this operation.\n'
    : '';
  return [
    `import { ${client.factory} } from '${client.pkg}';`,
    '',
    `const ${client.variable} = ${client.factory}({ accessToken: process.env.GOOGLE_ACCESS_TOKEN });`,
    '',
    hasAnswer ? `${deprecated}const answer = await ${call};` : `${deprecated}await ${call};`,
    ...(hasAnswer ? ['console.log(answer);'] : []),
    '',
  ].join('\n');
}

export function codeSamples(doc: OpenApiDocument, apiId: string, op: SpecOperation): CodeSample[] {
  const client = CLIENTS[apiId];
  if (isBatchEndpoint(op.operation)) return batchSamples(doc, apiId, op);
  return [
    { lang: 'Shell', label: 'curl', source: curlSample(doc, op) },
    { lang: 'TypeScript', label: client?.pkg ?? 'TypeScript', source: typescriptSample(doc, apiId, op) },
  ];
}

/**
 * The samples of a batch endpoint (`x-batch`): curl posting the request example from a file
 * (its line breaks are CRLF, which a shell string would not keep), and the client's batch
 * function, whose calls are typed as the resource methods are.
 */
export function batchSamples(doc: OpenApiDocument, apiId: string, op: SpecOperation): CodeSample[] {
  const client = CLIENTS[apiId];
  if (!client?.batch)
    throw new Error(
      `no batch function is known for API "${apiId}"; add it to CLIENTS in scripts/lib/code-samples.ts`,
    );
  // The batch path is at the host's root: the origin of the API's server.
  const origin = new URL(doc.servers?.[0]?.url ?? 'https://www.googleapis.com').origin;
  const curl = [
    '# batch.txt: the parts, as in the request example (CRLF line breaks)',
    [
      `curl -X POST ${shellQuote(`${origin}${op.path}`)}`,
      `-H "Authorization: Bearer $ACCESS_TOKEN"`,
      `-H 'Content-Type: multipart/mixed; boundary=batch_a1b2c3'`,
      '--data-binary @batch.txt',
    ].join(' \\\n  '),
  ].join('\n');
  const typescript = [
    `import { ${client.batch.factory} } from '${client.pkg}';`,
    '',
    `const batch = ${client.batch.factory}({ accessToken: process.env.GOOGLE_ACCESS_TOKEN });`,
    '',
    '// One result per call, in call order: { ok: true, value } or { ok: false, error }.',
    `const results = await batch((b) => [\n${client.batch.calls.map((call) => `  ${call},`).join('\n')}\n]);`,
    'for (const result of results) console.log(result.ok ? result.value : result.error.message);',
    '',
  ].join('\n');
  return [
    { lang: 'Shell', label: 'curl', source: curl },
    { lang: 'TypeScript', label: client.pkg, source: typescript },
  ];
}
