/**
 * Groups, as free/busy expands them. The emulator has no Google Groups (no Directory API): a
 * group is an email address that users are members of, and each member's calendar is the
 * user's primary calendar (its id is the user's email), as a Google Group's members are
 * people. A group is known by its members: Calendar's record of each user keeps the emails of
 * the groups it is a member of (`groups`, in the dumped state's `calendar.users` and in every
 * store's user rows), so a group lives exactly as long as it has members. They are written by
 * the seed file's `groups` (`{ email, members }`); no API operation changes them, as none of
 * Google's Calendar API does.
 *
 * `freebusy.query` answers a group under `groups` with its members' calendar ids, and each
 * member under `calendars` (decision 0056).
 */
import type { ApiSeedShape } from '../../core/api-module.js';
import { own } from '../../core/own.js';
import { SEED_EMAIL, SeedError } from '../../core/seed.js';
import { nextRevision } from '../../core/state.js';
import type { CalendarUser } from './records.js';
import type { CalendarSeed } from './seed.js';
import type { Store } from './store.js';

/** A group of the seed file: its email and its members' emails. */
export interface SeedGroup {
  email: string;
  members: string[];
}

const GROUPS_SEED_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    required: ['email', 'members'],
    additionalProperties: false,
    properties: {
      email: SEED_EMAIL,
      members: { type: 'array', minItems: 1, items: SEED_EMAIL },
    },
  },
};

/** What Calendar's record of a user keeps (state-schema.ts): the emails of the groups the user is a member of. */
export const GROUPS_USER_SCHEMA = { type: 'array', items: { type: 'string' } };

/** The groups a user is a member of. */
export function groupsOf(user: CalendarUser): string[] {
  return user.groups ?? [];
}

/**
 * The members' calendar ids of a group (its members' emails, in the order of the state's
 * users), or undefined when no user is a member: no such group.
 */
export function membersOf(store: Store, group: string): string[] | undefined {
  const id = group.toLowerCase();
  const members = Object.entries(store.state.calendar.users)
    .filter(([, user]) => groupsOf(user).includes(id))
    .map(([email]) => email);
  return members.length > 0 ? members : undefined;
}

/** The seed's groups as Calendar reads them. */
const seedGroups = (seed: CalendarSeed): SeedGroup[] => {
  const groups = seed.groups;
  return Array.isArray(groups) ? groups : [];
};

/** Checks what the schema cannot: a group given twice. */
function checkGroups(seed: CalendarSeed, fail: (message: string) => never): void {
  const seen = new Map<string, number>();
  seedGroups(seed).forEach((group, i) => {
    const email = group.email.toLowerCase();
    const first = seen.get(email);
    if (first !== undefined) fail(`groups[${i}].email: ${email} is already groups[${first}]`);
    seen.set(email, i);
  });
}

/** Makes each member (a user, created on first sight like any) a member of its groups. */
function applyGroups(store: Store, seed: CalendarSeed, at: (place: string) => void): void {
  seedGroups(seed).forEach((group, i) => {
    at(`groups[${i}]`);
    const email = group.email.toLowerCase();
    if (own(store.state.calendar.calendars, email) || own(store.state.users, email))
      throw new SeedError(`email: ${email} is a user or a calendar; a group's email names neither`);
    group.members.forEach((member, j) => {
      at(`groups[${i}].members[${j}]`);
      const user = store.user(member.toLowerCase());
      const groups = groupsOf(user);
      if (groups.includes(email)) return;
      user.groups = [...groups, email];
      // The user row is written again (its revision is the settings').
      user.settingsRevision = nextRevision(store.state);
    });
  });
}

/** Calendar's seed part with its `groups`, written after the calendars. */
export function withGroupsSeed(shape: ApiSeedShape<Store, CalendarSeed>): ApiSeedShape<Store, CalendarSeed> {
  return {
    ...shape,
    properties: { ...shape.properties, groups: GROUPS_SEED_SCHEMA },
    check(seed, fail) {
      shape.check?.(seed, fail);
      checkGroups(seed, fail);
    },
    apply(target, seed, at) {
      shape.apply(target, seed, at);
      applyGroups(target.store, seed, at);
    },
  };
}
