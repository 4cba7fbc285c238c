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

export class QuotaMeter {
  private report: QuotaReport = { total: 0, byUser: {}, byOperation: {} };

  /** Charges one call; returns what the user has used in all. */
  charge(user: string, operationId: string, cost: number): number {
    const { report } = this;
    report.total += cost;
    report.byUser[user] = (report.byUser[user] ?? 0) + cost;
    const op = report.byOperation[operationId] ?? { calls: 0, units: 0 };
    op.calls += 1;
    op.units += cost;
    report.byOperation[operationId] = op;
    return report.byUser[user];
  }

  snapshot(): QuotaReport {
    return structuredClone(this.report);
  }

  reset(): void {
    this.report = { total: 0, byUser: {}, byOperation: {} };
  }

  /** The counts as JSON text (a shared store keeps them in its database). */
  save(): string {
    return JSON.stringify(this.report);
  }

  /** Replaces the counts with saved ones (`save`). */
  restore(text: string): void {
    this.report = JSON.parse(text) as QuotaReport;
  }
}
