export { createAjv } from './ajv.js';
export {
  AnswerChecker,
  type AnswerFinding,
  type CheckedAnswer,
  describeErrors,
  pointerToken,
  shortJson,
  strictDocument,
} from './answers.js';
export {
  BATCH_LIMIT,
  type BatchCall,
  batchPath,
  type CallAnswer,
  readBatch,
  readBatchAnswer,
  writeBatch,
} from './batch.js';
export {
  CommandLineError,
  type CommandOption,
  type CommandValues,
  commandHelp,
  parseCommandLine,
  readCommandLine,
  serverOptions,
} from './command-line.js';
export { ifNoneMatchHits } from './conditional.js';
export { FAVICON_ICO, FAVICON_SVG, isFaviconPath, serveFavicon } from './favicon.js';
export {
  applyFieldMask,
  CheckedMasks,
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
  batchEndpoints,
  curlExample,
  LANDING_HEADERS,
  type LandingInfo,
  landingHtml,
  landingJson,
  notFoundHint,
  pathUnderApi,
  requestOrigin,
  type ServedApi,
  wantsHtml,
} from './front-door.js';
export {
  CANONICAL_STATUS,
  DATE_TIME_NEEDS_OFFSET,
  type GoogleErrorBody,
  type GoogleErrorItem,
  googleError,
} from './google-errors.js';
export {
  type Exchange,
  type Har,
  type HarContent,
  type HarEntry,
  HarError,
  type HarNameValue,
  type HarPostData,
  type HarRequest,
  type HarResponse,
  HarWriter,
  harContentBody,
  harEntry,
  harHeader,
  parseHar,
  readHarFile,
} from './har.js';
export {
  authRefusal,
  corsHeaders,
  createPathRouter,
  declaredTooLarge,
  HttpRefusal,
  isJsonContentType,
  jsonNestingPastLimit,
  jsonNestingRefusal,
  listen,
  MAX_BODY_BYTES,
  MAX_JSON_DEPTH,
  MISSING_CREDENTIAL,
  type PathRouter,
  preflightHeaders,
  type RoutedOperation,
  type RouteResult,
  readBearer,
  readBody,
  tooLarge,
  unsupportedMediaType,
  WWW_AUTHENTICATE,
} from './http.js';
export { JsonFileError, jsonSyntaxErrorOffset, parseJsonText, readJsonFile } from './json-file.js';
export {
  AllowedHosts,
  AllowedHostsError,
  crossOriginRefusal,
  foreignOrigin,
  hostOfHeader,
  hostRefusal,
  nonJsonRefusal,
} from './origins.js';
export {
  describeJsonError,
  isCredentialHeader,
  isCredentialName,
  REDACTED,
  redactBody,
  redactHeaders,
  redactJson,
  redactParameters,
  redactTarget,
  redactText,
} from './redact.js';
export { startedByNpm, stopOnSignals } from './signals.js';
export { closestNames, didYouMean, editDistance } from './suggest.js';
