/**
 * The Node transport, re-exported from `@gspec/runtime/node` so that a program needs no
 * direct dependency on the runtime: `createSearchAds360({ fetch: nodeFetch })` starts without loading
 * undici. Browser and edge programs keep the global fetch and never import this entry.
 */
export { nodeFetch } from '@gspec/runtime/node';
