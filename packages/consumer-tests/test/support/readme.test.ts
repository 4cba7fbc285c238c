import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlocks, composeProgram, programNames, readmeBlock, unmarkedPrograms } from './readme.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gspec-readme-'));
function readme(text: string): string {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.md`);
  writeFileSync(file, text);
  return file;
}

describe('readmeBlock', () => {
  it('takes the code of the block after the marker', () => {
    const file = readme(
      '# T\n\n```sh\nnot this\n```\n\n<!-- consumer-test: ci -->\n```sh\nnpx a &\ncurl b\n```\n',
    );
    expect(readmeBlock(file, 'ci')).toBe('npx a &\ncurl b');
  });

  it.each([
    ['# T\n```sh\nx\n```\n', 'has no block marked'],
    ['<!-- consumer-test: ci -->\nText first.\n```sh\nx\n```\n', 'is not followed by a fenced code block'],
    [
      '<!-- consumer-test: ci -->\n```sh\nx\n```\n<!-- consumer-test: ci -->\n```sh\ny\n```\n',
      'marks two blocks',
    ],
  ])('refuses %j', (text, message) => {
    expect(() => readmeBlock(readme(text), 'ci')).toThrow(message);
  });
});

describe('composeProgram', () => {
  it('merges the imports and gives each block a scope of its own', () => {
    const program = composeProgram("import { a } from 'm';\nconst c = a();", [
      {
        name: 'one',
        code: "import { b, a } from 'm'; // b too\nimport type { T } from 't';\nconst x: T = b(c);",
      },
      { name: 'two', code: 'if (c) return;\nconst x = 2;' },
    ]);
    expect(program).toBe(
      [
        "import { a, b } from 'm';",
        "import { type T } from 't';",
        '',
        'const c = a();',
        '',
        '// README block "one"',
        'await (async () => {',
        'const x: T = b(c);',
        '})();',
        '',
        '// README block "two"',
        'await (async () => {',
        'if (c) return;',
        'const x = 2;',
        '})();',
        '',
      ].join('\n'),
    );
  });

  it('refuses an import it cannot merge', () => {
    expect(() => composeProgram('', [{ name: 'x', code: "import fs from 'node:fs';" }])).toThrow(
      "x: an import the program cannot merge: import fs from 'node:fs';",
    );
  });
});

describe('codeBlocks, unmarkedPrograms and programNames', () => {
  const text = [
    '# T', // 1
    '```sh', // 2
    'npm install x', // 3
    '```', // 4
    '<!-- consumer-test: one -->', // 5
    '', // 6
    '```ts', // 7
    "const a = '```';", // 8
    '```', // 9
    '- In a list:', // 10
    '  ```js', // 11
    '  const b = 1;', // 12
    '  ```', // 13
    '<!-- consumer-test: fragment — a sketch of the options, not a program -->', // 14
    '````tsx', // 15
    '```', // 16
    '````', // 17
    '<!-- consumer-test: fragment —  -->', // 18
    '```typescript', // 19
    '```', // 20
    '<!-- consumer-test: two -->', // 21
    '```json', // 22
    '{}', // 23
    '```', // 24
  ].join('\n');

  it('finds every fence, a fence inside a longer one not counted, with the marker right before it', () => {
    expect(codeBlocks(text)).toEqual([
      { line: 2, language: 'sh' },
      { line: 7, language: 'ts', name: 'one' },
      { line: 11, language: 'js' },
      { line: 15, language: 'tsx', fragment: 'a sketch of the options, not a program' },
      { line: 19, language: 'typescript' },
      { line: 22, language: 'json', name: 'two' },
    ]);
  });

  it('names each program block with neither a name nor a reason, by file and line', () => {
    const problems = unmarkedPrograms(readme(text), 'docs/X.md');
    expect(problems.map((p) => p.split(': ')[0])).toEqual(['docs/X.md:11', 'docs/X.md:19']);
    expect(problems[0]).toContain('put <!-- consumer-test: NAME --> before it');
  });

  it('lists the names of the marked program blocks only', () => {
    expect(programNames(readme(text))).toEqual(['one']);
  });
});

describe('composeProgram with a check after a block', () => {
  it("puts the check inside the block's scope", () => {
    expect(composeProgram('', [{ name: 'one', code: 'const x = 1;', after: 'check(x);' }])).toContain(
      'await (async () => {\nconst x = 1;\ncheck(x);\n})();',
    );
  });
});
