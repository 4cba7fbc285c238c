/**
 * The emulator's soak: its built CLI (a process of its own, started with `--seed`) under 50
 * connections for 60 s of mixed valid reads and writes (autocannon's `requests`: every
 * connection goes through the same sequence again and again, so the mix is exact). Calendar:
 * events.list (a page, and a week's window), events.get, events.insert, events.patch,
 * events.instances, calendarList.list/get, acl.list, settings.list and freebusy.query. Search
 * Ads 360: the spec's own example request of each operation, when its API has no operation
 * left unimplemented and the example answers 2xx twice in a row (so it can be sent again and
 * again); the output says which were left out and why.
 *
 * Figures: requests, requests/s, p50/p99, non-2xx and errors (goal: none, every request is
 * valid), answers by operation, and the process's RSS sampled every 500 ms (start, end, peak).
 * The state grows with every events.insert, so memory is bounded when the RSS growth to the
 * peak stays within what the stored events explain: at most 4 KB per stored event (twice what
 * the `emulator` bench measures per event) plus 64 MB of headroom for V8's heap. Writes the
 * `emulator-soak` section of docs/benchmarks.md. BENCH_SOAK_SECONDS shortens it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeBenchSection } from '@gspec/scripts/bench-report';
import { startServer } from '@gspec/scripts/child-process';
import { sampleValue } from '@gspec/scripts/operations';
import autocannon, { type Request } from 'autocannon';
import { isObject, type Json, type JsonObject, loadApiSpec, type OperationSpec } from '../src/core/spec.ts';

const here = import.meta.dirname;
const cli = path.resolve(here, '../dist/cli.js');
const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 60);
const CONNECTIONS = 50;
const WARM_UP_SECONDS = 5;
const TOKEN = 'soak-token';
const OWNER = 'soak@example.com';
const INSERTS = 'soak-inserts@group.calendar.google.com';
const LISTED = 100;
const GOALS = { bytesPerEvent: 4096, headroomMb: 64 };

const eventId = (i: number) => `soakevent${String(i).padStart(4, '0')}`;
const at = (i: number, minutes = 0) =>
  new Date(Date.parse('2026-03-02T08:00:00Z') + i * 3_600_000 + minutes * 60_000);

/** Resident memory of a process in MB, from /proc (Linux) or ps. */
function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (match) return Number(match[1]) / 1024;
  } catch {
    // not Linux
  }
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

interface Planned extends Request {
  operation: string;
  /** Always text here (the spec's JSON examples). */
  body?: string;
}

/** The Calendar part of the mix, by weight (how often it comes in one pass of the sequence). */
function calendarRequests(): Planned[] {
  let next = 0;
  /** A seeded event, a different one each time. */
  const anyEvent = () => eventId(next++ % LISTED);
  const json = (value: unknown) => JSON.stringify(value);
  const week = `timeMin=${encodeURIComponent('2026-03-04T00:00:00Z')}&timeMax=${encodeURIComponent('2026-03-11T00:00:00Z')}`;
  const base = '/calendar/v3';
  const plan: [number, Planned][] = [
    [4, { operation: 'events.list', method: 'GET', path: `${base}/calendars/primary/events?maxResults=20` }],
    [1, { operation: 'events.list', method: 'GET', path: `${base}/calendars/primary/events?${week}` }],
    [
      4,
      {
        operation: 'events.get',
        method: 'GET',
        setupRequest: (request) => ({ ...request, path: `${base}/calendars/primary/events/${anyEvent()}` }),
      },
    ],
    [
      2,
      {
        operation: 'events.insert',
        method: 'POST',
        path: `${base}/calendars/${encodeURIComponent(INSERTS)}/events`,
        body: json({
          summary: 'Soak insert',
          description: 'Written by the soak',
          start: { dateTime: '2026-05-04T10:00:00Z' },
          end: { dateTime: '2026-05-04T10:30:00Z' },
        }),
      },
    ],
    [
      2,
      {
        operation: 'events.patch',
        method: 'PATCH',
        setupRequest: (request) => ({
          ...request,
          path: `${base}/calendars/primary/events/${anyEvent()}`,
          body: json({ description: `Patched ${next}`, location: `Room ${next % 7}` }),
        }),
      },
    ],
    [
      1,
      {
        operation: 'events.instances',
        method: 'GET',
        path: `${base}/calendars/primary/events/soakrecur01/instances?maxResults=10`,
      },
    ],
    [2, { operation: 'calendarList.list', method: 'GET', path: `${base}/users/me/calendarList` }],
    [1, { operation: 'calendarList.get', method: 'GET', path: `${base}/users/me/calendarList/primary` }],
    [1, { operation: 'acl.list', method: 'GET', path: `${base}/calendars/primary/acl` }],
    [1, { operation: 'settings.list', method: 'GET', path: `${base}/users/me/settings` }],
    [
      1,
      {
        operation: 'freebusy.query',
        method: 'POST',
        path: `${base}/freeBusy`,
        body: json({
          timeMin: '2026-03-02T00:00:00Z',
          timeMax: '2026-03-09T00:00:00Z',
          items: [{ id: 'primary' }, { id: INSERTS }],
        }),
      },
    ],
  ];
  return plan.flatMap(([weight, request]) => Array.from({ length: weight }, () => request));
}

/** The spec's example request of an operation: path and required query values, the first body example. */
function exampleRequest(document: JsonObject, basePath: string, op: OperationSpec): Planned {
  const at = (pointer: string): JsonObject => {
    let node: Json = document;
    for (const part of pointer.slice(2).split('/')) {
      const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
      node = Array.isArray(node) ? (node[Number(key)] as Json) : isObject(node) ? (node[key] as Json) : null;
    }
    return isObject(node) ? node : {};
  };
  const raw = (schemaPointer: string) => at(schemaPointer.replace(/\/schema$/, ''));
  const value = (p: OperationSpec['parameters'][number]) => sampleValue(document, raw(p.schemaPointer));
  const pathText = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const p = op.parameters.find((q) => q.in === 'path' && q.name === name);
    return encodeURIComponent(String(p ? value(p) : name));
  });
  const query = new URLSearchParams();
  for (const p of op.parameters)
    if (p.in === 'query' && p.required) {
      const v = value(p);
      for (const one of Array.isArray(v) ? v : [v]) query.append(p.name, String(one));
    }
  let body: string | undefined;
  if (op.body) {
    const media = raw(op.body.schemaPointer);
    const first = isObject(media.examples) ? Object.values(media.examples)[0] : undefined;
    const example = isObject(first) && typeof first.$ref === 'string' ? at(first.$ref) : first;
    if (isObject(example)) body = JSON.stringify(example.value);
  }
  const search = query.toString();
  return {
    operation: op.id,
    method: op.method as Planned['method'],
    path: `${basePath}${pathText}${search ? `?${search}` : ''}`,
    ...(body !== undefined ? { body } : {}),
  };
}

/**
 * The Search Ads 360 part: the example request of each operation that answers 2xx twice in a
 * row (conversion.insert with new conversionIds on every request), and why others were left out.
 */
async function searchAdsRequests(origin: string): Promise<{ requests: Planned[]; leftOut: string[] }> {
  const spec = loadApiSpec('searchads360');
  const health = (await (await fetch(`${origin}/__emulator/health`)).json()) as {
    apis?: Record<string, { notImplemented?: string[] }>;
  };
  const missing = health.apis?.searchads360?.notImplemented ?? spec.operations.map((op) => op.id);
  if (missing.length > 0)
    return {
      requests: [],
      leftOut: [`every Search Ads 360 operation: not implemented yet (${missing.join(', ')})`],
    };
  const requests: Planned[] = [];
  const refused = new Map<string, string>();
  const answers = async (planned: Planned): Promise<number[]> => {
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) {
      const answer = await fetch(`${origin}${planned.path}`, {
        method: planned.method ?? 'GET',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        ...(planned.body !== undefined ? { body: planned.body } : {}),
      });
      await answer.arrayBuffer();
      statuses.push(answer.status);
    }
    return statuses;
  };
  // Two passes: an example may need what another one writes (conversion.update, the insert's conversions).
  let pending = spec.operations;
  for (let pass = 0; pass < 2 && pending.length > 0; pass++) {
    const next: OperationSpec[] = [];
    for (const op of pending) {
      const planned = exampleRequest(spec.document, spec.basePath, op);
      const statuses = await answers(planned);
      if (statuses.every((s) => s >= 200 && s < 300)) {
        requests.push(planned);
        refused.delete(op.id);
      } else {
        if (!refused.has(op.id)) refused.set(op.id, `its example answers ${statuses.join(' then ')}`);
        next.push(op);
      }
    }
    pending = next;
  }
  // conversion.insert refuses a conversionId it has stored: each request gets ids of its own.
  const insert = spec.byId.get('conversion.insert');
  if (insert && refused.has(insert.id)) {
    const planned = exampleRequest(spec.document, spec.basePath, insert);
    const example = JSON.parse(planned.body as string) as { conversion?: JsonObject[] };
    let sent = 0;
    const fresh = (): string => {
      sent += 1;
      const conversion = (example.conversion ?? []).map((row) => ({
        ...row,
        conversionId: `${String(row.conversionId)}-soak${sent}`,
      }));
      return JSON.stringify({ ...example, conversion });
    };
    const unique: Planned = { ...planned, setupRequest: (request) => ({ ...request, body: fresh() }) };
    const statuses = await answers({ ...planned, body: fresh() });
    if (statuses[0] !== undefined && statuses[0] >= 200 && statuses[0] < 300) {
      requests.push(unique);
      refused.delete(insert.id);
    }
  }
  const leftOut = [...refused].map(
    ([id, why]) => `${id}: ${why}, so it cannot be sent again and again as a valid request`,
  );
  return { requests, leftOut };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gspec-emulator-soak-'));
  try {
    const seedFile = path.join(dir, 'seed.json');
    writeFileSync(
      seedFile,
      JSON.stringify({
        users: [{ email: OWNER, tokens: [TOKEN] }],
        calendars: [
          {
            id: 'primary',
            owner: OWNER,
            acl: [{ role: 'reader', scope: { type: 'user', value: 'reader@example.com' } }],
            events: [
              ...Array.from({ length: LISTED }, (_, i) => ({
                id: eventId(i),
                summary: `Seeded ${i}`,
                start: { dateTime: at(i).toISOString() },
                end: { dateTime: at(i, 30).toISOString() },
              })),
              {
                id: 'soakrecur01',
                summary: 'Weekly',
                start: { dateTime: '2026-03-02T09:00:00+01:00', timeZone: 'Europe/Zurich' },
                end: { dateTime: '2026-03-02T09:30:00+01:00', timeZone: 'Europe/Zurich' },
                recurrence: ['RRULE:FREQ=WEEKLY;COUNT=52'],
              },
            ],
          },
          { id: INSERTS, owner: OWNER, summary: 'Soak inserts' },
        ],
      }),
    );
    const running = await startServer('the emulator', [cli, '--port', '0', '--seed', seedFile]);
    try {
      const sa360 = await searchAdsRequests(running.origin);
      const planned = [...calendarRequests(), ...sa360.requests];
      for (const line of sa360.leftOut) console.log(`soak: left out ${line}`);

      const byOperation = new Map<string, { ok: number; failed: number }>();
      let counting = false;
      const requests: Request[] = planned.map(({ operation, ...request }) => ({
        ...request,
        onResponse: (status: number) => {
          if (!counting) return;
          const entry = byOperation.get(operation) ?? { ok: 0, failed: 0 };
          if (status >= 200 && status < 300) entry.ok++;
          else entry.failed++;
          byOperation.set(operation, entry);
        },
      }));
      const load = (seconds: number) =>
        autocannon({
          url: running.origin,
          connections: CONNECTIONS,
          duration: seconds,
          timeout: 10,
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          requests,
        });

      await load(WARM_UP_SECONDS);
      counting = true;
      const rssStart = rssMb(running.child.pid as number);
      let rssPeak = rssStart;
      const sampler = setInterval(() => {
        rssPeak = Math.max(rssPeak, rssMb(running.child.pid as number));
      }, 500);
      console.log(
        `soak: ${CONNECTIONS} connections, ${SECONDS} s, ${planned.length} requests per pass (${new Set(planned.map((p) => p.operation)).size} operations), RSS at start ${round1(rssStart)} MB`,
      );
      const result = await load(SECONDS);
      clearInterval(sampler);
      const rssEnd = rssMb(running.child.pid as number);
      rssPeak = Math.max(rssPeak, rssEnd);

      const failed = result.non2xx + result.errors + result.timeouts;
      const stored = byOperation.get('events.insert')?.ok ?? 0;
      const growthMb = rssEnd - rssStart;
      // The bound is judged on the peak: garbage collected by the end must not hide a spike.
      const peakGrowthMb = rssPeak - rssStart;
      const boundMb = GOALS.headroomMb + (stored * GOALS.bytesPerEvent) / 2 ** 20;
      const signed = (mb: number) => `${mb < 0 ? '−' : '+'}${round1(Math.abs(mb))} MB`;
      const perEvent =
        growthMb > 0 && stored > 0
          ? `${Math.round((growthMb * 2 ** 20) / stored)} bytes per stored event`
          : 'no net growth: the stored events fit in what the warm-up had already taken';
      const rps = Math.round(result.requests.total / result.duration);
      const operations = [...byOperation].sort(([a], [b]) => a.localeCompare(b));
      console.log(
        `soak: ${result.requests.total} requests, ${rps} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}`,
      );
      console.log(
        `soak: by operation (2xx/failed): ${operations.map(([id, o]) => `${id} ${o.ok}/${o.failed}`).join(', ')}`,
      );
      console.log(
        `soak: RSS ${round1(rssStart)} → ${round1(rssEnd)} MB (peak ${round1(rssPeak)}), ${signed(growthMb)} at the end and ${signed(peakGrowthMb)} at the peak for ${stored} stored events (${perEvent}); bound ${round1(boundMb)} MB`,
      );

      const met = (ok: boolean) => (ok ? 'met' : '**not met**');
      const markdown = `## Emulator: soak

\`npm run bench -w @gspec/emulator\` (\`packages/emulator/bench/soak.bench.ts\`).

The built CLI as a process of its own (\`--seed\`: ${LISTED} events and a weekly recurring one in the
primary calendar, a second calendar for inserts), ${CONNECTIONS} connections for ${SECONDS} s after a ${WARM_UP_SECONDS} s
warm-up, every connection going through the same sequence of ${planned.length} valid requests again and
again (autocannon's \`requests\`). Search Ads 360: ${sa360.requests.length > 0 ? `the spec's example request of ${sa360.requests.map((r) => `\`${r.operation}\``).join(', ')}` : 'none'}${sa360.leftOut.length > 0 ? `; left out: ${sa360.leftOut.join('; ')}` : ''}.

| Requests | Requests/s | p50 | p99 | Non-2xx | Errors | Timeouts |
|---:|---:|---:|---:|---:|---:|---:|
| ${result.requests.total} | ${rps} | ${result.latency.p50} ms | ${result.latency.p99} ms | ${result.non2xx} | ${result.errors} | ${result.timeouts} |

| Operation | 2xx | Failed |
|---|---:|---:|
${operations.map(([id, o]) => `| ${id} | ${o.ok} | ${o.failed} |`).join('\n')}

Memory (RSS of the emulator's process, sampled every 500 ms): ${round1(rssStart)} MB at the start, ${round1(rssEnd)} MB at
the end, ${round1(rssPeak)} MB at the peak. The run stored ${stored} events (events.insert), so the state grew by
design; RSS changed by ${signed(growthMb)} at the end (${perEvent}) and ${signed(peakGrowthMb)} at the peak. The bound judged, on the peak: at most
${GOALS.bytesPerEvent} bytes per stored event (about twice the ~2 KB per event the \`emulator\` section measures in
a calendar of 100,000) plus ${GOALS.headroomMb} MB of headroom for V8's heap, ${round1(boundMb)} MB for this run; reads and patches
must not add to it.

| Goal | Measured | |
|---|---|---|
| no error on valid requests | ${failed} non-2xx, errors or timeouts of ${result.requests.total} | ${met(failed === 0)} |
| bounded memory: RSS growth to the peak ≤ ${GOALS.headroomMb} MB + ${GOALS.bytesPerEvent} B × stored events | ${signed(peakGrowthMb)} (peak ${round1(rssPeak)} MB) against ${round1(boundMb)} MB | ${met(peakGrowthMb <= boundMb)} |
`;
      writeBenchSection('emulator-soak', markdown);
      console.log('wrote the emulator-soak section of docs/benchmarks.md');
    } finally {
      await running.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`soak: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
