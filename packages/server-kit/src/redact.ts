/**
 * What the servers keep or print of a request never holds a credential: the emulator's journal
 * and inspector (its entries, its live stream), the `--verbose` log lines of the emulator and the
 * mock, and the error messages kept with them. This is the one place that says what a credential
 * is and how it is replaced, so that every one of those places hides the same things.
 *
 * What counts as a credential:
 * - the headers `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`,
 *   `X-Emulator-Admin-Token`, `X-Goog-Api-Key`, `X-Goog-Iam-Authorization-Token`,
 *   `X-Serverless-Authorization` and `X-Goog-Channel-Token`, and any header named as one of the
 *   parameters below;
 * - the parameters (in a query, a form body, a JSON body's keys at any depth) `access_token`,
 *   `oauth_token`, `refresh_token`, `id_token`, `token`, `subject_token`, `actor_token`, `key`,
 *   `api_key`, `client_secret`, `assertion`, `client_assertion`, `code`, `device_code`,
 *   `password` and `private_key`. Names are compared without regard to case, `_` or `-`, so
 *   `accessToken` and `Access-Token` are `access_token` too.
 *
 * A watch channel's token (`token` in the watch request and its answer, `X-Goog-Channel-Token`
 * on each notification) is the secret its receiver checks notifications against: whoever reads
 * it can forge them, so it is a credential like the others.
 *
 * A header's value becomes `[redacted]`, a query's or form's `%5Bredacted%5D` (the same, encoded),
 * a JSON string `"[redacted]"`, and so does a value that is no JSON value (a number, boolean,
 * null, object or array under such a key is kept: the credentials are strings, the error
 * envelope's `code` is a number, and `conferenceSolution.key` is an object that says which
 * product a conference uses). A batch body (multipart) is read part by part: each part's request line
 * has its query redacted, its headers theirs, its body by its own Content-Type.
 *
 * Everything here is linear in the length of its input (hand-written scans, and regular
 * expressions whose every match attempt is bounded by a run no other attempt rescans) and none
 * of it throws: what cannot be read as its type is redacted conservatively by `redactText`,
 * which replaces every credential parameter (`name=value`), every header-looking line with a
 * credential's name (`Name: value`), every `Bearer <token>` and every credential key of JSON
 * it finds anywhere in the text.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** What a credential is replaced with. */
export const REDACTED = '[redacted]';
/** The same, as a query or a form body writes it. */
const REDACTED_PARAMETER = encodeURIComponent(REDACTED);

const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-emulator-admin-token',
  'x-goog-api-key',
  'x-goog-iam-authorization-token',
  'x-serverless-authorization',
  'x-goog-channel-token',
]);

/** The credential parameters, as `normalized` writes their names. */
const CREDENTIAL_NAMES = new Set(
  [
    'access_token',
    'oauth_token',
    'refresh_token',
    'id_token',
    'token',
    'subject_token',
    'actor_token',
    'key',
    'api_key',
    'client_secret',
    'assertion',
    'client_assertion',
    'code',
    'device_code',
    'password',
    'private_key',
  ].map((name) => normalized(name)),
);

/** A name in lower case without `_`, `-` or spaces: `accessToken`, `access-token` and `access_token` alike. */
function normalized(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, '');
}

/** Whether a query parameter, form field or JSON key of this name holds a credential. */
export function isCredentialName(name: string): boolean {
  return name.length <= 64 && CREDENTIAL_NAMES.has(normalized(name));
}

/** Whether a header of this name holds a credential. */
export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADERS.has(name.toLowerCase()) || isCredentialName(name);
}

/** Headers, names in lower case and repeats joined, with every credential's value replaced. */
export function redactHeaders(headers: IncomingHttpHeaders | Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    kept[lower] = isCredentialHeader(lower)
      ? REDACTED
      : Array.isArray(value)
        ? value.join(', ')
        : String(value);
  }
  return kept;
}

/** A percent-encoded name decoded (`+` is a space), or as it is when its escapes are malformed. */
function decodedName(name: string): string {
  const plain = name.replace(/\+/g, ' ');
  if (!plain.includes('%')) return plain;
  try {
    return decodeURIComponent(plain);
  } catch {
    return plain;
  }
}

/**
 * A query string or a form body (`a=1&access_token=...`) with the value of every credential
 * parameter replaced; everything else is kept as written.
 */
export function redactParameters(text: string): string {
  if (!text.includes('=')) return text;
  return text
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals <= 0 || equals === pair.length - 1) return pair;
      return isCredentialName(decodedName(pair.slice(0, equals)))
        ? `${pair.slice(0, equals + 1)}${REDACTED_PARAMETER}`
        : pair;
    })
    .join('&');
}

/** `scheme://user:password@` at the start of an absolute URL. */
const USER_INFO = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#@]*@/;

/**
 * A request target (path and query, or an absolute URL) with the credential parameters of its
 * query replaced, and the user and password of an absolute URL.
 */
export function redactTarget(target: string): string {
  const mark = target.indexOf('?');
  const head = (mark < 0 ? target : target.slice(0, mark)).replace(USER_INFO, `$1${REDACTED}@`);
  return mark < 0 ? head : `${head}?${redactParameters(target.slice(mark + 1))}`;
}

/** The index of the quote that closes the JSON string opening at `open`; the text's length if none. */
function stringEnd(text: string, open: number): number {
  let at = open + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return text.length;
    let slashes = 0;
    for (let i = quote - 1; i > open && text.charCodeAt(i) === 92; i--) slashes++;
    if (slashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

function skipSpace(text: string, at: number): number {
  let i = at;
  for (;;) {
    const code = text.charCodeAt(i);
    if (code === 32 || code === 9 || code === 10 || code === 13) i++;
    else return i;
  }
}

/**
 * Where a value that is no JSON value ends (`{"password": hunter2}`, in a body that is not
 * JSON): at the next `,`, `}`, `]` or line break. A value JSON allows (an object, an array, a
 * number, `true`, `false`, `null`) is kept: its end is its start.
 */
function bareEnd(text: string, at: number): number {
  const code = text.charCodeAt(at);
  // {, [, -, a digit
  if (code === 123 || code === 91 || code === 45 || (code >= 48 && code <= 57)) return at;
  if (text.startsWith('true', at) || text.startsWith('false', at) || text.startsWith('null', at)) return at;
  let end = at;
  for (;;) {
    const next = text.charCodeAt(end);
    // end of text, comma, }, ], line break
    if (Number.isNaN(next) || next === 44 || next === 125 || next === 93 || next === 10 || next === 13)
      return end;
    end++;
  }
}

/** A JSON key's name, its escapes decoded when they are valid. */
function keyName(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/**
 * JSON text with the string value of every credential key replaced, at any depth. Works on
 * text that is not whole JSON too (a body cut at the journal's cap, a malformed one): it reads
 * strings and the colons after them, nothing else, and a credential's string cut short is
 * replaced to the end.
 */
export function redactJson(text: string): string {
  if (!text.includes('"')) return text;
  let out = '';
  let copied = 0;
  let at = 0;
  for (;;) {
    const open = text.indexOf('"', at);
    if (open < 0) break;
    const close = stringEnd(text, open);
    if (close >= text.length) break;
    const colon = skipSpace(text, close + 1);
    if (text.charCodeAt(colon) !== 58) {
      at = close + 1;
      continue;
    }
    at = colon + 1;
    const name = keyName(text.slice(open + 1, close));
    if (!isCredentialHeader(name)) continue;
    const value = skipSpace(text, colon + 1);
    const end = text.charCodeAt(value) === 34 ? stringEnd(text, value) + 1 : bareEnd(text, value);
    if (end === value) continue;
    out += `${text.slice(copied, value)}"${REDACTED}"`;
    copied = at = Math.min(end, text.length);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * A header-looking line (`Name: value`) at the start of the text, of a line (a line break, or
 * `\n` as JSON writes one) or of a quoted string (a line an error message quotes). The name's
 * characters are none of those that may start one, so no run is read twice.
 */
const HEADER_LINE = /(^|\r?\n|\\n|["'])([ \t]*)([A-Za-z0-9-]+)([ \t]*:[ \t]*)((?:[^\r\n"\\]|\\(?![nr"]))*)/g;
/** A value that only stands for a credential, as a message writes one: `Bearer <token>`. */
const PLACEHOLDER = /^(?:[A-Za-z]+[ \t]+)?<[^<>]*>$/;
/** A bearer token anywhere: `Bearer` (as clients write it), spaces, the token's characters. */
const BEARER = /\b(Bearer|BEARER)([ \t]+)([A-Za-z0-9._~+/=-]+)/g;
/**
 * The name of a parameter (`name=`) after a character that cannot be in it, so that no run of
 * name characters is read twice.
 */
const PARAMETER = /(?:^|[^A-Za-z0-9_.%-])([A-Za-z0-9_.%-]+)=/g;
/** Where a parameter's value ends in free text: `&`, a space, a quote, an angle bracket, `#`, `\`. */
const VALUE_END = /[&\s"'<>#\\]/g;

/**
 * Every credential parameter's value in free text replaced. The value of another parameter is
 * read on (it may hold a URL with a credential in its query).
 */
function redactTextParameters(text: string): string {
  if (!text.includes('=')) return text;
  let out = '';
  let copied = 0;
  PARAMETER.lastIndex = 0;
  for (let match = PARAMETER.exec(text); match; match = PARAMETER.exec(text)) {
    if (!isCredentialName(decodedName(match[1] as string))) continue;
    const start = PARAMETER.lastIndex;
    VALUE_END.lastIndex = start;
    const end = VALUE_END.exec(text)?.index ?? text.length;
    if (end === start) continue;
    out += `${text.slice(copied, start)}${REDACTED_PARAMETER}`;
    copied = PARAMETER.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Any text (a body that cannot be read as its type, an error message, a log line) with every
 * credential that can be recognised in it replaced: the credential keys of JSON, the values of
 * header-looking lines with a credential's name, bearer tokens, credential parameters. It may
 * replace more than a credential; it is what is used when nothing better is known.
 */
export function redactText(text: string): string {
  return redactTextParameters(redactJson(text))
    .replace(HEADER_LINE, (line, start: string, space: string, name: string, colon: string, value: string) =>
      value === '' || value === REDACTED || PLACEHOLDER.test(value.trim()) || !isCredentialHeader(name)
        ? line
        : `${start}${space}${name}${colon}${REDACTED}`,
    )
    .replace(BEARER, (match, scheme: string, space: string, token: string) =>
      token === REDACTED ? match : `${scheme}${space}${REDACTED}`,
    );
}

/** The media type of a Content-Type, in lower case, without its parameters. */
function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

/**
 * A body as the journal shows it, redacted by its Content-Type: a batch (multipart) part by
 * part, a form's fields, JSON's keys; any other text (or none said) by `redactText`.
 */
export function redactBody(text: string, contentType: string | undefined): string {
  return redactTyped(text, contentType, true);
}

function redactTyped(text: string, contentType: string | undefined, outer: boolean): string {
  const type = mediaType(contentType);
  if (outer && type.startsWith('multipart/')) return redactMultipart(text, contentType as string);
  if (type === 'application/x-www-form-urlencoded') return redactParameters(text);
  if (type === 'application/json' || type.endsWith('+json')) return redactJson(text);
  return redactText(text);
}

/** One `Name: value` line of a header block; a line that is none is redacted as text. */
function redactHeaderLine(line: string): string {
  const colon = line.indexOf(':');
  const name = colon > 0 ? line.slice(0, colon).trim() : '';
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return redactText(line);
  return isCredentialHeader(name) ? `${line.slice(0, colon)}: ${REDACTED}` : line;
}

/** `METHOD target [HTTP/x.y]`: a request line of a batch part. */
const REQUEST_LINE = /^([A-Za-z]+[ \t]+)(\S+)([\s\S]*)$/;

/** A line without its line break, and the break. */
function splitLine(line: string): [string, string] {
  const end = line.endsWith('\r\n') ? 2 : line.endsWith('\n') ? 1 : 0;
  return [line.slice(0, line.length - end), line.slice(line.length - end)];
}

/**
 * One part of a batch: its own headers, a blank line, an HTTP message (a request line or a
 * status line, headers, a blank line, a body). The body is redacted by the Content-Type its
 * message gives, as text when it gives none.
 */
function redactPart(lines: string[]): string {
  let out = '';
  let stage: 'part' | 'start' | 'message' = 'part';
  let messageType: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const [line, eol] = splitLine(lines[i] as string);
    if (stage === 'part') {
      if (line === '') stage = 'start';
      else out += redactHeaderLine(line);
    } else if (stage === 'start') {
      if (line !== '') {
        const request = REQUEST_LINE.exec(line);
        out += request
          ? `${request[1]}${redactTarget(request[2] as string)}${redactText(request[3] as string)}`
          : redactText(line);
        stage = 'message';
        out += eol;
        continue;
      }
    } else if (line === '') {
      out += eol;
      const body = lines.slice(i + 1).join('');
      return out + (body === '' ? '' : redactTyped(body, messageType, false));
    } else {
      const colon = line.indexOf(':');
      if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === 'content-type')
        messageType = line.slice(colon + 1).trim();
      out += redactHeaderLine(line);
    }
    out += eol;
  }
  return out;
}

/**
 * A multipart body (a batch request or answer) redacted part by part, between the lines of its
 * boundary; the text before the first and after the last is redacted as text, and so is the
 * whole body when its boundary is missing or no line of the body is one.
 */
function redactMultipart(text: string, contentType: string): string {
  const boundary = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^\s;]+))/i.exec(contentType);
  const mark = boundary?.[1] ?? boundary?.[2];
  if (!mark) return redactText(text);
  const delimiter = `--${mark}`;
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  let out = '';
  let part: string[] | undefined;
  let preamble = '';
  let found = false;
  let closed = false;
  let epilogue = '';
  for (const raw of lines) {
    if (closed) {
      epilogue += raw;
      continue;
    }
    const line = raw.startsWith(delimiter) ? raw.trimEnd() : '';
    if (line === delimiter || line === `${delimiter}--`) {
      if (part) out += redactPart(part);
      else if (!found) out += redactText(preamble);
      found = true;
      out += raw;
      part = [];
      if (line !== delimiter) {
        closed = true;
        part = undefined;
      }
    } else if (part) part.push(raw);
    else preamble += raw;
  }
  if (!found) return redactText(text);
  if (part) out += redactPart(part);
  return out + redactText(epilogue);
}

/**
 * A JSON parser's message without the text it quotes: V8 writes `Unexpected token 'x', "<the
 * text>" is not valid JSON`, and a request's text may hold a credential.
 */
export function describeJsonError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (!message.endsWith(' is not valid JSON')) return message;
  const token = "Unexpected token '";
  const quote = message.startsWith(token) ? message.indexOf("', ", token.length) : -1;
  return quote < 0 ? 'the text is not valid JSON' : message.slice(0, quote + 1);
}
