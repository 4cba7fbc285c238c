/**
 * Partial responses and conditional reads of the emulator (decision 0038): the `fields` mask
 * of a request, parsed and checked against the schema of the operation's success answer
 * before the handler runs (so a refused mask never lets a write happen), then applied to
 * the answer; and `If-None-Match` on the operations that document `304`, answered without a
 * body when it names the etag of the answer. Requests with neither (nearly all) never get
 * here: the server checks for both first.
 */
import {
  applyFieldMask,
  CheckedMasks,
  type FieldMask,
  FieldMaskError,
  fieldMaskErrorItem,
  ifNoneMatchHits,
  pointerResolver,
} from '@gspec/server-kit';
import { ApiError, INVALID_FIELDS } from './errors.js';
import { isObject, type Json, type JsonObject, type OperationSpec } from './spec.js';

export type { FieldMask } from '@gspec/server-kit';

/** What one operation needs for both: its answer's JSON schema and whether it documents 304. */
interface Shape {
  /** The schema of the JSON success answer; undefined for 204 and text answers. */
  schema: Json | undefined;
  notModified: boolean;
  /** Masks already parsed and checked for this operation, by their text. */
  masks: CheckedMasks;
}

const MAX_MASKS = 64;

export class PartialAnswers {
  private readonly shapes = new WeakMap<OperationSpec, Shape>();
  private readonly resolve: (ref: string) => unknown;

  constructor(document: JsonObject) {
    this.resolve = pointerResolver(document);
  }

  private shape(op: OperationSpec): Shape {
    let shape = this.shapes.get(op);
    if (shape) return shape;
    let success = op.responses[String(op.successStatus)];
    if (isObject(success) && typeof success.$ref === 'string') success = this.resolve(success.$ref) as Json;
    const content = isObject(success) && isObject(success.content) ? success.content : {};
    const json = Object.entries(content).find(([media]) => /json/i.test(media))?.[1];
    shape = {
      schema: isObject(json) ? json.schema : undefined,
      notModified: '304' in op.responses,
      masks: new CheckedMasks(MAX_MASKS),
    };
    this.shapes.set(op, shape);
    return shape;
  }

  /**
   * The mask of a `fields` value, or undefined for an empty one; a mask that does not parse,
   * or that names a field the answer has not, is a 400 on the `fields` parameter.
   */
  mask(op: OperationSpec, text: string): FieldMask | undefined {
    if (text.trim() === '') return undefined;
    const shape = this.shape(op);
    try {
      return shape.masks.get(text, text, shape.schema, this.resolve);
    } catch (error) {
      if (error instanceof FieldMaskError) throw new ApiError(INVALID_FIELDS, [fieldMaskErrorItem(error)]);
      throw error;
    }
  }

  /** Whether the answer to a read is `304`: the operation documents it and the tag matches. */
  notModified(op: OperationSpec, ifNoneMatch: string | string[], status: number, body: unknown): boolean {
    return (
      status === 200 &&
      this.shape(op).notModified &&
      isObject(body) &&
      ifNoneMatchHits(ifNoneMatch, body.etag)
    );
  }

  /** A JSON success answer trimmed to the mask; other answers as they are. */
  static trim(mask: FieldMask, status: number, body: unknown): unknown {
    if (status < 200 || status >= 300 || !isObject(body)) return body;
    return applyFieldMask(body, mask);
  }
}
