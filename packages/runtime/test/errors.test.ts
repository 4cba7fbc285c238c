import { describe, expect, it } from 'vitest';
import {
  GoogleApiError,
  isBadRequest,
  isConflict,
  isForbidden,
  isFullSyncRequired,
  isGone,
  isNotFound,
  isPreconditionFailed,
  isQuotaExhausted,
  isRateLimited,
  isUnauthorized,
} from '../src/index.ts';

const error = (status: number, ...reasons: string[]) =>
  new GoogleApiError('events.list', status, {
    error: { code: status, message: 'm', errors: reasons.map((reason) => ({ reason })) },
  });

const helpers = {
  isRateLimited,
  isQuotaExhausted,
  isNotFound,
  isFullSyncRequired,
  isGone,
  isPreconditionFailed,
  isUnauthorized,
  isForbidden,
  isConflict,
  isBadRequest,
};

describe('the narrowing helpers', () => {
  it.each<[string, { given: unknown; want: (keyof typeof helpers)[] }]>([
    ['429 rateLimitExceeded', { given: error(429, 'rateLimitExceeded'), want: ['isRateLimited'] }],
    ['403 userRateLimitExceeded', { given: error(403, 'userRateLimitExceeded'), want: ['isRateLimited'] }],
    ['403 quotaExceeded', { given: error(403, 'quotaExceeded'), want: ['isQuotaExhausted'] }],
    ['403 dailyLimitExceeded', { given: error(403, 'dailyLimitExceeded'), want: ['isQuotaExhausted'] }],
    ['403 forbidden', { given: error(403, 'forbidden'), want: ['isForbidden'] }],
    ['404 notFound', { given: error(404, 'notFound'), want: ['isNotFound'] }],
    [
      '410 fullSyncRequired',
      { given: error(410, 'fullSyncRequired'), want: ['isFullSyncRequired', 'isGone'] },
    ],
    ['410 deleted', { given: error(410, 'deleted'), want: ['isGone'] }],
    ['412 conditionNotMet', { given: error(412, 'conditionNotMet'), want: ['isPreconditionFailed'] }],
    ['401 authError', { given: error(401, 'authError'), want: ['isUnauthorized'] }],
    ['409 duplicate', { given: error(409, 'duplicate'), want: ['isConflict'] }],
    ['400 required', { given: error(400, 'required'), want: ['isBadRequest'] }],
    ['a plain Error', { given: new Error('404'), want: [] }],
    ['undefined', { given: undefined, want: [] }],
  ])('%s', (_title, { given, want }) => {
    const matching = Object.entries(helpers)
      .filter(([, helper]) => helper(given))
      .map(([name]) => name);
    expect(matching).toEqual(want);
  });

  it('narrows unknown to GoogleApiError', () => {
    const caught: unknown = error(404, 'notFound');
    if (isNotFound(caught)) expect(caught.reason).toBe('notFound');
    else expect.unreachable('isNotFound should match');
  });
});

describe('GoogleApiError', () => {
  it.each<[string, { given: [number, unknown]; want: { message: string; reasons: string[] } }]>([
    [
      'names the operation, status, reasons and message',
      {
        given: [
          403,
          { error: { message: 'Rate Limit Exceeded', errors: [{ reason: 'rateLimitExceeded' }] } },
        ],
        want: {
          message:
            'events.list failed with 403 (rateLimitExceeded): Rate Limit Exceeded; too many requests: slow down, or let the retry option wait',
          reasons: ['rateLimitExceeded'],
        },
      },
    ],
    [
      'shows the start of a text body',
      {
        given: [502, 'Bad Gateway'],
        want: { message: 'events.list failed with 502: Bad Gateway', reasons: [] },
      },
    ],
    [
      'says when there is no message',
      { given: [500, ''], want: { message: 'events.list failed with 500: no message', reasons: [] } },
    ],
  ])('%s', (_title, { given, want }) => {
    const e = new GoogleApiError('events.list', ...given);
    expect({ message: e.message, reasons: e.reasons }).toEqual(want);
  });

  it.each<[string, { given: { cause?: unknown } | undefined; want: boolean }]>([
    [
      'keeps a cause it is given, out of its message',
      { given: { cause: new Error('refresh-secret') }, want: true },
    ],
    ['has no cause when given none', { given: undefined, want: false }],
  ])('%s', (_title, { given, want }) => {
    const e = new GoogleApiError('events.list', 401, 'Unauthorized', undefined, given);
    expect({ has: 'cause' in e, cause: e.cause, message: e.message }).toEqual({
      has: want,
      cause: given?.cause,
      message:
        'events.list failed with 401: Unauthorized; check accessToken or auth: missing, expired or not for this API',
    });
    expect(JSON.stringify(e)).not.toContain('refresh-secret');
  });
});
