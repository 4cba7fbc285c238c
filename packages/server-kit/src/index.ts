export { createAjv } from './ajv.js';
export {
  CANONICAL_STATUS,
  type GoogleErrorBody,
  type GoogleErrorItem,
  googleError,
} from './google-errors.js';
export { stopOnSignals } from './signals.js';
