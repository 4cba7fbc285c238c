/**
 * What the core asks of an API it serves. Each API is a folder under src/apis/ that exports one
 * `ApiModule` (its index.ts), and src/apis/index.ts lists them: the registry. The core is
 * given the modules and names none of them.
 */
import type { Handler, InvokeInput, InvokeResult } from './context.js';
import type { OAuthClientConfig, RefreshTokenConfig, ServiceAccountConfig } from './oauth.js';
import type { SchemaTools } from './schemas.js';
import type { StorageSlice } from './slice.js';
import { type ApiName, type ApiSpec, SpecError } from './spec.js';
import type { State, UserRecord } from './state.js';
import type { Store } from './store.js';
import type { ValidRequest } from './validate.js';

/** How an API answers a user over the rate limit. */
export type RateLimitStatus = 403 | 429;

/** Refuses a file: the message says what is wrong and where (`calendars[1].id: ...`). */
export type Fail = (message: string) => never;

/**
 * An API's part of the state document (GET/PUT /__emulator/state, --state): the value of the
 * key named as the API (`calendar`, `searchads360`). The core's fields and users are the rest.
 */
export interface ApiStateShape {
  /**
   * The JSON Schema of its part. A schema of its spec is referred to as
   * `<name>.json#/components/schemas/...` (the checker registers the spec under that id).
   */
  readonly schema: object;
  /** Its part of an empty state (a new emulator, a reset); undefined for a part first made when written. */
  empty(): unknown;
  /**
   * After the schema: what it cannot say (keys equal to ids, records that must exist), and
   * what a state dumped by an older emulator lacks, filled in.
   */
  check?(state: State, fail: Fail): void;
  /**
   * Its part of a version-1 document (dumped before each API's state had a key of its own),
   * taken out of that document: its keys at the top level and its fields in the user records.
   * Without it, the part is what the document holds under the API's name.
   */
  fromVersion1?(document: Record<string, unknown>): unknown;
}

/**
 * An API's part of the seed file (`--seed`): its keys and what it writes from them. `Seed` is
 * the document as the API reads it; the core checks the document against `properties` and
 * `user` before it hands it to `check` and `apply`.
 */
export interface ApiSeedShape<S, Seed extends SeedDocument = SeedDocument> {
  /** The JSON Schema of each of its keys of the seed document (spec references as above). */
  readonly properties: Readonly<Record<string, object>>;
  /** What a seed user may say for it, besides email, tokens and scopes (Calendar: settings). */
  readonly user?: Readonly<Record<string, object>>;
  /** After the schema: what it cannot say (ids given twice). */
  check?(seed: Seed, fail: Fail): void;
  /**
   * Writes its part of a checked seed, the seed's users already created. `at` names the entry
   * being written, for the error if it is refused.
   */
  apply(target: SeedTarget<S>, seed: Seed, at: (place: string) => void): void;
}

/** A checked seed document: the core's `users` and every API's keys. */
export interface SeedDocument {
  users?: SeedUser[];
  /** The token endpoint's service accounts (oauth.ts). */
  serviceAccounts?: ServiceAccountConfig[];
  /** The OAuth clients the users' refresh tokens are given to. */
  oauthClients?: OAuthClientConfig[];
  [part: string]: unknown;
}

export interface SeedUser {
  email: string;
  /** Bearer tokens that mean this user (besides the email itself, outside strict mode). */
  tokens?: string[];
  /**
   * OAuth scopes granted to the user's tokens (full or short names, `calendar.readonly`);
   * without it they have every scope. Only strict mode enforces scopes.
   */
  scopes?: string[];
  /** Refresh tokens the user gave OAuth clients, for the token endpoint (oauth.ts). */
  refreshTokens?: Omit<RefreshTokenConfig, 'email'>[];
  /** What an API reads for the user (`ApiSeedShape.user`). */
  [field: string]: unknown;
}

/** What a seed is written with: the API's store, and its operations run as a client would. */
export interface SeedTarget<S> {
  store: S;
  spec: ApiSpec;
  /** Runs an operation as `email` (Emulator.invoke); a refusal throws the ApiError a client gets. */
  invoke(email: string, operationId: string, input?: InvokeInput): InvokeResult;
  /**
   * Runs an operation as no user (none is made): ids the seed does not name are refused, not
   * created, and a batch with a bad row is refused whole.
   */
  invokeAsSeed(operationId: string, input?: InvokeInput): InvokeResult;
}

/**
 * An API module whose store is of type `S`; `createStore` makes it and the module's other
 * members get it back: the core only passes it between them. `Seed` is the seed document as
 * its seed part reads it.
 */
export interface ApiModule<S = unknown, Seed extends SeedDocument = SeedDocument> {
  /** The name of its bundled spec in @gspec/specs (`calendar`), its key in reports. */
  readonly name: ApiName;
  /** How people call it, for the start-up lines (`Google Calendar API`). */
  readonly title: string;
  /** Its operations' handlers by operationId; the spec's other operations answer 501. */
  readonly handlers: Readonly<Record<string, Handler<ValidRequest, S>>>;
  /** Its store, on the core's (which holds the state, the users and the changes of a request). */
  createStore(core: Store, spec: ApiSpec): S;
  /** Gives a new user what the API starts an account with. */
  startUser?(store: S, user: UserRecord): void;
  /** Its tables in the databases of `--persist` and `--store` (core/slice.ts). */
  storage(store: S): StorageSlice;
  readonly state: ApiStateShape;
  readonly seed?: ApiSeedShape<S, Seed>;
  /**
   * Turns what the answers of a recording (a HAR file, `--seed-from`) show into its part of a
   * seed document: its keys, and the users it saw with what it reads of a user. It is given
   * the recording's exchanges under its base path that were answered 2xx, matched to their
   * operations, in the order of the recording (a later answer says what is true now). Without
   * it, the API's exchanges are skipped.
   */
  seedFromRecording?(exchanges: readonly RecordedExchange[], input: RecordingInput): RecordingPart;
  /** How its live service answers a user over the rate limit. */
  readonly rateLimitStatus: RateLimitStatus;
  /**
   * Its views for the web inspector, by name: each is answered as JSON at
   * `GET /__emulator/apis/<name>/<view>`, behind the inspector's token (core/inspector.ts).
   * Without it the API has none.
   */
  readonly inspect?: Readonly<Record<string, InspectView<S>>>;
  /**
   * Its page in the web inspector: the label of its tab, and the style rules the page needs
   * (added to the inspector's style sheet). The page's script, run in the browser, is
   * `inspector-page.ts` in the API's folder, built to dist/ (or the JavaScript module `script`
   * names): it exports `render()`, which draws the page into the kit's `main`, and imports the
   * kit as `../../ui/kit.js`; it may import modules beside it named `inspector-*.js`. The
   * inspector serves them as the build lays them out (`ui/js/apis/<name>/…`). What it shows it
   * reads from the `inspect` views above and from the API's read-only operations run as a user
   * (the kit's `invoke`). Without it, no tab.
   */
  readonly page?: InspectorPage;
}

/** An API's page in the web inspector (`ApiModule.page`). */
export interface InspectorPage {
  /** The tab's label (`Calendar`). */
  readonly label: string;
  /** Style rules of the page's own classes, added to the inspector's style sheet. */
  readonly style?: string;
  /**
   * The page's script, a JavaScript module file, for an API whose folder is not in this
   * package (default: dist/apis/<name>/inspector-page.js); its `inspector-*.js` modules are the
   * files beside it.
   */
  readonly script?: URL;
}

/**
 * One exchange of a recording, answered 2xx, under an API's base path and matched to one of
 * its operations. Credentials in it read `[redacted]` (the recorder redacts them).
 */
export interface RecordedExchange {
  /** Where it is in the recording (`log.entries[12]`), for messages. */
  at: string;
  operationId: string;
  /** The path parameters, decoded (`calendarId: "primary"`). */
  path: Readonly<Record<string, string>>;
  query: URLSearchParams;
  status: number;
  /** The request's body read as JSON, when it was JSON. */
  requestBody?: unknown;
  /** The answer's body read as JSON; undefined for an empty answer or one that is not JSON. */
  body?: unknown;
}

/** What an API is given besides the exchanges: its spec, and the tools on its schemas. */
export interface RecordingInput {
  spec: ApiSpec;
  tools: SchemaTools;
}

/** An API's part of the seed made from a recording, and what it took and left out, by kind. */
export interface RecordingPart {
  /** Its keys of the seed document, and `users` it saw (email, and what it reads of a user). */
  seed: SeedDocument;
  /** What the seed holds, by kind (`events: 12`), for the report. */
  taken: Readonly<Record<string, number>>;
  /** What it left out, by kind with the reason (`colors.get (nothing to seed): 2`). */
  skipped: Readonly<Record<string, number>>;
}

/** What an inspector view is given: the API's store and spec, and the request's query. */
export interface InspectInput<S> {
  store: S;
  spec: ApiSpec;
  /** The query of the request (`?advertiserId=...`): what the view is narrowed to. */
  query: URLSearchParams;
}

/**
 * One view of an API's state for the inspector: what it answers is sent as JSON. It only reads
 * (nothing it does is committed or journaled) and sees the state as the API's reads see it. A
 * refusal is an ApiError thrown (400 for a missing parameter, 404 for an unknown id), answered
 * as the API's errors are.
 */
export type InspectView<S> = (input: InspectInput<S>) => unknown;

/**
 * A module of any store and seed type, as the registry and the core hold them side by side.
 * Each module's own members agree on its types (its declaration checks that); the core only
 * hands a module's store back to the same module, and hands its seed part a document that
 * passed the module's seed schema.
 */
// biome-ignore lint/suspicious/noExplicitAny: the store and seed types differ per module and are opaque to the core.
export type AnyApiModule = ApiModule<any, any>;

/** A handler for an operation the spec does not have is a setup error. */
export function checkHandlers(spec: ApiSpec, handlers: Readonly<Record<string, unknown>>): void {
  for (const id of Object.keys(handlers)) {
    if (!spec.byId.has(id))
      throw new SpecError(`the emulator has a handler for ${id}, which the spec does not have`);
  }
}

/** The operations of the spec without a handler. */
export function missingHandlers(spec: ApiSpec, handlers: Readonly<Record<string, unknown>>): string[] {
  return spec.operations.map((op) => op.id).filter((id) => !(id in handlers));
}
