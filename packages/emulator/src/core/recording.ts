/**
 * Seeds made from recordings (`--seed-from FILE.har`, `gspec-emulator seed-from`): a HAR file
 * of real traffic (`gspec-mock --proxy ... --record`) read as a timeline of answers, each
 * API's part built by its module from the exchanges under its base path
 * (`ApiModule.seedFromRecording`), and the parts put together into one seed document. The
 * document then goes through the usual seed checks and `applySeed`, so a recording that
 * makes a bad seed is refused as a bad seed file would be.
 *
 * The core decides which exchanges an API sees: those of a recorded host (Google's API hosts,
 * or this machine's, for a recording of a local proxy or emulator), under the API's base path,
 * matched to an operation of its spec, answered 2xx, whole (no `fields=`) and, when they carry
 * JSON, readable. Everything else is counted by kind, for the report.
 */
import {
  type BatchCall,
  batchPath,
  type CallAnswer,
  createPathRouter,
  type HarEntry,
  harContentBody,
  harHeader,
  readBatch,
  readBatchAnswer,
  readHarFile,
} from '@gspec/server-kit';
import { isLoopback } from './admin.js';
import type { AnyApiModule, RecordedExchange, SeedUser } from './api-module.js';
import { createSchemaTools } from './schemas.js';
import type { Seed } from './seed.js';
import { type ApiName, type ApiSpec, loadApiSpec } from './spec.js';

/** A recording nothing can be seeded from; the message names the file. */
export class RecordingError extends Error {
  override name = 'RecordingError';
}

/** What was read of a recording: the entries, and what the seed took and left out, by kind. */
export interface RecordingReport {
  source: string;
  /** The entries of the file. */
  entries: number;
  /** The exchanges handed to an API. */
  read: number;
  /** What the seed holds, by kind (`events: 12`). */
  taken: Record<string, number>;
  /** What was left out, by kind with its reason. */
  skipped: Record<string, number>;
}

export interface RecordedSeed {
  /** The seed document, not checked yet (the caller parses and applies it). */
  seed: Seed;
  report: RecordingReport;
}

/** The kinds of exchange the core leaves out. */
const SKIPPED = {
  host: 'exchanges with other hosts',
  path: 'paths under no API',
  batch: 'batch requests refused whole or unreadable',
  operation: 'requests no operation of the spec matches',
  error: 'error answers (4xx/5xx)',
  status: 'answers neither 2xx nor an error (304, redirects)',
  partial: 'partial answers (fields=)',
  json: 'answers whose JSON cannot be read',
  module: 'exchanges of an API that reads no recording',
} as const;

/**
 * Whether exchanges with this host are read: Google's API hosts (`www.googleapis.com`,
 * `<api>.googleapis.com`) and this machine (loopback addresses, `localhost`, names under
 * `.localhost`), where a local proxy or emulator that was recorded listens.
 */
export function isRecordedHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return (
    host === 'googleapis.com' ||
    host.endsWith('.googleapis.com') ||
    host.endsWith('.localhost') ||
    isLoopback(host)
  );
}

const isJsonType = (type: string | undefined): boolean => {
  const media = (type ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return media === 'application/json' || media.endsWith('+json');
};

/** A body read as JSON, or undefined when it is none (empty, or not JSON). */
function jsonOf(text: string | undefined): { value: unknown } | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

const add = (counts: Record<string, number>, kind: string, n = 1): void => {
  if (n > 0) counts[kind] = (counts[kind] ?? 0) + n;
};

/**
 * The calls of a recorded batch paired with their answers (by Content-ID, else by place), or
 * undefined for a batch that was refused whole or cannot be read.
 */
function batchCalls(
  entry: HarEntry,
  text: string | undefined,
  answerType: string | undefined,
): { call: BatchCall; answer: CallAnswer }[] | undefined {
  if (entry.response.status !== 200 || text === undefined) return undefined;
  const sentType = entry.request.postData?.mimeType || harHeader(entry.request.headers, 'content-type');
  try {
    const calls = readBatch(
      { 'content-type': sentType },
      entry.request.postData?.text ?? '',
      Number.POSITIVE_INFINITY,
    );
    const answers = readBatchAnswer(answerType, text);
    const byId = new Map(
      answers.flatMap((answer) => (answer.contentId ? [[answer.contentId, answer] as const] : [])),
    );
    return calls.flatMap((call, index) => {
      const answer =
        (call.contentId !== undefined ? byId.get(`response-${call.contentId}`) : undefined) ?? answers[index];
      return answer ? [{ call, answer }] : [];
    });
  } catch {
    return undefined;
  }
}

/** Users of the parts merged by email (lower case), their fields put together. */
function mergeUsers(lists: readonly (readonly SeedUser[])[]): SeedUser[] {
  const byEmail = new Map<string, SeedUser>();
  for (const list of lists)
    for (const user of list) {
      const email = user.email.toLowerCase();
      byEmail.set(email, { ...byEmail.get(email), ...user, email });
    }
  return [...byEmail.values()];
}

/** An API of a recording: its module, its spec and the exchanges of it the recording holds. */
interface RecordedApi {
  module: AnyApiModule;
  spec: ApiSpec;
  exchanges: RecordedExchange[];
}

/** One call and its answer, alone or from a batch: `at` names it in messages. */
interface Call {
  at: string;
  method: string;
  url: URL;
  status: number;
  sentText: string | undefined;
  answerText: string | undefined;
  answerType: string | undefined;
}

/** What takes one call and hands it to its API, or counts it in `skipped` with the reason. */
function callSorter(apis: readonly RecordedApi[], skipped: Record<string, number>): (call: Call) => void {
  const routers = new Map(apis.map((api) => [api, createPathRouter(api.spec.operations)] as const));
  return ({ at, method, url, status, sentText, answerText, answerType }) => {
    const pathname = url.pathname;
    const api = apis.find((a) => pathname.startsWith(`${a.spec.basePath}/`));
    if (!api) return add(skipped, SKIPPED.path);
    const routed = routers.get(api)?.route(method, pathname.slice(api.spec.basePath.length));
    if (routed?.kind !== 'operation') return add(skipped, SKIPPED.operation);
    if (status >= 400) return add(skipped, SKIPPED.error);
    if (status < 200 || status >= 300) return add(skipped, SKIPPED.status);
    if (url.searchParams.has('fields')) return add(skipped, SKIPPED.partial);
    const answer = isJsonType(answerType) ? jsonOf(answerText) : undefined;
    if (isJsonType(answerType) && answerText !== undefined && answerText.trim() !== '' && !answer)
      return add(skipped, SKIPPED.json);
    const sent = jsonOf(sentText);
    api.exchanges.push({
      at,
      operationId: routed.operation.id,
      path: routed.pathParams,
      query: url.searchParams,
      status,
      ...(sent ? { requestBody: sent.value } : {}),
      ...(answer ? { body: answer.value } : {}),
    });
  };
}

/** Every call of the entries, a batch's one by one as if each had been sent alone. */
function sortEntries(
  entries: readonly HarEntry[],
  sort: (call: Call) => void,
  skipped: Record<string, number>,
): void {
  for (const [i, entry] of entries.entries()) {
    const at = `log.entries[${i}]`;
    const url = new URL(entry.request.url);
    if (!isRecordedHost(url.hostname)) {
      add(skipped, SKIPPED.host);
      continue;
    }
    const text = harContentBody(entry.response.content)?.toString('utf8');
    const answerType = entry.response.content.mimeType || harHeader(entry.response.headers, 'content-type');
    if (!batchPath(url.pathname)) {
      const sentText = entry.request.postData?.text;
      sort({
        at,
        method: entry.request.method,
        url,
        status: entry.response.status,
        sentText,
        answerText: text,
        answerType,
      });
      continue;
    }
    const calls = batchCalls(entry, text, answerType);
    if (!calls) {
      add(skipped, SKIPPED.batch);
      continue;
    }
    for (const { call, answer } of calls)
      sort({
        at: `${at} (call ${call.index})`,
        method: call.method,
        url: new URL(call.target, url),
        status: answer.status,
        sentText: call.body,
        answerText: answer.body,
        answerType: answer.headers['content-type'],
      });
  }
}

/** What each API's module makes of its exchanges: the parts of the seed, what it took and left out. */
function seedParts(apis: readonly RecordedApi[], skipped: Record<string, number>) {
  const keys: Seed = {};
  const taken: Record<string, number> = {};
  const users: SeedUser[][] = [];
  let read = 0;
  for (const api of apis) {
    if (api.exchanges.length === 0) continue;
    if (!api.module.seedFromRecording) {
      add(skipped, SKIPPED.module, api.exchanges.length);
      continue;
    }
    read += api.exchanges.length;
    const part = api.module.seedFromRecording(api.exchanges, {
      spec: api.spec,
      tools: createSchemaTools(api.spec),
    });
    const { users: partUsers, ...own } = part.seed;
    if (partUsers) users.push(partUsers);
    Object.assign(keys, own);
    for (const [kind, n] of Object.entries(part.taken)) add(taken, kind, n);
    for (const [kind, n] of Object.entries(part.skipped)) add(skipped, kind, n);
  }
  return { keys, taken, users, read };
}

/**
 * The seed a recording's entries make, with the report of what was taken and left out.
 * `source` names the recording in messages. A RecordingError when nothing of it can be
 * seeded.
 */
export function recordingSeed(
  entries: readonly HarEntry[],
  modules: readonly AnyApiModule[],
  source: string,
  specs: Partial<Record<ApiName, ApiSpec>> = {},
): RecordedSeed {
  const apis: RecordedApi[] = modules.map((module) => ({
    module,
    spec: specs[module.name] ?? loadApiSpec(module.name),
    exchanges: [],
  }));
  const skipped: Record<string, number> = {};
  sortEntries(entries, callSorter(apis, skipped), skipped);
  const { keys, taken, users, read } = seedParts(apis, skipped);
  // The users first, as a seed is written (and applied).
  const merged = mergeUsers(users);
  const seed: Seed = merged.length > 0 ? { users: merged, ...keys } : keys;
  const report: RecordingReport = { source, entries: entries.length, read, taken, skipped };
  if (Object.values(taken).every((n) => n === 0))
    throw new RecordingError(
      `${source}: nothing in it can be seeded (${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}; skipped: ${countsText(skipped)})`,
    );
  return { seed, report };
}

/** The seed a HAR file makes (see recordingSeed); HarError for a file that is no HAR. */
export function readRecordingFile(
  file: string,
  modules: readonly AnyApiModule[],
  specs: Partial<Record<ApiName, ApiSpec>> = {},
): RecordedSeed {
  return recordingSeed(readHarFile(file), modules, file, specs);
}

/** Counts as a line: `kind: n; kind: n`, or `nothing`. */
export function countsText(counts: Readonly<Record<string, number>>): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${kind}: ${n}`);
  return parts.length > 0 ? parts.join('; ') : 'nothing';
}

/** What a report says, in two lines: what the seed took, and what was left out. */
export function reportLines(report: RecordingReport): [taken: string, skipped: string] {
  return [
    `took ${countsText(report.taken)} (from ${report.read} of ${report.entries} exchanges)`,
    `skipped ${countsText(report.skipped)}`,
  ];
}
