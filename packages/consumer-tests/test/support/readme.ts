import { readFileSync } from 'node:fs';

/**
 * The code of the fenced block that follows `<!-- consumer-test: NAME -->` in a README: the
 * consumer test runs README examples as printed, so an example that stops working fails it.
 */
export function readmeBlock(file: string, name: string): string {
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

/** Every block marked `<!-- consumer-test: PREFIX... -->` in a README, in order, with its name. */
export function readmeBlocks(file: string, prefix: string): { name: string; code: string }[] {
  const text = readFileSync(file, 'utf8');
  const names = [...text.matchAll(/<!-- consumer-test: ([\w-]+) -->/g)]
    .map((m) => m[1] as string)
    .filter((name) => name.startsWith(prefix));
  return names.map((name) => ({ name, code: readmeBlock(file, name) }));
}

const IMPORT = /^import\s+(type\s+)?\{([^}]*)\}\s+from\s+'([^']+)';?[ \t]*$/gm;

/**
 * One module from README blocks that each assume the same context: the prelude gives that
 * context (a client, an event made before, ...), every block runs in a scope of its own
 * (`await (async () => { ... })()`, so a block may `return` or declare its own names), in
 * order, and the imports of all of them are merged at the top. Only `import { ... } from '...'`
 * is understood, the one form the READMEs use; any other import is refused.
 */
export function composeProgram(prelude: string, blocks: { name: string; code: string }[]): string {
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
    ({ name, code }) => `// README block "${name}"\nawait (async () => {\n${strip(code, name)}\n})();`,
  );
  const header = [...imports]
    .map(([from, names]) => `import { ${[...names].sort().join(', ')} } from '${from}';`)
    .join('\n');
  return `${header}\n\n${main}\n\n${parts.join('\n\n')}\n`;
}
