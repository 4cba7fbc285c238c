import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeProgram, readmeBlock } from './readme.ts';

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
      { name: 'one', code: "import { b, a } from 'm';\nimport type { T } from 't';\nconst x: T = b(c);" },
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
