/**
 * What an attacker can send the mock before any credential is checked, over HTTP: the table of
 * @gspec/scripts/hostile-requests, which the emulator's test runs too. Each gets the answer a
 * short request of its kind gets, never a 500, and the mock still answers afterwards. How long
 * they take, against a normal request of the same size, is measured by
 * packages/emulator/bench/hostile.bench.ts, not here.
 */
import { answerOf, HOSTILE_REQUESTS } from '@gspec/scripts/hostile-requests';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGateway,
  createProxy,
  type Gateway,
  loadApis,
  type ValidatingProxy,
  ViolationReport,
} from '../src/index.ts';

let gateway: Gateway;
let origin: string;
/** The validating proxy (`--proxy`) before the mock: it must pass every answer on as it came. */
let proxy: ValidatingProxy;
let proxied: string;
/** What the proxy logged: a check it could not make (a stack overflow in a schema walk, say) shows here. */
const proxyLog: string[] = [];

beforeAll(async () => {
  const apis = await loadApis();
  gateway = createGateway({ apis });
  origin = await gateway.listen(0);
  proxy = createProxy({
    apis,
    upstream: origin,
    report: new ViolationReport(origin, () => undefined),
    log: (line) => proxyLog.push(line),
  });
  proxied = await proxy.listen(0);
});
afterAll(async () => {
  await proxy.close();
  await gateway.close();
});

describe('hostile requests', () => {
  it.each(HOSTILE_REQUESTS)(
    'answers %s as a short one, and still answers after',
    async (_, request, expected) => {
      const answer = await answerOf(origin, request, 'test-token');
      expect(answer.status).toBe(expected.status);
      if (expected.part !== undefined) expect(answer.part).toBe(expected.part);
      if (expected.reason !== undefined) {
        expect(answer.reason).toBe(expected.reason);
        expect(answer.location).toBe(expected.location);
        if (expected.message !== undefined) expect(answer.message).toMatch(expected.message);
      }
      expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    },
  );
});

describe('hostile requests through the validating proxy', () => {
  it.each(HOSTILE_REQUESTS)(
    'answers %s as the mock behind it does, and still answers after',
    async (_, request, expected) => {
      const answer = await answerOf(proxied, request, 'test-token');
      expect(answer.status).toBe(expected.status);
      if (expected.part !== undefined) expect(answer.part).toBe(expected.part);
      if (expected.reason !== undefined) expect(answer.reason).toBe(expected.reason);
      expect((await fetch(`${proxied}/healthz`)).status).toBe(200);
      expect(proxyLog).toEqual([]);
    },
  );
});
