/**
 * Quota use: each request to an operation costs the operation's x-quota-cost (patch 3, others
 * 1), counted per user and per operation, reported in the answer's headers and by the control
 * plane (`GET /__emulator/quota`). Nothing is refused for quota; it is only counted.
 */
export const QUOTA_COST_HEADER = 'x-emulator-quota-cost';
export const QUOTA_USED_HEADER = 'x-emulator-quota-used';

export interface QuotaReport {
  total: number;
  byUser: Record<string, number>;
  byOperation: Record<string, { calls: number; units: number }>;
}

/** One user's calls of one operation, as a shared store keeps them (a row of emulator_quota). */
export interface QuotaRow {
  user: string;
  operation: string;
  calls: number;
  units: number;
}

/** The calls counted since they were last taken (`QuotaMeter.take`), for a shared store to add. */
export interface QuotaCounts {
  /** The counts were reset before these calls: the shared ones are emptied first. */
  reset: boolean;
  rows: QuotaRow[];
}

const emptyReport = (): QuotaReport => ({ total: 0, byUser: {}, byOperation: {} });

/** Adds `calls` calls of `units` units in all, by `user` to `operation`, to a report. */
function add(report: QuotaReport, user: string, operation: string, calls: number, units: number): void {
  report.total += units;
  report.byUser[user] = (report.byUser[user] ?? 0) + units;
  const op = report.byOperation[operation] ?? { calls: 0, units: 0 };
  op.calls += calls;
  op.units += units;
  report.byOperation[operation] = op;
}

export class QuotaMeter {
  private report = emptyReport();
  /** The calls not yet taken, by user and operation (kept once `track` is called). */
  private readonly pending = new Map<string, Map<string, QuotaRow>>();
  private wasReset = false;
  private tracking = false;

  /** Keeps the calls counted from now on for `take` (a shared store adds them up). */
  track(): void {
    this.tracking = true;
  }

  /** Charges one call; returns what the user has used in all. */
  charge(user: string, operationId: string, cost: number): number {
    const { report } = this;
    add(report, user, operationId, 1, cost);
    if (!this.tracking) return report.byUser[user] ?? 0;
    let byOperation = this.pending.get(user);
    if (!byOperation) {
      byOperation = new Map();
      this.pending.set(user, byOperation);
    }
    const row = byOperation.get(operationId) ?? { user, operation: operationId, calls: 0, units: 0 };
    row.calls += 1;
    row.units += cost;
    byOperation.set(operationId, row);
    return report.byUser[user] ?? 0;
  }

  snapshot(): QuotaReport {
    return structuredClone(this.report);
  }

  reset(): void {
    this.report = emptyReport();
    this.pending.clear();
    this.wasReset = true;
  }

  /**
   * The calls counted since the last `take` or `restore` (and whether the counts were reset
   * first), forgotten here: a shared store adds them to the counts every process shares.
   */
  take(): QuotaCounts {
    const counts = {
      reset: this.wasReset,
      rows: [...this.pending.values()].flatMap((ops) => [...ops.values()]),
    };
    this.pending.clear();
    this.wasReset = false;
    return counts;
  }

  /** Replaces the counts with the shared ones (what `take` gave, summed over every process). */
  restore(rows: readonly QuotaRow[]): void {
    const report = emptyReport();
    for (const { user, operation, calls, units } of rows) add(report, user, operation, calls, units);
    this.report = report;
    this.pending.clear();
    this.wasReset = false;
  }
}
