/**
 * acl.*: the sharing rules of a calendar. Every calendar has its owner's own rule
 * (`user:<owner>`, role owner), which cannot be changed or deleted. A rule's id is made from
 * its scope; inserting a rule for a scope that has one replaces its role, as the service does.
 * update and patch change the role of the rule the path names: its scope is its identity, and
 * a scope in their body is not read (decision 0056). Managing rules needs owner access; the
 * roles are enforced by Store.calendar.
 */

import { maxResults } from '../../core/context.js';
import { refusal, refuse } from '../../core/errors.js';
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
const RULE_OPERATIONS = ['acl.get', 'acl.update', 'acl.patch', 'acl.delete'];
const RULE_WRITES = ['acl.insert', 'acl.update', 'acl.patch', 'acl.delete'];

/** A rule id that names no rule of the calendar. */
export const RULE_NOT_FOUND = refusal({
  id: 'calendar.aclRuleNotFound',
  scope: 'calendar',
  operations: RULE_OPERATIONS,
  status: 404,
  reason: 'notFound',
  when: 'the rule id names no rule of the calendar, or a deleted one',
  evidence: ['fact:conventions:errors/reasons/notFound', 'decision:0056'],
});

/** The calendar owner's own rule, written by the owner. */
export const CANNOT_CHANGE_OWN_ACL = refusal({
  id: 'calendar.cannotChangeOwnAcl',
  scope: 'calendar',
  operations: RULE_WRITES,
  status: 403,
  reason: 'cannotChangeOwnAcl',
  domain: 'calendar',
  when: 'the calendar’s owner inserts, changes or deletes the rule of their own access (`user:<owner>`)',
  evidence: ['decision:0056'],
});

/** The calendar owner's rule, written by another user with owner access. */
export const CANNOT_CHANGE_OWNER_ACL = refusal({
  id: 'calendar.cannotChangeOwnerAcl',
  scope: 'calendar',
  operations: RULE_WRITES,
  status: 403,
  reason: 'cannotChangeOwnerAcl',
  domain: 'calendar',
  when: 'a user with owner access through a rule inserts, changes or deletes the rule of the calendar’s owner',
  evidence: ['decision:0056'],
});

/** A user, group or domain scope without its value. */
export const SCOPE_VALUE_MISSING = refusal({
  id: 'calendar.aclScopeValueMissing',
  scope: 'calendar',
  operations: ['acl.insert'],
  status: 400,
  reason: 'required',
  location: 'scope.value',
  when: 'a scope of type `user`, `group` or `domain` has no `value` (only `default` goes without one)',
  evidence: ['fact:conventions:errors/reasons/required', 'decision:0056'],
});

/** A user or group scope whose value is no email address. */
export const SCOPE_VALUE_NOT_EMAIL = refusal({
  id: 'calendar.aclScopeValueNotEmail',
  scope: 'calendar',
  operations: ['acl.insert'],
  status: 400,
  reason: 'invalidScopeValue',
  location: 'scope.value',
  when: 'a scope of type `user` or `group` has a `value` that is not an email address',
  evidence: ['decision:0056'],
});

function calendarOf(context: OnCalendar): CalendarRecord {
  return context.store.calendar(context.user, context.request.path.calendarId, 'owner');
}

function ruleOf(context: Context<{ path: { ruleId: string } }>, calendar: CalendarRecord): AclRecord {
  const { ruleId } = context.request.path;
  const rule = own(context.store.state.calendar.acl[calendar.id], ruleId);
  if (!rule || rule.deleted) throw refuse(RULE_NOT_FOUND, `No rule ${ruleId} on this calendar`);
  return rule;
}

/** Refuses a write of the owner's own rule: the owner keeps owner access to their calendar. */
function keepOwner(context: Context<unknown>, calendar: CalendarRecord, ruleId: string): void {
  if (ruleId !== `user:${calendar.owner}`) return;
  if (context.user.email === calendar.owner)
    throw refuse(CANNOT_CHANGE_OWN_ACL, 'Cannot change your own access level.');
  throw refuse(
    CANNOT_CHANGE_OWNER_ACL,
    `Cannot change the access level of the calendar's owner, ${calendar.owner}.`,
  );
}

type Scope = NonNullable<AclRuleInput['scope']>;

/** The scope of a body, checked and normalized (emails and domains in lower case); and its rule id. */
function readScope({ type, value }: Scope): { scope: JsonObject; id: string } {
  if (type === 'default') return { scope: { type }, id: 'default' };
  const raw = value?.trim().toLowerCase() ?? '';
  if (raw === '')
    throw refuse(SCOPE_VALUE_MISSING, `A ${type} scope needs a value`, { location: 'scope.value' });
  if (type !== 'domain' && !/^[^\s@]+@[^\s@]+$/.test(raw))
    throw refuse(
      SCOPE_VALUE_NOT_EMAIL,
      `Invalid scope value: a ${type} scope's value is an email address, not ${raw}`,
      {
        location: 'scope.value',
      },
    );
  return { scope: { type, value: raw }, id: `${type}:${raw}` };
}

function write(context: Context<unknown>, calendar: CalendarRecord, rule: AclRecord): JsonObject {
  const { store } = context;
  rule.revision = nextRevision(store.state);
  store.touch(`acl:${calendar.id}`);
  store.sharingChanged(calendar);
  return store.aclResource(rule);
}

function change(context: OnCalendar & Context<{ path: { ruleId: string } }>, fields: JsonObject): JsonObject {
  const calendar = calendarOf(context);
  const rule = ruleOf(context, calendar);
  keepOwner(context, calendar, rule.id);
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
    const rules = Object.values(store.state.calendar.acl[calendar.id] ?? {}).filter(
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
    keepOwner(context, calendar, id);
    const rules = store.state.calendar.acl[calendar.id] ?? {};
    store.state.calendar.acl[calendar.id] = rules;
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
    keepOwner(context, calendar, rule.id);
    rule.deleted = true;
    write(context, calendar, rule);
    return {};
  },
};
