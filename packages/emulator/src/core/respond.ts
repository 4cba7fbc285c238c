/**
 * The commit policy: when a request's answer goes out. In memory and with a SQLite file, a
 * request is answered in its turn of the event loop, and the answers of a turn that changed the
 * state go out once that turn is committed (AnswerWriter's group commit). With a shared store
 * each request runs in its turn's transaction there and is answered once that committed; a turn
 * that failed is answered 503 whole, since it was undone.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Answer, type AnswerWriter, notCommitted } from './answers.js';
import type { ReadBody } from './operations.js';
import type { Outcome, SharedStore } from './postgres.js';
import type { Target } from './target.js';

/** Answers a request whose body is read, and sends the answer by the commit policy. */
export type Respond = (
  request: IncomingMessage,
  response: ServerResponse,
  target: Target,
  body: ReadBody,
  received: number,
) => void;

type AnswerOf = (
  request: IncomingMessage,
  target: Target,
  body: ReadBody,
  effect: { wrote: boolean },
) => Answer;

/** The answer with what the journal shows of its request: when it came, and its body. */
function annotated(result: Answer, body: ReadBody, received: number): Answer {
  result.received = received;
  if (body.text !== undefined) result.requestBody = body.text;
  return result;
}

export function createResponder(
  writer: AnswerWriter,
  answer: AnswerOf,
  shared: SharedStore | undefined,
): Respond {
  if (shared) {
    return (request, response, target, body, received) => {
      shared
        .run(() => answer(request, target, body, { wrote: false }))
        .then(
          (outcome: Outcome<Answer>) => {
            const result =
              outcome.ran && !outcome.failure
                ? outcome.value
                : notCommitted(outcome.failure as Error, outcome.ran);
            try {
              writer.send(request, response, annotated(result, body, received));
            } catch (error) {
              writer.unexpected(response, error);
            }
          },
          (error: unknown) => writer.unexpected(response, error),
        );
    };
  }
  return (request, response, target, body, received) => {
    const effect = { wrote: false };
    let result: Answer;
    try {
      result = answer(request, target, body, effect);
    } catch (error) {
      writer.unexpected(response, error);
      return;
    }
    writer.later(request, response, annotated(result, body, received), effect.wrote);
  };
}
