/**
 * The TypeScript code samples of the reference are compiled against the real client
 * packages, so a spec or client change that breaks a sample fails here instead of in a
 * user's editor.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const distDir = path.resolve(import.meta.dirname, '../dist');
const workDir = path.resolve(import.meta.dirname, '../test-results/samples');
const apis = JSON.parse(readFileSync(path.join(distDir, 'apis.json'), 'utf8')) as { id: string }[];

function compile(files: Record<string, string>): string[] {
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  writeFileSync(path.join(workDir, 'package.json'), '{ "type": "module" }\n');
  const names = Object.entries(files).map(([name, source]) => {
    const file = path.join(workDir, `${name}.ts`);
    writeFileSync(file, `${source}\nexport {};\n`);
    return file;
  });
  const program = ts.createProgram(names, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file
      ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
      : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

const samples = Object.fromEntries(
  apis.flatMap((api) => {
    const byOperation = JSON.parse(
      readFileSync(path.join(distDir, api.id, 'code-samples.json'), 'utf8'),
    ) as Record<string, { lang: string; source: string }[]>;
    return Object.entries(byOperation).map(([operationId, list]) => [
      `${api.id}.${operationId}`,
      list.find((s) => s.lang === 'TypeScript')?.source ?? '',
    ]);
  }),
);

describe('the TypeScript samples', () => {
  it('compile against the client packages, every one of them', () => {
    expect(Object.keys(samples).length).toBeGreaterThanOrEqual(44);
    expect(compile(samples)).toEqual([]);
  });

  it('would fail to compile if a sample called the client wrongly', () => {
    const broken = (samples['calendar.events.insert'] ?? '').replace('calendarId:', 'calendarID:');
    expect(broken).toContain('calendarID:');
    expect(compile({ broken }).join('\n')).toMatch(/calendarID/);
  });
});
