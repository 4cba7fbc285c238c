export { loadApis, type MockApi, MockSetupError, resolveSpecDir } from './apis.js';
export {
  FAULTS_SCHEMA,
  type FaultConfig,
  FaultConfigError,
  FaultInjector,
  type FaultStep,
  type OperationFaults,
  parseFaults,
  readFaultFile,
} from './faults.js';
export { createGateway, type Gateway, type GatewayOptions, readPreferences } from './gateway.js';
export {
  fromPrismProblem,
  type GoogleErrorBody,
  type GoogleErrorItem,
  googleError,
} from './google-errors.js';
export { createProxy, LIVE_TOKEN_ORIGIN, type ProxyOptions, type ValidatingProxy } from './proxy.js';
export { createReplay, createReplayIndex, type Replay, type ReplayOptions } from './replay.js';
export { createRouter, type RouteResult, type Router } from './routes.js';
export {
  foldIndexes,
  type ProxyReport,
  type ReportedKind,
  type Side,
  type Violation,
  ViolationReport,
} from './violations.js';
