/**
 * The bundled specs as the tests read them: every operation with its parameters, and the
 * request values and body its examples give. Tests derive what to send from the specs, so a
 * new operation is covered without a test change.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  type Json,
  listOperations,
  loadBundledSpecs,
  resolve,
  type SpecOperation as SharedOperation,
  sampleValue,
} from '@gspec/scripts/operations';

const require = createRequire(import.meta.url);
export const specDir = path.dirname(require.resolve('@gspec/specs/apis.json'));

export type { Json };

export interface ApiSpec {
  id: string;
  basePath: string;
  doc: Json;
}

export interface SpecOperation extends SharedOperation {
  api: ApiSpec;
}

export function loadSpecs(): ApiSpec[] {
  return loadBundledSpecs(specDir);
}

/** Follows local `$ref`s to the value they name. */
export const follow = resolve;

export function operationsOf(api: ApiSpec): SpecOperation[] {
  return listOperations(api.doc).map((op) => ({ ...op, api }));
}

export { sampleValue };

/** The first named example of the JSON request body, if the operation takes one. */
export function sampleBody(op: SpecOperation): unknown {
  if (!op.operation.requestBody) return undefined;
  const body = follow(op.api.doc, op.operation.requestBody);
  const media = body.content?.['application/json'];
  const first = media?.examples && Object.values<Json>(media.examples)[0];
  if (!first) throw new Error(`${op.operationId}: the request body has no named example to send`);
  return follow(op.api.doc, first).value;
}

/** The documented success answer: its status and media type (undefined for no body). */
export function successOf(op: SpecOperation): { status: number; mediaType?: string } {
  const entry = Object.entries<Json>(op.operation.responses).find(([code]) => /^2\d\d$/.test(code));
  if (!entry) throw new Error(`${op.operationId}: no 2xx response documented`);
  const response = follow(op.api.doc, entry[1]);
  const mediaType = Object.keys(response.content ?? {})[0];
  return { status: Number(entry[0]), ...(mediaType ? { mediaType } : {}) };
}
