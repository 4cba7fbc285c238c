/**
 * The mock's `--verbose` log (one line per request and per call of a batch) goes where CI keeps
 * its output: the credentials of a request's query are redacted there (issue 33), by the rule
 * the emulator's journal and log follow (@gspec/server-kit's redact.ts), and the rest of the
 * line stays readable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, loadApis } from '../src/index.ts';

const BOUNDARY = 'redaction_boundary';
const lines: string[] = [];
let gateway: Gateway;
let origin: string;

beforeAll(async () => {
  gateway = createGateway({ apis: await loadApis(), verbose: true, log: (line) => lines.push(line) });
  origin = await gateway.listen(0);
});
afterAll(() => gateway.close());

/** Sends a request and returns the log lines it left. */
async function logged(path: string, init: RequestInit = {}): Promise<string> {
  const from = lines.length;
  const response = await fetch(`${origin}${path}`, init);
  await response.text();
  // The request's line is written when its answer is finished, which the client may see first.
  while (!lines.slice(from).some((line) => line.includes(' -> ')))
    await new Promise((resolve) => setImmediate(resolve));
  return lines.slice(from).join('\n');
}

describe('the verbose log of the mock', () => {
  it.each([
    [
      'access_token in the query',
      '/calendar/v3/colors?access_token=SECRET-1&fields=kind',
      '/calendar/v3/colors?access_token=%5Bredacted%5D&fields=kind',
    ],
    [
      'key in the query',
      '/calendar/v3/users/me/calendarList?key=SECRET-2&maxResults=5',
      '/calendar/v3/users/me/calendarList?key=%5Bredacted%5D&maxResults=5',
    ],
    ['a path the mock does not serve', '/nowhere?token=SECRET-3', '/nowhere?token=%5Bredacted%5D'],
  ])('redacts %s', async (_, path, shown) => {
    const log = await logged(path, { headers: { authorization: 'Bearer test-token' } });
    expect(log).not.toContain('SECRET');
    expect(log).toContain(`GET ${shown} -> `);
  });

  it("redacts the query of each call of a batch, in the call's own line", async () => {
    const body = [
      `--${BOUNDARY}`,
      'Content-Type: application/http',
      '',
      'GET /calendar/v3/colors?access_token=SECRET-4&fields=kind HTTP/1.1',
      '',
      '',
      `--${BOUNDARY}--`,
      '',
    ].join('\r\n');
    const log = await logged('/batch/calendar/v3', {
      method: 'POST',
      headers: {
        authorization: 'Bearer test-token',
        'content-type': `multipart/mixed; boundary=${BOUNDARY}`,
      },
      body,
    });
    expect(log).not.toContain('SECRET');
    expect(log).toContain('part 1: GET /calendar/v3/colors?access_token=%5Bredacted%5D&fields=kind -> 200');
  });
});
