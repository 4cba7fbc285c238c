export { CONTROL_PREFIX } from './control.js';
export {
  PersistError,
  Persistence,
  type PersistOptions,
  type PersistStats,
  type SyncMode,
} from './core/storage.js';
export type { GoogleErrorBody, GoogleErrorItem } from './errors.js';
export { DEPRECATED_BEHAVIOR_HEADER } from './handlers/events.js';
export { notImplementedOperations } from './handlers/index.js';
export { MAX_INSTANCES } from './handlers/recurrence.js';
export type { Channel, Notifier, NotifierOptions } from './notifier.js';
export { QUOTA_COST_HEADER, QUOTA_USED_HEADER, type QuotaReport } from './quota.js';
export { DEPRECATION_NOTE_HEADER } from './searchads360/conversion-reads.js';
export type {
  SearchAds360Seed,
  SeedAdGroup,
  SeedAdvertiser,
  SeedAgency,
  SeedCampaign,
  SeedClick,
  SeedEngineAccount,
  SeedEntity,
} from './searchads360/seed.js';
export type { SearchAds360State } from './searchads360/state.js';
export {
  applySeed,
  parseSeed,
  readSeedFile,
  type Seed,
  type SeedCalendar,
  SeedError,
  type SeedUser,
  seedScopeMap,
  seedUserMap,
} from './seed.js';
export {
  createEmulator,
  type Emulator,
  type EmulatorOptions,
  type Exchange,
  type InvokeInput,
  type InvokeResult,
} from './server.js';
export {
  type CalendarSpec,
  loadCalendarSpec,
  type OperationSpec,
  readCalendarSpec,
  SpecError,
} from './spec.js';
export type { State } from './state.js';
export {
  AccessConfigError,
  LIVE_RATE_LIMIT_STATUS,
  type RateLimitOptions,
  type RateLimitReport,
  type RateLimitStatus,
} from './strict.js';
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
} from './users.js';
