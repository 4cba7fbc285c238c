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
 *
 * A channel may carry a filter (`ChannelFilter`): the API's reading of the list parameters its
 * watch was sent with, as data kept with the channel. The notifier knows no API: it asks the
 * predicate the API gave for the filter's kind (`filterWith`) whether a change of the
 * collection is one to tell, right after the request that made it (on the state it left), and
 * sends only then. A change that ends the collection (`not_exists`) is always told.
 *
 * Where a delivery may go is the delivery policy's call (delivery-policy.ts): checked when the
 * channel opens, and again at each attempt on the addresses its host resolves to then; the
 * connection goes to a checked address, never to one looked up again behind the check's back.
 * Two caps bound what one caller can make the emulator send: the channels a user may have open
 * at once, and the POSTs (first attempts and retries, over all channels) one change may cause.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { setMaxListeners } from 'node:events';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  type ChangeState,
  type Channel,
  type ChannelPredicate,
  type ChannelRequest,
  DEFAULT_MAX_ATTEMPTS_PER_CHANGE,
  DEFAULT_MAX_CHANNELS_PER_USER,
  type NotifierOptions,
  type ResourceState,
  resourceIdOf,
} from './channels.js';
import {
  type CheckedTarget,
  DeliveryPolicy,
  DeliveryPolicyError,
  type PolicyPlace,
  type ResolvedAddress,
} from './delivery-policy.js';

// What a channel is lives in channels.ts; this module's importers read it from here too.
export * from './channels.js';

const RETRY_STATUSES = new Set([500, 502, 503, 504]);

/** What one change may still spend: the POSTs left to it over all its channels. */
interface Budget {
  left: number;
}

export class Notifier {
  readonly channels = new Map<string, Channel>();
  private readonly pending = new Set<Promise<void>>();
  private abort = abortController();
  private readonly retryDelays: number[];
  /** While a shared store's transaction runs: deliveries numbered, not started (see hold). */
  private held: (() => void)[] | undefined;
  private readonly timeout: number;
  /** Where deliveries may go (delivery-policy.ts). */
  readonly policy: DeliveryPolicy;
  /** The caps: channels open per user, POSTs per change. */
  readonly limits: { channelsPerUser: number; attemptsPerChange: number };
  /** The predicate of each kind of channel filter, as the APIs gave them (filterWith). */
  private readonly predicates = new Map<string, ChannelPredicate>();

  /**
   * `place` says where the emulator runs (a shared store, the address it listens on): in a
   * shared sandbox only the allow list's targets are delivered to. Throws DeliveryPolicyError
   * for an option that cannot work, naming it.
   */
  constructor(
    private readonly options: NotifierOptions = {},
    place: PolicyPlace = {},
  ) {
    this.retryDelays = options.retryDelaysMs ?? [500, 1000, 2000];
    this.timeout = options.timeoutMs ?? 5000;
    this.policy = new DeliveryPolicy(options.allow, place, options.resolve);
    this.limits = {
      channelsPerUser: positive(
        'notifications.maxChannelsPerUser',
        options.maxChannelsPerUser ?? DEFAULT_MAX_CHANNELS_PER_USER,
      ),
      attemptsPerChange: positive(
        'notifications.maxAttemptsPerChange',
        options.maxAttemptsPerChange ?? DEFAULT_MAX_ATTEMPTS_PER_CHANGE,
      ),
    };
  }

  /** Why no channel may deliver to the URL `address`, or undefined when one may (checked at watch). */
  refusal(address: string): string | undefined {
    return this.policy.refusal(address);
  }

  /** How many channels the user `owner` has open (expired ones not counted). */
  openOf(owner: string): number {
    let open = 0;
    for (const channel of [...this.channels.values()])
      if (channel.owner === owner && this.active(channel.id)) open += 1;
    return open;
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

  /**
   * Gives the predicate that decides for the channels whose filter is of `kind`. An API gives
   * it before it opens such a channel, and in every process that may tell one (a shared store
   * restores channels opened elsewhere); a channel whose kind has no predicate here is told
   * every change.
   */
  filterWith(kind: string, predicate: ChannelPredicate): void {
    this.predicates.set(kind, predicate);
  }

  /** Whether the kind of filter has its predicate here. */
  filters(kind: string): boolean {
    return this.predicates.has(kind);
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
    this.message(channel, 'sync', { left: this.limits.attemptsPerChange });
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
    else {
      // The filters decide now, on the state the request left; only the sending waits.
      const told = this.told(changes);
      if (told.length > 0) setImmediate(() => this.send(told, changes));
    }
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

  /** Tells every open channel on a changed collection whose filter lets the change through. */
  dispatch(changes: ReadonlyMap<string, ChangeState>): void {
    if (changes.size === 0) return;
    this.send(this.told(changes), changes);
  }

  /** The open channels on a changed collection that are to be told, their filters asked. */
  private told(changes: ReadonlyMap<string, ChangeState>): Channel[] {
    const out: Channel[] = [];
    if (changes.size === 0) return out;
    for (const channel of [...this.channels.values()]) {
      const change = changes.get(channel.key);
      if (!change || !this.active(channel.id)) continue;
      if (change === 'exists' && channel.filter) {
        const predicate = this.predicates.get(channel.filter.kind);
        if (predicate && !predicate(channel.filter)) continue;
      }
      out.push(channel);
    }
    return out;
  }

  /** Sends each channel its message about the change; a collection gone closes its channels. */
  private send(channels: readonly Channel[], changes: ReadonlyMap<string, ChangeState>): void {
    // The changes of one request are one change: their messages share one budget of POSTs.
    const budget: Budget = { left: this.limits.attemptsPerChange };
    for (const channel of channels) {
      const change = changes.get(channel.key);
      if (!change || channel.stopped) continue;
      this.message(channel, change, budget);
      // Nothing is left to watch: the channel closes after telling so.
      if (change === 'not_exists' && this.channels.get(channel.id) === channel)
        this.channels.delete(channel.id);
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
    this.abort = abortController();
  }

  private message(channel: Channel, state: ResourceState, budget: Budget): void {
    channel.messages += 1;
    const number = channel.messages;
    const start = () => {
      const signal = this.abort.signal;
      const delivery = channel.queue.then(() => this.deliver(channel, state, number, signal, budget));
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
    budget: Budget,
  ): Promise<void> {
    const headers = this.headers(channel, state, number);
    const told = (what: string) =>
      this.options.log?.(`notification ${number} of channel ${channel.id} ${what}`);
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
      const timeout = AbortSignal.timeout(this.timeout);
      try {
        // Checked at each attempt: the name may resolve elsewhere than at the last one.
        const target: CheckedTarget = await this.policy.check(channel.address);
        if (signal.aborted || channel.stopped) return;
        if ('refused' in target) {
          const refused = `not sent: refused by the delivery policy: ${target.refused}`;
          report({ error: refused });
          told(refused);
          return;
        }
        if (budget.left <= 0) {
          const skipped = `not sent: the change that caused it has made its ${this.limits.attemptsPerChange} delivery attempts (notifications.maxAttemptsPerChange, --notify-max-attempts)`;
          report({ error: skipped });
          told(skipped);
          return;
        }
        budget.left -= 1;
        const status = await post(
          channel.address,
          headers,
          target.addresses,
          AbortSignal.any([signal, timeout]),
        );
        report({ status });
        if (!RETRY_STATUSES.has(status)) return;
        why = `status ${status}`;
      } catch (error) {
        if (signal.aborted) return;
        why = timeout.aborted ? `no answer within ${this.timeout} ms` : (error as Error).message;
        const cause = (error as { code?: string }).code;
        report({ error: cause && !why.includes(cause) ? `${why} (${cause})` : why });
      }
      const delay = this.retryDelays[attempt];
      if (delay === undefined) {
        told(`dropped after ${attempt + 1} attempts: ${why}`);
        return;
      }
      await new Promise<void>((resolve) => {
        const stop = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          signal.removeEventListener('abort', stop);
          resolve();
        }, delay);
        timer.unref();
        signal.addEventListener('abort', stop, { once: true });
      });
    }
  }
}

/**
 * The controller whose signal every delivery under way listens to (reset aborts them all): one
 * listener per delivery, so as many as there are deliveries, not the 10 Node warns past.
 */
function abortController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/** A cap given in the options: a whole number of at least 1. */
function positive(option: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new DeliveryPolicyError(`${option}: ${JSON.stringify(value)} is not a whole number of at least 1`);
  return value;
}

/**
 * POSTs a notification to `address` and resolves with the receiver's status. The connection goes
 * to one of `addresses` (checked by the policy), through a lookup that answers with them only:
 * the host name is still the one of the URL (Host header, TLS name and certificate check), but it
 * is not resolved again. No redirect is followed, and no connection is kept for another delivery.
 */
function post(
  address: string,
  headers: Record<string, string>,
  addresses: readonly ResolvedAddress[],
  signal: AbortSignal,
): Promise<number> {
  const url = new URL(address);
  const lookup = (
    _host: string,
    options: LookupOptions,
    callback: (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void,
  ) => {
    const family = options.family === 4 || options.family === 6 ? options.family : undefined;
    const usable = addresses.filter((one) => family === undefined || one.family === family);
    const first = usable[0];
    if (!first) {
      const error: NodeJS.ErrnoException = new Error(`no IPv${family} address among the checked ones`);
      error.code = 'ENOTFOUND';
      callback(error, '');
    } else if (options.all)
      callback(
        null,
        usable.map((one) => ({ address: one.address, family: one.family })),
      );
    else callback(null, first.address, first.family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<number>((resolve, reject) => {
    const request = send(url, { method: 'POST', headers, lookup, signal, agent: false }, (response) => {
      response.on('error', () => {});
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });
}
