/**
 * The coverage guard: the specs' operations are exactly the seeds' tables (44: 37 Calendar,
 * 7 Search Ads 360), and each has contract cases. The guard is also run on modified copies
 * of the bundled specs, to show that removing an operation, or adding one that gets no
 * test, fails it.
 */
import { describe, expect, it } from 'vitest';
import { planApi } from './support/cases.ts';
import { coverageProblems, loadSeedTables } from './support/coverage.ts';
import { type ApiSpec, type Json, loadSpecs, operationsOf } from './support/spec.ts';

const specs = loadSpecs();
const seeds = loadSeedTables();
const guard = (apis: ApiSpec[]) => coverageProblems(apis, seeds, apis.flatMap(planApi));

/** A copy of the specs with the calendar document changed by `change`. */
function withCalendar(change: (doc: Json) => void): ApiSpec[] {
  return specs.map((api) => {
    if (api.id !== 'calendar') return api;
    const doc = structuredClone(api.doc);
    change(doc);
    return { ...api, doc };
  });
}

describe('the coverage guard', () => {
  it('finds 44 operations in the seed tables: 37 Calendar, 7 Search Ads 360', () => {
    expect(Object.fromEntries(Object.entries(seeds).map(([name, ops]) => [name, ops.length]))).toEqual({
      'calendar@v3': 37,
      'searchads360@v2': 7,
    });
  });

  it('passes on the bundled specs: the same operations as the seeds, each with contract cases', () => {
    expect(guard(specs)).toEqual([]);
    expect(specs.flatMap(operationsOf)).toHaveLength(44);
  });

  it('fails when an operation is removed from a spec', () => {
    const changed = withCalendar((doc) => {
      delete doc.paths['/colors'].get;
    });
    expect(guard(changed)).toEqual([
      'calendar@v3: colors.get (GET /colors) is in the seed table but not in the spec',
    ]);
  });

  it('fails when an operation is added without anything to test it with', () => {
    const changed = withCalendar((doc) => {
      doc.paths['/calendars/{calendarId}/events/archive'] = {
        post: {
          operationId: 'events.archive',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
          responses: { '401': doc.paths['/colors'].get.responses['401'] },
        },
      };
    });
    const problems = guard(changed);
    expect(problems).toContain(
      'calendar@v3: events.archive (POST /calendars/{calendarId}/events/archive) is in the spec but not in the seed table',
    );
    expect(problems).toContainEqual(
      expect.stringMatching(/^calendar@v3: events\.archive .* has no contract test: .*no named example/),
    );
  });

  it('fails when an operation is added with examples but outside the seeds', () => {
    const changed = withCalendar((doc) => {
      doc.paths['/colors/v2'] = { get: { ...doc.paths['/colors'].get, operationId: 'colors.getV2' } };
    });
    expect(guard(changed)).toEqual([
      'calendar@v3: colors.getV2 (GET /colors/v2) is in the spec but not in the seed table',
    ]);
  });

  it('fails when an operation changes its method or path, or loses its deprecation', () => {
    const searchAds = specs.map((api) => {
      if (api.id !== 'searchads360') return api;
      const doc = structuredClone(api.doc);
      const conversion = Object.values<Json>(doc.paths).find(
        (item) => item.get?.operationId === 'conversion.get',
      );
      delete conversion.get.deprecated;
      return { ...api, doc };
    });
    expect(guard(searchAds)).toEqual([
      'searchads360@v2: conversion.get is deprecated in the seed, but not so in the spec',
    ]);
    const moved = withCalendar((doc) => {
      doc.paths['/colors'].post = doc.paths['/colors'].get;
      delete doc.paths['/colors'].get;
    });
    expect(guard(moved)).toEqual([
      'calendar@v3: colors.get is POST /colors in the spec but GET /colors in the seed',
    ]);
  });

  it('fails when an operation has no positive case', () => {
    const plans = specs
      .flatMap(planApi)
      .map((plan) =>
        plan.op.operationId === 'events.list'
          ? { ...plan, cases: plan.cases.filter((c) => c.kind !== 'positive') }
          : plan,
      );
    expect(coverageProblems(specs, seeds, plans)).toEqual([
      'calendar@v3: events.list (GET /calendars/{calendarId}/events) has no positive case',
    ]);
  });
});
