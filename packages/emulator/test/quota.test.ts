/**
 * The quota meter's counts as a shared store adds them up (core/quota.ts): the calls since they
 * were last taken, by user and operation, a reset told once, and the shared sums put back.
 */
import { describe, expect, it } from 'vitest';
import { QuotaMeter } from '../src/core/quota.ts';

describe('the quota meter', () => {
  it('keeps nothing to take until a shared store tracks it', () => {
    const meter = new QuotaMeter();
    expect(meter.charge('ana@example.com', 'events.list', 1)).toBe(1);
    expect(meter.take()).toEqual({ reset: false, rows: [] });
    expect(meter.snapshot().total).toBe(1);
  });

  it('gives the calls since the last take, by user and operation, once', () => {
    const meter = new QuotaMeter();
    meter.track();
    meter.charge('ana@example.com', 'events.list', 1);
    meter.charge('ana@example.com', 'events.patch', 3);
    meter.charge('ana@example.com', 'events.list', 1);
    meter.charge('bo@example.com', 'events.list', 1);
    expect(meter.take()).toEqual({
      reset: false,
      rows: [
        { user: 'ana@example.com', operation: 'events.list', calls: 2, units: 2 },
        { user: 'ana@example.com', operation: 'events.patch', calls: 1, units: 3 },
        { user: 'bo@example.com', operation: 'events.list', calls: 1, units: 1 },
      ],
    });
    expect(meter.take()).toEqual({ reset: false, rows: [] });
    expect(meter.snapshot().byUser).toEqual({ 'ana@example.com': 5, 'bo@example.com': 1 });
  });

  it('tells a reset once, with only the calls after it', () => {
    const meter = new QuotaMeter();
    meter.track();
    meter.charge('ana@example.com', 'events.list', 1);
    meter.reset();
    meter.charge('ana@example.com', 'events.get', 1);
    expect(meter.take()).toEqual({
      reset: true,
      rows: [{ user: 'ana@example.com', operation: 'events.get', calls: 1, units: 1 }],
    });
    expect(meter.take().reset).toBe(false);
  });

  it('puts back the shared sums as its counts, and forgets what it had not given', () => {
    const meter = new QuotaMeter();
    meter.track();
    meter.charge('ana@example.com', 'events.list', 1);
    meter.restore([
      { user: 'ana@example.com', operation: 'events.list', calls: 4, units: 4 },
      { user: 'bo@example.com', operation: 'events.patch', calls: 2, units: 6 },
    ]);
    expect(meter.snapshot()).toEqual({
      total: 10,
      byUser: { 'ana@example.com': 4, 'bo@example.com': 6 },
      byOperation: { 'events.list': { calls: 4, units: 4 }, 'events.patch': { calls: 2, units: 6 } },
    });
    expect(meter.take()).toEqual({ reset: false, rows: [] });
    expect(meter.charge('ana@example.com', 'events.list', 1)).toBe(5);
  });
});
