/**
 * Who may talk to a local server (decision 0052): the Host a request names (DNS rebinding),
 * the Origin and Sec-Fetch-Site of a browser request to a control plane, and the content type
 * of its body.
 */
import { describe, expect, it } from 'vitest';
import {
  AllowedHosts,
  AllowedHostsError,
  crossOriginRefusal,
  declaredTooLarge,
  foreignOrigin,
  hostOfHeader,
  hostRefusal,
  nonJsonRefusal,
} from '../src/index.ts';

const request = (headers: Record<string, string>) => ({ headers }) as never;

describe('hostOfHeader', () => {
  it.each([
    ['127.0.0.1:4011', '127.0.0.1'],
    ['LocalHost.:4011', 'localhost'],
    ['[::1]:4011', '::1'],
    ['[::1]', '::1'],
    ['emulator', 'emulator'],
    ['calendar.test:80', 'calendar.test'],
    ['a b', undefined],
    ['[::1', undefined],
    ['[nope]:1', undefined],
    ['host:port', undefined],
    ['', undefined],
    ['evil.test:4011/x', undefined],
  ])('%j -> %j', (header, host) => {
    expect(hostOfHeader(header)).toBe(host);
  });
});

describe('AllowedHosts', () => {
  const defaults = AllowedHosts.DEFAULT;
  it.each([
    // Names that cannot be rebound: IP addresses, localhost, names under .localhost.
    ['127.0.0.1:4011', true],
    ['127.1.2.3', true],
    ['[::1]:4011', true],
    ['10.0.0.5:4011', true],
    ['localhost:4011', true],
    ['LOCALHOST', true],
    ['localhost.:4011', true],
    ['app.localhost:4011', true],
    // A name a page's author controls, pointed at 127.0.0.1.
    ['evil.test:4011', false],
    ['localhost.evil.test', false],
    ['127.0.0.1.nip.io:4011', false],
    ['emulator:4011', false],
    ['not a host', false],
  ])('by default, Host %j: %s', (host, allowed) => {
    expect(defaults.allows(host)).toBe(allowed);
  });

  it('a request without Host (HTTP/1.0: no browser sends one) is answered', () => {
    expect(defaults.allows(undefined)).toBe(true);
  });

  it.each([
    ['emulator', 'emulator:4011', true],
    ['emulator', 'other:4011', false],
    ['Calendar.Test', 'calendar.test', true],
    ['.example.test', 'example.test', true],
    ['.example.test', 'api.example.test:443', true],
    ['.example.test', 'badexample.test', false],
    ['emulator,.example.test', 'x.example.test', true],
    ['*', 'evil.test:4011', true],
  ])('--allowed-hosts %s, Host %j: %s', (entries, host, allowed) => {
    expect(AllowedHosts.parse(entries).allows(host)).toBe(allowed);
  });

  it.each([
    ['http://emulator', /"http:\/\/emulator" is not a host name; give the name alone/],
    ['emulator:4011', /"emulator:4011" is not a host name/],
    ['a,,b', /an entry is empty/],
    ['bad host', /"bad host" is not a host name/],
    ['.', /"." is not a host name/],
  ])('refuses the entry %j with a message naming it', (entries, message) => {
    expect(() => AllowedHosts.parse(entries)).toThrow(AllowedHostsError);
    expect(() => AllowedHosts.parse(entries)).toThrow(message);
  });

  it('says what it takes', () => {
    expect(AllowedHosts.parse('emulator,.example.test').describe()).toBe(
      'IP addresses, localhost, emulator, .example.test',
    );
    expect(AllowedHosts.parse('*').describe()).toMatch(/no protection against DNS rebinding/);
  });

  it('a refused Host gets 403 naming the host and the option that allows it', () => {
    const refusal = hostRefusal(request({ host: 'evil.test:4011' }), defaults);
    expect(refusal?.status).toBe(403);
    expect(refusal?.body.error.errors[0]).toMatchObject({
      reason: 'hostNotAllowed',
      location: 'Host',
      locationType: 'header',
    });
    expect(refusal?.message).toMatch(/"evil\.test".*--allowed-hosts evil\.test/);
    expect(hostRefusal(request({ host: '127.0.0.1:4011' }), defaults)).toBeUndefined();
  });
});

describe('foreignOrigin', () => {
  it.each([
    // Programs send neither header; the server's own page sends its own origin.
    [{ host: '127.0.0.1:4011' }, undefined],
    [{ host: '127.0.0.1:4011', origin: 'http://127.0.0.1:4011' }, undefined],
    [{ host: 'localhost:4011', origin: 'http://localhost:4011', 'sec-fetch-site': 'same-origin' }, undefined],
    [{ host: '[::1]:4011', origin: 'http://[::1]:4011' }, undefined],
    [{ host: 'localhost', origin: 'http://localhost' }, undefined],
    [{ host: 'localhost:4011', 'sec-fetch-site': 'none' }, undefined],
    // Another port of localhost is another origin, and the same site.
    [{ host: 'localhost:4011', origin: 'http://localhost:5173' }, 'Origin is http://localhost:5173'],
    [{ host: 'localhost:4011', 'sec-fetch-site': 'same-site' }, 'Sec-Fetch-Site is same-site'],
    [{ host: 'localhost:4011', 'sec-fetch-site': 'cross-site' }, 'Sec-Fetch-Site is cross-site'],
    [{ host: '127.0.0.1:4011', origin: 'http://localhost:4011' }, 'Origin is http://localhost:4011'],
    // Behind a proxy that ends TLS: the page is https, Host has no port.
    [{ host: 'emulator.example.test', origin: 'https://emulator.example.test' }, undefined],
    [
      { host: 'emulator.example.test', origin: 'http://emulator.example.test:8080' },
      'Origin is http://emulator.example.test:8080',
    ],
    [{ host: '127.0.0.1:4011', origin: 'https://127.0.0.1:4012' }, 'Origin is https://127.0.0.1:4012'],
    [{ host: '127.0.0.1:4011', origin: 'chrome-extension://abc' }, 'Origin is chrome-extension://abc'],
    [{ host: '127.0.0.1:4011', origin: 'null' }, 'Origin is null'],
    [{ origin: 'http://127.0.0.1:4011' }, 'Origin is http://127.0.0.1:4011'],
  ])('%j -> %j', (headers, why) => {
    expect(foreignOrigin(request(headers))).toBe(why);
  });

  it('a control plane refuses another origin with 403 that says why', () => {
    const refusal = crossOriginRefusal(
      request({ host: 'localhost:4011', origin: 'http://localhost:5173' }),
      'The control plane',
    );
    expect(refusal?.status).toBe(403);
    expect(refusal?.body.error.errors[0]).toMatchObject({ reason: 'crossOriginRequest', location: 'Origin' });
    expect(refusal?.message).toMatch(
      /^The control plane answers programs .*Origin is http:\/\/localhost:5173/,
    );
  });
});

describe('nonJsonRefusal and declaredTooLarge', () => {
  it.each([
    ['application/json', undefined],
    ['application/json; charset=utf-8', undefined],
    ['text/plain', 415],
    ['application/x-www-form-urlencoded', 415],
    ['multipart/form-data; boundary=x', 415],
    [undefined, 415],
  ])('a body of %j: %j', (type, status) => {
    const headers: Record<string, string> = {
      'content-length': '2',
      ...(type === undefined ? {} : { 'content-type': type }),
    };
    expect(nonJsonRefusal(request(headers), 'The control plane')?.status).toBe(status);
  });

  it.each([
    ['no body', {}, undefined],
    [
      'an empty body (a bare POST of fetch)',
      { 'content-length': '0', 'content-type': 'text/plain' },
      undefined,
    ],
    ['a chunked body', { 'transfer-encoding': 'chunked', 'content-type': 'text/plain' }, 415],
  ])('%s: %j', (_, headers, status) => {
    expect(nonJsonRefusal(request(headers), 'The control plane')?.status).toBe(status);
  });

  it('names the type and how to send JSON', () => {
    expect(
      nonJsonRefusal(request({ 'content-length': '1', 'content-type': 'text/plain' }), 'The control plane')
        ?.message,
    ).toBe(
      "The control plane takes JSON bodies sent as Content-Type: application/json, not text/plain (with curl: -H 'content-type: application/json')",
    );
  });

  it.each([
    ['1025', 413],
    ['1024', undefined],
    [undefined, undefined],
    ['nonsense', undefined],
  ])('Content-Length %j against 1024: %j', (length, status) => {
    const headers: Record<string, string> = length === undefined ? {} : { 'content-length': length };
    expect(declaredTooLarge(request(headers), 1024)?.status).toBe(status);
  });
});
