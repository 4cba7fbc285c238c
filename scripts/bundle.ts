/**
 * Step 1 of the pipeline: bundle every API of redocly.yaml into specs/dist/<id>.json,
 * plus specs/dist/apis.json, an index the mock, the reference and the tests read.
 *
 *   tsx scripts/bundle.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { basePathOf, bundleApi, listApis, repoRoot, SpecError } from './lib/apis.ts';

const outDir = path.join(repoRoot, 'specs', 'dist');

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  const index = [];
  for (const api of listApis()) {
    const doc = await bundleApi(api);
    const file = `${api.id}.json`;
    writeFileSync(path.join(outDir, file), `${JSON.stringify(doc, null, 2)}\n`);
    index.push({
      name: api.name,
      id: api.id,
      version: api.version,
      title: doc.info?.title,
      server: doc.servers?.[0]?.url,
      basePath: basePathOf(doc),
      file,
    });
    console.log(`bundled ${api.name} -> specs/dist/${file}`);
  }
  writeFileSync(path.join(outDir, 'apis.json'), `${JSON.stringify(index, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof SpecError ? error.message : error);
  process.exit(1);
});
