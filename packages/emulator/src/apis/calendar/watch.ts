/**
 * The watch operations and channels.stop. A watch opens a channel (see notifier.ts) on the
 * collection the matching list operation reads: a calendar's events (events.watch, needs to
 * see the calendar) or sharing rules (acl.watch, needs owner access), the user's calendar list
 * or settings. The answer is Google's: the channel's id and token, the granted expiration, and
 * the watched collection's `resourceId` and `resourceUri`.
 */

import { ApiError, badRequest, notFound } from '../../core/errors.js';
import { isObject, type JsonObject } from '../../core/spec.js';
import type { Context, Handler } from './context.js';

/** The lifetime of a channel that asks for none, and the longest granted. */
export const DEFAULT_CHANNEL_TTL_MS = 7 * 24 * 3600 * 1000;
export const MAX_CHANNEL_TTL_MS = 30 * 24 * 3600 * 1000;

function expirationOf(body: JsonObject): number {
  const now = Date.now();
  let requested = now + DEFAULT_CHANNEL_TTL_MS;
  const ttl = isObject(body.params) ? body.params.ttl : undefined;
  if (typeof body.expiration === 'string') requested = Number(body.expiration);
  else if (typeof ttl === 'string') {
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

function addressOf(body: JsonObject): string {
  const address = String(body.address);
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw badRequest('invalid', `The channel's address is not a URL: ${address}`, 'address');
  }
  // Google takes only HTTPS; locally plain HTTP is taken too, for receivers on this machine.
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw badRequest('invalid', `The channel's address must be an http(s) URL, not ${address}`, 'address');
  return url.href;
}

function watch(context: Context, key: string, path: string): JsonObject {
  const body = context.request.body as JsonObject;
  const id = String(body.id);
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
  const channel = context.notifier.open({
    id,
    address: addressOf(body),
    ...(typeof body.token === 'string' ? { token: body.token } : {}),
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

const calendarPath = (context: Context) =>
  `/calendars/${encodeURIComponent(context.request.path.calendarId as string)}`;

export const watchHandlers: Record<string, Handler> = {
  'events.watch'(context) {
    const calendar = context.store.calendar(
      context.user,
      context.request.path.calendarId as string,
      'freeBusyReader',
    );
    return { body: watch(context, `events:${calendar.id}`, `${calendarPath(context)}/events`) };
  },

  'acl.watch'(context) {
    const calendar = context.store.calendar(context.user, context.request.path.calendarId as string, 'owner');
    return { body: watch(context, `acl:${calendar.id}`, `${calendarPath(context)}/acl`) };
  },

  'calendarList.watch'(context) {
    return { body: watch(context, `calendarList:${context.user.email}`, '/users/me/calendarList') };
  },

  'settings.watch'(context) {
    return { body: watch(context, `settings:${context.user.email}`, '/users/me/settings') };
  },

  'channels.stop'(context) {
    const body = context.request.body as JsonObject;
    if (!context.notifier.stop(String(body.id), String(body.resourceId), context.user.email))
      throw notFound(`Channel '${String(body.id)}' not found for project`);
    return {};
  },
};
