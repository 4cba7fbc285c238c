/**
 * `--persist` on a real disk that fills up and on one that turns read-only: a small tmpfs of
 * this test's own, mounted for it (root, as CI runs; elsewhere the test is skipped, and under
 * CI=true a machine that cannot mount fails it). The built CLI keeps its database there; each
 * write whose commit cannot land is answered 503 in Google's envelope, reads go on and show
 * what memory holds, and once the disk takes writes again the next commit keeps everything,
 * as a restart shows.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopAll } from '@gspec/scripts/child-process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startCli } from './support/cli-process.ts';
import { timedEvent } from './support/harness.ts';

const root = mkdtempSync(path.join(tmpdir(), 'gspec-emulator-disk-'));
const mountPoint = path.join(root, 'disk');
mkdirSync(mountPoint);

const mount = (...args: string[]) => execFileSync('mount', args, { stdio: 'pipe' });

/** Whether this machine lets the test mount a tmpfs (root in a container that allows it). */
function canMount(): boolean {
  try {
    mount('-t', 'tmpfs', '-o', 'size=384k', 'tmpfs', mountPoint);
    return true;
  } catch (error) {
    if (process.env.CI === 'true')
      throw new Error(`persist-disk needs to mount a tmpfs (as root): ${(error as Error).message}`);
    return false;
  }
}
const mounted = canMount();

afterEach(() => stopAll('SIGKILL'));
afterAll(() => {
  if (mounted) execFileSync('umount', [mountPoint], { stdio: 'pipe' });
  rmSync(root, { recursive: true, force: true });
});

const HEADERS = { authorization: 'Bearer ana@example.com', 'content-type': 'application/json' };

async function call(origin: string, method: string, route: string, body?: unknown) {
  const response = await fetch(`${origin}/calendar/v3${route}`, {
    method,
    headers: HEADERS,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: test answers are read freely.
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any };
}

const summaries = async (origin: string) =>
  (
    (await call(origin, 'GET', '/calendars/primary/events?maxResults=2500')).body.items as {
      summary: string;
    }[]
  )
    .map((item) => item.summary)
    .sort();

describe.skipIf(!mounted)('--persist on a disk that fills up or turns read-only', () => {
  const file = path.join(mountPoint, 'state.db');

  it('a full disk: the write is 503, reads go on, and once there is room the next commit keeps everything', async () => {
    const run = startCli(['--persist', file]);
    const origin = await run.ready;
    const padding = 'x'.repeat(3000);
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    const made: string[] = [];
    // 384 KiB fill up after about a hundred such events; the bound is only a guard.
    for (let i = 0; i < 1000 && !refused; i++) {
      const reply = await call(
        origin,
        'POST',
        '/calendars/primary/events',
        timedEvent(`e${i}`, 9, { description: padding }),
      );
      made.push(`e${i}`); // in memory, saved or not
      if (reply.status !== 200) refused = reply;
    }
    expect(refused?.status).toBe(503);
    expect(refused?.body.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
    expect(refused?.body.error.message).toContain(`could not save the state to ${file}`);
    expect(run.output().err).toContain(`could not save the state to ${file}`);
    // Reads are answered from memory, the unsaved write among them.
    expect(await summaries(origin)).toEqual([...made].sort());
    const busy = await fetch(`${origin}/__emulator/health`);
    expect(busy.status).toBe(200);

    mount('-o', 'remount,size=16m', mountPoint);
    const later = await call(origin, 'POST', '/calendars/primary/events', timedEvent('later'));
    expect(later.status).toBe(200);
    made.push('later');
    expect(await run.stop('SIGTERM')).toBe(0);

    const again = startCli(['--persist', file]);
    expect(await summaries(await again.ready)).toEqual([...made].sort());
    expect(await again.stop('SIGTERM')).toBe(0);
  });

  it('a read-only disk: the database is served for reading, a write is 503, and once it is writable the next commit keeps everything', async () => {
    const first = startCli(['--persist', file]);
    const before = await summaries(await first.ready);
    expect(await first.stop('SIGTERM')).toBe(0);
    // A disk can only turn read-only with no file open for writing on it.
    mount('-o', 'remount,ro', mountPoint);
    let remounted = false;
    try {
      const run = startCli(['--persist', file]);
      const origin = await run.ready;
      expect(run.output().out).toContain(`${file} is read-only: reads are served, writes answered 503`);
      expect(await summaries(origin)).toEqual(before);
      const refused = await call(origin, 'POST', '/calendars/primary/events', timedEvent('while read-only'));
      expect(refused.status).toBe(503);
      expect(refused.body.error.message).toContain(`could not save the state to ${file}: it is read-only`);
      expect(await summaries(origin)).toEqual([...before, 'while read-only'].sort());
      mount('-o', 'remount,rw', mountPoint);
      remounted = true;
      const later = await call(origin, 'POST', '/calendars/primary/events', timedEvent('writable again'));
      expect(later.status).toBe(200);
      expect(await run.stop('SIGTERM')).toBe(0);
    } finally {
      if (!remounted) mount('-o', 'remount,rw', mountPoint);
    }
    const again = startCli(['--persist', file]);
    expect(await summaries(await again.ready)).toEqual(
      [...before, 'while read-only', 'writable again'].sort(),
    );
    expect(await again.stop('SIGTERM')).toBe(0);
  });
});
