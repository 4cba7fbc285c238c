import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { basePathOf, bundleApi, getApi, listApis, SpecError } from '../lib/apis.ts';

function tempConfig(yaml: string, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gspec-apis-'));
  writeFileSync(path.join(dir, 'redocly.yaml'), yaml);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return path.join(dir, 'redocly.yaml');
}

describe('listApis', () => {
  it('reads the two APIs of redocly.yaml', () => {
    expect(listApis().map((api) => [api.name, api.id, api.version])).toEqual([
      ['calendar@v3', 'calendar', 'v3'],
      ['searchads360@v2', 'searchads360', 'v2'],
    ]);
  });

  it.each([
    ['no apis', 'extends: [recommended]\n', /no APIs under "apis:"/],
    [
      'a badly named api',
      'apis:\n  Calendar:\n    root: a.yaml\n',
      /API name "Calendar" must look like "calendar@v3"/,
    ],
    ['an api without root', 'apis:\n  calendar@v3: {}\n', /API "calendar@v3" has no root/],
  ])('refuses a config with %s', (_title, yaml, message) => {
    const config = tempConfig(yaml);
    expect(() => listApis(config)).toThrow(SpecError);
    expect(() => listApis(config)).toThrow(message);
  });

  it('says which APIs exist when asked for an unknown one', () => {
    expect(() => getApi('gmail')).toThrow(
      'unknown API "gmail"; redocly.yaml names calendar@v3, searchads360@v2',
    );
  });
});

describe('bundleApi', () => {
  it('bundles a split spec into one document with its components', async () => {
    const doc = await bundleApi(getApi('calendar'));
    expect(basePathOf(doc)).toBe('/calendar/v3');
    expect(doc.components.schemas.Event).toBeDefined();
    expect(JSON.stringify(doc)).not.toMatch(/"\$ref":"\.\.?\//);
  });

  it('refuses a spec with a broken $ref, naming the file and the pointer', async () => {
    const config = tempConfig('apis:\n  broken@v1:\n    root: openapi.yaml\n', {
      'openapi.yaml': [
        'openapi: 3.1.0',
        'info: { title: t, version: v1 }',
        'servers: [{ url: "https://example.test/broken/v1" }]',
        'paths:',
        '  /things:',
        '    $ref: paths/things.yaml',
      ].join('\n'),
    });
    const api = listApis(config)[0];
    if (!api) throw new Error('no api');
    await expect(bundleApi(api, config)).rejects.toThrow(
      /broken@v1 does not bundle:\n.*openapi\.yaml#\/paths\/~1things: Can't resolve \$ref/,
    );
  });
});
