/**
 * What partial responses and conditional reads give back (decision 0038). A call with a
 * `fields` mask answers a `Trimmed` resource: every field may be missing, at any depth,
 * since the mask chose which ones come. A read with `ifNoneMatch` answers `NotModified`
 * when the service says the copy named by the etag is still current (304, no body).
 */

/** A resource as a `fields` mask leaves it: the same shape, every field optional at any depth. */
export type Trimmed<T> = T extends readonly (infer Item)[]
  ? Trimmed<Item>[]
  : T extends object
    ? { [Key in keyof T]?: Trimmed<T[Key]> }
    : T;

/** The answer of a read whose `ifNoneMatch` named the current version: keep the copy you hold. */
export interface NotModified {
  readonly notModified: true;
  /** The current etag: the service's `ETag` header, else the tag the request sent. */
  readonly etag: string;
}

/** Whether an answer is `NotModified` rather than a resource. */
export function isNotModified(answer: unknown): answer is NotModified {
  return (
    typeof answer === 'object' &&
    answer !== null &&
    (answer as { notModified?: unknown }).notModified === true &&
    Object.keys(answer).length === 2
  );
}

/** The `NotModified` of a 304, from its headers and the tag sent. */
export function notModified(etagHeader: string | null, sent: string): NotModified {
  return Object.freeze({ notModified: true as const, etag: etagHeader ?? sent });
}
