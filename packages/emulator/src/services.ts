/**
 * The APIs the emulator serves, each at its live base path with its own spec, schema tools,
 * router and handlers. The state (store), users, quota and control plane are shared, so a
 * dump holds both APIs and one token is one user in both.
 */
import type { Handler } from './handlers/context.js';
import { checkHandlers, HANDLERS_BY_API, notImplementedOperations } from './handlers/index.js';
import { createRouter, type Router } from './router.js';
import { createSchemaTools, type SchemaTools } from './schemas.js';
import { API_NAMES, type ApiName, type ApiSpec, loadApiSpec, type OperationSpec, SpecError } from './spec.js';

export interface Service {
  name: ApiName;
  spec: ApiSpec;
  tools: SchemaTools;
  router: Router;
  handlers: Record<string, Handler>;
  /** The operations of the spec without a handler; they answer 501. */
  notImplemented: string[];
}

export function createService(name: ApiName, spec: ApiSpec, handlers = HANDLERS_BY_API[name]): Service {
  checkHandlers(spec, handlers);
  return {
    name,
    spec,
    tools: createSchemaTools(spec),
    router: createRouter(spec.operations),
    handlers,
    notImplemented: notImplementedOperations(spec, handlers),
  };
}

export interface Services {
  list: Service[];
  /** The service whose base path the URL path is under. */
  forPath(pathname: string): Service | undefined;
  /** An operation of any served API by its operationId (they are unique across the APIs). */
  operation(operationId: string): { service: Service; op: OperationSpec } | undefined;
}

/** Builds the services; a spec not given is loaded from @gspec/specs. */
export function createServices(specs: Partial<Record<ApiName, ApiSpec>> = {}): Services {
  const list = API_NAMES.map((name) => createService(name, specs[name] ?? loadApiSpec(name)));
  const byId = new Map<string, { service: Service; op: OperationSpec }>();
  for (const service of list)
    for (const op of service.spec.operations) {
      const other = byId.get(op.id);
      if (other)
        throw new SpecError(
          `operationId ${op.id} is in both the ${other.service.name} and ${service.name} specs`,
        );
      byId.set(op.id, { service, op });
    }
  return {
    list,
    forPath: (pathname) => list.find((s) => pathname.startsWith(`${s.spec.basePath}/`)),
    operation: (operationId) => byId.get(operationId),
  };
}
