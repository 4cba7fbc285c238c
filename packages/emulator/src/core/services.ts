/**
 * The APIs the emulator serves, each at its live base path with its own spec, schema tools,
 * router, handlers and store. The state (the core's store), users, quota and control plane are
 * shared, so a dump holds every API and one token is one user in all.
 */
import { createPathRouter, type PathRouter } from '@gspec/server-kit';
import { type AnyApiModule, checkHandlers, missingHandlers } from './api-module.js';
import type { Handler } from './context.js';
import { createSchemaTools, type SchemaTools } from './schemas.js';
import { type ApiName, type ApiSpec, loadApiSpec, type OperationSpec, SpecError } from './spec.js';
import type { Store } from './store.js';

export interface Service {
  name: ApiName;
  module: AnyApiModule;
  spec: ApiSpec;
  /** The API's own store, on the core's (`ApiModule.createStore`); its handlers get it. */
  store: unknown;
  tools: SchemaTools;
  router: PathRouter<OperationSpec>;
  handlers: Readonly<Record<string, Handler>>;
  /** The operations of the spec without a handler; they answer 501. */
  notImplemented: string[];
}

export function createService(
  module: AnyApiModule,
  spec: ApiSpec,
  core: Store,
  handlers = module.handlers,
): Service {
  checkHandlers(spec, handlers);
  return {
    name: module.name,
    module,
    spec,
    store: module.createStore(core, spec),
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

/**
 * Builds the services of the modules, each with its store on `core`; a spec not given is
 * loaded from @gspec/specs.
 */
export function createServices(
  modules: readonly AnyApiModule[],
  core: Store,
  specs: Partial<Record<ApiName, ApiSpec>> = {},
): Services {
  const list = modules.map((module) =>
    createService(module, specs[module.name] ?? loadApiSpec(module.name), core),
  );
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
