/**
 * The APIs the emulator serves, each at its live base path with its own spec, schema tools,
 * router and handlers. The state (store), users, quota and control plane are shared, so a
 * dump holds both APIs and one token is one user in both.
 */
import { createPathRouter, type PathRouter } from '@gspec/server-kit';
import { type ApiModule, checkHandlers, missingHandlers } from './api-module.js';
import type { Handler } from './context.js';
import { createSchemaTools, type SchemaTools } from './schemas.js';
import { type ApiName, type ApiSpec, loadApiSpec, type OperationSpec, SpecError } from './spec.js';

export interface Service {
  name: ApiName;
  module: ApiModule;
  spec: ApiSpec;
  tools: SchemaTools;
  router: PathRouter<OperationSpec>;
  handlers: Readonly<Record<string, Handler>>;
  /** The operations of the spec without a handler; they answer 501. */
  notImplemented: string[];
}

export function createService(module: ApiModule, spec: ApiSpec, handlers = module.handlers): Service {
  checkHandlers(spec, handlers);
  return {
    name: module.name,
    module,
    spec,
    tools: createSchemaTools(spec),
    router: createPathRouter(spec.operations),
    handlers,
    notImplemented: missingHandlers(spec, handlers),
  };
}

export interface Services {
  list: Service[];
  /** The service whose base path the URL path is under. */
  forPath(pathname: string): Service | undefined;
  /** An operation of any served API by its operationId (they are unique across the APIs). */
  operation(operationId: string): { service: Service; op: OperationSpec } | undefined;
}

/** Builds the services of the modules; a spec not given is loaded from @gspec/specs. */
export function createServices(
  modules: readonly ApiModule[],
  specs: Partial<Record<ApiName, ApiSpec>> = {},
): Services {
  const list = modules.map((module) => createService(module, specs[module.name] ?? loadApiSpec(module.name)));
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
