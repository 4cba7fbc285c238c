export { loadApis, type MockApi, MockSetupError } from './apis.js';
export { createGateway, type Gateway, type GatewayOptions, readPreferences } from './gateway.js';
export {
  fromPrismProblem,
  type GoogleErrorBody,
  type GoogleErrorItem,
  googleError,
} from './google-errors.js';
