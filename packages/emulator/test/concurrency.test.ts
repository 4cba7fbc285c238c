/**
 * Many writers on one event at once, over HTTP. Each does read–change–write with `If-Match` set
 * to the etag it read, and starts over on 412: every writer's change must be in the final
 * event exactly once (no lost update), contention must really have happened (412s were
 * answered), and the event's `sequence` and etag must tell the same story as the writes
 * (one sequence step per accepted write, the etag of the last one). Once with raw requests,
 * once with `modifyEvent` of @gspec/calendar.
 */
import { createCalendarClient, modifyEvent } from '@gspec/calendar';
import { beforeEach, describe, expect, it } from 'vitest';
import { timedEvent, useEmulator } from './support/harness.ts';

const harness = useEmulator();
const WRITERS = 20;
const ROUNDS = 5;
const TOKEN = 'ana@example.com';

const tokensOf = (writers: number, rounds: number) =>
  Array.from({ length: writers }, (_, w) => Array.from({ length: rounds }, (_, r) => `w${w}r${r}`)).flat();

/** Event ids of a fresh event, with `description` and a counter in extendedProperties. */
async function contendedEvent(): Promise<{ id: string; path: string }> {
  const created = await harness.call('POST', '/calendars/primary/events', {
    body: timedEvent('Contended', 9, { description: '', extendedProperties: { private: { count: '0' } } }),
  });
  expect(created.status).toBe(200);
  expect(created.body.sequence).toBe(0);
  return { id: created.body.id, path: `/calendars/primary/events/${created.body.id}` };
}

describe('concurrent writers on one event', () => {
  beforeEach(() => harness.reset());

  it('lose no update when they write with If-Match and retry on 412', async () => {
    const { path } = await contendedEvent();
    const counts = { reads: 0, accepted: 0, conflicts: 0 };
    /** Sequence of each accepted write by its etag. */
    const accepted = new Map<string, number>();
    const writer = async (w: number) => {
      for (let r = 0; r < ROUNDS; r++) {
        for (let attempt = 1; ; attempt++) {
          expect(attempt, `writer ${w} round ${r} never got through`).toBeLessThan(500);
          const read = await harness.call('GET', path);
          counts.reads++;
          expect(read.status).toBe(200);
          const event = read.body;
          const write = await harness.call('PATCH', path, {
            headers: { 'if-match': event.etag },
            body: {
              description: `${event.description} w${w}r${r}`.trim(),
              extendedProperties: {
                private: { count: String(Number(event.extendedProperties.private.count) + 1) },
              },
            },
          });
          if (write.status === 412) {
            expect(write.body.error.errors[0].reason).toBe('conditionNotMet');
            counts.conflicts++;
            continue;
          }
          expect(write.status, JSON.stringify(write.body)).toBe(200);
          counts.accepted++;
          accepted.set(write.body.etag, write.body.sequence);
          break;
        }
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));

    const final = (await harness.call('GET', path)).body;
    const total = WRITERS * ROUNDS;
    expect(final.description.split(' ').sort()).toEqual(tokensOf(WRITERS, ROUNDS).sort());
    expect(final.extendedProperties.private.count).toBe(String(total));
    // Every accepted write saw the one before it: sequences 1..total, one etag each, the last one's etag stays.
    expect(counts.accepted).toBe(total);
    expect([...accepted.values()].sort((a, b) => a - b)).toEqual(
      Array.from({ length: total }, (_, i) => i + 1),
    );
    expect(final.sequence).toBe(total);
    expect(accepted.get(final.etag)).toBe(total);
    expect(counts.conflicts, 'no writer ever met a 412: the test made no contention').toBeGreaterThan(0);
    console.log(
      `concurrency (raw): ${WRITERS} writers × ${ROUNDS} rounds: ${counts.accepted} writes accepted, ${counts.conflicts} answered 412 and retried, ${counts.reads} reads`,
    );
  });

  it("lose no update through @gspec/calendar's modifyEvent", async () => {
    const { id } = await contendedEvent();
    let conflicts = 0;
    let requests = 0;
    const counting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      requests++;
      if (response.status === 412) conflicts++;
      return response;
    };
    const clients = Array.from({ length: WRITERS }, () =>
      createCalendarClient({ accessToken: TOKEN, baseUrl: harness.base, fetch: counting, retry: false }),
    );
    const results = await Promise.all(
      clients.map(async (client, w) => {
        const sequences: number[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          const updated = await modifyEvent(
            client,
            { calendarId: 'primary', eventId: id },
            (event) => ({
              ...event,
              extendedProperties: {
                ...event.extendedProperties,
                private: { ...event.extendedProperties?.private, [`w${w}r${r}`]: 'done' },
              },
            }),
            { maxAttempts: 500 },
          );
          sequences.push(updated.sequence ?? -1);
        }
        return sequences;
      }),
    );

    const final = (await harness.call('GET', `/calendars/primary/events/${id}`)).body;
    const total = WRITERS * ROUNDS;
    const { count, ...marks } = final.extendedProperties.private;
    expect(count).toBe('0');
    expect(Object.keys(marks).sort()).toEqual(tokensOf(WRITERS, ROUNDS).sort());
    expect(results.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(final.sequence).toBe(total);
    expect(conflicts, 'no writer ever met a 412: the test made no contention').toBeGreaterThan(0);
    console.log(
      `concurrency (modifyEvent): ${WRITERS} clients × ${ROUNDS} rounds: ${total} updates, ${conflicts} answered 412 and retried, ${requests} requests`,
    );
  });
});
