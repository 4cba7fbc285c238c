export { createAjv } from './ajv.js';
export { ifNoneMatchHits } from './conditional.js';
export {
  applyFieldMask,
  checkFieldMask,
  type FieldBranch,
  type FieldMask,
  FieldMaskError,
  type FieldSelection,
  fieldMaskErrorItem,
  parseFieldMask,
  pointerResolver,
} from './fields.js';
export {
  CANONICAL_STATUS,
  type GoogleErrorBody,
  type GoogleErrorItem,
  googleError,
} from './google-errors.js';
export { stopOnSignals } from './signals.js';
