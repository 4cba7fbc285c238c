/**
 * Each bundled spec against the reference facts of its service (test/fixtures/<stem>.facts.json,
 * copies of shared/reference): the facts are turned back into a Discovery document
 * (test/support/facts-discovery.ts) and compared with the spec by the drift comparison that
 * `gspec-specs drift` runs against Google's own document (src/drift.ts). So both use one
 * comparison and one list of deliberate differences, drift-allowed.json
 * (docs/decisions/0058-drift-against-discovery.md, which replaced the deviations files of 0025).
 *
 * - every difference from the facts is recorded in drift-allowed.json, with the decision
 *   record behind it;
 * - no entry is stale against the facts (entries marked `only: "google"` show only against
 *   Google's own document, which has what the facts left out: they are checked in drift.test.ts);
 * - most of the facts agree with the spec outright: at least 98 % of the facts' parameters
 *   for Calendar and 99 % for Search Ads 360 have the same location, required flag, type,
 *   enum, repetition (and format, default and bounds where the facts give them), and at least
 *   99 % of the properties of the facts' schemas have the same type, format and structure
 *   (reference, items, map values). Recorded differences are for the few intended ones, not
 *   for unfinished work.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AllowedFile, applyAllowed, readAllowed, type Sorted } from '../src/allowed.ts';
import { checkDiscovery, discoveryModel } from '../src/discovery.ts';
import { compareApis, type Difference, describeDifference } from '../src/drift.ts';
import type { Shape } from '../src/model.ts';
import { openApiModel } from '../src/openapi.ts';
import { discoveryFromFacts, type FactsApi, readFacts } from './support/facts-discovery.ts';

const specsDir = path.resolve(import.meta.dirname, '..');

const APIS = [
  { api: 'calendar', operations: 37, parameterShare: 0.98, propertyShare: 0.99 },
  { api: 'searchads360', operations: 7, parameterShare: 0.99, propertyShare: 0.99 },
] as const satisfies readonly { api: FactsApi; [key: string]: unknown }[];

/** Aspects of a parameter the facts state; a difference in one of them makes it unequal. */
const PARAMETER_ASPECTS = new Set(['location', 'required', 'repeated', 'type', 'enum']);
/** Stated only where the facts give one. */
const STATED_PARAMETER_ASPECTS = new Set(['format', 'default', 'minimum', 'maximum']);
/** Enums and the other narrowing keywords the spec adds are recorded constraints (0039), not counted here. */
const PROPERTY_ASPECTS = new Set(['type', 'format', '$ref', 'items', 'additionalProperties']);

/** Every property place of a Discovery schema: nested objects, array items and map values. */
function propertyPlaces(at: string, shape: Shape, out: string[] = []): string[] {
  for (const [name, child] of Object.entries(shape.properties ?? {})) {
    out.push(`${at}/properties/${name}`);
    propertyPlaces(`${at}/properties/${name}`, child, out);
  }
  for (const key of ['items', 'additionalProperties'] as const) {
    const child = shape[key];
    if (child) {
      out.push(`${at}/${key}`);
      propertyPlaces(`${at}/${key}`, child, out);
    }
  }
  return out;
}

const percent = (equal: number, total: number) => (total === 0 ? 100 : (100 * equal) / total);

const allowedFile: AllowedFile = readAllowed(path.join(specsDir, 'drift-allowed.json'));

for (const cfg of APIS) {
  describe(`${cfg.api} against its reference facts`, () => {
    const facts = readFacts(cfg.api);
    const discovery = discoveryFromFacts(cfg.api, facts);
    let differences: Difference[] = [];
    let sorted: Sorted;
    let parameterPlaces: string[] = [];
    let properties: string[] = [];

    const unequalAt = (place: string, counts: (d: Difference) => boolean) =>
      differences.some((d) => d.at === place && counts(d));
    const parameterUnequal = (d: Difference) =>
      d.kind === 'parameter added' ||
      (d.kind === 'parameter changed' &&
        (PARAMETER_ASPECTS.has(d.aspect ?? '') ||
          (STATED_PARAMETER_ASPECTS.has(d.aspect ?? '') && d.expected !== null)));
    const propertyUnequal = (d: Difference) =>
      d.kind === 'property added' || (d.kind === 'property changed' && PROPERTY_ASPECTS.has(d.aspect ?? ''));

    beforeAll(() => {
      checkDiscovery(discovery, `${cfg.api} facts`);
      const google = discoveryModel(discovery);
      const ours = openApiModel(
        JSON.parse(readFileSync(path.join(specsDir, 'dist', `${cfg.api}.json`), 'utf8')),
      );
      differences = compareApis(google, ours);
      sorted = applyAllowed(differences, allowedFile[cfg.api] ?? [], (entry) => entry.only !== 'google');
      parameterPlaces = [...google.operations.values()].flatMap((op) =>
        [...op.parameters.keys()].map((name) => `/operations/${op.id}/parameters/${name}`),
      );
      properties = [...google.schemas].flatMap(([name, shape]) => propertyPlaces(`/schemas/${name}`, shape));
      const equalParameters = parameterPlaces.filter((p) => !unequalAt(p, parameterUnequal)).length;
      const equalProperties = properties.filter((p) => !unequalAt(p, propertyUnequal)).length;
      console.log(
        [
          `${cfg.api} against its facts: ${differences.length} differences, ${sorted.allowed.length} recorded in drift-allowed.json`,
          `  parameters equal: ${equalParameters}/${parameterPlaces.length} (${percent(equalParameters, parameterPlaces.length).toFixed(1)} %)`,
          `  properties equal: ${equalProperties}/${properties.length} (${percent(equalProperties, properties.length).toFixed(1)} %)`,
        ].join('\n'),
      );
    });

    it(`holds the ${cfg.operations} operations of the facts file`, () => {
      expect(facts.operations).toHaveLength(cfg.operations);
    });

    it('has every operation of the facts with its method and path, and no other but recorded ones', () => {
      const operations = sorted.reported.filter((d) => d.kind.startsWith('operation'));
      expect(operations.map(describeDifference)).toEqual([]);
    });

    it('records every difference from the facts in drift-allowed.json', () => {
      expect(sorted.reported.map((d) => `${d.kind}: ${describeDifference(d)}`)).toEqual([]);
    });

    it('has no entry in drift-allowed.json that the facts no longer show', () => {
      expect(sorted.stale.map((s) => `${s.kind} ${s.at}${s.aspect ? ` (${s.aspect})` : ''}`)).toEqual([]);
    });

    it(`agrees with at least ${cfg.parameterShare * 100} % of the facts' parameters`, () => {
      const equal = parameterPlaces.filter((p) => !unequalAt(p, parameterUnequal)).length;
      expect(percent(equal, parameterPlaces.length)).toBeGreaterThanOrEqual(cfg.parameterShare * 100);
    });

    it(`agrees with at least ${cfg.propertyShare * 100} % of the facts' schema properties`, () => {
      const equal = properties.filter((p) => !unequalAt(p, propertyUnequal)).length;
      expect(percent(equal, properties.length)).toBeGreaterThanOrEqual(cfg.propertyShare * 100);
    });
  });
}
