import { readFileSync } from 'node:fs';

/** Every block `readmeBlock` was asked for, as `FILE#NAME`: a marked block nobody reads tests nothing. */
export const blocksRead = new Set<string>();

/**
 * The code of the fenced block that follows `<!-- consumer-test: NAME -->` in a README: the
 * consumer test runs README examples as printed, so an example that stops working fails it.
 */
export function readmeBlock(file: string, name: string): string {
  blocksRead.add(`${file}#${name}`);
  const text = readFileSync(file, 'utf8');
  const marker = `<!-- consumer-test: ${name} -->`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${file} has no block marked ${marker}`);
  if (text.indexOf(marker, at + marker.length) >= 0) throw new Error(`${file} marks two blocks ${marker}`);
  const block = /^\s*(`{3,})[^\n]*\n([\s\S]*?)\n\1[ \t]*$/m.exec(text.slice(at + marker.length));
  if (!block || !/^\s*`{3}/.test(text.slice(at + marker.length))) {
    throw new Error(`${file}: ${marker} is not followed by a fenced code block`);
  }
  return block[2] as string;
}

/** The languages of the code blocks the consumer test type-checks: a block in one of them is a program. */
const PROGRAM_LANGUAGES = new Set([
  'ts',
  'tsx',
  'mts',
  'cts',
  'typescript',
  'js',
  'jsx',
  'mjs',
  'cjs',
  'javascript',
]);

/**
 * The marker of a block that is not a program, with the reason a reader sees in the README's
 * source: `<!-- consumer-test: fragment — a sketch of the options -->`.
 */
const FRAGMENT = /^<!-- consumer-test: fragment — (\S.*\S) -->$/;

/** A fenced code block of a README: where it starts (1-based), its language, and what marks it. */
export interface CodeBlock {
  line: number;
  language: string;
  /** The name of `<!-- consumer-test: NAME -->` right before it. */
  name?: string;
  /** The reason of `<!-- consumer-test: fragment — REASON -->` right before it. */
  fragment?: string;
}

/** Every fenced code block of a Markdown text (``` or ~~~, indented in a list or not), in order. */
export function codeBlocks(text: string): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  let open: { fence: string } | undefined;
  let previous = '';
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (open) {
      if (
        line.startsWith(open.fence[0] as string) &&
        /^(`{3,}|~{3,})$/.test(line) &&
        line.length >= open.fence.length
      )
        open = undefined;
      return;
    }
    const fence = /^(`{3,}|~{3,})\s*([^\s`{]*)/.exec(line);
    if (fence) {
      open = { fence: fence[1] as string };
      const name = /^<!-- consumer-test: ([\w-]+) -->$/.exec(previous)?.[1];
      const fragment = FRAGMENT.exec(previous)?.[1];
      blocks.push({
        line: index + 1,
        language: (fence[2] as string).toLowerCase(),
        ...(name ? { name } : {}),
        ...(fragment ? { fragment } : {}),
      });
    }
    if (line !== '') previous = line;
  });
  return blocks;
}

/**
 * The program blocks (```ts, ```js, ...) of a README that carry neither a name (the consumer
 * test runs or type-checks them) nor a fragment's reason, as `FILE:LINE` with what to do.
 */
export function unmarkedPrograms(file: string, shownAs = file): string[] {
  return codeBlocks(readFileSync(file, 'utf8'))
    .filter((block) => PROGRAM_LANGUAGES.has(block.language) && !block.name && !block.fragment)
    .map(
      (block) =>
        `${shownAs}:${block.line}: this \`\`\`${block.language} block has no marker: put <!-- consumer-test: NAME --> before it and have test/consumer.test.ts type-check it, or <!-- consumer-test: fragment — REASON --> if it is not a program`,
    );
}

/** The names of the marked program blocks (```ts, ```js, ...) of a README, in order. */
export function programNames(file: string): string[] {
  return codeBlocks(readFileSync(file, 'utf8')).flatMap((block) =>
    PROGRAM_LANGUAGES.has(block.language) && block.name ? [block.name] : [],
  );
}

/** Every block marked `<!-- consumer-test: PREFIX... -->` in a README, in order, with its name. */
export function readmeBlocks(file: string, prefix: string): { name: string; code: string }[] {
  const text = readFileSync(file, 'utf8');
  const names = [...text.matchAll(/<!-- consumer-test: ([\w-]+) -->/g)]
    .map((m) => m[1] as string)
    .filter((name) => name.startsWith(prefix));
  return names.map((name) => ({ name, code: readmeBlock(file, name) }));
}

const IMPORT = /^import\s+(type\s+)?\{([^}]*)\}\s+from\s+'([^']+)';?[ \t]*(\/\/.*)?$/gm;

/**
 * One module from README blocks that each assume the same context: the prelude gives that
 * context (a client, an event made before, ...), every block runs in a scope of its own
 * (`await (async () => { ... })()`, so a block may `return` or declare its own names), in
 * order, and the imports of all of them are merged at the top (a comment after one is dropped).
 * Only `import { ... } from '...'` is understood, the one form the READMEs use; any other import is refused.
 */
export function composeProgram(
  prelude: string,
  blocks: { name: string; code: string; after?: string }[],
): string {
  const imports = new Map<string, Set<string>>();
  const strip = (code: string, where: string) => {
    const body = code.replace(IMPORT, (_all, typeOnly: string | undefined, names: string, from: string) => {
      const set = imports.get(from) ?? new Set<string>();
      for (const name of names
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean))
        set.add(typeOnly && !name.startsWith('type ') ? `type ${name}` : name);
      imports.set(from, set);
      return '';
    });
    const other = /^import\s.*$/m.exec(body);
    if (other) throw new Error(`${where}: an import the program cannot merge: ${other[0]}`);
    return body.trim();
  };
  const main = strip(prelude, 'the prelude');
  const parts = blocks.map(
    ({ name, code, after }) =>
      `// README block "${name}"\nawait (async () => {\n${strip(code, name)}${after ? `\n${after}` : ''}\n})();`,
  );
  const header = [...imports]
    .map(([from, names]) => `import { ${[...names].sort().join(', ')} } from '${from}';`)
    .join('\n');
  return `${header}\n\n${main}\n\n${parts.join('\n\n')}\n`;
}
