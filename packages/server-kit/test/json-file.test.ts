/**
 * The JSON files the tools read (json-file.ts): a syntax error says FILE:LINE:COLUMN and shows
 * the line with a caret, whatever form the parser's message takes; a missing file, a directory
 * and an empty file each say so.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { JsonFileError, jsonSyntaxErrorOffset, parseJsonText, readJsonFile } from '../src/json-file.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'json-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The error parseJsonText throws for `text`. */
function refusal(text: string): JsonFileError {
  try {
    parseJsonText(text, 'seed.json');
  } catch (error) {
    if (error instanceof JsonFileError) return error;
    throw error;
  }
  throw new Error('parsed');
}

describe('a syntax error names the file, the line and the column, and shows the line', () => {
  // [what is wrong, the text, line, column, the first line of the message]
  it.each<[string, string, number, number, string]>([
    [
      'a missing comma',
      '{\n  "a": 1\n  "b": 2\n}',
      3,
      3,
      "seed.json:3:3: Expected ',' or '}' after property value",
    ],
    ['a trailing comma', '{\n  "a": 1,\n}', 3, 1, 'seed.json:3:1: Expected double-quoted property name'],
    // Node 20 gives no position for this one: the place is found by scanning.
    ['a value missing', '{\n  "summary": }', 2, 14, "seed.json:2:14: Unexpected token '}'"],
    ['a misspelt literal', '[true, ture]', 1, 9, "seed.json:1:9: Unexpected token 'u'"],
    ['a key without quotes', '{ summary: "x" }', 1, 3, "seed.json:1:3: Expected property name or '}'"],
    [
      'text after the document',
      '{}\n{}',
      2,
      1,
      'seed.json:2:1: Unexpected non-whitespace character after JSON',
    ],
    [
      'a line break inside a string',
      '{"a": "x\n"}',
      1,
      9,
      'seed.json:1:9: Bad control character in string literal',
    ],
    ['an end too early', '{\n  "a": [1, 2', 2, 13, 'seed.json:2:13: '],
    ['an unclosed string', '{"a": "x', 1, 9, 'seed.json:1:9: '],
    ['Windows line ends', '{\r\n  "a": 1\r\n  "b": 2\r\n}', 3, 3, "seed.json:3:3: Expected ',' or '}'"],
  ])('%s', (_what, text, line, column, first) => {
    const error = refusal(text);
    expect([error.line, error.column]).toEqual([line, column]);
    const head = error.message;
    expect(head).not.toContain('\n');
    const [shown, caret] = (error.excerpt ?? '').split('\n');
    expect(error.report).toBe(`${head}\n${error.excerpt}`);
    expect(head?.startsWith(first)).toBe(true);
    // The parser's own text never comes through (it quotes the file, which may hold a secret).
    expect(head).not.toContain('is not valid JSON');
    expect(head).not.toContain('position');
    // The caret stands under the column of the line shown.
    const content = text.split('\n')[line - 1]?.replace(/\r$/, '') ?? '';
    expect(shown).toBe(`  ${content}`);
    expect(caret).toBe(`  ${' '.repeat(column - 1)}^`);
  });

  it('says the end of the file when that is where it stops', () => {
    expect(refusal('{"a": [1, 2').message).toMatch(/^seed\.json:1:12: .*end/);
  });

  it('shows a window of a long line, the caret still under the column', () => {
    const text = `{"a": "${'x'.repeat(500)}", "b" 1}`;
    const error = refusal(text);
    const [shown, caret] = (error.excerpt ?? '').split('\n') as [string, string];
    expect(shown.length).toBeLessThan(140);
    expect(shown[caret.indexOf('^')]).toBe('1');
    expect(error.column).toBe(text.indexOf(' 1}') + 2);
  });

  it('shows a line that holds a credential redacted, without the caret', () => {
    const error = refusal('{\n  "clientSecret": "GOCSPX-very-secret" "x"\n}');
    expect(error.report).not.toContain('GOCSPX-very-secret');
    expect(error.message).toMatch(/^seed\.json:2:\d+: /);
  });

  // Node 20 says `at position N`; Node 22 and later add `(line L column C)`.
  it.each([
    ["Expected ',' or '}' after property value in JSON at position 13"],
    ["Expected ',' or '}' after property value in JSON at position 13 (line 3 column 3)"],
    ["Expected ',' or '}' after property value (line 3 column 3)"],
  ])('reads the place from the parser saying %j', (said) => {
    const parse = vi.spyOn(JSON, 'parse').mockImplementationOnce(() => {
      throw new SyntaxError(said);
    });
    try {
      const error = refusal('{\n  "a": 1\n  "b": 2\n}');
      expect([error.line, error.column]).toEqual([3, 3]);
      expect(error.message).toBe("seed.json:3:3: Expected ',' or '}' after property value");
    } finally {
      parse.mockRestore();
    }
  });

  it('skips a byte order mark', () => {
    expect(parseJsonText('\uFEFF{"a": 1}', 'seed.json')).toEqual({ a: 1 });
  });
});

describe('the scan finds where the parser stops', () => {
  it.each([
    ['{"a": 1}', -1],
    ['[1, -2.5e+3, "x\\u00e9\\n", true, false, null, {}, []]', -1],
    ['{"a": 01}', 7],
    ['{"a": 1.}', 8],
    ['{"a": "\\q"}', 7],
    ['[1,]', 3],
    ['', 0],
    [`${'['.repeat(100_000)}${']'.repeat(100_000)}`, -1],
  ])('%j: %i', (text, offset) => {
    expect(jsonSyntaxErrorOffset(text)).toBe(offset);
    if (offset === -1) expect(() => JSON.parse(text)).not.toThrow();
    else expect(() => JSON.parse(text)).toThrow(SyntaxError);
  });
});

describe('a file that cannot be read, or is empty, says so', () => {
  const empty = path.join(dir, 'empty.json');
  writeFileSync(empty, ' \n');
  const folder = path.join(dir, 'folder.json');
  mkdirSync(folder);
  it.each([
    ['missing', path.join(dir, 'missing.json'), 'missing.json: no such file'],
    ['a directory', folder, 'folder.json: is a directory; expected a JSON file'],
    ['empty', empty, 'empty.json: the file is empty; expected a JSON document'],
  ])('%s', (_what, file, message) => {
    expect(() => readJsonFile(file)).toThrow(JsonFileError);
    expect(() => readJsonFile(file)).toThrow(message);
  });

  it('names the folder a relative name was looked for in', () => {
    expect(() => readJsonFile('no-such-seed.json')).toThrow(
      `no-such-seed.json: no such file (looked in ${process.cwd()})`,
    );
  });

  it('reads a good file', () => {
    const good = path.join(dir, 'good.json');
    writeFileSync(good, '{"users": []}\n');
    expect(readJsonFile(good)).toEqual({ users: [] });
  });
});
