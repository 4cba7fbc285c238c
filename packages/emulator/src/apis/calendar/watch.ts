/**
 * The watch operations and channels.stop. A watch opens a channel (see notifier.ts) on the
 * collection the matching list operation reads: a calendar's events (events.watch, needs to
 * see the calendar) or sharing rules (acl.watch, needs owner access), the user's calendar list
 * or settings. The answer is Google's: the channel's id and token, the granted expiration, and
 * the watched collection's `resourceId` and `resourceUri`.
 *
 * A channel is refused when the emulator's delivery policy (core/delivery-policy.ts) will not
 * deliver to its address: `400 push.webhookUrlUnauthorized`, the reason the live service gives
 * for an address it will not call (a domain not verified), with the address and our reason. And
 * when its user has the most channels the emulator lets one user open: `403 quotaExceeded`,
 * naming the cap and how to raise it.
 */

import { ApiError, badRequest, notFound } from '../../core/errors.js';
import type { JsonObject } from '../../core/spec.js';
import type { Context } from './context.js';
import type { ChannelInput } from './generated/types.js';
import type { CalendarHandlers, OnCalendar } from './handler-types.js';

/** The body of a watch: a channel with its id and address. */
type WatchBody = ChannelInput & { id: string; address: string };

/** The lifetime of a channel that asks for none, and the longest granted. */
export const DEFAULT_CHANNEL_TTL_MS = 7 * 24 * 3600 * 1000;
export const MAX_CHANNEL_TTL_MS = 30 * 24 * 3600 * 1000;

function expirationOf(body: ChannelInput): number {
  const now = Date.now();
  let requested = now + DEFAULT_CHANNEL_TTL_MS;
  const ttl = body.params?.ttl;
  if (body.expiration !== undefined) requested = Number(body.expiration);
  else if (ttl !== undefined) {
    if (!/^\d+$/.test(ttl))
      throw badRequest('invalid', `params.ttl must be a number of seconds, not ${ttl}`, 'params.ttl');
    requested = now + Number(ttl) * 1000;
  }
  if (requested <= now)
    throw badRequest(
      'invalid',
      'The channel would expire before it opens; ask for a later expiration',
      'expiration',
    );
  return Math.min(requested, now + MAX_CHANNEL_TTL_MS);
}

function addressOf(context: Context<{ body: WatchBody }>): string {
  const { address } = context.request.body;
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw badRequest('invalid', `The channel's address is not a URL: ${address}`, 'address');
  }
  // Google takes only HTTPS; locally plain HTTP is taken too, for receivers on this machine.
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw badRequest('invalid', `The channel's address must be an http(s) URL, not ${address}`, 'address');
  const refused = context.notifier.refusal(url.href);
  if (refused)
    throw new ApiError(400, [
      {
        domain: 'global',
        reason: 'push.webhookUrlUnauthorized',
        message: `Unauthorized WebHook callback channel: ${address}: ${refused}`,
        location: 'address',
        locationType: 'parameter',
      },
    ]);
  return url.href;
}

/** Refuses a channel its user has no room for (the emulator's cap; Google publishes none). */
function checkRoom(context: Context<{ body: WatchBody }>): void {
  const { notifier, user } = context;
  const cap = notifier.limits.channelsPerUser;
  const open = notifier.openOf(user.email);
  if (open < cap) return;
  throw new ApiError(403, [
    {
      domain: 'usageLimits',
      reason: 'quotaExceeded',
      message: `${user.email} has ${open} watch channels open, the most the emulator lets one user open (${cap}); stop one with channels.stop or let it expire, or raise the cap with --notify-max-channels N (createEmulator({ notifications: { maxChannelsPerUser } }))`,
    },
  ]);
}

function watch(context: Context<{ body: WatchBody }>, key: string, path: string): JsonObject {
  const { body } = context.request;
  const { id } = body;
  if (context.notifier.active(id))
    throw new ApiError(400, [
      {
        domain: 'push',
        reason: 'channelIdNotUnique',
        message: `Channel id ${id} not unique`,
        location: 'id',
        locationType: 'parameter',
      },
    ]);
  const address = addressOf(context);
  checkRoom(context);
  const channel = context.notifier.open({
    id,
    address,
    ...(body.token !== undefined ? { token: body.token } : {}),
    expiration: expirationOf(body),
    key,
    resourceUri: `${context.origin}${context.spec.basePath}${path}?alt=json`,
    owner: context.user.email,
  });
  return {
    kind: 'api#channel',
    id: channel.id,
    resourceId: channel.resourceId,
    resourceUri: channel.resourceUri,
    ...(channel.token !== undefined ? { token: channel.token } : {}),
    expiration: String(channel.expiration),
  };
}

const calendarPath = (context: OnCalendar) =>
  `/calendars/${encodeURIComponent(context.request.path.calendarId)}`;

export const watchHandlers: CalendarHandlers = {
  'events.watch'(context) {
    const calendar = context.store.calendar(context.user, context.request.path.calendarId, 'freeBusyReader');
    return { body: watch(context, `events:${calendar.id}`, `${calendarPath(context)}/events`) };
  },

  'acl.watch'(context) {
    const calendar = context.store.calendar(context.user, context.request.path.calendarId, 'owner');
    return { body: watch(context, `acl:${calendar.id}`, `${calendarPath(context)}/acl`) };
  },

  'calendarList.watch'(context) {
    return { body: watch(context, `calendarList:${context.user.email}`, '/users/me/calendarList') };
  },

  'settings.watch'(context) {
    return { body: watch(context, `settings:${context.user.email}`, '/users/me/settings') };
  },

  'channels.stop'(context) {
    const { id, resourceId } = context.request.body;
    if (!context.notifier.stop(id, resourceId, context.user.email))
      throw notFound(`Channel '${id}' not found for project`);
    return {};
  },
};
