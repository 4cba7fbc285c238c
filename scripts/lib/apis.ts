/**
 * The APIs of the project, as redocly.yaml names them, and their bundled documents.
 * Every script, test and tool that needs a spec gets it from here, so there is one
 * definition of where the specs live and how they are bundled.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle, loadConfig } from '@redocly/openapi-core';
import { parse as parseYaml } from 'yaml';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const redoclyConfigPath = path.join(repoRoot, 'redocly.yaml');

export interface ApiEntry {
  /** The name in redocly.yaml, such as `calendar@v3`. */
  name: string;
  /** The part before `@`, such as `calendar`: the spec folder and the client package folder. */
  id: string;
  /** The part after `@`, such as `v3`. */
  version: string;
  /** The absolute path of the entry file. */
  root: string;
  /** The folder of the client package its types are generated into. */
  clientDir: string;
}

export class SpecError extends Error {
  override name = 'SpecError';
}

/** The APIs listed under `apis:` in redocly.yaml, in the order written there. */
export function listApis(configPath = redoclyConfigPath): ApiEntry[] {
  const raw = parseYaml(readFileSync(configPath, 'utf8')) as { apis?: Record<string, { root?: string }> };
  const apis = raw?.apis;
  if (!apis || typeof apis !== 'object' || Object.keys(apis).length === 0) {
    throw new SpecError(`${configPath}: no APIs under "apis:"`);
  }
  const baseDir = path.dirname(configPath);
  return Object.entries(apis).map(([name, entry]) => {
    const match = /^([a-z][a-z0-9-]*)@(v[0-9]+)$/.exec(name);
    if (!match) {
      throw new SpecError(`${configPath}: API name "${name}" must look like "calendar@v3"`);
    }
    if (!entry?.root) {
      throw new SpecError(`${configPath}: API "${name}" has no root`);
    }
    const id = match[1] as string;
    return {
      name,
      id,
      version: match[2] as string,
      root: path.resolve(baseDir, entry.root),
      clientDir: path.join(baseDir, 'packages', id),
    };
  });
}

export function getApi(nameOrId: string, configPath = redoclyConfigPath): ApiEntry {
  const apis = listApis(configPath);
  const api = apis.find((a) => a.name === nameOrId || a.id === nameOrId);
  if (!api) {
    throw new SpecError(
      `unknown API "${nameOrId}"; redocly.yaml names ${apis.map((a) => a.name).join(', ')}`,
    );
  }
  return api;
}

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is arbitrary JSON until validated.
export type OpenApiDocument = Record<string, any>;

/**
 * Bundles one API into a single document: every external $ref becomes a component,
 * named after its file, exactly as `redocly bundle` does. Unresolvable references are
 * errors that name the file and the pointer, never a half-bundled document. With
 * `dereference`, every $ref is replaced by what it points to (a schema used twice is then
 * the same object twice; a cycle would be an object that contains itself).
 */
export async function bundleApi(
  api: ApiEntry,
  configPath = redoclyConfigPath,
  options: { dereference?: boolean } = {},
): Promise<OpenApiDocument> {
  const config = await loadConfig({ configPath });
  const result = await bundle({ ref: api.root, config, dereference: options.dereference ?? false });
  const errors = result.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) {
    const lines = errors.map((p) => {
      const where = p.location[0];
      return `  ${where?.source.absoluteRef ?? api.root}${where?.pointer ?? ''}: ${p.message}`;
    });
    throw new SpecError(`${api.name} does not bundle:\n${lines.join('\n')}`);
  }
  return result.bundle.parsed as OpenApiDocument;
}

/** The base path of the API's first server, such as `/calendar/v3`. */
export function basePathOf(doc: OpenApiDocument): string {
  const url = doc.servers?.[0]?.url;
  if (typeof url !== 'string') throw new SpecError('the spec has no servers[0].url');
  return new URL(url).pathname.replace(/\/$/, '');
}
