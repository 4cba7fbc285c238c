/**
 * Defers two of Prism's dependencies the mock rarely or never uses, so that it answers sooner
 * after start (the goal is a first answer within 3 s, on slow and busy machines too).
 *
 * Loading `@stoplight/prism-http` loads `@faker-js/faker` with every locale it has (about 60%
 * of Prism's load time) and the Postman collection reader. The mock needs faker only for
 * `Prefer: dynamic=true`, and never reads Postman collections. Both are used by Prism through
 * a property of the module object, read when they are needed (`faker_1.default` inside a
 * callback, `operation_3.transformPostmanCollectionOperations(...)` inside a function), so a
 * stand-in module whose properties load the real one on first use behaves the same and costs
 * nothing until then.
 *
 * This must run before `@stoplight/prism-http` is first loaded; index.ts, cli.ts and the
 * modules that import Prism import it first. If Prism's layout changes so that a module cannot
 * be found, nothing is deferred and Prism loads as usual.
 */
import Module, { createRequire } from 'node:module';
import path from 'node:path';

type CjsModule = InstanceType<typeof Module> & { loaded: boolean };

function defer(fromFile: string, id: string): void {
  const require = createRequire(fromFile);
  let file: string;
  try {
    file = require.resolve(id);
  } catch {
    return;
  }
  const cache = require.cache;
  if (cache[file]) return; // already loaded for real: nothing left to save
  let real: Record<string | symbol, unknown> | undefined;
  const load = (): Record<string | symbol, unknown> => {
    if (!real) {
      // Out of the cache, so that require loads the real module and caches it for later ones.
      delete cache[file];
      real = require(file) as Record<string | symbol, unknown>;
    }
    return real;
  };
  const standIn = new Module(file) as CjsModule;
  standIn.filename = file;
  standIn.loaded = true;
  standIn.exports = new Proxy(
    {},
    {
      get: (_target, key) => load()[key],
      has: (_target, key) => key in load(),
      ownKeys: () => Reflect.ownKeys(load()),
      getOwnPropertyDescriptor: (_target, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(load(), key);
        return descriptor ? { ...descriptor, configurable: true } : undefined;
      },
    },
  );
  cache[file] = standIn;
}

const require = createRequire(import.meta.url);
let prismHttp: string | undefined;
try {
  prismHttp = require.resolve('@stoplight/prism-http');
} catch {
  prismHttp = undefined;
}
if (prismHttp) {
  // Resolved from the files of Prism that require them, as Node would.
  const dist = path.dirname(prismHttp);
  defer(path.join(dist, 'mocker', 'generator', 'JSONSchema.js'), '@faker-js/faker');
  defer(path.join(dist, 'utils', 'operations.js'), '@stoplight/http-spec/postman/operation');
}
