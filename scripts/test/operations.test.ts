/** operations.ts: what an operation's argument must have, read from a small document. */
import { describe, expect, it } from 'vitest';
import { listOperations, readBackOptional, requiredArguments } from '../lib/operations.ts';

const thing = { $ref: '#/components/schemas/Thing' };
const doc = {
  openapi: '3.1.0',
  paths: {
    '/things/{thingId}': {
      parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }],
      put: {
        operationId: 'things.update',
        parameters: [
          { name: 'If-Match', in: 'header', required: true, schema: { type: 'string' } },
          { name: 'notify', in: 'query', schema: { type: 'boolean' } },
        ],
        requestBody: {
          content: {
            'application/json': {
              schema: { allOf: [{ $ref: '#/components/schemas/Thing' }, { required: ['color'] }] },
            },
          },
        },
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: thing } } } },
      },
      get: { operationId: 'things.get', responses: { '200': { description: 'ok' } } },
    },
    '/things': {
      post: {
        operationId: 'things.insert',
        requestBody: {
          content: { 'application/json': { schema: { allOf: [thing, { required: ['color'] }] } } },
        },
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: thing } } } },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['name', 'id'],
        properties: {
          id: { type: 'string', readOnly: true },
          name: { type: 'string' },
          color: { type: 'string' },
        },
      },
    },
  },
};

describe('requiredArguments', () => {
  it.each([
    // Path and header parameters (the header in camelCase), the schema's required properties
    // but the read-only one, and what the allOf member adds.
    ['things.update', ['thingId', 'ifMatch', 'name', 'color']],
    ['things.get', ['thingId']],
  ])('%s must have %j', (operationId, expected) => {
    const op = listOperations(doc).find((o) => o.operationId === operationId);
    expect(op && requiredArguments(doc, op)).toEqual(expected);
  });
});

describe('readBackOptional', () => {
  it.each([
    // A replace whose answer is its body's schema: what the allOf member adds (decision 0060).
    ['things.update', ['color']],
    // An insert takes no resource read back; an operation without a body has nothing.
    ['things.insert', []],
    ['things.get', []],
  ])('%s leaves %j optional in its argument', (operationId, expected) => {
    const op = listOperations(doc).find((o) => o.operationId === operationId);
    expect(op && readBackOptional(doc, op)).toEqual(expected);
  });
});
