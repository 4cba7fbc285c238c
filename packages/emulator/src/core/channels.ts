/**
 * What a watch channel is (notifier.ts): the notifier's options, a channel as asked for and as
 * opened, the filter an API keeps with it, the states of a watched collection, and the stable
 * `resourceId` of a collection.
 */
import { createHash } from 'node:crypto';
import type { Resolver } from './delivery-policy.js';
import type { DeliveryReport } from './journal.js';

/** The channels one user may have open at once, unless `maxChannelsPerUser` says otherwise (ours: Google publishes none). */
export const DEFAULT_MAX_CHANNELS_PER_USER = 100;
/** The POSTs one change may cause over all channels, unless `maxAttemptsPerChange` says otherwise (ours). */
export const DEFAULT_MAX_ATTEMPTS_PER_CHANGE = 100;

export interface NotifierOptions {
  /** The waits before each new attempt of a failed delivery; its length is the number of retries. */
  retryDelaysMs?: number[];
  /** How long one attempt may take. */
  timeoutMs?: number;
  /**
   * The targets deliveries may go to (delivery-policy.ts): host names, IP addresses, CIDR ranges,
   * each optionally with `:port`, or `*` for any not always refused. Needed in a shared sandbox (a
   * shared store, or a listener beyond loopback), where nothing else is delivered to; when
   * given, it applies on loopback too.
   */
  allow?: readonly string[];
  /** The most channels one user may have open at once (DEFAULT_MAX_CHANNELS_PER_USER). */
  maxChannelsPerUser?: number;
  /**
   * The most POSTs one change may cause, first attempts and retries over all the channels it
   * concerns (DEFAULT_MAX_ATTEMPTS_PER_CHANGE); a channel past it is skipped, and the skip reported.
   */
  maxAttemptsPerChange?: number;
  /** Resolves host names at each delivery: the system's resolver unless given (tests give one). */
  resolve?: Resolver;
  log?: (line: string) => void;
  /** Told of every attempt to deliver, with the receiver's status or why there was none (the inspector's journal). */
  onDelivery?: (report: DeliveryReport) => void;
}

/**
 * What a channel lets through, as the API that opened it reads its watch's list parameters:
 * `kind` names the predicate that decides (`Notifier.filterWith`), `data` is that predicate's
 * own (JSON, kept and shared with the channel; the predicate may update it, such as what the
 * channel's list has shown so far).
 */
export interface ChannelFilter {
  kind: string;
  data: unknown;
}

/**
 * Whether the change its collection just went through is one the channel's filter lets
 * through; it runs right after the request that made the change, on the state that request
 * left, and may update `filter.data`.
 */
export type ChannelPredicate = (filter: ChannelFilter) => boolean;

export interface ChannelRequest {
  id: string;
  address: string;
  token?: string;
  /** Milliseconds since 1970. */
  expiration: number;
  /** The watched collection, such as `events:<calendarId>`. */
  key: string;
  resourceUri: string;
  owner: string;
  /** Only the changes this filter lets through are told (every change without one). */
  filter?: ChannelFilter;
}

export interface Channel extends ChannelRequest {
  resourceId: string;
  messages: number;
  stopped: boolean;
  queue: Promise<void>;
}

/** Whether a watched resource still exists after a change (`not_exists`: deleted). */
export type ChangeState = 'exists' | 'not_exists';

export type ResourceState = 'sync' | ChangeState;

const BASE32HEX = '0123456789abcdefghijklmnopqrstuv';

/** A stable id of a watched collection, as Google's `resourceId` is. */
export function resourceIdOf(key: string): string {
  return [...createHash('sha256').update(key).digest()]
    .slice(0, 20)
    .map((byte) => BASE32HEX[byte % 32])
    .join('');
}
