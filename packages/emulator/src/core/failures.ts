/**
 * Error shaping: the answer of a refusal (an ApiError, Google's error envelope with its status,
 * headers, operation and user) or of a failure no handler expected (500 `backendError`, its
 * stack logged, never sent).
 */
import { type Answer, BACKEND_ERROR } from './answers.js';
import { ApiError, refuse } from './errors.js';

export function answerOfFailure(
  error: unknown,
  method: string,
  pathname: string,
  log?: (line: string) => void,
): Answer {
  if (error instanceof ApiError) {
    const extra = error as ApiError & {
      operationId?: string;
      quotaHeaders?: Record<string, string>;
      user?: string;
    };
    return {
      status: error.status,
      headers: { ...extra.quotaHeaders, ...error.headers },
      body: error.body,
      ...(extra.operationId ? { operationId: extra.operationId } : {}),
      ...(extra.user ? { user: extra.user } : {}),
    };
  }
  const message = `The emulator failed: ${(error as Error).message}`;
  log?.(`${method} ${pathname}: ${(error as Error).stack ?? message}`);
  return { status: 500, headers: {}, body: refuse(BACKEND_ERROR, message).body };
}
