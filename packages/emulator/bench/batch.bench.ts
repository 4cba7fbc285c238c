/**
 * Google's batch endpoint against one call per event, in one run: 1,000 events.insert into the
 * emulator's built CLI on 127.0.0.1, sent either as 20 batches of 50 calls
 * (`POST /batch/calendar/v3`) or as 1,000 requests, both over at most 20 keep-alive
 * connections at once. Each round starts from an empty state (`POST /__emulator/reset`) and
 * ends by checking that every call was answered 200 and that the calendar holds 1,000
 * events; rounds alternate so that a noisy neighbour slows both alike. What batching saves is
 * the per-request cost (HTTP parsing, a turn of the loop, the answer's write); the calls
 * themselves cost the same, so the ratio says how much of an insert is the request around it.
 *
 * Prints the figures and writes the `emulator-batch` section of docs/benchmarks.md. Loopback
 * only, a fixed amount of work: 3 rounds of each to warm up, then BENCH_BATCH_ROUNDS (default 7).
 */
import http from 'node:http';
import path from 'node:path';
import { barChart, median, writeBenchSection } from '@gspec/scripts/bench-report';
import { startServer } from '@gspec/scripts/child-process';

const cli = path.resolve(import.meta.dirname, '../dist/cli.js');
const EVENTS = 1000;
const PER_BATCH = 50;
const CONNECTIONS = 20;
const ROUNDS = Number(process.env.BENCH_BATCH_ROUNDS ?? 7);
/** Rounds of each way first, not counted: the first thousand requests run before the JIT has caught up. */
const WARM_UP = 3;
const TOKEN = 'batch-bench@example.com';
const EVENTS_PATH = '/calendar/v3/calendars/primary/events';
const BOUNDARY = 'batch_bench_boundary';

const eventBody = (i: number) =>
  JSON.stringify({
    summary: `Batched ${i}`,
    start: { dateTime: new Date(Date.parse('2027-02-01T09:00:00Z') + i * 60_000).toISOString() },
    end: { dateTime: new Date(Date.parse('2027-02-01T09:30:00Z') + i * 60_000).toISOString() },
  });

/** The batch body of the inserts `from` to `from + count - 1`, as Google's clients write it (CRLF). */
function batchBody(from: number, count: number): string {
  let body = '';
  for (let i = from; i < from + count; i++) {
    body += `--${BOUNDARY}\r\nContent-Type: application/http\r\nContent-ID: <${i}>\r\n\r\n`;
    body += `POST ${EVENTS_PATH} HTTP/1.1\r\nContent-Type: application/json\r\n\r\n${eventBody(i)}\r\n`;
  }
  return `${body}--${BOUNDARY}--\r\n`;
}

interface Answer {
  status: number;
  text: string;
}

function send(
  agent: http.Agent,
  origin: string,
  method: string,
  target: string,
  headers = {},
  body?: string,
) {
  return new Promise<Answer>((resolve, reject) => {
    const request = http.request(
      `${origin}${target}`,
      { method, agent, headers: { authorization: `Bearer ${TOKEN}`, ...headers } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** Runs `tasks` with at most CONNECTIONS of them in flight. */
async function inFlight(count: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(CONNECTIONS, count) }, worker));
}

/** 1,000 inserts one request each; the time in ms. */
async function oneByOne(agent: http.Agent, origin: string): Promise<number> {
  const bodies = Array.from({ length: EVENTS }, (_, i) => eventBody(i));
  const began = performance.now();
  await inFlight(EVENTS, async (i) => {
    const answer = await send(
      agent,
      origin,
      'POST',
      EVENTS_PATH,
      { 'content-type': 'application/json' },
      bodies[i],
    );
    if (answer.status !== 200) throw new Error(`insert ${i} answered ${answer.status}: ${answer.text}`);
  });
  return performance.now() - began;
}

/** 1,000 inserts in batches of 50; the time in ms. */
async function batched(agent: http.Agent, origin: string): Promise<number> {
  const bodies = Array.from({ length: EVENTS / PER_BATCH }, (_, b) => batchBody(b * PER_BATCH, PER_BATCH));
  const headers = { 'content-type': `multipart/mixed; boundary=${BOUNDARY}` };
  const began = performance.now();
  await inFlight(bodies.length, async (b) => {
    const answer = await send(agent, origin, 'POST', '/batch/calendar/v3', headers, bodies[b]);
    const ok = answer.text.match(/^HTTP\/1\.1 200 OK\r$/gm)?.length ?? 0;
    if (answer.status !== 200 || ok !== PER_BATCH)
      throw new Error(`batch ${b} answered ${answer.status} with ${ok} of ${PER_BATCH} calls 200`);
  });
  return performance.now() - began;
}

/** Empties the state, runs one way of inserting, and checks the calendar holds every event. */
async function round(agent: http.Agent, origin: string, way: (a: http.Agent, o: string) => Promise<number>) {
  const reset = await send(agent, origin, 'POST', '/__emulator/reset');
  if (reset.status !== 204) throw new Error(`reset answered ${reset.status}`);
  const ms = await way(agent, origin);
  const listed = await send(agent, origin, 'GET', `${EVENTS_PATH}?maxResults=2500&fields=items(id)`);
  const count = (JSON.parse(listed.text) as { items: unknown[] }).items.length;
  if (count !== EVENTS) throw new Error(`the calendar holds ${count} events, not ${EVENTS}`);
  return ms;
}

async function main(): Promise<void> {
  const emulator = await startServer('the emulator', [cli, '--port', '0']);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const times = { single: [] as number[], batch: [] as number[] };
  try {
    for (let r = 0; r < WARM_UP; r++) {
      await round(agent, emulator.origin, oneByOne);
      await round(agent, emulator.origin, batched);
    }
    for (let r = 1; r <= ROUNDS; r++) {
      // Each round in another order, so that neither way always runs first.
      const order = r % 2 ? (['single', 'batch'] as const) : (['batch', 'single'] as const);
      for (const way of order) {
        const ms = await round(agent, emulator.origin, way === 'single' ? oneByOne : batched);
        times[way].push(ms);
        console.log(
          `round ${r} ${way === 'single' ? 'one request per event' : 'batches of 50'}: ${ms.toFixed(1)} ms`,
        );
      }
    }
  } finally {
    agent.destroy();
    await emulator.stop('SIGTERM');
  }
  const single = median(times.single);
  const batch = median(times.batch);
  const ratio = single / batch;
  const n = EVENTS.toLocaleString('en');
  console.log(
    `${n} inserts: ${single.toFixed(1)} ms one request each, ${batch.toFixed(1)} ms in batches of ${PER_BATCH} (batched ${ratio.toFixed(2)}× as fast)`,
  );
  writeBenchSection(
    'emulator-batch',
    `## Emulator: batch requests

\`npm run bench -w @gspec/emulator\` (\`packages/emulator/bench/batch.bench.ts\`). ${n} events.insert
into one calendar of the built CLI on 127.0.0.1, from an empty state each round, over at most
${CONNECTIONS} keep-alive connections at once: ${EVENTS / PER_BATCH} batches of ${PER_BATCH} calls
(\`POST /batch/calendar/v3\`) against ${n} requests of one call. Median of ${ROUNDS} alternating rounds
after ${WARM_UP} of each to warm up;
each round checks that every call was answered 200 and that the calendar then holds ${n} events.

| Way | ${n} inserts | Per insert |
|---|---:|---:|
| one request per event | ${single.toFixed(1)} ms | ${((single / EVENTS) * 1000).toFixed(1)} µs |
| batches of ${PER_BATCH} | ${batch.toFixed(1)} ms | ${((batch / EVENTS) * 1000).toFixed(1)} µs |

Batched: **${ratio.toFixed(2)}×** as fast.

\`\`\`text
${barChart(
  [
    ['one request per event', Math.round(single)],
    [`batches of ${PER_BATCH}`, Math.round(batch)],
  ],
  ' ms',
)}
\`\`\`

The calls cost the same either way (each is validated, charged and handled as alone); what a
batch saves is the cost of a request around each: parsing, a turn of the event loop, writing
the answer.
`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
