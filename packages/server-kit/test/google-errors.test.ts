import { describe, expect, it } from 'vitest';
import { googleError } from '../src/index.ts';

const item = { domain: 'global', reason: 'notFound', message: 'Not Found' };

describe('googleError', () => {
  it.each([
    [400, 'INVALID_ARGUMENT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'PERMISSION_DENIED'],
    [404, 'NOT_FOUND'],
    [409, 'ALREADY_EXISTS'],
    [410, 'FAILED_PRECONDITION'],
    [412, 'FAILED_PRECONDITION'],
    [429, 'RESOURCE_EXHAUSTED'],
    [500, 'INTERNAL'],
    [501, 'UNIMPLEMENTED'],
    [503, 'UNAVAILABLE'],
  ])('names %i %s', (code, status) => {
    expect(googleError(code, [item])).toEqual({
      error: { code, message: 'Not Found', status, errors: [item] },
    });
  });

  it('leaves out the status it has no name for', () => {
    expect(googleError(418, [item]).error).not.toHaveProperty('status');
  });

  it('takes the first item message unless given one', () => {
    expect(googleError(400, [item, { ...item, message: 'second' }]).error.message).toBe('Not Found');
    expect(googleError(400, [item, item], '2 problems').error.message).toBe('2 problems');
    expect(googleError(500, []).error.message).toBe('Error');
  });
});
