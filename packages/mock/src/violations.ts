/**
 * What the validating proxy (`gspec-mock --proxy`) found: every place where a request or an answer
 * breaks the specs, once per kind, with how often it came.
 *
 * A kind is the operation, the side (request, answer, or the upstream itself), what is wrong, and
 * the place, with array indexes folded (`/items/3/start` and `/items/7/start` are one kind). Its
 * first sighting prints one line on the log; the report (`--report FILE`) lists each kind with
 * its count and first example, as JSON in FILE and as a Markdown summary by operation next to it.
 *
 * A request the specs call invalid that the service refused (4xx) is no violation: the spec and
 * the service agree. It is counted as a refusal as expected. One the service accepted is a
 * violation: the spec refuses what the service takes.
 */
import { writeFileSync } from 'node:fs';
import { isCredentialName, REDACTED, redactText } from '@gspec/server-kit';

export type Side = 'request' | 'answer' | 'upstream';

export interface Violation {
  /** The operationId, or the method and path when no operation of the specs matches. */
  operation: string;
  side: Side;
  /** What is wrong: `schema`, `undocumentedStatus`, `contentType`, `query`, `unreachable`, ... */
  kind: string;
  /** A JSON pointer: into the body (`/items/0/start`), `/query/<name>`, `/headers/<name>`, or empty. */
  pointer: string;
  expected: string;
  got: string;
  /** The upstream's status, when there was an answer. */
  status?: number;
}

export interface ReportedKind extends Violation {
  /** How many times it came. */
  count: number;
}

export interface ProxyReport {
  upstream: string;
  /** Exchanges passed on, by operation. */
  exchanges: Record<string, number>;
  violations: ReportedKind[];
  /** Requests the specs call invalid that the service refused, by operation. */
  refusedAsExpected: Record<string, number>;
}

/** `/items/3/start` → `/items/*\/start`: the kind of a place, whatever item it is in. */
export const foldIndexes = (pointer: string): string => pointer.replace(/\/\d+(?=\/|$)/g, '/*');

/**
 * A violation as it may be logged and kept: a value at a credential's place (`/body/token`,
 * `/query/key`) is replaced, and any credential the texts quote is redacted (server-kit's rules).
 */
function withoutCredentials(violation: Violation): Violation {
  const last = violation.pointer.split('/').at(-1) ?? '';
  const atCredential = isCredentialName(last.replace(/~1/g, '/').replace(/~0/g, '~'));
  return {
    ...violation,
    expected: redactText(violation.expected),
    got: atCredential && violation.got !== 'missing' ? REDACTED : redactText(violation.got),
  };
}

export class ViolationReport {
  private readonly kinds = new Map<string, ReportedKind>();
  private readonly exchanges = new Map<string, number>();
  private readonly refused = new Map<string, number>();

  constructor(
    readonly upstream: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Counts one exchange of an operation. */
  exchange(operation: string): void {
    this.exchanges.set(operation, (this.exchanges.get(operation) ?? 0) + 1);
  }

  /** Counts a request the specs call invalid that the service refused too. */
  refusedAsExpected(operation: string): void {
    this.refused.set(operation, (this.refused.get(operation) ?? 0) + 1);
  }

  /** Adds a violation; the first of its kind is logged. */
  add(found: Violation): void {
    const violation = withoutCredentials(found);
    const folded = foldIndexes(violation.pointer);
    const key = [violation.operation, violation.side, violation.kind, folded].join('\n');
    const known = this.kinds.get(key);
    if (known) {
      known.count++;
      return;
    }
    this.kinds.set(key, { ...violation, count: 1 });
    this.log(
      `violation: ${violation.operation} ${violation.side} ${violation.kind} at ${violation.pointer || '(whole)'}: expected ${violation.expected}; got ${violation.got}${
        violation.status !== undefined ? ` (status ${violation.status})` : ''
      }`,
    );
  }

  /** How many kinds of violation were seen. */
  get size(): number {
    return this.kinds.size;
  }

  report(): ProxyReport {
    const sorted = [...this.kinds.values()].sort(
      (a, b) =>
        a.operation.localeCompare(b.operation) ||
        a.side.localeCompare(b.side) ||
        a.pointer.localeCompare(b.pointer),
    );
    return {
      upstream: this.upstream,
      exchanges: Object.fromEntries([...this.exchanges].sort(([a], [b]) => a.localeCompare(b))),
      violations: sorted,
      refusedAsExpected: Object.fromEntries([...this.refused].sort(([a], [b]) => a.localeCompare(b))),
    };
  }

  /** The Markdown summary: a table of operations, then each operation's kinds. */
  markdown(): string {
    const report = this.report();
    const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
    const lines = [
      '# Proxy report',
      '',
      `Upstream: ${report.upstream}. ${report.violations.length} kind(s) of violation in ${Object.values(report.exchanges).reduce((a, b) => a + b, 0)} exchange(s).`,
      '',
      '| Operation | Exchanges | Violations (kinds) | Refused as expected |',
      '|---|---:|---:|---:|',
    ];
    const operations = new Set([
      ...Object.keys(report.exchanges),
      ...report.violations.map((v) => v.operation),
      ...Object.keys(report.refusedAsExpected),
    ]);
    for (const operation of [...operations].sort()) {
      const kinds = report.violations.filter((v) => v.operation === operation).length;
      lines.push(
        `| ${cell(operation)} | ${report.exchanges[operation] ?? 0} | ${kinds} | ${report.refusedAsExpected[operation] ?? 0} |`,
      );
    }
    for (const operation of [...new Set(report.violations.map((v) => v.operation))]) {
      lines.push(
        '',
        `## ${operation}`,
        '',
        '| Side | Kind | Where | Expected | Got | Count |',
        '|---|---|---|---|---|---:|',
      );
      for (const v of report.violations.filter((x) => x.operation === operation))
        lines.push(
          `| ${v.side} | ${v.kind} | \`${cell(foldIndexes(v.pointer) || '(whole)')}\` | ${cell(v.expected)} | ${cell(v.got)} | ${v.count} |`,
        );
    }
    return `${lines.join('\n')}\n`;
  }

  /**
   * Writes the JSON report to `file` and the Markdown summary next to it (`report.json` and
   * `report.md`; `report` and `report.md`).
   */
  write(file: string): { json: string; markdown: string } {
    const markdown = /\.json$/i.test(file) ? file.replace(/\.json$/i, '.md') : `${file}.md`;
    writeFileSync(file, `${JSON.stringify(this.report(), null, 2)}\n`);
    writeFileSync(markdown, this.markdown());
    return { json: file, markdown };
  }
}
