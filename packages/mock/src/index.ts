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
export { createRouter, type RouteResult, type Router } from './routes.js';
