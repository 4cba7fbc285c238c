export { DEPRECATED_BEHAVIOR_HEADER } from './apis/calendar/events.js';
export { notImplementedOperations } from './apis/calendar/handlers.js';
export { MAX_INSTANCES } from './apis/calendar/recurrence.js';
export type { CalendarSeed, CalendarSeedUser, SeedCalendar } from './apis/calendar/seed.js';
export { type CalendarSpec, loadCalendarSpec, readCalendarSpec } from './apis/calendar/spec.js';
export { API_MODULES, LIVE_RATE_LIMIT_STATUS } from './apis/index.js';
export { DEPRECATION_NOTE_HEADER } from './apis/searchads360/conversion-reads.js';
export type {
  SearchAds360Seed,
  SeedAdGroup,
  SeedAdvertiser,
  SeedAgency,
  SeedCampaign,
  SeedClick,
  SeedEngineAccount,
  SeedEntity,
} from './apis/searchads360/seed.js';
export type { SearchAds360State } from './apis/searchads360/state.js';
export type {
  AnyApiModule,
  ApiModule,
  RecordedExchange,
  RecordingInput,
  RecordingPart,
} from './core/api-module.js';
export { CONTROL_PREFIX } from './core/control.js';
export {
  DeliveryPolicyError,
  type ResolvedAddress,
  type Resolver,
} from './core/delivery-policy.js';
export type { GoogleErrorBody, GoogleErrorItem } from './core/errors.js';
export {
  type Channel,
  DEFAULT_MAX_ATTEMPTS_PER_CHANGE,
  DEFAULT_MAX_CHANNELS_PER_USER,
  type Notifier,
  type NotifierOptions,
} from './core/notifier.js';
export {
  GOOGLE_TOKEN_URL,
  type OAuthClientConfig,
  OAuthConfigError,
  type OAuthOptions,
  type OAuthServer,
  type RefreshTokenConfig,
  type ServiceAccountConfig,
} from './core/oauth.js';
export { SharedStore } from './core/postgres.js';
export { type SharedStats, SharedStoreError, type SharedStoreOptions } from './core/postgres-options.js';
export { QUOTA_COST_HEADER, QUOTA_USED_HEADER, type QuotaReport } from './core/quota.js';
export {
  isRecordedHost,
  type RecordedSeed,
  RecordingError,
  type RecordingReport,
  reportLines,
} from './core/recording.js';
export {
  applySeed,
  type Seed,
  SeedError,
  type SeedUser,
  seedOAuth,
  seedScopeMap,
  seedUserMap,
} from './core/seed.js';
export {
  createEmulatorOf,
  type Emulator,
  type EmulatorOptions,
  type Exchange,
  type InvokeInput,
  type InvokeResult,
} from './core/server.js';
export { type ApiSpec, loadApiSpec, type OperationSpec, SpecError } from './core/spec.js';
export type { State } from './core/state.js';
export {
  type StartContext,
  StateNotSaved,
  type StateStore,
  type TurnEffect,
  type TurnOutcome,
} from './core/state-store.js';
export {
  PersistError,
  Persistence,
  type PersistOptions,
  type PersistStats,
  type SyncMode,
} from './core/storage.js';
export {
  AccessConfigError,
  type RateLimitOptions,
  type RateLimitReport,
  type RateLimitStatus,
} from './core/strict.js';
export {
  expandScope,
  parseUserMap,
  parseUsersFile,
  readUserMapFile,
  readUsersFile,
  type ScopeMap,
  type UserMap,
  type UsersFile,
  UsersFileError,
} from './core/users.js';
export {
  type AuthorizedUserFile,
  CredentialsError,
  type ServiceAccountKeyFile,
  type ServiceAccountRequest,
  type UserRequest,
  writeServiceAccount,
  writeUserCredentials,
} from './credentials.js';
export {
  checkSeed,
  createEmulator,
  parseSeed,
  readRecordingSeed,
  readSeedFile,
  recordingSeedOf,
} from './emulator.js';
