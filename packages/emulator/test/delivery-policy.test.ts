/**
 * Where watch channels may deliver (core/delivery-policy.ts, decision 0053), and the caps on
 * what one caller can make the emulator send: the addresses always refused at watch, in every
 * spelling; host names checked again at each delivery on what they resolve to then (an injected
 * resolver, one that rebinds); a shared sandbox delivering only to the allow list; the channels
 * per user; the POSTs one change may cause. Waits end when the notifier is idle, never on a clock.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryPolicy, DeliveryPolicyError, type Resolver } from '../src/core/delivery-policy.ts';
import type { DeliveryReport } from '../src/core/journal.ts';
import {
  DEFAULT_MAX_ATTEMPTS_PER_CHANGE,
  DEFAULT_MAX_CHANNELS_PER_USER,
  Notifier,
} from '../src/core/notifier.ts';
import type { Emulator } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';
import { startCli } from './support/cli-process.ts';
import { type Harness, spec, TEST_ADMIN_TOKEN, timedEvent, useEmulator } from './support/harness.ts';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
}

/** A receiver on 127.0.0.1 that records every POST and answers with `status(message)` (200 unless set). */
class Receiver {
  received: Received[] = [];
  status: (message: Received) => number = () => 200;
  server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const message = { path: request.url ?? '/', headers: request.headers };
      this.received.push(message);
      response.writeHead(this.status(message));
      response.end();
    });
  });
  port = 0;

  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  close() {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  on(path: string) {
    return this.received.filter((message) => message.path === path);
  }
}

const receiver = new Receiver();
beforeAll(() => receiver.start());
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.received = [];
  receiver.status = () => 200;
});

/** Every delivery under way finished (after the request's own turn of the event loop). */
async function settled(emulator: Emulator) {
  await new Promise((resolve) => setImmediate(resolve));
  await emulator.notifier.idle();
}

const state = (message: Received) => message.headers['x-goog-resource-state'];

let counter = 0;
/** A watch of the primary calendar's events, by `token`, delivering to `address`. */
function watchBody(address: string) {
  counter += 1;
  return { id: `policy-channel-${counter}`, type: 'web_hook', address };
}

describe('addresses always refused at watch', () => {
  const emu = useEmulator();
  beforeEach(() => emu.reset());

  // The address as the caller writes it, and what the refusal says of it.
  const refused: [string, string][] = [
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is the cloud metadata service'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'fd00:ec2::254 is the cloud metadata service'],
    [
      'http://metadata.google.internal/computeMetadata/v1/',
      'metadata.google.internal is the cloud metadata service',
    ],
    ['http://metadata/computeMetadata/v1/', 'metadata is the cloud metadata service'],
    [
      'http://Metadata.Google.Internal./computeMetadata/v1/',
      'metadata.google.internal is the cloud metadata service',
    ],
    ['https://169.254.10.20:8443/hook', '169.254.10.20 is link-local (169.254.0.0/16)'],
    ['http://[fe80::1]:2375/containers', 'fe80::1 is link-local (fe80::/10)'],
    ['http://[febf:ffff::1]/', 'febf:ffff::1 is link-local (fe80::/10)'],
    ['http://0.0.0.0:22/', '0.0.0.0 is an unspecified address (0.0.0.0/8)'],
    ['http://0.1.2.3/', '0.1.2.3 is an unspecified address (0.0.0.0/8)'],
    ['http://[::]:4011/', ':: is the unspecified address (::)'],
    // IPv4 addresses written as IPv6: mapped, translated, compatible, NAT64, 6to4.
    ['http://[::ffff:169.254.169.254]/', 'is the cloud metadata service, written as IPv6'],
    ['http://[::ffff:0:169.254.169.254]/', 'is the cloud metadata service, written as IPv6'],
    ['http://[::ffff:0.0.0.0]:80/', 'is an unspecified address (0.0.0.0/8), written as IPv6'],
    ['http://[::ffff:169.254.1.1]/', 'is link-local (169.254.0.0/16), written as IPv6'],
    ['http://[::169.254.169.254]/', 'is the cloud metadata service, written as IPv6'],
    ['http://[64:ff9b::169.254.169.254]/', 'is the cloud metadata service, written as IPv6'],
    ['http://[2002:a9fe:a9fe::1]/', 'is the cloud metadata service, written as IPv6'],
    // Every numeric spelling the URL parser reads as 169.254.169.254 (or 0.0.0.0).
    ['http://2852039166/', '169.254.169.254 is the cloud metadata service'],
    ['http://0xA9FEA9FE/', '169.254.169.254 is the cloud metadata service'],
    ['http://0251.0376.0251.0376/', '169.254.169.254 is the cloud metadata service'],
    ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254 is the cloud metadata service'],
    ['http://169.254.43518/', '169.254.169.254 is the cloud metadata service'],
    ['http://169.16689662/', '169.254.169.254 is the cloud metadata service'],
    ['http://169.254.169.254./', '169.254.169.254 is the cloud metadata service'],
    ['http://user:secret@169.254.169.254:80/', '169.254.169.254 is the cloud metadata service'],
    ['http://0/', '0.0.0.0 is an unspecified address (0.0.0.0/8)'],
  ];

  it.each(refused)('%s: 400 push.webhookUrlUnauthorized naming it and why', async (address, why) => {
    const reply = await emu.call('POST', '/calendars/primary/events/watch', { body: watchBody(address) });
    expect(reply.status).toBe(400);
    const [error] = reply.body.error.errors;
    expect(error).toMatchObject({
      domain: 'global',
      reason: 'push.webhookUrlUnauthorized',
      location: 'address',
      locationType: 'parameter',
    });
    expect(error.message).toContain(`Unauthorized WebHook callback channel: ${address}: `);
    expect(error.message).toContain(why);
    expect(emu.emulator.notifier.channels.size).toBe(0);
  });

  it.each(['/users/me/calendarList/watch', '/calendars/primary/acl/watch', '/users/me/settings/watch'])(
    '%s refuses them too',
    async (path) => {
      const reply = await emu.call('POST', path, { body: watchBody('http://169.254.169.254/') });
      expect(reply.status).toBe(400);
      expect(reply.body.error.errors[0].reason).toBe('push.webhookUrlUnauthorized');
    },
  );

  it.each([
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://0x7f.1/',
    'http://127.0.0.1./',
  ])('the URL parser reads %s as 127.0.0.1, so a check sees the address connected to', (address) => {
    expect(new URL(address).hostname).toBe('127.0.0.1');
  });

  it('on loopback without a shared store, any other address is taken (receivers run locally)', async () => {
    for (const path of ['/local', '/decimal']) {
      const host = path === '/local' ? '127.0.0.1' : '2130706433';
      const address = `http://${host}:${receiver.port}${path}`;
      const reply = await emu.call('POST', '/calendars/primary/events/watch', { body: watchBody(address) });
      expect(reply.status, address).toBe(200);
    }
    await settled(emu.emulator);
    expect(receiver.received.map((m) => m.path).sort()).toEqual(['/decimal', '/local']);
    const laptop = new DeliveryPolicy(undefined, { boundTo: () => '127.0.0.1' });
    for (const address of [
      'http://10.0.0.1:2375/',
      'http://[fd00::1]/',
      'http://127.0.0.1:22/',
      'http://localhost/',
    ])
      expect(laptop.refusal(address), address).toBeUndefined();
  });
});

describe('host names are checked again at each delivery, on what they resolve to then', () => {
  const lookups: string[] = [];
  const answers: Record<string, string[][]> = {};
  /** Answers each name with its next list of addresses (the last one again once used up). */
  const resolve: Resolver = async (host) => {
    lookups.push(host);
    const queue = answers[host];
    if (!queue) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    const next = (queue.length > 1 ? queue.shift() : queue[0]) as string[];
    return next.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const reports: DeliveryReport[] = [];
  const emu = useEmulator({
    notifications: { retryDelaysMs: [0, 0], resolve, onDelivery: (report) => reports.push(report) },
  });
  beforeEach(async () => {
    await emu.reset();
    lookups.length = 0;
    reports.length = 0;
    for (const key of Object.keys(answers)) delete answers[key];
  });

  async function watchName(name: string, path: string) {
    const address = `http://${name}:${receiver.port}${path}`;
    const reply = await emu.call('POST', '/calendars/primary/events/watch', { body: watchBody(address) });
    expect(reply.status).toBe(200);
    await settled(emu.emulator);
    return reply;
  }

  it('a name that resolves to an allowed address is delivered to that address', async () => {
    answers['receiver.test'] = [['127.0.0.1']];
    await watchName('receiver.test', '/named');
    expect(receiver.on('/named').map(state)).toEqual(['sync']);
    expect(receiver.on('/named')[0]?.headers.host).toBe(`receiver.test:${receiver.port}`);
    expect(lookups).toEqual(['receiver.test']);
  });

  it.each([
    ['the metadata service', ['169.254.169.254'], '169.254.169.254 is the cloud metadata service'],
    ['a link-local address', ['169.254.3.4'], '169.254.3.4 is link-local'],
    ['the unspecified address', ['0.0.0.0'], '0.0.0.0 is an unspecified address'],
    ['an IPv6 link-local address', ['fe80::1%eth0'], 'is link-local (fe80::/10)'],
    ['a mapped metadata address', ['::ffff:169.254.169.254'], 'cloud metadata service, written as IPv6'],
    ['a good address and a refused one', ['127.0.0.1', '169.254.169.254'], '169.254.169.254 is the cloud'],
  ])(
    'a name that resolves to %s is not contacted; the refusal is reported',
    async (_name, addresses, why) => {
      answers['evil.test'] = [addresses];
      await watchName('evil.test', '/evil');
      // The receiver listens on 127.0.0.1: nothing reached it, not even through the good address.
      expect(receiver.on('/evil')).toEqual([]);
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({ state: 'sync', attempt: 1 });
      expect(reports[0]?.status).toBeUndefined();
      expect(reports[0]?.error).toMatch(/^not sent: refused by the delivery policy: evil\.test resolves to /);
      expect(reports[0]?.error).toContain(why);
      // The inspector's journal has it as any failed delivery.
      const journal = await emu.call('GET', '/__emulator/deliveries');
      expect(journal.body.deliveries).toEqual([
        expect.objectContaining({
          address: `http://evil.test:${receiver.port}/evil`,
          error: reports[0]?.error,
        }),
      ]);
    },
  );

  it('a name that rebinds to a refused address after the first delivery is not contacted again', async () => {
    answers['rebind.test'] = [['127.0.0.1'], ['169.254.169.254']];
    await watchName('rebind.test', '/rebind');
    expect(receiver.on('/rebind').map(state)).toEqual(['sync']);
    await emu.call('POST', '/calendars/primary/events', { body: timedEvent('after the rebinding') });
    await settled(emu.emulator);
    expect(receiver.on('/rebind').map(state)).toEqual(['sync']);
    expect(lookups).toEqual(['rebind.test', 'rebind.test']);
    expect(reports.map((r) => [r.state, r.status ?? r.error?.slice(0, 40)])).toEqual([
      ['sync', 200],
      ['exists', 'not sent: refused by the delivery policy'],
    ]);
  });

  it('a name that does not resolve fails as an unreachable receiver does: tried again, then dropped', async () => {
    await watchName('nowhere.test', '/nowhere');
    expect(reports.map((r) => r.error)).toEqual([
      'getaddrinfo ENOTFOUND nowhere.test',
      'getaddrinfo ENOTFOUND nowhere.test',
      'getaddrinfo ENOTFOUND nowhere.test',
    ]);
  });
});

/** An emulator listening on every interface (a shared sandbox), called through 127.0.0.1. */
async function exposedEmulator(allow?: string[], resolve?: Resolver) {
  const emulator = createEmulator({
    specs: { calendar: spec },
    admin: { token: TEST_ADMIN_TOKEN },
    notifications: { retryDelaysMs: [], ...(allow ? { allow } : {}), ...(resolve ? { resolve } : {}) },
  });
  const origin = (await emulator.listen(0, '0.0.0.0')).replace('0.0.0.0', '127.0.0.1');
  const watch = async (address: string) => {
    const response = await fetch(`${origin}/calendar/v3/calendars/primary/events/watch`, {
      method: 'POST',
      headers: { authorization: 'Bearer ana@example.com', 'content-type': 'application/json' },
      body: JSON.stringify(watchBody(address)),
    });
    return { status: response.status, body: await response.json() };
  };
  return { emulator, watch };
}

describe('a shared sandbox delivers only to the targets --notify-allow lists', () => {
  let sandbox: Awaited<ReturnType<typeof exposedEmulator>>;
  beforeAll(async () => {
    sandbox = await exposedEmulator(
      [`127.0.0.1:${receiver.port}`, 'receiver.internal', '10.20.0.0/16:8080,[fd00:1::/32]:8443'],
      async (host) => (host === 'receiver.internal' ? [{ address: '127.0.0.1', family: 4 }] : []),
    );
  });
  afterAll(() => sandbox.emulator.close());

  it.each([
    ['the IP and port listed', `http://127.0.0.1:${'PORT'}/ip`],
    ['the IP listed, in decimal', 'http://2130706433:PORT/decimal'],
    ['the name listed (any port)', 'http://receiver.internal:PORT/name'],
  ])('delivers to %s', async (_name, template) => {
    const address = template.replace('PORT', String(receiver.port));
    const reply = await sandbox.watch(address);
    expect(reply.status).toBe(200);
    await settled(sandbox.emulator);
    const path = new URL(address).pathname;
    expect(receiver.on(path).map(state)).toEqual(['sync']);
  });

  it.each([
    ['the listed IP on another port', 'http://127.0.0.1:22/', '127.0.0.1:22 is not on the allow list'],
    ['loopback by name', 'http://localhost:PORT/', 'localhost:PORT is not on the allow list'],
    ['loopback in hex', 'http://0x7f000001:2375/', '127.0.0.1:2375 is not on the allow list'],
    [
      'a private address outside the ranges',
      'http://10.0.0.1:2375/',
      '10.0.0.1:2375 is not on the allow list',
    ],
    ['a listed range on another port', 'http://10.20.1.2:9090/', '10.20.1.2:9090 is not on the allow list'],
    ['an IPv6 address outside the ranges', 'http://[fd00::1]/', '[fd00::1]:80 is not on the allow list'],
    [
      'the metadata service (never)',
      'http://169.254.169.254/',
      '169.254.169.254 is the cloud metadata service',
    ],
  ])('refuses %s', async (_name, template, why) => {
    const address = template.replace('PORT', String(receiver.port));
    const reply = await sandbox.watch(address);
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0].reason).toBe('push.webhookUrlUnauthorized');
    expect(reply.body.error.message).toContain(address);
    expect(reply.body.error.message).toContain(why.replace('PORT', String(receiver.port)));
    await settled(sandbox.emulator);
    expect(receiver.received).toEqual([]);
  });

  it('without an allow list, a sandbox refuses every watch and says how to allow one', async () => {
    const bare = await exposedEmulator();
    try {
      const reply = await bare.watch(`http://127.0.0.1:${receiver.port}/hook`);
      expect(reply.status).toBe(400);
      expect(reply.body.error.message).toContain(
        'listens on 0.0.0.0, beyond loopback (a shared sandbox) and no target is allowed; list the receivers with --notify-allow',
      );
    } finally {
      await bare.emulator.close();
    }
  });
});

describe('the allow list: entries and matching', () => {
  const sandbox = (allow?: string[], bound?: string) =>
    new DeliveryPolicy(allow, bound === undefined ? { sharedStore: true } : { boundTo: () => bound });

  it.each([
    // entry, address, allowed
    ['10.0.0.0/8', 'http://10.255.1.2:9000/', true],
    ['10.0.0.0/8', 'http://11.0.0.1/', false],
    ['10.20.0.0/16:8080', 'http://10.20.3.4:8080/', true],
    ['10.20.0.0/16:8080', 'http://10.20.3.4/', false],
    ['192.168.1.7:443', 'https://192.168.1.7/', true],
    ['192.168.1.7:80', 'http://192.168.1.7/', true],
    ['192.168.1.7', 'http://[::ffff:192.168.1.7]:81/', true],
    ['fd00::/8', 'http://[fd12:3456::1]/', true],
    ['fd00::/8', 'http://[fe00::1]/', false],
    ['[fd00:1::/32]:8443', 'https://[fd00:1:2::3]:8443/', true],
    ['[fd00:1::/32]:8443', 'https://[fd00:1:2::3]/', false],
    ['[::1]:9000', 'http://[::1]:9000/', true],
    ['[::1]:9000', 'http://127.0.0.1:9000/', false],
    ['Receiver.Example.', 'http://receiver.example:1234/', true],
    ['receiver.example:1234', 'http://receiver.example:1235/', false],
    ['receiver.example', 'http://sub.receiver.example/', false],
    ['*', 'http://anything.example:1/', true],
    ['*', 'http://[::ffff:a9fe:a9fe]/', false],
    ['0.0.0.0/0', 'http://169.254.169.254/', false],
  ])('%s allows %s: %s', (entry, address, allowed) => {
    expect(sandbox([entry]).refusal(address) === undefined).toBe(allowed);
  });

  it.each([
    ['a shared store', true, undefined],
    ['a listener on 0.0.0.0', true, '0.0.0.0'],
    ['a listener on ::', true, '::'],
    ['a listener on a LAN address', true, '192.168.1.10'],
    ['a listener on 127.0.0.1', false, '127.0.0.1'],
    ['a listener on ::1', false, '::1'],
  ])('%s makes a shared sandbox: %s', (_name, isSandbox, bound) => {
    expect(sandbox(undefined, bound).refusal('http://127.0.0.1:8080/') !== undefined).toBe(isSandbox);
  });

  it('given on loopback, the allow list applies there too', () => {
    const policy = new DeliveryPolicy(['127.0.0.1:8080'], { boundTo: () => '127.0.0.1' });
    expect(policy.refusal('http://127.0.0.1:8080/')).toBeUndefined();
    expect(policy.refusal('http://127.0.0.1:8081/')).toContain('127.0.0.1:8081 is not on the allow list');
  });

  it.each([
    ['', 'an empty entry'],
    ['169.254.169.254', '169.254.169.254 is the cloud metadata service, which is always refused'],
    ['metadata.google.internal:80', 'metadata.google.internal is the cloud metadata service'],
    ['169.254.0.0/16', 'every address of it is link-local (169.254.0.0/16), which is always refused'],
    ['fe80::/64', 'every address of it is link-local (fe80::/10)'],
    ['10.0.0.0/33', 'not a CIDR range'],
    ['10.0.0.1:0', 'the port "0" is not 1-65535'],
    ['receiver:http', 'the port "http" is not 1-65535'],
    ['[fd00::1', 'expected host, host:port, [IPv6]:port'],
    ['bad host!', 'not a host name or an IP address'],
  ])('refuses the entry %j: %s', (entry, why) => {
    expect(() => new DeliveryPolicy([entry])).toThrow(DeliveryPolicyError);
    expect(() => new DeliveryPolicy([entry])).toThrow(
      `notifications.allow: ${JSON.stringify(entry)}: ${why}`,
    );
  });

  it('createEmulator refuses an allow list with a bad entry, naming it', () => {
    expect(() => createEmulator({ notifications: { allow: ['*', '10.0.0.0/8,169.254.0.0/16'] } })).toThrow(
      'notifications.allow: "169.254.0.0/16": every address of it is link-local (169.254.0.0/16), which is always refused',
    );
  });
});

describe('the cap on channels per user', () => {
  const emu = useEmulator({ notifications: { maxChannelsPerUser: 3 } });
  beforeEach(() => emu.reset());

  const watchAs = (token: string) =>
    emu.call('POST', '/calendars/primary/events/watch', {
      token,
      body: watchBody(`http://127.0.0.1:${receiver.port}/cap`),
    });

  it('over it, watch is 403 quotaExceeded naming the cap and how to raise it; stopping one makes room', async () => {
    const opened = [];
    for (let i = 0; i < 3; i++) opened.push(await watchAs('ana@example.com'));
    expect(opened.map((reply) => reply.status)).toEqual([200, 200, 200]);
    const over = await watchAs('ana@example.com');
    expect(over.status).toBe(403);
    expect(over.body.error.errors[0]).toMatchObject({ domain: 'usageLimits', reason: 'quotaExceeded' });
    expect(over.body.error.message).toBe(
      'ana@example.com has 3 watch channels open, the most the emulator lets one user open (3); stop one with channels.stop or let it expire, or raise the cap with --notify-max-channels N (createEmulator({ notifications: { maxChannelsPerUser } }))',
    );
    // Per user: another one still has room.
    expect((await watchAs('bo@example.com')).status).toBe(200);
    const first = opened[0]?.body;
    const stop = await emu.call('POST', '/channels/stop', {
      body: { id: first.id, resourceId: first.resourceId },
    });
    expect(stop.status).toBe(204);
    expect((await watchAs('ana@example.com')).status).toBe(200);
    await settled(emu.emulator);
  });

  it.each([0, -1, 1.5, Number.NaN])('an option of %s is refused, naming it', (value) => {
    expect(() => new Notifier({ maxChannelsPerUser: value })).toThrow(
      /^notifications\.maxChannelsPerUser: .* is not a whole number of at least 1$/,
    );
    expect(() => new Notifier({ maxAttemptsPerChange: value })).toThrow(
      /^notifications\.maxAttemptsPerChange: .* is not a whole number of at least 1$/,
    );
  });
});

describe('the cap on POSTs one change may cause, over all channels', () => {
  const reports: DeliveryReport[] = [];
  // Four attempts per message (three retries at once); `exists` is answered 503 every time. A
  // POST waits as long as it takes for its answer: on a loaded machine a hundred at once can
  // take seconds, and one given up on is an attempt the receiver never counts.
  const PATIENT_MS = 120_000;
  const emu = useEmulator({
    notifications: {
      retryDelaysMs: [0, 0, 0],
      maxAttemptsPerChange: 10,
      timeoutMs: PATIENT_MS,
      onDelivery: (report) => reports.push(report),
    },
  });
  beforeEach(async () => {
    await emu.reset();
    reports.length = 0;
    receiver.status = (message) => (state(message) === 'exists' ? 503 : 200);
  });

  async function openChannels(harness: Harness, count: number, path: string) {
    for (let i = 0; i < count; i++) {
      const reply = await harness.call('POST', '/calendars/primary/events/watch', {
        body: watchBody(`http://127.0.0.1:${receiver.port}${path}`),
      });
      expect(reply.status).toBe(200);
    }
    await settled(harness.emulator);
  }

  it('5 channels on a receiver answering 503: each change makes 10 POSTs, not 20; the skips are reported', async () => {
    await openChannels(emu, 5, '/busy');
    for (const summary of ['first change', 'second change']) {
      const before = receiver.on('/busy').filter((m) => state(m) === 'exists').length;
      await emu.call('POST', '/calendars/primary/events', { body: timedEvent(summary) });
      await settled(emu.emulator);
      expect(receiver.on('/busy').filter((m) => state(m) === 'exists').length - before).toBe(10);
    }
    const exists = reports.filter((r) => r.state === 'exists');
    expect(exists.filter((r) => r.status === 503)).toHaveLength(20);
    const skipped = exists.filter((r) => r.error !== undefined);
    expect(skipped.length).toBeGreaterThan(0);
    for (const skip of skipped)
      expect(skip.error).toBe(
        'not sent: the change that caused it has made its 10 delivery attempts (notifications.maxAttemptsPerChange, --notify-max-attempts)',
      );
  });

  describe('with the defaults', () => {
    const defaults = useEmulator({ notifications: { retryDelaysMs: [0, 0, 0], timeoutMs: PATIENT_MS } });
    beforeEach(() => defaults.reset());

    it(`${DEFAULT_MAX_CHANNELS_PER_USER} channels on a 503 receiver: one change makes ${DEFAULT_MAX_ATTEMPTS_PER_CHANGE} POSTs, not 400; the next channel is refused`, async () => {
      await openChannels(defaults, DEFAULT_MAX_CHANNELS_PER_USER, '/probe');
      const over = await defaults.call('POST', '/calendars/primary/events/watch', {
        body: watchBody(`http://127.0.0.1:${receiver.port}/probe`),
      });
      expect(over.status).toBe(403);
      await defaults.call('POST', '/calendars/primary/events', { body: timedEvent('one change') });
      await settled(defaults.emulator);
      expect(receiver.on('/probe').filter((m) => state(m) === 'exists')).toHaveLength(
        DEFAULT_MAX_ATTEMPTS_PER_CHANGE,
      );
    });
  });
});

describe('gspec-emulator --notify-*', () => {
  it.each([
    [
      ['--notify-allow', '10.0.0.0/8', '--notify-allow', '169.254.169.254'],
      'invalid --notify-allow "169.254.169.254": 169.254.169.254 is the cloud metadata service, which is always refused',
    ],
    [
      ['--notify-allow', 'receiver:99999'],
      'invalid --notify-allow "receiver:99999": the port "99999" is not 1-65535',
    ],
    [
      ['--notify-max-channels', '0'],
      'invalid --notify-max-channels "0": expected a whole number of channels per user, at least 1',
    ],
    [
      ['--notify-max-attempts', 'many'],
      'invalid --notify-max-attempts "many": expected a whole number of POSTs per change, at least 1',
    ],
  ])('refuses %j with one line and status 1', async (args, message) => {
    const run = startCli(args);
    expect(await run.exited).toBe(1);
    expect(run.output().err).toBe(`gspec-emulator: ${message}\n`);
  });

  it.each([
    [
      [],
      'Notifications go to any address but link-local and cloud metadata ones; at most 100 channels per user, 100 POSTs per change',
    ],
    [
      [
        '--notify-allow',
        '127.0.0.1:9000,10.0.0.0/8',
        '--notify-allow=receiver.internal',
        '--notify-max-channels',
        '7',
        '--notify-max-attempts',
        '30',
      ],
      'Notifications go only to 127.0.0.1:9000, 10.0.0.0/8, receiver.internal (--notify-allow); at most 7 channels per user, 30 POSTs per change',
    ],
    [
      ['--host', '0.0.0.0'],
      'Notifications go nowhere: this emulator listens on 0.0.0.0, beyond loopback (a shared sandbox) and no --notify-allow is given, so every watch is refused; at most 100 channels per user, 100 POSTs per change',
    ],
  ])('with %j, the start-up output says where notifications go', async (args, line) => {
    const run = startCli(args);
    await run.ready;
    expect(run.output().out).toContain(`${line}\n`);
    expect(await run.stop('SIGTERM')).toBe(0);
  });
});
