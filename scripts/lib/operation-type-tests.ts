/**
 * The per-operation type tests both clients run (packages/<client>/test/types.test.ts): for
 * every operation of the spec, its method takes a value of its argument type, and leaving out
 * any member the operation requires is an error naming that member (argumentChecks); for a
 * member a replace leaves optional in its argument (decision 0060), leaving it out of the body
 * type is.
 */
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from './apis.ts';
import { listOperations, readBackOptional, requiredArguments } from './operations.ts';
import { argumentChecks, type TypeProbe } from './type-probe.ts';

export function describeEveryOperation(
  probe: TypeProbe,
  client: { module: string; create: string },
  doc: OpenApiDocument,
): void {
  describe('every operation of the spec', () => {
    const checks = argumentChecks(
      probe,
      client,
      listOperations(doc).map((op) => ({
        operationId: op.operationId,
        members: requiredArguments(doc, op),
        bodyMembers: readBackOptional(doc, op),
      })),
    );

    it.each(checks.filter((c) => !c.without).map((c) => [c.operationId, c] as const))(
      '%s takes a value of its argument type',
      (_id, check) => {
        expect(check.errors).toEqual([]);
      },
    );

    it.each(checks.filter((c) => c.without).map((c) => [c.operationId, c.without, c.of, c] as const))(
      '%s requires %s (in %s): leaving it out is an error naming it',
      (_id, member, _of, check) => {
        expect(check.errors).toHaveLength(1);
        expect(check.errors[0]).toContain(`'${member}'`);
      },
    );
  });
}
