/** The bundled specs the mock serves, read from @gspec/specs (built by `npm run build`). */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { getHttpOperationsFromSpec } from '@stoplight/prism-http';
import type { IHttpOperation } from '@stoplight/types';

export interface MockApi {
  /** The redocly.yaml name, such as `calendar@v3`. */
  name: string;
  title: string;
  /** The live base path, such as `/calendar/v3`; requests under it go to this API. */
  basePath: string;
  operations: IHttpOperation[];
}

interface ApiIndexEntry {
  name: string;
  title: string;
  basePath: string;
  file: string;
}

export class MockSetupError extends Error {
  override name = 'MockSetupError';
}

/** The folder of the bundled specs: specs/dist of the @gspec/specs workspace. */
export function defaultSpecDir(): string {
  const require = createRequire(import.meta.url);
  try {
    return path.dirname(require.resolve('@gspec/specs/apis.json'));
  } catch {
    throw new MockSetupError(
      'the bundled specs were not found; run `npm run build` first (it bundles specs/ into specs/dist/)',
    );
  }
}

export async function loadApis(specDir = defaultSpecDir()): Promise<MockApi[]> {
  const indexFile = path.join(specDir, 'apis.json');
  if (!existsSync(indexFile)) {
    throw new MockSetupError(`${indexFile} does not exist; run \`npm run build\` first`);
  }
  const index = JSON.parse(readFileSync(indexFile, 'utf8')) as ApiIndexEntry[];
  return Promise.all(
    index.map(async (entry) => {
      const file = path.join(specDir, entry.file);
      let document: unknown;
      try {
        document = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        throw new MockSetupError(`${file}: not a readable JSON spec (${(error as Error).message})`);
      }
      let operations: IHttpOperation[];
      try {
        operations = await getHttpOperationsFromSpec(document as object);
      } catch (error) {
        throw new MockSetupError(`${file}: Prism cannot read this spec: ${(error as Error).message}`);
      }
      if (operations.length === 0) throw new MockSetupError(`${file}: the spec has no operations`);
      return { name: entry.name, title: entry.title, basePath: entry.basePath, operations };
    }),
  );
}
