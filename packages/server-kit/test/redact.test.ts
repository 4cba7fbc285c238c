/**
 * The redaction every server shares (src/redact.ts), function by function: which headers,
 * parameters and JSON keys are credentials, what stays as written around them, batch bodies part
 * by part, the conservative reading of what is malformed, and inputs built to make a careless
 * scanner throw or go quadratic (these must come back, redacted where they hold a credential).
 */
import { encodeBatchRequest } from '@gspec/runtime/multipart';
import { describe, expect, it } from 'vitest';
import {
  describeJsonError,
  isCredentialHeader,
  isCredentialName,
  REDACTED,
  redactBody,
  redactHeaders,
  redactJson,
  redactParameters,
  redactTarget,
  redactText,
} from '../src/index.ts';

describe('which names are credentials', () => {
  it.each([
    'access_token',
    'accessToken',
    'ACCESS-TOKEN',
    'oauth_token',
    'refresh_token',
    'id_token',
    'token',
    'subject_token',
    'key',
    'api_key',
    'apiKey',
    'client_secret',
    'clientSecret',
    'assertion',
    'code',
    'password',
    'private_key',
  ])('%s is a credential parameter', (name) => {
    expect(isCredentialName(name)).toBe(true);
  });

  it.each([
    'pageToken',
    'syncToken',
    'nextPageToken',
    'keyword',
    'maxResults',
    'summary',
    'grant_type',
    'client_id',
  ])('%s is not', (name) => {
    expect(isCredentialName(name)).toBe(false);
  });

  it.each([
    'Authorization',
    'proxy-authorization',
    'Cookie',
    'set-cookie',
    'X-Emulator-Admin-Token',
    'x-goog-api-key',
    'X-Goog-Channel-Token',
  ])('the header %s is a credential', (name) => {
    expect(isCredentialHeader(name)).toBe(true);
  });

  it.each(['content-type', 'x-goog-channel-id', 'x-goog-resource-state', 'if-match', 'host'])(
    'the header %s is not',
    (name) => {
      expect(isCredentialHeader(name)).toBe(false);
    },
  );
});

describe('redactHeaders', () => {
  it('replaces the credentials and keeps the rest, names in lower case and repeats joined', () => {
    expect(
      redactHeaders({
        Authorization: 'Bearer SECRET-1',
        'x-goog-api-key': 'SECRET-2',
        'set-cookie': ['a=SECRET-3', 'b=SECRET-4'],
        'X-Goog-Channel-Token': 'SECRET-5',
        'Content-Type': 'application/json',
        'x-repeated': ['a', 'b'],
        absent: undefined,
      }),
    ).toEqual({
      authorization: REDACTED,
      'x-goog-api-key': REDACTED,
      'set-cookie': REDACTED,
      'x-goog-channel-token': REDACTED,
      'content-type': 'application/json',
      'x-repeated': 'a, b',
    });
  });
});

describe('redactTarget', () => {
  it.each([
    ['/calendar/v3/colors', '/calendar/v3/colors'],
    ['/calendar/v3/colors?access_token=SECRET', '/calendar/v3/colors?access_token=%5Bredacted%5D'],
    [
      '/events?maxResults=5&key=SECRET&pageToken=p%201&fields=items(id)',
      '/events?maxResults=5&key=%5Bredacted%5D&pageToken=p%201&fields=items(id)',
    ],
    [
      '/token?grant_type=refresh_token&refresh_token=SECRET&client_secret=SECRET&client_id=app',
      '/token?grant_type=refresh_token&refresh_token=%5Bredacted%5D&client_secret=%5Bredacted%5D&client_id=app',
    ],
    ['/revoke?token=SECRET', '/revoke?token=%5Bredacted%5D'],
    ['/x?access%5Ftoken=SECRET', '/x?access%5Ftoken=%5Bredacted%5D'],
    ['/x?accessToken=SECRET&access_token=', '/x?accessToken=%5Bredacted%5D&access_token='],
    ['/x?%E0%A4%A=1&token=SECRET', '/x?%E0%A4%A=1&token=%5Bredacted%5D'],
    ['https://me:SECRET@host/x?a=1', `https://${REDACTED}@host/x?a=1`],
    ['/x?', '/x?'],
  ])('%s → %s', (target, expected) => {
    expect(redactTarget(target)).toBe(expected);
  });
});

describe('redactParameters (a form body)', () => {
  it('replaces the credential fields and keeps the others as written', () => {
    expect(redactParameters('grant_type=urn%3Aietf&assertion=eyJ.SECRET&scope=a+b')).toBe(
      'grant_type=urn%3Aietf&assertion=%5Bredacted%5D&scope=a+b',
    );
  });
});

describe('redactJson', () => {
  it.each([
    ['{"access_token":"SECRET","expires_in":3599}', `{"access_token":"${REDACTED}","expires_in":3599}`],
    [
      '{"a": {"b": [{"refresh_token" : "SE\\"CRET"}]}, "summary": "token"}',
      `{"a": {"b": [{"refresh_token" : "${REDACTED}"}]}, "summary": "token"}`,
    ],
    ['{"accessToken":"SECRET"}', `{"accessToken":"${REDACTED}"}`],
    ['{"to\\u006ben":"SECRET"}', `{"to\\u006ben":"${REDACTED}"}`],
    ['{"Authorization":"Bearer SECRET"}', `{"Authorization":"${REDACTED}"}`],
    // Not strings: kept (Google's error envelope has a numeric `code`; conferenceSolution.key is an object).
    ['{"error":{"code":404,"message":"Not Found"}}', '{"error":{"code":404,"message":"Not Found"}}'],
    ['{"key":{"type":"hangoutsMeet"}}', '{"key":{"type":"hangoutsMeet"}}'],
    // A body cut at the cap: the credential cut short is replaced to the end.
    ['{"a":1,"password":"SECR', `{"a":1,"password":"${REDACTED}"`],
    ['{"a":1,"password":', '{"a":1,"password":'],
    // Not JSON: a bare value is replaced to the next comma, bracket or line break.
    ['{"refresh_token": SECRET-5, "a": 1}', `{"refresh_token": "${REDACTED}", "a": 1}`],
    ['{"token": nope\n}', `{"token": "${REDACTED}"\n}`],
    ['{"code": -1, "password": null, "token": true}', '{"code": -1, "password": null, "token": true}'],
    ['not json "token": "SECRET" at all', `not json "token": "${REDACTED}" at all`],
    ['', ''],
  ])('%s', (text, expected) => {
    expect(redactJson(text)).toBe(expected);
  });
});

describe('redactText (conservative)', () => {
  it.each([
    ['GET /x?access_token=SECRET HTTP/1.1 junk', 'GET /x?access_token=%5Bredacted%5D HTTP/1.1 junk'],
    ['redirect=https://h/?key=SECRET&x=1', 'redirect=https://h/?key=%5Bredacted%5D&x=1'],
    [
      'line "Authorization Bearer SECRET" is no header',
      `line "Authorization Bearer ${REDACTED}" is no header`,
    ],
    ['a\nx-goog-api-key: SECRET\nb', `a\nx-goog-api-key: ${REDACTED}\nb`],
    ['{"message":"found \\"Cookie: SECRET\\" here"}', `{"message":"found \\"Cookie: ${REDACTED}\\" here"}`],
    ['"a\\nProxy-Authorization: Basic SECRET\\nb"', `"a\\nProxy-Authorization: ${REDACTED}\\nb"`],
    // What a message says of the header's form is no credential.
    ['Expected "Authorization: Bearer <token>".', 'Expected "Authorization: Bearer <token>".'],
    ['The Authorization header uses the Basic scheme', 'The Authorization header uses the Basic scheme'],
    ['Content-Type: application/json', 'Content-Type: application/json'],
    ['pageToken=abc&maxResults=5', 'pageToken=abc&maxResults=5'],
  ])('%s', (text, expected) => {
    expect(redactText(text)).toBe(expected);
  });
});

describe('redactBody', () => {
  const parts = encodeBatchRequest(
    [
      {
        method: 'GET',
        target: '/calendar/v3/colors?access_token=SECRET-1&maxResults=5',
        headers: { authorization: 'Bearer SECRET-2', 'if-none-match': '"etag-1"' },
      },
      {
        method: 'POST',
        target: '/calendar/v3/calendars',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'SECRET-3' },
        body: '{"summary":"Team","password":"SECRET-4"}',
      },
    ],
    'b1',
  );

  it('reads a batch part by part: request lines, headers, bodies', () => {
    const shown = redactBody(parts.body, parts.contentType);
    expect(shown).not.toMatch(/SECRET/);
    expect(shown).toBe(
      parts.body
        .replace('access_token=SECRET-1', 'access_token=%5Bredacted%5D')
        .replace('Bearer SECRET-2', REDACTED)
        .replace('x-goog-api-key: SECRET-3', `x-goog-api-key: ${REDACTED}`)
        .replace('"SECRET-4"', `"${REDACTED}"`),
    );
  });

  it.each([
    ['the boundary is another', 'multipart/mixed; boundary=other'],
    ['the Content-Type has no boundary', 'multipart/mixed'],
  ])('redacts a batch conservatively when %s', (_, contentType) => {
    const shown = redactBody(parts.body, contentType);
    expect(shown).not.toMatch(/SECRET/);
    expect(shown).toContain('/calendar/v3/colors?access_token=%5Bredacted%5D&maxResults=5');
  });

  it('redacts a part that is malformed, a batch cut short, and what lies around the parts', () => {
    const body = [
      'preamble key=SECRET-1',
      '--b1',
      'Content-Type: application/http',
      'Authorization Bearer SECRET-2',
      'GET /x?token=SECRET-3',
      '--b1',
      'Content-Type: application/http',
      '',
      'GET /x?code=SECRET-4 HTTP/1.1',
      'Cookie: SECRET-5',
      '',
      '{"password":"SECRET-6',
    ].join('\r\n');
    const shown = redactBody(body, 'multipart/mixed; boundary=b1');
    expect(shown).not.toMatch(/SECRET/);
    expect(shown.split('\r\n')).toHaveLength(12);
    expect(shown).toContain('GET /x?code=%5Bredacted%5D HTTP/1.1');
  });

  it.each([
    ['application/x-www-form-urlencoded', 'a=1&client_secret=SECRET', 'a=1&client_secret=%5Bredacted%5D'],
    ['application/json; charset=UTF-8', '{"token":"SECRET"}', `{"token":"${REDACTED}"}`],
    [undefined, 'a=1&client_secret=SECRET', 'a=1&client_secret=%5Bredacted%5D'],
    ['text/plain', '{"token":"SECRET"} key=SECRET', `{"token":"${REDACTED}"} key=%5Bredacted%5D`],
  ])('%s', (contentType, text, expected) => {
    expect(redactBody(text, contentType)).toBe(expected);
  });
});

describe('what is built to break a scanner', () => {
  const n = 200_000;
  it.each([
    ['quotes', '"'.repeat(n)],
    ['backslashes then a quote', `"${'\\'.repeat(n)}"`],
    ['keys without values', '"token":'.repeat(n / 8)],
    ['name characters without =', `?${'a'.repeat(n)}`],
    ['=', '='.repeat(n)],
    ['a credential name run on', `&${'token'.repeat(n / 5)}=SECRET`],
    ['spaces before a colon', `\n${' '.repeat(n)}x`],
    ['escaped line breaks', '\\n'.repeat(n / 2)],
    ['Bearer repeated', 'Bearer '.repeat(n / 7)],
    ['a batch of boundary lines', '--b\r\n'.repeat(n / 5)],
    [
      'a long request line',
      `--b\r\nContent-Type: application/http\r\n\r\nGET ${'a'.repeat(n)}\u2028\r\n--b--`,
    ],
    ['lone surrogates', '\ud800'.repeat(n)],
  ])('%s', (_, text) => {
    for (const type of [
      undefined,
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/mixed; boundary=b',
    ])
      expect(typeof redactBody(text, type)).toBe('string');
    expect(redactText(`${text} token=APPENDED`)).not.toContain('APPENDED');
  });
});

describe('describeJsonError', () => {
  const parseError = (text: string): unknown => {
    try {
      JSON.parse(text);
    } catch (error) {
      return error;
    }
    throw new Error('parsed');
  };

  it.each([
    ['token=SECRET', "Unexpected token 'o'"],
    ['{"refresh_token": SECRET}', "Unexpected token 'S'"],
    ['{"a":1', 'Expected'],
  ])('%s → says what is wrong without the text', (text, start) => {
    const message = describeJsonError(parseError(text));
    expect(message.startsWith(start)).toBe(true);
    expect(message).not.toContain('SECRET');
  });
});
