/**
 * The coverage guard: the operations of the bundled specs must be exactly the operations of
 * the two seeds' tables (specs/test/fixtures/seed-operations.json, read in place), and every
 * operation must have contract cases: at least one positive case and the no-token case.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { OperationPlan } from './cases.ts';
import type { ApiSpec } from './spec.ts';
import { operationsOf } from './spec.ts';

export interface SeedOperation {
  operationId: string;
  method: string;
  path: string;
  deprecated: boolean;
}

export type SeedTables = Record<string, SeedOperation[]>;

const require = createRequire(import.meta.url);

/** The seeds' operation tables, by API name (`calendar@v3`), from the specs' fixture. */
export function loadSeedTables(): SeedTables {
  // The package exports only its bundles (dist/); the fixture sits next to them, in test/.
  const specsDir = path.dirname(path.dirname(require.resolve('@gspec/specs/apis.json')));
  const file = path.join(specsDir, 'test', 'fixtures', 'seed-operations.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { apis: SeedTables }).apis;
}

const describeOp = (op: { operationId: string; method: string; path: string }) =>
  `${op.operationId} (${op.method.toUpperCase()} ${op.path})`;

/** Where the specs' operations differ from the seeds' tables: missing, extra or changed. */
export function seedDifferences(specs: ApiSpec[], seeds: SeedTables): string[] {
  const problems: string[] = [];
  const names = new Set([...specs.map((s) => s.name), ...Object.keys(seeds)]);
  for (const name of names) {
    const api = specs.find((s) => s.name === name);
    const seed = seeds[name];
    if (!api) {
      problems.push(`${name}: in the seed tables but no bundled spec`);
      continue;
    }
    if (!seed) {
      problems.push(`${name}: a bundled spec with no seed table`);
      continue;
    }
    const inSpec = new Map(operationsOf(api).map((op) => [op.operationId, op]));
    const inSeed = new Map(seed.map((op) => [op.operationId, op]));
    for (const [id, op] of inSeed) {
      const found = inSpec.get(id);
      if (!found) {
        problems.push(`${name}: ${describeOp(op)} is in the seed table but not in the spec`);
        continue;
      }
      if (found.method.toUpperCase() !== op.method || found.path !== op.path)
        problems.push(
          `${name}: ${id} is ${found.method.toUpperCase()} ${found.path} in the spec but ${op.method} ${op.path} in the seed`,
        );
      if ((found.operation.deprecated === true) !== op.deprecated)
        problems.push(
          `${name}: ${id} is ${op.deprecated ? '' : 'not '}deprecated in the seed, but not so in the spec`,
        );
    }
    for (const [id, op] of inSpec) {
      if (!inSeed.has(id))
        problems.push(`${name}: ${describeOp(op)} is in the spec but not in the seed table`);
    }
  }
  return problems;
}

/** Operations of the specs that the plan leaves without contract tests. */
export function uncoveredOperations(specs: ApiSpec[], plans: OperationPlan[]): string[] {
  const problems: string[] = [];
  for (const api of specs) {
    for (const op of operationsOf(api)) {
      const plan = plans.find((p) => p.api === api && p.op.operationId === op.operationId);
      const label = `${api.name}: ${describeOp(op)}`;
      if (!plan) {
        problems.push(`${label} has no contract test`);
        continue;
      }
      for (const problem of plan.problems) problems.push(`${label} has no contract test: ${problem}`);
      if (plan.problems.length > 0) continue;
      if (!plan.cases.some((c) => c.kind === 'positive')) problems.push(`${label} has no positive case`);
      if (!plan.cases.some((c) => c.kind === 'auth')) problems.push(`${label} has no no-token case`);
    }
  }
  return problems;
}

/** Everything the guard refuses. */
export function coverageProblems(specs: ApiSpec[], seeds: SeedTables, plans: OperationPlan[]): string[] {
  return [...seedDifferences(specs, seeds), ...uncoveredOperations(specs, plans)];
}
