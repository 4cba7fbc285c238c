/**
 * Google's own client through the mock's validating proxy (`gspec-mock --proxy`): the flow of
 * googleapis-every-operation.test.ts (all 44 operations, as an application calls them) runs
 * again with the proxy between the client and the emulator, and the proxy must find nothing:
 * no answer of the emulator that breaks the specs, and no request of Google's client that the
 * specs call invalid. The proxy checks the answers with server-kit's strict AnswerChecker and
 * the requests with Prism's validation, so this holds the emulator, the specs and the client
 * to each other through a second pair of eyes.
 */
import type { ViolationReport } from '@gspec/mock';
import { describe, expect, it } from 'vitest';
import { googleapisFlow } from './support/googleapis-flow.ts';
import { useEmulator } from './support/harness.ts';

const proxy: { report?: ViolationReport } = {};
googleapisFlow(useEmulator({}, { throughProxy: proxy }));

describe('the validating proxy', () => {
  it('passed every exchange on and found no violation', () => {
    const report = proxy.report?.report();
    expect(report, 'the proxy was not started').toBeDefined();
    expect(report?.violations).toEqual([]);
    expect(report?.refusedAsExpected).toEqual({});
    // Every operation of both specs went through it.
    expect(Object.keys(report?.exchanges ?? {}).filter((id) => !id.includes(' ')).length).toBe(44);
  });
});
