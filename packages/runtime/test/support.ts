/** Test doubles: a fetch that answers from a script and records what was sent, and a clock that does not sleep. */
import type { Clock, FetchLike, OperationTable } from '../src/index.ts';

export type Answer = Response | Error | ((request: Request) => Response | Promise<Response>);

export interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** Answers each request with the next entry of `answers` (the last one repeats). */
export function scriptedFetch(...answers: Answer[]) {
  const requests: Recorded[] = [];
  const fetch: FetchLike = async (input, init) => {
    const request = new Request(input, init);
    const text = await request.text();
    requests.push({
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body: text ? JSON.parse(text) : undefined,
    });
    const answer = answers[Math.min(requests.length - 1, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    if (typeof answer === 'function') return answer(request);
    return (answer as Response).clone();
  };
  return { fetch, requests };
}

/** A fetch that never answers until its signal aborts, like a stalled server. */
export const hangingFetch: FetchLike = (_input, init) =>
  new Promise((_resolve, reject) => {
    init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
  });

/** Time that moves only when the runtime sleeps; every sleep is recorded. */
export function fakeClock(random = 0.5): Clock & { sleeps: number[]; time: number } {
  const clock = {
    time: 0,
    sleeps: [] as number[],
    now: () => clock.time,
    random: () => random,
    async sleep(ms: number, signal?: AbortSignal) {
      signal?.throwIfAborted();
      clock.sleeps.push(ms);
      clock.time += ms;
    },
  };
  return clock;
}

export function googleError(status: number, reasons: string[] = [], headers: Record<string, string> = {}) {
  return Response.json(
    {
      error: {
        code: status,
        message: `problem ${status}`,
        errors: reasons.map((reason) => ({ domain: 'global', reason, message: reason })),
      },
    },
    { status, headers },
  );
}

/** A small operation table in the generated form, for the runtime's own tests. */
export const table = {
  'things.list': ['things.list', 'GET', '/owners/{ownerId}/things', 0, ['q', 'timeMin']],
  'things.history': ['things.history', 'GET', '/owners/{ownerId}/history', 0, 1],
  'things.get': ['things.get', 'GET', '/owners/{ownerId}/things/{thingId}'],
  'things.insert': ['things.insert', 'POST', '/owners/{ownerId}/things', ['sendUpdates']],
  'things.update': ['things.update', 'PUT', '/owners/{ownerId}/things/{thingId}', ['sendUpdates']],
  'things.patch': ['things.patch', 'PATCH', '/owners/{ownerId}/things/{thingId}', []],
  'things.delete': ['things.delete', 'DELETE', '/owners/{ownerId}/things/{thingId}'],
  'things.export': ['things.export', 'GET', '/owners/{ownerId}/export', 0, 0, 1],
  'colors.get': ['colors.get', 'GET', '/colors'],
} as const satisfies OperationTable;

export const BASE = 'https://example.test/api/v1';
