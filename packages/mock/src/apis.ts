/** The bundled specs the mock serves, read from @gspec/specs (built by `npm run build`). */
import './lazy-deps.js';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { JsonFileError, readJsonFile } from '@gspec/server-kit';
import { getHttpOperationsFromSpec } from '@stoplight/prism-http';
import type { IHttpOperation } from '@stoplight/types';

export interface MockApi {
  /** The redocly.yaml name, such as `calendar@v3`. */
  name: string;
  title: string;
  /** The live base path, such as `/calendar/v3`; requests under it go to this API. */
  basePath: string;
  /** The spec's server URL (`https://www.googleapis.com/calendar/v3`), when apis.json names it. */
  server?: string;
  /** The bundled document, for the checks Prism does not make (the proxy's answer checks). */
  document: unknown;
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
      'the specs of @gspec/specs were not found: install @gspec/specs next to @gspec/mock, or pass --specs DIR (in the gspec repository, `npm run build` makes them)',
    );
  }
}

/** Where the specs come from: `--specs`, else GSPEC_MOCK_SPECS, else the bundled specs. */
export function resolveSpecDir(option?: string, env: NodeJS.ProcessEnv = process.env): string {
  return option ?? env.GSPEC_MOCK_SPECS ?? defaultSpecDir();
}

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/**
 * The checks Prism leaves out: it reads a document without `paths` as zero operations and a
 * `responses` that is not an object as no responses. The mock needs each operation to have an
 * id (fault rules name operations by it) and a success answer to serve; a spec that lacks
 * them is refused at start, naming the place, rather than answering 500s later.
 */
function checkDocument(file: string, document: unknown): void {
  const fail = (where: string, what: string): never => {
    throw new MockSetupError(`${file}: ${where}: ${what}`);
  };
  if (!isObject(document)) fail('the document', 'is not a JSON object');
  const doc = document as JsonObject;
  if (typeof doc.openapi !== 'string' || !/^3\.[01]\./.test(doc.openapi))
    fail('openapi', `expected an OpenAPI 3.0 or 3.1 version, found ${JSON.stringify(doc.openapi)}`);
  if (!isObject(doc.paths) || Object.keys(doc.paths).length === 0)
    fail('paths', 'expected an object with at least one path');
  const seen = new Map<string, string>();
  for (const [route, item] of Object.entries(doc.paths as JsonObject)) {
    if (!route.startsWith('/')) fail(`paths["${route}"]`, 'a path must start with "/"');
    if (!isObject(item)) fail(`paths["${route}"]`, 'expected a path item object');
    for (const method of METHODS) {
      const operation = (item as JsonObject)[method];
      if (operation === undefined) continue;
      const where = `paths["${route}"].${method}`;
      if (!isObject(operation)) fail(where, 'expected an operation object');
      const op = operation as JsonObject;
      if (typeof op.operationId !== 'string' || op.operationId === '')
        fail(`${where}.operationId`, 'missing; the mock names operations by their operationId');
      const id = op.operationId as string;
      const earlier = seen.get(id);
      if (earlier) fail(`${where}.operationId`, `"${id}" is also the id of ${earlier}`);
      seen.set(id, where);
      if (!isObject(op.responses)) fail(`${where}.responses`, 'expected an object of responses by status');
      if (!Object.keys(op.responses as JsonObject).some((code) => /^2(\d\d|XX)$/.test(code)))
        fail(`${where}.responses`, 'no success (2xx) response to answer with');
    }
  }
}

function readJson(file: string, what: string): unknown {
  if (!existsSync(file)) throw new MockSetupError(`${file} does not exist; ${what}`);
  try {
    return readJsonFile(file);
  } catch (error) {
    if (error instanceof JsonFileError) throw new MockSetupError(error.message);
    throw error;
  }
}

function checkIndex(indexFile: string, index: unknown): ApiIndexEntry[] {
  if (!Array.isArray(index) || index.length === 0)
    throw new MockSetupError(`${indexFile}: expected a non-empty array of APIs`);
  return index.map((entry: unknown, i) => {
    const where = `${indexFile}: [${i}]`;
    if (!isObject(entry)) throw new MockSetupError(`${where}: expected an object`);
    for (const key of ['name', 'title', 'basePath', 'file'] as const) {
      if (typeof entry[key] !== 'string' || entry[key] === '')
        throw new MockSetupError(`${where}.${key}: expected a non-empty string`);
    }
    if (!/^\/[^?#]*[^/?#]$/.test(entry.basePath as string))
      throw new MockSetupError(
        `${where}.basePath: expected a path such as "/calendar/v3", found ${JSON.stringify(entry.basePath)}`,
      );
    return entry as unknown as ApiIndexEntry;
  });
}

/**
 * Reads apis.json and every spec it lists from `specDir`, checks them, and turns them into
 * Prism operations. Any problem is a MockSetupError naming the file and the place in it.
 */
export async function loadApis(specDir = defaultSpecDir()): Promise<MockApi[]> {
  const indexFile = path.join(specDir, 'apis.json');
  const index = checkIndex(indexFile, readJson(indexFile, 'run `npm run build` first'));
  const basePaths = new Set<string>();
  for (const entry of index) {
    if (basePaths.has(entry.basePath))
      throw new MockSetupError(`${indexFile}: two APIs have the base path ${entry.basePath}`);
    basePaths.add(entry.basePath);
  }
  return Promise.all(
    index.map(async (entry) => {
      const file = path.join(specDir, entry.file);
      const document = readJson(file, `${indexFile} lists it`);
      checkDocument(file, document);
      let operations: IHttpOperation[];
      try {
        // A batch endpoint (`x-batch`) is no operation of the API but the transport of the
        // others: the gateway answers it by handing each call to Prism, never Prism itself.
        operations = (await getHttpOperationsFromSpec(document as object)).filter(
          (operation) => operation.extensions?.['x-batch'] === undefined,
        );
      } catch (error) {
        throw new MockSetupError(`${file}: Prism cannot read this spec: ${(error as Error).message}`);
      }
      if (operations.length === 0) throw new MockSetupError(`${file}: the spec has no operations`);
      // Prism would call a watch operation's callback URL (an address from the request or
      // the spec's example) after answering; a local mock must never reach out to the network.
      for (const operation of operations) delete operation.callbacks;
      const server = (entry as { server?: unknown }).server;
      return {
        name: entry.name,
        title: entry.title,
        basePath: entry.basePath,
        ...(typeof server === 'string' && URL.canParse(server) ? { server } : {}),
        document,
        operations,
      };
    }),
  );
}
