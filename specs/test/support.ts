/** Shared helpers of the spec tests: the bundled documents and their operations. */
import { type ApiEntry, bundleApi, getApi, type OpenApiDocument } from '@gspec/scripts/apis';
import { isBatchEndpoint } from '@gspec/scripts/operations';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface OperationRef {
  api: string;
  operationId: string;
  method: string;
  path: string;
  // biome-ignore lint/suspicious/noExplicitAny: a raw OpenAPI operation object.
  operation: Record<string, any>;
  // biome-ignore lint/suspicious/noExplicitAny: a raw OpenAPI path item object.
  pathItem: Record<string, any>;
}

const bundles = new Map<string, Promise<OpenApiDocument>>();

/** The bundled document of an API, bundled once per test file. */
export function loadSpec(nameOrId: string): Promise<OpenApiDocument> {
  const api: ApiEntry = getApi(nameOrId);
  let doc = bundles.get(api.name);
  if (!doc) {
    doc = bundleApi(api);
    bundles.set(api.name, doc);
  }
  return doc;
}

/**
 * The API's operations, in the order of the document: every operation but a batch endpoint
 * (`x-batch`), which carries the others rather than being one of the service's methods.
 */
export function operationsOf(api: string, doc: OpenApiDocument): OperationRef[] {
  return allOperationsOf(api, doc).filter((op) => !isBatchEndpoint(op.operation));
}

/** Every operation of the document, batch endpoints included. */
export function allOperationsOf(api: string, doc: OpenApiDocument): OperationRef[] {
  const out: OperationRef[] = [];
  for (const [path, pathItem] of Object.entries(doc.paths ?? {})) {
    // biome-ignore lint/suspicious/noExplicitAny: a raw OpenAPI path item object.
    const item = pathItem as Record<string, any>;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation)
        out.push({ api, operationId: operation.operationId, method, path, operation, pathItem: item });
    }
  }
  return out;
}

/** Follows a local `#/components/...` reference inside a bundled document. */
// biome-ignore lint/suspicious/noExplicitAny: resolves arbitrary JSON.
export function deref<T = any>(doc: OpenApiDocument, node: any): T {
  let current = node;
  const seen = new Set<string>();
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    const ref: string = current.$ref;
    if (seen.has(ref)) throw new Error(`circular $ref ${ref}`);
    seen.add(ref);
    if (!ref.startsWith('#/')) throw new Error(`not a local $ref: ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      // biome-ignore lint/suspicious/noExplicitAny: walks arbitrary JSON.
      .reduce<any>((value, key) => value?.[key], doc);
    if (current === undefined) throw new Error(`unresolved $ref ${ref}`);
  }
  return current as T;
}
