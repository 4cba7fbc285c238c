/**
 * What an attacker can send the emulator before any credential is checked, over HTTP: the
 * table of @gspec/scripts/hostile-requests, which the mock's test runs too. Each gets the
 * answer a short request of its kind gets, never a 500, and the emulator still answers
 * afterwards. How long they take, against a normal request of the same size, is measured by
 * bench/hostile.bench.ts, not here.
 */
import { answerOf, HOSTILE_REQUESTS } from '@gspec/scripts/hostile-requests';
import { describe, expect, it } from 'vitest';
import { useEmulator } from './support/harness.ts';

const emu = useEmulator();

describe('hostile requests', () => {
  it.each(HOSTILE_REQUESTS)(
    'answers %s as a short one, and still answers after',
    async (_, request, expected) => {
      const answer = await answerOf(emu.origin, request, 'ana@example.com');
      expect(answer.status).toBe(expected.status);
      if (expected.part !== undefined) expect(answer.part).toBe(expected.part);
      if (expected.reason !== undefined) {
        expect(answer.reason).toBe(expected.reason);
        expect(answer.location).toBe(expected.location);
        if (expected.message !== undefined) expect(answer.message).toMatch(expected.message);
      }
      expect((await fetch(`${emu.origin}/__emulator/health`)).status).toBe(200);
    },
  );
});
