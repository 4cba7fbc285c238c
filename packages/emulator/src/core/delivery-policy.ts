/**
 * Where watch channels may send their notifications (README, Push notifications; decision 0053).
 *
 * A watch makes the emulator POST, with headers the caller partly chooses, to any URL the caller
 * gives. Without a policy, anyone with a token could use the emulator to reach what only it can
 * reach: the cloud metadata service of the machine it runs on, a container daemon on the private
 * network, a service on its loopback. So every target is checked twice: when the channel is made
 * (its URL), and at each delivery, after its host name is resolved, on every address it resolves
 * to; the connection then goes to the checked address, so a name that resolves, or later
 * rebinds, to a refused address is never contacted.
 *
 * - Always refused, whatever the configuration: link-local addresses (169.254.0.0/16,
 *   fe80::/10), the cloud metadata service (169.254.169.254, fd00:ec2::254,
 *   `metadata.google.internal`, `metadata`), the unspecified addresses (0.0.0.0/8, ::), and those
 *   IPv4 addresses written as IPv6 (mapped, compatible, NAT64, 6to4). URLs are read with the
 *   WHATWG parser, which turns every numeric spelling (`2130706433`, `0x7f000001`, `0177.1`)
 *   into the dotted form first.
 * - On a developer's machine (listening on loopback, no shared store): anything else, since
 *   receivers usually run on localhost.
 * - In a shared sandbox (a shared store, or a listener beyond loopback) and whenever an allow
 *   list is given: only the targets the allow list (`--notify-allow`, `notifications.allow`)
 *   names. Its entries are host names, IP addresses and CIDR ranges (IPv4 and IPv6), each
 *   optionally with `:port` (`[v6]:port` for IPv6), or `*` for anything not always refused.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isLoopback } from './admin.js';

/** One address of a host name, as the system's resolver gives it. */
export interface ResolvedAddress {
  address: string;
  /** 4 or 6. */
  family: number;
}

/** Resolves a host name to every address it has. */
export type Resolver = (host: string) => Promise<readonly ResolvedAddress[]>;

/** The system's resolver, as a connection would use it. */
export const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/** An option of the delivery policy or the caps that cannot work; the message names it. */
export class DeliveryPolicyError extends Error {
  override name = 'DeliveryPolicyError';
}

interface Ip {
  version: 4 | 6;
  value: bigint;
}

interface Cidr extends Ip {
  bits: number;
}

const WIDTH = { 4: 32n, 6: 128n } as const;

function v4Value(text: string): bigint {
  return text.split('.').reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);
}

function v6Value(text: string): bigint {
  const groups = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [Number.parseInt(group, 16)];
          const v4 = Number(v4Value(group));
          return [v4 >>> 16, v4 & 0xffff];
        });
  const [head = '', tail] = text.split('::');
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = [...front, ...Array(8 - front.length - back.length).fill(0), ...back];
  return all.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

/** An IP address (brackets and an IPv6 zone allowed), or undefined when the text is none. */
function parseIp(text: string): Ip | undefined {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) return { version, value: v4Value(bare) };
  if (version === 6) return { version, value: v6Value(bare) };
  return undefined;
}

function parseCidr(text: string): Cidr | undefined {
  const [address = '', bits, ...rest] = text.split('/');
  const ip = parseIp(address);
  if (!ip || rest.length > 0) return undefined;
  const width = Number(WIDTH[ip.version]);
  const prefix = bits === undefined ? width : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
  if (!(prefix >= 0 && prefix <= width)) return undefined;
  const shift = BigInt(width - prefix);
  return { version: ip.version, value: (ip.value >> shift) << shift, bits: prefix };
}

function contains(range: Cidr, ip: Ip): boolean {
  if (range.version !== ip.version) return false;
  const shift = WIDTH[ip.version] - BigInt(range.bits);
  return ip.value >> shift === range.value >> shift;
}

/** The IPv4 address an IPv6 one stands for (mapped, translated, compatible, NAT64, 6to4), if any. */
function embeddedV4(ip: Ip): Ip | undefined {
  if (ip.version !== 6) return undefined;
  const high = ip.value >> 32n;
  const low = ip.value & 0xffffffffn;
  // ::ffff:a.b.c.d, ::ffff:0:a.b.c.d, 64:ff9b::a.b.c.d, and ::a.b.c.d (but :: and ::1).
  if (high === 0xffffn || high === 0xffff0000n || high === 0x64ff9b0000000000000000n)
    return { version: 4, value: low };
  if (high === 0n && ip.value > 1n) return { version: 4, value: low };
  // 2002:AABB:CCDD::/48, 6to4.
  if (ip.value >> 112n === 0x2002n) return { version: 4, value: (ip.value >> 80n) & 0xffffffffn };
  return undefined;
}

/** The addresses no delivery goes to, most specific first, each with why. */
const REFUSED: [Cidr, string][] = (
  [
    ['169.254.169.254', 'the cloud metadata service'],
    ['fd00:ec2::254', 'the cloud metadata service'],
    ['0.0.0.0/8', 'an unspecified address (0.0.0.0/8)'],
    ['::', 'the unspecified address (::)'],
    ['169.254.0.0/16', 'link-local (169.254.0.0/16)'],
    ['fe80::/10', 'link-local (fe80::/10)'],
  ] as const
).map(([range, why]) => [parseCidr(range) as Cidr, why]);

/** The names of the cloud metadata service. */
const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal']);

/** Why no delivery may go to this address, or undefined. */
function refusedIp(ip: Ip): string | undefined {
  for (const [range, why] of REFUSED) if (contains(range, ip)) return why;
  const v4 = embeddedV4(ip);
  const why = v4 && refusedIp(v4);
  return why && `${why}, written as IPv6`;
}

/** A URL's host as compared: no brackets, no trailing dot, lower case. */
const bareHost = (hostname: string) =>
  hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();

/**
 * Why no delivery may ever go to this host (a URL's host name, an IP address or a resolved
 * address), whatever the configuration; undefined when it is not always refused.
 */
export function alwaysRefused(hostname: string): string | undefined {
  const host = bareHost(hostname);
  if (METADATA_NAMES.has(host)) return `${host} is the cloud metadata service`;
  const ip = parseIp(host);
  const why = ip && refusedIp(ip);
  return why && `${host} is ${why}`;
}

/** An entry of the allow list, parsed. */
interface AllowEntry {
  text: string;
  any?: true;
  name?: string;
  range?: Cidr;
  port?: number;
}

/** The host and port of an entry: `host`, `host:port`, `[v6]`, `[v6]:port`, or a bare IPv6. */
function splitPort(text: string): { host: string; port?: string } | undefined {
  const bracketed = /^\[([^\]]*)\](?::([^:]*))?$/.exec(text);
  if (bracketed)
    return { host: bracketed[1] as string, ...(bracketed[2] !== undefined ? { port: bracketed[2] } : {}) };
  if (text.includes('[') || text.includes(']')) return undefined;
  const colons = text.split(':').length - 1;
  if (colons !== 1) return { host: text };
  const [host = '', port = ''] = text.split(':');
  return { host, port };
}

/**
 * One entry of `--notify-allow`: `*`, a host name, an IP address or a CIDR range, optionally
 * with `:port`. Throws DeliveryPolicyError saying what is wrong with it.
 */
export function parseAllowEntry(raw: string): AllowEntry {
  const text = raw.trim();
  const wrong = (why: string) => new DeliveryPolicyError(`${JSON.stringify(raw)}: ${why}`);
  if (text === '') throw wrong('an empty entry; give a host name, an IP address, a CIDR range or *');
  if (text === '*') return { text, any: true };
  const split = splitPort(text);
  if (!split || split.host === '') throw wrong('expected host, host:port, [IPv6]:port, a CIDR range or *');
  let port: number | undefined;
  if (split.port !== undefined) {
    port = /^\d{1,5}$/.test(split.port) ? Number(split.port) : Number.NaN;
    if (!(port >= 1 && port <= 65535)) throw wrong(`the port ${JSON.stringify(split.port)} is not 1-65535`);
  }
  const at = port === undefined ? {} : { port };
  if (split.host.includes('/')) {
    const range = parseCidr(split.host);
    if (!range) throw wrong('not a CIDR range (such as 10.0.0.0/8 or fd00::/8)');
    const inside = REFUSED.find(([refused]) => refused.bits <= range.bits && contains(refused, range));
    if (inside) throw wrong(`every address of it is ${inside[1]}, which is always refused`);
    return { text, range, ...at };
  }
  // Read as a URL's host is, so that an entry and a target are spelt alike.
  let host: string;
  try {
    host = bareHost(new URL(`http://${isIP(split.host) === 6 ? `[${split.host}]` : split.host}/`).hostname);
  } catch {
    throw wrong('not a host name or an IP address');
  }
  const refused = alwaysRefused(host);
  if (refused) throw wrong(`${refused}, which is always refused`);
  const ip = parseIp(host);
  if (ip) return { text, range: { ...ip, bits: Number(WIDTH[ip.version]) }, ...at };
  if (!/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(host))
    throw wrong('not a host name or an IP address');
  return { text, name: host, ...at };
}

/** The entries of `--notify-allow` values, each possibly a comma-separated list. */
export function parseAllowList(values: readonly string[]): AllowEntry[] {
  return values.flatMap((value) => value.split(',')).map(parseAllowEntry);
}

/** Where the emulator runs: whether it is a shared sandbox. */
export interface PolicyPlace {
  /** It keeps its state in a shared store. */
  sharedStore?: boolean;
  /** The address the server is bound to, asked when needed; undefined when not listening. */
  boundTo?: () => string | undefined;
}

/** A delivery's target after the check: the addresses to connect to, or why there is none. */
export type CheckedTarget = { addresses: ResolvedAddress[] } | { refused: string };

const defaultPort = (url: URL) => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

export class DeliveryPolicy {
  private readonly allow: AllowEntry[] | undefined;

  constructor(
    allow: readonly string[] | undefined,
    private readonly place: PolicyPlace = {},
    private readonly resolver: Resolver = systemResolver,
  ) {
    try {
      this.allow = allow === undefined ? undefined : parseAllowList(allow);
    } catch (error) {
      if (error instanceof DeliveryPolicyError)
        throw new DeliveryPolicyError(`notifications.allow: ${error.message}`);
      throw error;
    }
  }

  /** Why this emulator is a shared sandbox, or undefined when it is not. */
  sandbox(): string | undefined {
    if (this.place.sharedStore) return 'keeps its state in a shared store';
    const host = this.place.boundTo?.();
    return host !== undefined && !isLoopback(host) ? `listens on ${host}, beyond loopback` : undefined;
  }

  /** Why targets are limited to the allow list, or undefined when only the always-refused are refused. */
  restriction(): string | undefined {
    const sandbox = this.sandbox();
    if (sandbox) return `this emulator ${sandbox} (a shared sandbox)`;
    return this.allow === undefined ? undefined : 'an allow list is set';
  }

  /** The allow list as given (undefined: none), each entry as written. */
  get allowed(): string[] | undefined {
    return this.allow?.map((entry) => entry.text);
  }

  /** Why no notification may go to the URL `address`, or undefined when it may. */
  refusal(address: string): string | undefined {
    const url = new URL(address);
    const host = bareHost(url.hostname);
    const refused = alwaysRefused(host);
    if (refused) return `${refused}; no delivery ever goes there`;
    const restricted = this.restriction();
    if (!restricted) return undefined;
    const port = defaultPort(url);
    const ip = parseIp(host);
    // An IPv4 address written as IPv6 matches the IPv4 entries too.
    const asV4 = ip && ip.version === 6 && ip.value >> 32n === 0xffffn ? embeddedV4(ip) : undefined;
    const listed = (this.allow ?? []).some(
      (entry) =>
        entry.any ||
        ((entry.port === undefined || entry.port === port) &&
          (entry.name !== undefined
            ? entry.name === host
            : entry.range !== undefined &&
              ip !== undefined &&
              (contains(entry.range, ip) || (asV4 !== undefined && contains(entry.range, asV4))))),
    );
    if (listed) return undefined;
    const target = `${ip?.version === 6 ? `[${host}]` : host}:${port}`;
    return this.allow === undefined || this.allow.length === 0
      ? `${restricted} and no target is allowed; list the receivers with --notify-allow (notifications.allow)`
      : `${target} is not on the allow list (${this.allowed?.join(', ')}); ${restricted}, so it delivers only to the targets --notify-allow (notifications.allow) lists`;
  }

  /**
   * The addresses a delivery to `address` connects to: its host resolved now, every address it
   * has checked. Refused when the target is, or when any address is always refused. A failed
   * resolution throws (as an unreachable receiver fails).
   */
  async check(address: string): Promise<CheckedTarget> {
    const refused = this.refusal(address);
    if (refused) return { refused };
    const host = bareHost(new URL(address).hostname);
    const family = isIP(host);
    if (family !== 0) return { addresses: [{ address: host, family }] };
    const addresses = [...(await this.resolver(host))];
    if (addresses.length === 0) throw new Error(`${host} has no address`);
    for (const { address: found } of addresses) {
      if (isIP(found.replace(/%.*$/, '')) === 0)
        return { refused: `${host} resolves to ${JSON.stringify(found)}, which is no IP address` };
      const why = alwaysRefused(found);
      if (why) return { refused: `${host} resolves to ${why}; no delivery ever goes there` };
    }
    return { addresses };
  }
}
