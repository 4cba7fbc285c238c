/**
 * Looking up a record of the state by an id a client chose. The state keeps records in plain
 * objects keyed by id (it is dumped and loaded as JSON), so `records[id]` with `__proto__` or
 * `constructor` would find Object.prototype's properties, and writing to what was found would
 * change every object of the process. Every lookup by a client's id goes through `own`.
 */
export function own<T>(records: Record<string, T> | undefined, id: string): T | undefined {
  return records !== undefined && Object.hasOwn(records, id) ? records[id] : undefined;
}

/** Sets `record[key]` as an own property, even for `__proto__` (which `=` would take as the prototype). */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}
