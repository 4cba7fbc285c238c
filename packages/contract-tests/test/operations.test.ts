/**
 * Every operation of both specs, as the bundled specs list them (no hand-kept list), sent
 * through the generated clients with the spec's own examples. Each answer must have the
 * documented success status and a body valid against the documented schema.
 */
import { createCalendarClient } from '@gspec/calendar';
import { createSearchAds360Client } from '@gspec/searchads360';
import { describe, expect, inject, it } from 'vitest';
import {
  type ApiSpec,
  loadSpecs,
  type Operation,
  operationsOf,
  sampleBody,
  sampleValue,
  successResponse,
} from './support/spec.ts';
import { describeErrors, validateBody } from './support/validate.ts';

const clients = {
  calendar: createCalendarClient,
  searchads360: createSearchAds360Client,
} as const;

type LooseClient = {
  request(
    method: string,
    path: string,
    init: Record<string, unknown>,
  ): Promise<{ response: Response; data?: unknown; error?: unknown }>;
};

function clientFor(api: ApiSpec, accessToken?: string): LooseClient {
  const create = clients[api.id as keyof typeof clients];
  if (!create)
    throw new Error(`no generated client for ${api.name}; add it to the table in operations.test.ts`);
  const baseUrl = `${inject('targetOrigin')}${api.basePath}`;
  return create({ baseUrl, ...(accessToken ? { accessToken } : {}) }) as unknown as LooseClient;
}

function exampleRequest(op: Operation): Record<string, unknown> {
  const params: Record<string, Record<string, unknown>> = { path: {}, query: {}, header: {} };
  for (const param of op.parameters) {
    if (!param.required || !(param.in in params)) continue;
    (params[param.in] as Record<string, unknown>)[param.name] = sampleValue(op.api.doc, param);
  }
  const body = sampleBody(op);
  const { response } = successResponse(op);
  const textAnswer = Object.keys(response.content ?? {}).some((type) => type.startsWith('text/'));
  return { params, ...(body !== undefined ? { body } : {}), parseAs: textAnswer ? 'text' : 'json' };
}

const specs = loadSpecs();

describe.each(specs.map((api) => [api.name, api] as const))('%s', (_name, api) => {
  const operations = operationsOf(api);

  it('has operations to test', () => {
    expect(operations.length).toBeGreaterThan(0);
  });

  it.each(operations.map((op) => [op.operationId, op] as const))(
    '%s answers as documented',
    async (_id, op) => {
      const { status, response: documented, pointer } = successResponse(op);
      const { response, data } = await clientFor(api, 'contract-test-token').request(
        op.method,
        op.path,
        exampleRequest(op),
      );
      expect(response.status, `${op.method.toUpperCase()} ${op.path}`).toBe(status);
      if (!documented.content) {
        expect(
          data === undefined ||
            data === '' ||
            (typeof data === 'object' && data !== null && Object.keys(data).length === 0),
        ).toBe(true);
        return;
      }
      const contentType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
      expect(Object.keys(documented.content), 'the answer has a documented content type').toContain(
        contentType,
      );
      const errors = validateBody(api, pointer, contentType, data);
      expect(errors, describeErrors(errors)).toEqual([]);
    },
  );

  it.each(operations.map((op) => [op.operationId, op] as const))(
    "%s refuses a request without a token with 401 in Google's envelope",
    async (_id, op) => {
      const { response, error } = await clientFor(api).request(op.method, op.path, exampleRequest(op));
      expect(response.status).toBe(401);
      const documented = op.operation.responses['401'];
      expect(documented, 'the 401 answer is documented').toBeDefined();
      const pointer = `/components/responses/${String(documented.$ref).split('/').pop()}`;
      const errors = validateBody(api, pointer, 'application/json', error);
      expect(errors, describeErrors(errors)).toEqual([]);
      expect((error as { error: { errors: { reason: string }[] } }).error.errors[0]?.reason).toBe(
        'authError',
      );
    },
  );
});
