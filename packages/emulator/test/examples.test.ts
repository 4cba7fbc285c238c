/**
 * The README's CI examples, run: the vitest global setup in examples/ starts an emulator that
 * a client reaches at the URL it provides, and stops it on teardown.
 */
import { createCalendarClient } from '@gspec/calendar';
import { describe, expect, it } from 'vitest';
import type { TestProject } from 'vitest/node';
import setup from '../examples/vitest-global-setup.ts';

describe('examples/vitest-global-setup.ts', () => {
  it('provides the root URL of a running, strict emulator and stops it on teardown', async () => {
    const provided: Record<string, unknown> = {};
    const project = { provide: (key: string, value: unknown) => (provided[key] = value) };
    const teardown = await setup(project as unknown as TestProject);
    const rootUrl = provided.emulatorRootUrl as string;
    expect(rootUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    const ana = createCalendarClient({ accessToken: 'token-ana', baseUrl: `${rootUrl}calendar/v3` });
    const { data, response } = await ana.GET('/users/me/calendarList');
    expect(response.status).toBe(200);
    expect(data?.items?.map((entry) => entry.id)).toEqual(['ana@example.com']);

    const stranger = await fetch(`${rootUrl}calendar/v3/users/me/calendarList`, {
      headers: { authorization: 'Bearer someone-else' },
    });
    expect(stranger.status).toBe(401);

    await teardown();
    await expect(fetch(`${rootUrl}__emulator/health`)).rejects.toThrow();
  });
});
