/**
 * The entry point of the published `@gspec/specs` package (dist/index.js and dist/index.d.ts),
 * written by scripts/bundle.ts next to the documents: where each document's files are, a loader,
 * and the paths and operationIds of each API as literal types, read from the bundled documents.
 */
import type { OpenApiDocument } from './apis.ts';

export interface SpecIndexEntry {
  /** The redocly.yaml name, such as `calendar@v3`. */
  name: string;
  /** Such as `calendar`: the file names and the key in every export. */
  id: string;
  version: string;
  title: string;
  server: string;
  basePath: string;
  /** The bundled JSON document, such as `calendar.json`. */
  file: string;
}

/** The forms each API is shipped in, as keys of `specFiles[id]`, and their file names. */
export const SPEC_FORMS = {
  json: (id: string) => `${id}.json`,
  yaml: (id: string) => `${id}.yaml`,
  dereferencedJson: (id: string) => `${id}.dereferenced.json`,
  dereferencedYaml: (id: string) => `${id}.dereferenced.yaml`,
} as const;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The paths of a document, in its order. */
export function pathsOf(doc: OpenApiDocument): string[] {
  return Object.keys(doc.paths ?? {});
}

/** The operationIds of a document, in the order of its paths and methods. */
export function operationIdsOf(doc: OpenApiDocument): string[] {
  const ids: string[] = [];
  for (const item of Object.values(doc.paths ?? {}) as Record<string, { operationId?: unknown }>[]) {
    for (const method of METHODS) {
      const id = item?.[method]?.operationId;
      if (typeof id === 'string') ids.push(id);
    }
  }
  return ids;
}

const HEADER = '// Written by scripts/bundle.ts from the specs; not edited by hand.\n';
const json = (value: unknown) => JSON.stringify(value);
const union = (values: string[]) => (values.length === 0 ? 'never' : values.map(json).join(' | '));

/** dist/index.js: plain ESM for Node, no dependency. */
export function specPackageJs(entries: { index: SpecIndexEntry; doc: OpenApiDocument }[]): string {
  const ids = entries.map((e) => e.index.id);
  const files = entries
    .map(
      ({ index }) =>
        `  ${json(index.id)}: Object.freeze({\n${Object.entries(SPEC_FORMS)
          .map(([form, name]) => `    ${form}: file(${json(name(index.id))}),`)
          .join('\n')}\n  }),`,
    )
    .join('\n');
  const lists = (of: (doc: OpenApiDocument) => string[]) =>
    entries.map(({ index, doc }) => `  ${json(index.id)}: Object.freeze(${json(of(doc))}),`).join('\n');
  return `${HEADER}import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const file = (name) => fileURLToPath(new URL(\`./\${name}\`, import.meta.url));

export const apis = Object.freeze(${json(entries.map((e) => Object.freeze(e.index)))}.map(Object.freeze));

export const specFiles = Object.freeze({
${files}
});

export const paths = Object.freeze({
${lists(pathsOf)}
});

export const operationIds = Object.freeze({
${lists(operationIdsOf)}
});

export function loadSpec(id, options = {}) {
  if (typeof id !== 'string' || !Object.hasOwn(specFiles, id)) {
    throw new TypeError(\`loadSpec: unknown API \${JSON.stringify(id)}; expected one of ${ids.join(', ')}\`);
  }
  if (options === null || typeof options !== 'object') {
    throw new TypeError(\`loadSpec: options must be an object such as { dereferenced: true }, not \${JSON.stringify(options)}\`);
  }
  const files = specFiles[id];
  return JSON.parse(readFileSync(options.dereferenced ? files.dereferencedJson : files.json, 'utf8'));
}
`;
}

/** dist/index.d.ts: the types of index.js, with each API's paths and operationIds as literal unions. */
export function specPackageDts(entries: { index: SpecIndexEntry; doc: OpenApiDocument }[]): string {
  const ids = entries.map((e) => e.index.id);
  const perApi = (of: (doc: OpenApiDocument) => string[]) =>
    entries.map(({ index, doc }) => `  ${json(index.id)}: ${union(of(doc))};`).join('\n');
  const tuples = (of: (doc: OpenApiDocument) => string[]) =>
    entries.map(({ index, doc }) => `  readonly ${json(index.id)}: readonly ${json(of(doc))};`).join('\n');
  return `${HEADER}/** The id of each API of the package. */
export type ApiId = ${union(ids)};

/** The paths of each API's document (its URL templates, relative to the server). */
export interface ApiPaths {
${perApi(pathsOf)}
}

/** The operationIds of each API's document: Google's method ids without the API prefix. */
export interface ApiOperationIds {
${perApi(operationIdsOf)}
}

/** One API of the package. */
export interface ApiInfo {
  /** Such as \`calendar\`. */
  readonly id: ApiId;
  /** Such as \`calendar@v3\`. */
  readonly name: string;
  readonly version: string;
  readonly title: string;
  /** The live server, such as \`https://www.googleapis.com/calendar/v3\`. */
  readonly server: string;
  /** The path of the server, such as \`/calendar/v3\`. */
  readonly basePath: string;
  /** The bundled JSON document, relative to the package's dist folder. */
  readonly file: string;
}

/** The absolute paths of one API's documents. */
export interface SpecFileSet {
  /** Bundled: one file, internal \`$ref\`s into \`components\`. */
  readonly json: string;
  readonly yaml: string;
  /** Dereferenced: no \`$ref\` anywhere; each use of a schema is written out in full. */
  readonly dereferencedJson: string;
  readonly dereferencedYaml: string;
}

export declare const apis: readonly ApiInfo[];
export declare const specFiles: { readonly [Id in ApiId]: SpecFileSet };
export declare const paths: {
${tuples(pathsOf)}
};
export declare const operationIds: {
${tuples(operationIdsOf)}
};

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  parameters?: unknown[];
  requestBody?: unknown;
  responses?: Record<string, unknown>;
  security?: Record<string, string[]>[];
  [extension: string]: unknown;
}

export type OpenApiPathItem = { [M in HttpMethod]?: OpenApiOperation } & {
  summary?: string;
  description?: string;
  parameters?: unknown[];
  [extension: string]: unknown;
};

/** An OpenAPI 3.1 document whose \`paths\` are exactly \`P\`. */
export interface OpenApiDocument<P extends string = string> {
  openapi: string;
  info: { title: string; version: string; description?: string; [key: string]: unknown };
  servers?: { url: string; description?: string; [key: string]: unknown }[];
  paths: { [K in P]: OpenApiPathItem };
  components?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

export interface LoadSpecOptions {
  /** The dereferenced document (no \`$ref\`) instead of the bundled one. Default false. */
  dereferenced?: boolean;
}

/** Reads one API's document (a new object on every call). An unknown id throws a TypeError. */
export declare function loadSpec<Id extends ApiId>(id: Id, options?: LoadSpecOptions): OpenApiDocument<ApiPaths[Id]>;
`;
}
