/**
 * acl.*: the sharing rules of a calendar. Every calendar has its owner's own rule
 * (`user:<owner>`, role owner), which cannot be changed or deleted. A rule's id is made from
 * its scope; inserting a rule for a scope that has one replaces its role, as the service does.
 * Managing rules needs owner access; the roles are enforced by Store.calendar.
 */

import { maxResults } from '../../core/context.js';
import { ApiError, badRequest, notFound } from '../../core/errors.js';
import { own } from '../../core/own.js';
import type { JsonObject } from '../../core/spec.js';
import { nextRevision } from '../../core/state.js';
import type { Context } from './context.js';
import type { AclRuleInput } from './generated/types.js';
import type { CalendarHandlers, OnCalendar } from './handler-types.js';
import type { AclRecord, CalendarRecord } from './records.js';
import { refuseWithSync } from './sync.js';
import { fingerprint, paginate, readSyncToken } from './tokens.js';

const RULE = '#/components/schemas/AclRule';

function calendarOf(context: OnCalendar): CalendarRecord {
  return context.store.calendar(context.user, context.request.path.calendarId, 'owner');
}

function ruleOf(context: Context<{ path: { ruleId: string } }>, calendar: CalendarRecord): AclRecord {
  const rule = own(context.store.state.acl[calendar.id], context.request.path.ruleId);
  if (!rule || rule.deleted) throw notFound();
  return rule;
}

const cannotChangeOwner = () =>
  new ApiError(403, [
    {
      domain: 'calendar',
      reason: 'cannotChangeOwnAcl',
      message: "Cannot change the calendar owner's own access level.",
    },
  ]);

type Scope = NonNullable<AclRuleInput['scope']>;

/** The scope of a body, checked and normalized (emails and domains in lower case); and its rule id. */
function readScope({ type, value }: Scope): { scope: JsonObject; id: string } {
  if (type === 'default') return { scope: { type }, id: 'default' };
  const raw = value?.trim().toLowerCase() ?? '';
  if (raw === '') throw badRequest('required', `A ${type} scope needs a value`, 'scope.value');
  if (type !== 'domain' && !/^[^\s@]+@[^\s@]+$/.test(raw))
    throw badRequest('invalid', `A ${type} scope's value is an email address, not ${raw}`, 'scope.value');
  return { scope: { type, value: raw }, id: `${type}:${raw}` };
}

function write(context: Context<unknown>, calendar: CalendarRecord, rule: AclRecord): JsonObject {
  const { store } = context;
  rule.revision = nextRevision(store.state);
  store.touch(`acl:${calendar.id}`);
  store.sharingChanged(calendar);
  return store.aclResource(rule);
}

function change(
  context: OnCalendar & Context<{ path: { ruleId: string }; body: AclRuleInput }>,
  fields: JsonObject,
): JsonObject {
  const calendar = calendarOf(context);
  const rule = ruleOf(context, calendar);
  const { scope } = context.request.body;
  if (scope !== undefined && readScope(scope).id !== rule.id)
    throw badRequest('invalid', `The scope of rule ${rule.id} cannot change`, 'scope');
  if (rule.id === `user:${calendar.owner}`) throw cannotChangeOwner();
  rule.resource = { ...rule.resource, ...(fields.role !== undefined ? { role: fields.role } : {}) };
  return write(context, calendar, rule);
}

export const aclHandlers: CalendarHandlers = {
  'acl.list'(context) {
    const { store, request, op } = context;
    const calendar = calendarOf(context);
    const { syncToken, pageToken } = request.query;
    const scope = `acl:${calendar.id}`;
    if (syncToken !== undefined) refuseWithSync(context);
    const since = syncToken !== undefined ? readSyncToken(store.state, syncToken, scope) : undefined;
    const rules = Object.values(store.state.acl[calendar.id] ?? {}).filter(
      (rule) => since !== undefined || !rule.deleted || request.query.showDeleted === true,
    );
    const page = paginate({
      state: store.state,
      scope,
      items: rules,
      revisionOf: (rule) => rule.revision,
      keyOf: (rule) => [rule.id],
      maxResults: maxResults(context),
      ...(pageToken !== undefined ? { pageToken } : {}),
      ...(since !== undefined ? { since } : {}),
      fingerprint: fingerprint(request.query, op.sync ? [op.sync.syncTokenParameter] : []),
    });
    return {
      body: {
        kind: 'calendar#acl',
        etag: `"${store.state.epoch}-${store.state.revision}"`,
        items: page.items.map((rule) => store.aclResource(rule)),
        ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
        ...(page.nextSyncToken ? { nextSyncToken: page.nextSyncToken } : {}),
      },
    };
  },

  'acl.get'(context) {
    return { body: context.store.aclResource(ruleOf(context, calendarOf(context))) };
  },

  'acl.insert'(context) {
    const { store } = context;
    const calendar = calendarOf(context);
    const fields = context.tools.writable(context.request.body, RULE);
    const { scope, id } = readScope(context.request.body.scope);
    if (id === `user:${calendar.owner}`) throw cannotChangeOwner();
    const rules = store.state.acl[calendar.id] ?? {};
    store.state.acl[calendar.id] = rules;
    // A rule for a scope that has one replaces it (a deleted one comes back).
    const rule: AclRecord = {
      id,
      revision: 0,
      deleted: false,
      resource: { role: fields.role ?? 'none', scope },
    };
    rules[id] = rule;
    return { body: write(context, calendar, rule) };
  },

  'acl.update'(context) {
    const fields = context.tools.writable(context.request.body, RULE);
    return { body: change(context, fields) };
  },

  'acl.patch'(context) {
    const fields = context.tools.writable(context.request.body, RULE);
    return { body: change(context, fields) };
  },

  'acl.delete'(context) {
    const calendar = calendarOf(context);
    const rule = ruleOf(context, calendar);
    if (rule.id === `user:${calendar.owner}`) throw cannotChangeOwner();
    rule.deleted = true;
    write(context, calendar, rule);
    return {};
  },
};
