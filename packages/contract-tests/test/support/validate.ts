/**
 * Validates answers against the specs with server-kit's AnswerChecker: Ajv (JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1) over each bundled spec made STRICT, so that a property
 * the spec does not declare is a failure (see `strictDocument` in server-kit's answers.ts). The
 * mock's validating proxy checks the answers it passes on with the same checker.
 */
import { AnswerChecker, describeErrors, strictDocument } from '@gspec/server-kit';
import type { ErrorObject } from 'ajv/dist/2020.js';
import type { ApiSpec } from './spec.ts';

export { describeErrors, strictDocument };

const checkers = new Map<string, AnswerChecker>();

function checkerOf(api: ApiSpec): AnswerChecker {
  let checker = checkers.get(api.id);
  if (!checker) {
    checker = new AnswerChecker(api.id, api.doc);
    checkers.set(api.id, checker);
  }
  return checker;
}

/**
 * Validates `body` against the schema of `response` (found at `responsePointer`) for
 * `contentType`. A `trimmed` body (an answer to a `fields` mask) is held to everything but
 * `required`: every field it has must be declared and valid.
 */
export function validateBody(
  api: ApiSpec,
  responsePointer: string,
  contentType: string,
  body: unknown,
  trimmed = false,
): ErrorObject[] {
  return checkerOf(api).validateBody(responsePointer, contentType, body, trimmed);
}

/**
 * Checks the documented headers of a response: a required one must be there, and each one
 * present must be valid against its schema. Headers the spec does not document (Date,
 * Content-Length, ...) are HTTP's, not the API's.
 */
export function validateHeaders(api: ApiSpec, responsePointer: string, headers: Headers): string[] {
  return checkerOf(api)
    .checkHeaders(responsePointer, (name) => headers.get(name) ?? undefined)
    .map((finding) =>
      finding.kind === 'missingHeader'
        ? `the required header ${finding.pointer.slice('/headers/'.length)} is missing`
        : `header ${finding.pointer.slice('/headers/'.length)}: ${finding.expected}`,
    );
}
