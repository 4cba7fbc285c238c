export { CONTROL_PREFIX } from './control.js';
export type { GoogleErrorBody, GoogleErrorItem } from './errors.js';
export { DEPRECATED_BEHAVIOR_HEADER } from './handlers/events.js';
export { notImplementedOperations } from './handlers/index.js';
export { MAX_INSTANCES } from './handlers/recurrence.js';
export type { Channel, Notifier, NotifierOptions } from './notifier.js';
export { QUOTA_COST_HEADER, QUOTA_USED_HEADER, type QuotaReport } from './quota.js';
export {
  applySeed,
  parseSeed,
  readSeedFile,
  type Seed,
  type SeedCalendar,
  SeedError,
  type SeedUser,
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
export { parseUserMap, readUserMapFile, type UserMap, UsersFileError } from './users.js';
