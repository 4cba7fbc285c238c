/**
 * Reading the JSON files the command-line tools are given (a seed, a users file, a faults
 * file, a HAR recording). A syntax error names the place as editors and compilers do,
 * `seed.json:3:15: Expected ',' or '}' after property value`, and shows the line with a caret
 * under the column. Node's parser says where it stopped in one of two ways (`at position N`, and
 * from Node 22 on also `(line L column C)`), or not at all (`Unexpected token 'x', "..." is not
 * valid JSON`); without a position the place is found by scanning the text once. A file that
 * is missing, a directory or empty gets a message of its own. The message is one line, as the
 * tools' errors are; the line with the caret is the error's `excerpt`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describeJsonError, redactText } from './redact.js';

/**
 * A JSON file that cannot be read or is not JSON. The message is one line that names the file
 * (and the line and column); `excerpt` shows a syntax error's line with a caret under the column.
 */
export class JsonFileError extends Error {
  override name = 'JsonFileError';
  constructor(
    message: string,
    readonly file: string,
    /** Where a syntax error is, 1-based, when it is one. */
    readonly line?: number,
    readonly column?: number,
    /** The line of a syntax error and a caret under the column, two lines indented by two spaces. */
    readonly excerpt?: string,
  ) {
    super(message);
  }

  /** The message and, for a syntax error, the line with the caret under it. */
  get report(): string {
    return this.excerpt === undefined ? this.message : `${this.message}\n${this.excerpt}`;
  }
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const HEX = /^[0-9a-fA-F]{4}$/;

/**
 * The offset of the first character JSON does not allow in `text` (its length when the text
 * ends too early), or -1 when it is valid JSON. One pass, no recursion (nesting depth costs
 * an array entry, not a stack frame).
 */
export function jsonSyntaxErrorOffset(text: string): number {
  const n = text.length;
  let i = 0;
  const closers: string[] = [];
  let state: 'value' | 'key' | 'after' = 'value';
  const skip = () => {
    while (i < n && isSpace(text[i])) i++;
  };
  /** Past a string starting at i, or the offset of what is wrong in it as -(offset + 1). */
  const string = (): number => {
    i++;
    while (i < n) {
      const c = text[i] as string;
      if (c === '"') return ++i;
      if (c < ' ') return -(i + 1);
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!HEX.test(text.slice(i + 2, i + 6))) return -(i + 1);
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else return -(i + 1);
      } else i++;
    }
    return -(n + 1);
  };
  const digits = (): boolean => {
    const start = i;
    while (isDigit(text[i])) i++;
    return i > start;
  };
  for (;;) {
    skip();
    if (state === 'after') {
      const closer = closers[closers.length - 1];
      if (closer === undefined) return i < n ? i : -1;
      if (text[i] === ',') {
        i++;
        state = closer === '}' ? 'key' : 'value';
      } else if (text[i] === closer) {
        i++;
        closers.pop();
      } else return i;
      continue;
    }
    if (state === 'key') {
      if (text[i] !== '"') return i;
      const end = string();
      if (end < 0) return -end - 1;
      skip();
      if (text[i] !== ':') return i;
      i++;
      state = 'value';
      continue;
    }
    const c = text[i];
    if (c === undefined) return n;
    if (c === '{' || c === '[') {
      i++;
      skip();
      const closer = c === '{' ? '}' : ']';
      if (text[i] === closer) {
        i++;
        state = 'after';
      } else {
        closers.push(closer);
        state = c === '{' ? 'key' : 'value';
      }
      continue;
    }
    state = 'after';
    if (c === '"') {
      const end = string();
      if (end < 0) return -end - 1;
      continue;
    }
    if (c === '-' || isDigit(c)) {
      if (c === '-') i++;
      if (text[i] === '0') i++;
      else if (!digits()) return i;
      if (text[i] === '.') {
        i++;
        if (!digits()) return i;
      }
      if (text[i] === 'e' || text[i] === 'E') {
        i++;
        if (text[i] === '+' || text[i] === '-') i++;
        if (!digits()) return i;
      }
      continue;
    }
    const word = c === 't' ? 'true' : c === 'f' ? 'false' : c === 'n' ? 'null' : undefined;
    if (word === undefined) return i;
    for (const letter of word) {
      if (text[i] !== letter) return i;
      i++;
    }
  }
}

/** Line and column (1-based, the column in UTF-16 units) of an offset, and the line's text. */
function lineAt(text: string, offset: number): { line: number; column: number; text: string } {
  let line = 1;
  let start = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
    start = at + 1;
  }
  const end = text.indexOf('\n', start);
  const content = text.slice(start, end === -1 ? text.length : end).replace(/\r$/, '');
  return { line, column: offset - start + 1, text: content };
}

/** Characters of the line shown either side of the column: a minified file is one long line. */
const WINDOW = 60;

/**
 * The line with a caret under the column, cut to a window around it. A line that holds a
 * credential (a key, a token, a secret) is shown redacted, without the caret (the redaction
 * moves the text); the line and column still say where.
 */
function excerpt(content: string, column: number): string {
  const from = Math.max(0, column - 1 - WINDOW);
  const to = Math.min(content.length, column - 1 + WINDOW);
  const shown = `${from > 0 ? '…' : ''}${content.slice(from, to)}${to < content.length ? '…' : ''}`;
  const redacted = redactText(shown);
  if (redacted !== shown) return `  ${redacted}`;
  const before = shown.slice(0, column - 1 - from + (from > 0 ? 1 : 0)).replace(/[^\t]/g, ' ');
  return `  ${shown}\n  ${before}^`;
}

/** What the parser says is wrong, without where (told apart) and without the text it quotes. */
function what(message: string): string {
  const said = describeJsonError(message)
    .replace(/ (?:in JSON )?at position \d+(?: \(line \d+ column \d+\))?$/, '')
    .replace(/ \(line \d+ column \d+\)$/, '');
  return said === 'the text is not valid JSON' ? 'not valid JSON here' : said;
}

/** The offset the parser's message gives, if it gives one. */
function reportedOffset(message: string, text: string): number | undefined {
  const position = / at position (\d+)/.exec(message);
  if (position) return Math.min(Number(position[1]), text.length);
  const place = /\(line (\d+) column (\d+)\)/.exec(message);
  if (place) {
    let start = 0;
    for (let line = 1; line < Number(place[1]); line++) {
      const next = text.indexOf('\n', start);
      if (next === -1) break;
      start = next + 1;
    }
    return Math.min(start + Number(place[2]) - 1, text.length);
  }
  return undefined;
}

/**
 * The JSON value of `text`, read from `file` (named in errors only). A syntax error is a
 * JsonFileError `FILE:LINE:COLUMN: what is wrong` (the line with a caret in `excerpt`). A byte order
 * mark at the start is skipped, as editors write one.
 */
export function parseJsonText(text: string, file: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '')
    throw new JsonFileError(`${file}: the file is empty; expected a JSON document`, file);
  try {
    return JSON.parse(body);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    let offset = reportedOffset(message, body);
    if (offset === undefined) {
      const found = jsonSyntaxErrorOffset(body);
      offset = found === -1 ? undefined : found;
    }
    if (offset === undefined) throw new JsonFileError(`${file}: not valid JSON (${what(message)})`, file);
    const at = lineAt(body, offset);
    const said = what(message);
    const problem =
      offset < body.length
        ? said
        : said === 'Unexpected end of JSON input'
          ? 'the file ends before the JSON document does'
          : `${said} (at the end of the file)`;
    throw new JsonFileError(
      `${file}:${at.line}:${at.column}: ${problem}`,
      file,
      at.line,
      at.column,
      excerpt(at.text, at.column),
    );
  }
}

/**
 * The JSON value in `file`. A file that is missing, a directory, unreadable, empty or not
 * JSON is a JsonFileError whose message names it and says what is wrong.
 */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = path.isAbsolute(file) ? '' : ` (looked in ${process.cwd()})`;
    const message =
      code === 'ENOENT'
        ? `${file}: no such file${where}`
        : code === 'EISDIR'
          ? `${file}: is a directory; expected a JSON file`
          : code === 'EACCES' || code === 'EPERM'
            ? `${file}: cannot be read (permission denied)`
            : `${file}: cannot be read (${(error as Error).message})`;
    throw new JsonFileError(message, file);
  }
  return parseJsonText(text, file);
}
