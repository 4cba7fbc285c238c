#!/usr/bin/env node
/**
 * The type check of every workspace (`npm run typecheck`, part of `npm test`) on TypeScript 7,
 * the native compiler: what `npm install typescript` gives a user today, and about six times
 * faster than 5.9 on this code (decision 0051). Its binary comes in the npm registry's platform
 * package `@typescript/typescript-<platform>-<arch>` (an optional dependency of the workspace
 * root: npm installs the one for this machine). TypeScript 5.9 stays the workspace's
 * `typescript`: the builds compile with it, and the generator and the type tests load it as a
 * library, which 7 does not offer yet. Where no native binary is installed, 5.9 checks instead.
 *
 *   node scripts/tsc-native.mjs [tsc options...]     (from a workspace: its tsconfig.json)
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** The native compiler of this platform, if its package is installed. */
function nativeCompiler() {
  const name = `@typescript/typescript-${process.platform}-${process.arch}`;
  try {
    const dir = path.dirname(require.resolve(`${name}/package.json`));
    return path.join(dir, 'lib', process.platform === 'win32' ? 'tsc.exe' : 'tsc');
  } catch {
    process.stderr.write(
      `tsc-native: ${name} is not installed; checking with the workspace's TypeScript instead\n`,
    );
    return undefined;
  }
}

const args = process.argv.slice(2);
const native = nativeCompiler();
const [command, argv] = native
  ? [native, args]
  : [process.execPath, [require.resolve('typescript/bin/tsc'), ...args]];
const result = spawnSync(command, argv, { stdio: 'inherit' });
if (result.error) {
  process.stderr.write(`tsc-native: cannot run ${command}: ${result.error.message}\n`);
  process.exit(1);
}
process.exit(result.status ?? 1);
