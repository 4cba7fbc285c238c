/**
 * Every operation of both specs, as the bundled specs list them (no hand-kept list), with
 * the cases generated from its spec (support/cases.ts): positive cases from the named
 * examples, every documented answer (mock), the negative cases and the no-token case. Each
 * request goes through the generated client; each answer is checked against the spec
 * (support/run.ts), strictly (support/validate.ts). On a stateful target (the emulator) a
 * positive case first creates the resources its examples name (support/fixtures.ts).
 */
import { describe, it } from 'vitest';
import { planApi } from './support/cases.ts';
import { prepareOnStatefulTarget } from './support/fixtures.ts';
import { knownIssue } from './support/known-issues.ts';
import { checkAnswer, currentTarget, send, skipReason } from './support/run.ts';
import { loadSpecs } from './support/spec.ts';
import { targetFromEnv } from './support/target.ts';

const specs = loadSpecs();
const plans = specs.flatMap(planApi);
const cases = plans.flatMap((plan) => plan.cases);
const count = (kind: string) => cases.filter((c) => c.kind === kind).length;
const targetKind = targetFromEnv().kind;

console.log(
  `contract cases generated from the specs: ${cases.length} for ${plans.length} operations — ` +
    `${count('positive')} positive, ${count('documented')} documented answers, ` +
    `${count('negative')} negative, ${count('auth')} no-token`,
);

describe.each(specs.map((api) => [api.name, api] as const))('%s', (_name, api) => {
  for (const plan of plans.filter((p) => p.api === api)) {
    const { operationId } = plan.op;
    describe(operationId, () => {
      for (const c of plan.cases) {
        const known = knownIssue(targetKind, operationId, c.kind, c.title);
        const test = known ? it.fails : it;
        const name = `${c.kind}: ${c.title}${known ? ` [known ${known.owner} issue: ${known.reason}]` : ''}`;
        test(name, { meta: { api: api.name, operationId, caseKind: c.kind } }, async (ctx) => {
          const target = currentTarget();
          const reason = skipReason(c, target);
          if (reason) ctx.skip(reason);
          let request = c.request;
          if (target.kind === 'emulator' && c.kind === 'positive') {
            request = await prepareOnStatefulTarget(c.op, c.request);
          }
          checkAnswer(c, await send(c.op, request), target);
        });
      }
    });
  }
});
