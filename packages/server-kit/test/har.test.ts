import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  HarError,
  HarWriter,
  harContentBody,
  harEntry,
  harHeader,
  parseHar,
  readHarFile,
} from '../src/har.ts';

const folder = mkdtempSync(path.join(tmpdir(), 'gspec-har-'));

const exchange = {
  method: 'post',
  url: 'https://oauth2.googleapis.com/token?key=api-key-1&alt=json',
  requestHeaders: { authorization: 'Basic c2VjcmV0', 'content-type': 'application/x-www-form-urlencoded' },
  requestBody: 'grant_type=refresh_token&refresh_token=1%2F%2Fr&client_id=abc',
  status: 200,
  statusText: 'OK',
  responseHeaders: { 'content-type': 'application/json', 'set-cookie': 'sid=1' },
  responseBody: Buffer.from('{"access_token":"ya29.a","expires_in":3599,"token_type":"Bearer"}'),
  started: new Date('2026-11-28T10:00:00Z'),
  timeMs: 12.4,
};

describe('harEntry', () => {
  const entry = harEntry(exchange);

  it('keeps what a replay and a seed need', () => {
    expect(entry.request.method).toBe('POST');
    expect(entry.request.queryString).toContainEqual({ name: 'alt', value: 'json' });
    expect(entry.request.postData?.text).toContain('client_id=abc');
    expect(entry.response.status).toBe(200);
    expect(JSON.parse(entry.response.content.text ?? '')).toMatchObject({ expires_in: 3599 });
    expect(entry.time).toBe(12);
    expect(entry.startedDateTime).toBe('2026-11-28T10:00:00.000Z');
  });

  it('holds no credential: headers, query, form fields and the token answer', () => {
    const text = JSON.stringify(entry);
    for (const secret of ['c2VjcmV0', 'api-key-1', '1%2F%2Fr', 'ya29.a', 'sid=1'])
      expect(text, secret).not.toContain(secret);
    expect(harHeader(entry.request.headers, 'Authorization')).toBe('[redacted]');
    expect(entry.request.queryString).toContainEqual({ name: 'key', value: '[redacted]' });
  });

  it('keeps a body that is not UTF-8 as base64', () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x01]);
    const binary = harEntry({
      ...exchange,
      responseHeaders: { 'content-type': 'application/octet-stream' },
      responseBody: bytes,
    });
    expect(binary.response.content.encoding).toBe('base64');
    expect(harContentBody(binary.response.content)?.equals(bytes)).toBe(true);
  });
});

describe('parseHar', () => {
  const valid = {
    log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [harEntry(exchange)] },
  };

  it('reads what harEntry writes', () => {
    expect(parseHar(JSON.stringify(valid), 'a.har')).toHaveLength(1);
  });

  it.each([
    ['not JSON', '{', /a\.har:1:2: /],
    ['no log', '{}', /a\.har: log: missing/],
    ['entries not an array', '{"log":{"entries":{}}}', /log\.entries: expected an array/],
    [
      'a relative URL',
      JSON.stringify({
        log: { entries: [{ ...valid.log.entries[0], request: { method: 'GET', url: '/x' } }] },
      }),
      /log\.entries\[0\]\.request\.url: expected an absolute URL/,
    ],
    [
      'a status out of range',
      JSON.stringify({
        log: {
          entries: [{ ...valid.log.entries[0], response: { ...valid.log.entries[0]?.response, status: 42 } }],
        },
      }),
      /log\.entries\[0\]\.response\.status: expected an HTTP status, found 42/,
    ],
  ])('names the place of %s', (_name, text, message) => {
    expect(() => parseHar(text, 'a.har')).toThrow(message);
  });

  it('says when the file is missing', () => {
    expect(() => readHarFile(path.join(folder, 'none.har'))).toThrow(HarError);
  });
});

describe('HarWriter', () => {
  it('never replaces a file that exists', () => {
    const file = path.join(folder, 'theirs.har');
    writeFileSync(file, 'their notes');
    expect(() => new HarWriter(file, { name: 't', version: '1' })).toThrow(/exists already/);
    expect(readFileSync(file, 'utf8')).toBe('their notes');
  });

  it('leaves a complete HAR file at every close', () => {
    const file = path.join(folder, 'mine.har');
    const writer = new HarWriter(file, { name: 't', version: '1' });
    expect(readHarFile(file)).toEqual([]);
    writer.add(harEntry(exchange));
    writer.add(harEntry(exchange));
    writer.close();
    expect(readHarFile(file)).toHaveLength(2);
    writer.add(harEntry(exchange));
    expect(readHarFile(file)).toHaveLength(2);
  });
});
