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
