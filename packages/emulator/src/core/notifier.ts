/**
 * Watch channels and push notifications. A watch opens a channel on a watched collection (the
 * events or sharing rules of a calendar, a user's calendar list or settings); the emulator
 * then POSTs to the channel's address, and only there: first `sync`, then `exists` after each
 * request that changed the collection, or `not_exists` when it is gone (the channel closes
 * then). The messages carry no body; everything is in Google's `X-Goog-*` headers.
 *
 * Delivery never blocks nor fails the API request that caused it: messages go out after the
 * answer, one channel's in order, and a failed delivery (unreachable address, timeout, 500,
 * 502, 503, 504) is tried again a bounded number of times with growing delays; any other
 * status drops the message, as Google does. An expired or stopped channel sends nothing more.
 */
import { createHash } from 'node:crypto';
import type { DeliveryReport } from './journal.js';

export interface NotifierOptions {
  /** The waits before each new attempt of a failed delivery; its length is the number of retries. */
  retryDelaysMs?: number[];
  /** How long one attempt may take. */
  timeoutMs?: number;
  log?: (line: string) => void;
  /** Told of every attempt to deliver, with the receiver's status or why there was none (the inspector's journal). */
  onDelivery?: (report: DeliveryReport) => void;
}

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

const RETRY_STATUSES = new Set([500, 502, 503, 504]);
const BASE32HEX = '0123456789abcdefghijklmnopqrstuv';

/** A stable id of a watched collection, as Google's `resourceId` is. */
export function resourceIdOf(key: string): string {
  return [...createHash('sha256').update(key).digest()]
    .slice(0, 20)
    .map((byte) => BASE32HEX[byte % 32])
    .join('');
}

export class Notifier {
  readonly channels = new Map<string, Channel>();
  private readonly pending = new Set<Promise<void>>();
  private abort = new AbortController();
  private readonly retryDelays: number[];
  /** While a shared store's transaction runs: deliveries numbered, not started (see hold). */
  private held: (() => void)[] | undefined;
  private readonly timeout: number;

  constructor(private readonly options: NotifierOptions = {}) {
    this.retryDelays = options.retryDelaysMs ?? [500, 1000, 2000];
    this.timeout = options.timeoutMs ?? 5000;
  }

  /** An open channel with this id, if any (expired ones are closed on the way). */
  active(id: string): Channel | undefined {
    const channel = this.channels.get(id);
    if (channel && Date.now() >= channel.expiration) {
      this.channels.delete(id);
      return undefined;
    }
    return channel;
  }

  /** Opens a channel and sends its `sync` message. */
  open(request: ChannelRequest): Channel {
    const channel: Channel = {
      ...request,
      resourceId: resourceIdOf(request.key),
      messages: 0,
      stopped: false,
      queue: Promise.resolve(),
    };
    this.channels.set(channel.id, channel);
    this.send(channel, 'sync');
    return channel;
  }

  /** channels.stop: true when the user's channel with this id and resourceId was open. */
  stop(id: string, resourceId: string, owner: string): boolean {
    const channel = this.active(id);
    if (!channel || channel.resourceId !== resourceId || channel.owner !== owner) return false;
    // Stopped: what is still queued or being retried is not sent either.
    channel.stopped = true;
    this.channels.delete(id);
    return true;
  }

  /** Whether a channel watches the resource `key`. */
  watches(key: string): boolean {
    if (this.channels.size === 0) return false;
    for (const channel of this.channels.values()) if (channel.key === key) return true;
    return false;
  }

  /**
   * Tells the channels of the changes a request made, after its answer: at once while held
   * (their numbers are part of the transaction; the deliveries wait for its commit), else on
   * the next turn.
   */
  dispatchLater(changes: ReadonlyMap<string, ChangeState>): void {
    if (this.held) this.dispatch(changes);
    else setImmediate(() => this.dispatch(changes));
  }

  /**
   * A shared store's transaction begins: messages are numbered as they are sent, and delivered
   * only once `release(true)` says the transaction that made them committed.
   */
  hold(): void {
    this.held ??= [];
  }

  /** Delivers the held messages (the transaction committed) or drops them (it did not). */
  release(deliver: boolean): void {
    const held = this.held ?? [];
    this.held = undefined;
    if (deliver) for (const start of held) start();
  }

  /** The open channels as JSON text (a shared store keeps them in its database). */
  save(): string {
    return JSON.stringify(
      [...this.channels.values()].map(({ queue: _queue, stopped: _stopped, ...channel }) => channel),
    );
  }

  /**
   * Makes the open channels those saved (`save`), by another process perhaps: a channel kept
   * keeps its deliveries under way, one gone (stopped elsewhere) sends nothing more.
   */
  restore(text: string): void {
    const saved = JSON.parse(text) as Omit<Channel, 'queue' | 'stopped'>[];
    const ids = new Set(saved.map((channel) => channel.id));
    for (const [id, channel] of this.channels)
      if (!ids.has(id)) {
        channel.stopped = true;
        this.channels.delete(id);
      }
    for (const channel of saved) {
      const kept = this.channels.get(channel.id);
      if (kept) Object.assign(kept, channel);
      else this.channels.set(channel.id, { ...channel, stopped: false, queue: Promise.resolve() });
    }
  }

  /** Tells every open channel on a changed collection. */
  dispatch(changes: ReadonlyMap<string, ChangeState>): void {
    if (changes.size === 0) return;
    for (const channel of [...this.channels.values()]) {
      const change = changes.get(channel.key);
      if (!change || !this.active(channel.id)) continue;
      this.send(channel, change);
      // Nothing is left to watch: the channel closes after telling so.
      if (change === 'not_exists') this.channels.delete(channel.id);
    }
  }

  /** Resolves when every queued message has been delivered or given up. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Closes every channel and abandons the deliveries under way (reset, load, shutdown). */
  reset(): void {
    for (const channel of this.channels.values()) channel.stopped = true;
    this.channels.clear();
    this.abort.abort();
    this.abort = new AbortController();
  }

  private send(channel: Channel, state: ResourceState): void {
    channel.messages += 1;
    const number = channel.messages;
    const start = () => {
      const signal = this.abort.signal;
      const delivery = channel.queue.then(() => this.deliver(channel, state, number, signal));
      channel.queue = delivery;
      this.pending.add(delivery);
      void delivery.finally(() => this.pending.delete(delivery));
    };
    if (this.held) this.held.push(start);
    else start();
  }

  private headers(channel: Channel, state: ResourceState, number: number): Record<string, string> {
    return {
      'X-Goog-Channel-ID': channel.id,
      ...(channel.token !== undefined ? { 'X-Goog-Channel-Token': channel.token } : {}),
      'X-Goog-Channel-Expiration': new Date(channel.expiration).toUTCString(),
      'X-Goog-Resource-ID': channel.resourceId,
      'X-Goog-Resource-URI': channel.resourceUri,
      'X-Goog-Resource-State': state,
      'X-Goog-Message-Number': String(number),
      'Content-Length': '0',
    };
  }

  private async deliver(
    channel: Channel,
    state: ResourceState,
    number: number,
    signal: AbortSignal,
  ): Promise<void> {
    const headers = this.headers(channel, state, number);
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted || channel.stopped || Date.now() >= channel.expiration) return;
      let why: string;
      const started = performance.now();
      const report = (outcome: { status: number } | { error: string }) =>
        this.options.onDelivery?.({
          channelId: channel.id,
          address: channel.address,
          resourceUri: channel.resourceUri,
          resourceId: channel.resourceId,
          state,
          number,
          attempt: attempt + 1,
          headers,
          ...outcome,
          durationMs: Math.round((performance.now() - started) * 100) / 100,
        });
      try {
        const response = await fetch(channel.address, {
          method: 'POST',
          headers,
          redirect: 'manual',
          signal: AbortSignal.any([signal, AbortSignal.timeout(this.timeout)]),
        });
        await response.body?.cancel();
        report({ status: response.status });
        if (!RETRY_STATUSES.has(response.status)) return;
        why = `status ${response.status}`;
      } catch (error) {
        if (signal.aborted) return;
        why = (error as Error).message;
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        report({ error: cause ? `${why} (${cause})` : why });
      }
      const delay = this.retryDelays[attempt];
      if (delay === undefined) {
        this.options.log?.(
          `notification ${number} of channel ${channel.id} dropped after ${attempt + 1} attempts: ${why}`,
        );
        return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        timer.unref();
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}
