/**
 * The specs against the reference facts of the real services (test/fixtures/<stem>.facts.json,
 * copies of shared/reference/). For each API:
 *
 * - operations: every facts operation is in the bundled spec with the same operationId,
 *   method and path, and the spec has no operation the facts lack;
 * - parameters: every facts parameter is in the spec operation (path-level and
 *   operation-level parameters merged, $refs resolved) with the same name, `in`, required
 *   flag, type and enum (for arrays: the items' type and enum), and the format, bounds and
 *   default wherever the facts give one;
 * - property paths: every property path of every facts schema (`Event.attendees[].email`,
 *   `[]` for array items, `{}` for additionalProperties, facts $refs followed, cycles cut)
 *   is in the spec component of the same name with the same type and format;
 * - constraints: every narrowing keyword the spec adds to what the facts state (an enum,
 *   pattern, length, bound, item count, `not`, a format on a parameter, a `required` list
 *   on an object or a request body) is recorded with the reason the live service has it.
 *   A constraint the live service does not have makes the spec stricter than the service:
 *   remove it instead of recording it.
 *
 * Where the spec differs on purpose, the difference is recorded with its reason in
 * test/fixtures/<stem>.deviations.json (a missing file counts as empty). Its shape, also
 * described in test/fixtures/DEVIATIONS.md:
 *
 *   {
 *     "parameters": [{ "operation": "events.list", "name": "eventTypes", "in": "query", "reason": "..." }],
 *     "properties": [{ "path": "Event.eventType", "reason": "..." }],
 *     "schemas":    [{ "schema": "IdMappingFile", "reason": "..." }]
 *   }
 *
 * `in` is optional (it narrows the match); every array is optional; every entry needs a
 * reason. An entry under `schemas` covers a facts schema that has no spec component of
 * that name, and with it all of that schema's property paths. The test fails on an unequal
 * item that is not recorded, and on a recorded deviation that is no longer a difference.
 */
import path from 'node:path';
import type { OpenApiDocument } from '@gspec/scripts/apis';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ConstraintResult,
  compareConstraints,
  compareParameters,
  compareProperties,
  type Facts,
  fixturesDir,
  loadDeviations,
  type ParameterDeviation,
  type ParameterResult,
  type PropertyResult,
  readJson,
} from './facts-compare.ts';
import { loadSpec, operationsOf } from './support.ts';

// ---------------------------------------------------------------------------------------
// The tests

const APIS = [
  // Calendar's property share is 98 %: the seven paths of EventDateTime.dateTime differ on purpose (0036).
  { api: 'calendar@v3', stem: 'calendar-v3', operations: 37, parameterShare: 0.98, propertyShare: 0.98 },
  {
    api: 'searchads360@v2',
    stem: 'searchads360-v2',
    operations: 7,
    parameterShare: 0.99,
    propertyShare: 0.99,
  },
] as const;

const percent = (equal: number, total: number) => (total === 0 ? 100 : (100 * equal) / total);
const describeItem = (r: { why: string }, key: string) => `${key}: ${r.why}`;

for (const cfg of APIS) {
  describe(`${cfg.api} against its facts`, () => {
    const facts = readJson<Facts>(path.join(fixturesDir, `${cfg.stem}.facts.json`));
    const deviations = loadDeviations(cfg.stem);
    let doc: OpenApiDocument;
    let parameters: ParameterResult[] = [];
    let properties: PropertyResult[] = [];
    let missingSchemas: string[] = [];
    let constraints: ConstraintResult[] = [];
    const constraintRecorded = (r: ConstraintResult) =>
      (deviations.constraints ?? []).some((d) => d.keyword === r.keyword && d.at.includes(r.at));

    const paramMatches = (d: ParameterDeviation, r: ParameterResult) =>
      d.operation === r.operation && d.name === r.name && (d.in === undefined || d.in === r.in);
    const coveredSchemas = new Set((deviations.schemas ?? []).map((d) => d.schema));

    beforeAll(async () => {
      doc = await loadSpec(cfg.api);
      parameters = compareParameters(doc, cfg.api, facts);
      properties = compareProperties(doc, facts);
      constraints = compareConstraints(doc, cfg.api, facts);
      missingSchemas = Object.keys(facts.schemas).filter((name) => !doc.components?.schemas?.[name]);
      const specOps = operationsOf(cfg.api, doc);
      const paramsEqual = parameters.filter((r) => r.equal).length;
      const propsEqual = properties.filter((r) => r.equal).length;
      const recorded =
        (deviations.parameters?.length ?? 0) +
        (deviations.properties?.length ?? 0) +
        (deviations.schemas?.length ?? 0) +
        (deviations.constraints?.length ?? 0);
      console.log(
        [
          `${cfg.api} vs ${cfg.stem}.facts.json`,
          `  operations: facts ${facts.operations.length}, spec ${specOps.length}`,
          `  parameters equal: ${paramsEqual}/${parameters.length} (${percent(paramsEqual, parameters.length).toFixed(1)} %)`,
          `  property paths equal: ${propsEqual}/${properties.length} (${percent(propsEqual, properties.length).toFixed(1)} %)`,
          `  facts schemas without a spec component: ${missingSchemas.join(', ') || 'none'}`,
          `  constraints the spec adds: ${constraints.length}`,
          `  deviations recorded: ${recorded} (parameters ${deviations.parameters?.length ?? 0}, properties ${deviations.properties?.length ?? 0}, schemas ${deviations.schemas?.length ?? 0})`,
        ].join('\n'),
      );
    });

    it(`holds the ${cfg.operations} operations of the facts file`, () => {
      expect(facts.operations).toHaveLength(cfg.operations);
    });

    it('has every facts operation with the same operationId, method and path', () => {
      const specOps = new Map(operationsOf(cfg.api, doc).map((op) => [op.operationId, op]));
      const wrong = facts.operations.flatMap((f) => {
        const s = specOps.get(f.operation);
        if (!s) return [`${f.operation}: missing (facts ${f.method} ${f.path})`];
        if (s.method !== f.method.toLowerCase() || s.path !== f.path) {
          return [`${f.operation}: facts ${f.method} ${f.path}, spec ${s.method.toUpperCase()} ${s.path}`];
        }
        return [];
      });
      expect(wrong).toEqual([]);
    });

    it('has no operation the facts lack', () => {
      const known = new Set(facts.operations.map((f) => f.operation));
      const extra = operationsOf(cfg.api, doc)
        .filter((op) => !known.has(op.operationId))
        .map((op) => `${op.operationId} (${op.method.toUpperCase()} ${op.path})`);
      expect(extra).toEqual([]);
    });

    it(`matches at least ${cfg.parameterShare * 100} % of the facts' parameters`, () => {
      const equal = parameters.filter((r) => r.equal).length;
      expect(percent(equal, parameters.length)).toBeGreaterThanOrEqual(cfg.parameterShare * 100);
    });

    it('records every unequal parameter as a deviation', () => {
      const unrecorded = parameters
        .filter((r) => !r.equal && !(deviations.parameters ?? []).some((d) => paramMatches(d, r)))
        .map((r) => describeItem(r, `${r.operation} ${r.in} ${r.name}`));
      expect(unrecorded).toEqual([]);
    });

    it('has no stale parameter deviation', () => {
      const stale = (deviations.parameters ?? [])
        .filter((d) => !parameters.some((r) => !r.equal && paramMatches(d, r)))
        .map((d) => `${d.operation} ${d.in ?? '*'} ${d.name}`);
      expect(stale).toEqual([]);
    });

    it(`matches at least ${cfg.propertyShare * 100} % of the facts' property paths`, () => {
      const equal = properties.filter((r) => r.equal).length;
      expect(percent(equal, properties.length)).toBeGreaterThanOrEqual(cfg.propertyShare * 100);
    });

    it('records every unequal property path as a deviation', () => {
      const recorded = new Set((deviations.properties ?? []).map((d) => d.path));
      const unrecorded = properties
        .filter((r) => !r.equal && !recorded.has(r.path) && !coveredSchemas.has(r.schema))
        .map((r) => describeItem(r, r.path));
      expect(unrecorded).toEqual([]);
    });

    it('has no stale property deviation', () => {
      const unequal = new Set(properties.filter((r) => !r.equal).map((r) => r.path));
      const stale = (deviations.properties ?? []).filter((d) => !unequal.has(d.path)).map((d) => d.path);
      expect(stale).toEqual([]);
    });

    it('records every facts schema the spec does not have, and no other', () => {
      expect(missingSchemas.filter((name) => !coveredSchemas.has(name))).toEqual([]);
      const stale = [...coveredSchemas].filter((name) => !missingSchemas.includes(name));
      expect(stale).toEqual([]);
    });

    it('records every constraint the spec adds to the facts, with why the live service has it', () => {
      const unrecorded = constraints
        .filter((r) => !constraintRecorded(r))
        .map((r) => `${r.at}: ${r.keyword} ${JSON.stringify(r.value)}`);
      expect(unrecorded).toEqual([]);
    });

    it('has no stale constraint deviation', () => {
      const stale = (deviations.constraints ?? []).flatMap((d) =>
        d.at
          .filter((at) => !constraints.some((r) => r.keyword === d.keyword && r.at === at))
          .map((at) => `${at}: ${d.keyword}`),
      );
      expect(stale).toEqual([]);
    });

    it('gives every deviation a reason', () => {
      const all = [
        ...(deviations.parameters ?? []),
        ...(deviations.properties ?? []),
        ...(deviations.schemas ?? []),
        ...(deviations.constraints ?? []),
      ];
      const without = all.filter((d) => typeof d.reason !== 'string' || d.reason.trim() === '');
      expect(without).toEqual([]);
    });
  });
}
