/**
 * Step 1 of the pipeline: bundle every API of redocly.yaml into specs/dist, the contents of the
 * published @gspec/specs package:
 *
 * - <id>.json and <id>.yaml: the bundled document (one file, internal $refs into components);
 * - <id>.dereferenced.json and <id>.dereferenced.yaml: the same with every $ref replaced by
 *   what it points to;
 * - apis.json: the index the mock, the emulator, the reference and the tests read;
 * - index.js and index.d.ts: the package's entry (scripts/lib/spec-package.ts).
 *
 *   tsx scripts/bundle.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { basePathOf, bundleApi, listApis, type OpenApiDocument, repoRoot, SpecError } from './lib/apis.ts';
import { SPEC_FORMS, type SpecIndexEntry, specPackageDts, specPackageJs } from './lib/spec-package.ts';

const outDir = path.join(repoRoot, 'specs', 'dist');

/** JSON of a dereferenced document; a schema that contains itself cannot be written out. */
function dereferencedJson(name: string, doc: OpenApiDocument): string {
  try {
    return `${JSON.stringify(doc)}\n`;
  } catch (error) {
    throw new SpecError(
      `${name}: the dereferenced document cannot be written: ${(error as Error).message.split('\n')[0]} (a schema that refers to itself; keep such a schema out of the specs or ship it bundled only)`,
    );
  }
}

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  const entries: { index: SpecIndexEntry; doc: OpenApiDocument }[] = [];
  for (const api of listApis()) {
    const doc = await bundleApi(api);
    const dereferenced = await bundleApi(api, undefined, { dereference: true });
    const write = (name: string, text: string) => writeFileSync(path.join(outDir, name), text);
    write(SPEC_FORMS.json(api.id), `${JSON.stringify(doc, null, 2)}\n`);
    write(SPEC_FORMS.yaml(api.id), toYaml(doc, { lineWidth: 0 }));
    write(SPEC_FORMS.dereferencedJson(api.id), dereferencedJson(api.name, dereferenced));
    // The same object at two places is written out twice, not as a YAML anchor and alias.
    write(
      SPEC_FORMS.dereferencedYaml(api.id),
      toYaml(dereferenced, { lineWidth: 0, aliasDuplicateObjects: false }),
    );
    entries.push({
      index: {
        name: api.name,
        id: api.id,
        version: api.version,
        title: doc.info?.title,
        server: doc.servers?.[0]?.url,
        basePath: basePathOf(doc),
        file: SPEC_FORMS.json(api.id),
      },
      doc,
    });
    console.log(`bundled ${api.name} -> specs/dist/${api.id}{,.dereferenced}.{json,yaml}`);
  }
  writeFileSync(
    path.join(outDir, 'apis.json'),
    `${JSON.stringify(
      entries.map((e) => e.index),
      null,
      2,
    )}\n`,
  );
  writeFileSync(path.join(outDir, 'index.js'), specPackageJs(entries));
  writeFileSync(path.join(outDir, 'index.d.ts'), specPackageDts(entries));
}

main().catch((error: unknown) => {
  console.error(error instanceof SpecError ? error.message : error);
  process.exit(1);
});
