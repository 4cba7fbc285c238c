/**
 * The atomic read-change-write of a resource with an etag: read it, let the caller change
 * it, write it back with `If-Match: <etag>`, and when someone else wrote in between (412)
 * read it again and redo the change, a bounded number of times.
 */
import { ClientConfigError, isPreconditionFailed } from './errors.js';

/**
 * Which fields of a schema are read-only, as the generator writes it from the spec:
 * `true` for a read-only field, a nested shape for an object (or array of objects) with
 * read-only fields inside.
 */
export interface ReadOnlyShape {
  readonly [field: string]: true | ReadOnlyShape;
}

/** A copy of `value` without the fields the shape marks read-only, at any depth. */
export function withoutReadOnly<T>(value: T, shape: ReadOnlyShape): T {
  if (Array.isArray(value)) return value.map((item) => withoutReadOnly(item, shape)) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const rule = shape[key];
    if (rule === true) continue;
    copy[key] = rule ? withoutReadOnly(field, rule) : field;
  }
  return copy as T;
}

export interface EtagUpdate<Current extends { etag?: unknown }, Next, Result> {
  /** Reads the current version. */
  read: () => Promise<Current>;
  /** Makes the new version from the current one; may be called again after a conflict. */
  change: (current: Current) => Next | Promise<Next>;
  /** Writes the new version with `If-Match: etag`. */
  write: (next: Next, etag: string) => Promise<Result>;
  /** Attempts in all before the last 412 is thrown. Default 3. */
  maxAttempts?: number;
}

/** Runs read, change, write; on 412 starts over. Throws the last 412 when every attempt conflicted. */
export async function updateWithEtag<Current extends { etag?: unknown }, Next, Result>(
  update: EtagUpdate<Current, Next, Result>,
): Promise<Result> {
  const maxAttempts = update.maxAttempts ?? 3;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new ClientConfigError(`maxAttempts must be a whole number of at least 1; got ${maxAttempts}`);
  }
  for (let attempt = 1; ; attempt++) {
    const current = await update.read();
    if (typeof current.etag !== 'string' || !current.etag) {
      throw new TypeError(
        'the resource was read without an etag, so it cannot be updated atomically (does `fields` leave out etag?)',
      );
    }
    const next = await update.change(current);
    try {
      return await update.write(next, current.etag);
    } catch (error) {
      if (!isPreconditionFailed(error) || attempt >= maxAttempts) throw error;
    }
  }
}
