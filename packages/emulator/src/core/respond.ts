/**
 * When a request's answer goes out: once its state store holds what the request changed (its
 * turn: state-store.ts). In memory and with a SQLite file, the answers of one turn of the event
 * loop go out after one commit. With a shared store, each request runs in its turn's
 * transaction there and is answered once that transaction committed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Answer, type AnswerWriter, notCommitted, unsaved } from './answers.js';
import type { ReadBody } from './operations.js';
import type { StateStore } from './state-store.js';
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

/**
 * Answers every request the same way, whatever keeps the state: the store runs it in its turn
 * and says when what it changed is held (state-store.ts). A change the store could not hold is
 * a 503: with `kept`, it stays in memory and the next commit saves it (the request that wrote
 * is told it was not saved); without, the request was undone, or never ran.
 */
export function createResponder(writer: AnswerWriter, answer: AnswerOf, stateStore: StateStore): Respond {
  return (request, response, target, body, received) => {
    const method = request.method;
    stateStore.turn(
      (effect) => answer(request, target, body, effect),
      (outcome) => {
        const result = !outcome.ran
          ? notCommitted(outcome.failure, false)
          : !outcome.failure
            ? outcome.value
            : outcome.kept
              ? unsaved(outcome.failure, outcome.value)
              : notCommitted(outcome.failure, true);
        try {
          writer.send(request, response, annotated(result, body, received));
        } catch (error) {
          writer.unexpected(response, error);
        }
      },
      (error) => writer.unexpected(response, error),
      method === 'GET' || method === 'HEAD' || method === 'OPTIONS',
    );
  };
}
