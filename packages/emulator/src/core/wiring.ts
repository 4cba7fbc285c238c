/**
 * The parts of an emulator, made and connected: the store and each API's service, quota,
 * access policy, token endpoint, journal, notifier, control plane, the state store (memory, a
 * SQLite file or a shared database), the operations, the admin gate and the inspector. server.ts puts an HTTP front on
 * them; nothing here listens.
 */
import { AllowedHosts, type ServedApi } from '@gspec/server-kit';
import { AdminGate } from './admin.js';
import type { AnyApiModule } from './api-module.js';
import { CONTROL_PREFIX, type ControlDeps } from './control.js';
import type { Emulator, EmulatorOptions } from './emulator-types.js';
import { servedApi } from './errors.js';
import { Inspector } from './inspector.js';
import { Journal } from './journal.js';
import { Notifier } from './notifier.js';
import { OAuthServer } from './oauth.js';
import { Operations } from './operations.js';
import { SharedStore } from './postgres.js';
import { QuotaMeter } from './quota.js';
import { applySeed, createSeedParser } from './seed.js';
import { createServices, type Services } from './services.js';
import { emptyCoreState } from './state.js';
import { createStateChecker } from './state-file.js';
import { MemoryStore, type StateStore } from './state-store.js';
import { Persistence } from './storage.js';
import { Store } from './store.js';
import { AccessPolicy } from './strict.js';

export interface EmulatorParts {
  store: Store;
  services: Services;
  quota: QuotaMeter;
  access: AccessPolicy;
  oauth: OAuthServer;
  journal: Journal;
  notifier: Notifier;
  control: ControlDeps;
  /** Where the state is kept: memory, a SQLite file (`persist`), a shared database (`store`). */
  stateStore: StateStore;
  /** The same store, when it is the SQLite file (kept on the Emulator for compatibility). */
  persistence: Persistence | undefined;
  /** The same store, when it is the shared database (kept on the Emulator for compatibility). */
  shared: SharedStore | undefined;
  operations: Operations;
  admin: AdminGate;
  inspector: Inspector;
  allowedHosts: AllowedHosts;
  /** What the landing page and the 404 hints say of each API. */
  served: ServedApi[];
}

/** What the parts read of the emulator made of them, once it exists. */
export interface Late {
  /** The address the server is bound to, when it listens. */
  boundAddress(): string | undefined;
  emulator(): Emulator;
}

/** The store, each API's service, and who may do what: the parts every other one reads. */
function coreParts(modules: readonly AnyApiModule[], options: EmulatorOptions) {
  const store = new Store(() => {
    const state = emptyCoreState();
    for (const module of modules) {
      const part = module.state.empty();
      if (part !== undefined) state[module.name] = part;
    }
    return state;
  });
  const services = createServices(modules, store, options.specs);
  // A user seen for the first time gets what each API starts an account with.
  store.onNewUser = (user) => {
    for (const service of services.list) service.module.startUser?.(service.store, user);
  };
  const quota = new QuotaMeter();
  // A delegated assertion may act as any user the emulator has (seeded, or seen before).
  const oauth = new OAuthServer(options.oauth, (email) => Object.hasOwn(store.state.users, email));
  const access = new AccessPolicy(services, {
    users: options.users ?? {},
    oauth,
    ...(options.strict ? { strict: true } : {}),
    ...(options.scopes ? { scopes: options.scopes } : {}),
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
  });
  return { store, services, quota, oauth, access };
}

/** The journal of requests and deliveries, and the notifier that records its deliveries there. */
function observers(options: EmulatorOptions, late: Late) {
  const journal = new Journal(options.inspector?.journal, (pathname) => OAuthServer.serves(pathname));
  const notifier = new Notifier(
    {
      ...options.notifications,
      ...(options.log ? { log: options.log } : {}),
      onDelivery: (report) => {
        journal.recordDelivery(report);
        options.notifications?.onDelivery?.(report);
      },
    },
    // A shared sandbox (shared store, or bound beyond loopback) delivers only to the allow list.
    { sharedStore: options.store !== undefined, boundTo: late.boundAddress },
  );
  return { journal, notifier };
}

/**
 * The state store the options ask for: a SQLite file, a shared database, or memory. The one
 * place that picks the adapter (state-store.ts); everything else uses the StateStore.
 */
function createStateStore(
  parts: Pick<EmulatorParts, 'store' | 'services' | 'quota' | 'access' | 'notifier' | 'control'>,
  options: EmulatorOptions,
): Pick<EmulatorParts, 'stateStore' | 'persistence' | 'shared'> {
  if (options.persist && options.store)
    throw new TypeError(
      'createEmulator: give persist (a SQLite file) or store (a shared database), not both',
    );
  const { store, services, quota, access, notifier, control } = parts;
  const slices = () => services.list.map((s) => s.module.storage(s.store));
  const onError = options.log ? { onError: options.log } : {};
  if (options.store) {
    const shared = new SharedStore(
      { store, slices: slices(), quota, access, notifier },
      { ...onError, ...(typeof options.store === 'string' ? { url: options.store } : options.store) },
    );
    return { stateStore: shared, persistence: undefined, shared };
  }
  if (options.persist) {
    const persistence = new Persistence(
      store,
      slices(),
      { ...onError, ...(typeof options.persist === 'string' ? { file: options.persist } : options.persist) },
      control.checkState,
    );
    return { stateStore: persistence, persistence, shared: undefined };
  }
  return { stateStore: new MemoryStore(store), persistence: undefined, shared: undefined };
}

/** Every part of the emulator of `modules`, connected. */
export function wireEmulator(
  modules: readonly AnyApiModule[],
  options: EmulatorOptions,
  late: Late,
): EmulatorParts {
  const { store, services, quota, oauth, access } = coreParts(modules, options);
  const { journal, notifier } = observers(options, late);
  // Only changes a channel watches are recorded (most writes have no one to tell).
  store.watched = (key) => notifier.watches(key);
  // The seed endpoint checks documents against these APIs' specs, read when the first comes.
  const seeds = createSeedParser(modules, options.specs);
  const control: ControlDeps = {
    services,
    store,
    quota,
    access,
    // Seeds are applied by requests only, once the emulator is made.
    seeds: { parse: seeds.parse, apply: (seed, source) => applySeed(late.emulator(), seed, source) },
    onReset: () => {
      notifier.reset();
      store.changes.clear();
      journal.clear();
    },
    checkState: createStateChecker(
      modules,
      Object.fromEntries(services.list.map((service) => [service.name, service.spec])),
    ),
  };
  const { stateStore, persistence, shared } = createStateStore(
    { store, services, quota, access, notifier, control },
    options,
  );
  const operations = new Operations({ services, store, quota, access, notifier, stateStore });
  const admin = new AdminGate(options.admin, options.strict === true, CONTROL_PREFIX, late.boundAddress);
  const inspector = new Inspector({
    prefix: CONTROL_PREFIX,
    admin,
    journal,
    notifier,
    services,
    store,
    invoke: operations.invoke.bind(operations),
    ...(options.inspector?.streamBacklogBytes !== undefined
      ? { streamBacklogBytes: options.inspector.streamBacklogBytes }
      : {}),
  });
  const allowedHosts = AllowedHosts.parse(options.allowedHosts, 'allowedHosts');
  return {
    store,
    services,
    quota,
    access,
    oauth,
    journal,
    notifier,
    control,
    stateStore,
    persistence,
    shared,
    operations,
    admin,
    inspector,
    allowedHosts,
    served: services.list.map(servedApi),
  };
}
