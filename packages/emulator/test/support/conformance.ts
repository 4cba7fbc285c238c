/**
 * The conformance checks Schemathesis runs, over requests generated from the specs
 * (support/fuzz-requests.ts), with a report by check and by operation. Nothing here names an
 * operation: which checks apply to a case, and what they expect, is read from the spec.
 *
 * A case is one generated request and its answer (or, for the two stateful checks, one
 * create → read → delete → read-again sequence). Each check applies to a case or is skipped
 * with a reason; a check is turned off for an operation only through `exclusions`, each with
 * its written reason.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAjv } from '../../src/core/schemas.ts';
import type { Exchange } from '../../src/core/server.ts';
import type { Service } from '../../src/core/services.ts';
import { follow, isObject, type Json, type JsonObject, type OperationSpec } from '../../src/core/spec.ts';
import { parseTarget } from '../../src/core/target.ts';
import { type Answer, type Draft, expectedRefusal, type Mutation, send, type Wire } from './fuzz-requests.ts';
import type { ResponseCheck } from './spec-check.ts';

export const CHECKS = [
  { id: 'not_a_server_error', title: 'no 5xx answer' },
  { id: 'status_code_conformance', title: 'status documented for the operation' },
  { id: 'content_type_conformance', title: 'content type documented for the status' },
  { id: 'response_schema_conformance', title: 'headers and body valid against the schema' },
  { id: 'negative_data_rejection', title: 'invalid data rejected with 4xx' },
  { id: 'positive_data_acceptance', title: 'valid data accepted' },
  { id: 'missing_required_header', title: 'a missing required header rejected' },
  { id: 'unsupported_method', title: 'undocumented method: 405 with Allow' },
  { id: 'ignored_auth', title: 'no or wrong credential: 401' },
  { id: 'use_after_free', title: 'use after delete: gone' },
  { id: 'ensure_resource_availability', title: 'a created resource is readable' },
] as const;

export type CheckId = (typeof CHECKS)[number]['id'];

/** Statuses of the HTTP layer, before any operation reads the request (spec-check.ts HTTP_LEVEL). */
const HTTP_LEVEL = [413, 415];

/**
 * Refusals a valid request may get because of the state it meets, not because of its data:
 * with the reasons Google gives for them. Anything else refused is a failure of
 * positive_data_acceptance.
 */
export const STATE_REFUSALS: Record<number, { reasons: string[]; why: string }> = {
  // Search Ads 360 refuses a batch row for the conversions it stores: 400 (ConversionBatchRejected).
  400: {
    reasons: ['duplicate', 'notFound'],
    why: 'a conversion already stored (insert) or not stored (update): conversion.insert and conversion.update "Identity"',
  },
  403: {
    reasons: ['forbidden', 'forbiddenForNonOrganizer', 'requiredAccessLevel', 'insufficientPermissions'],
    why: 'the user lacks access to the resource the ids name (another user, a reader)',
  },
  404: {
    reasons: ['notFound'],
    why: 'an id (drawn from the schema, or deleted meanwhile) that does not exist',
  },
  409: { reasons: ['duplicate'], why: 'an id in the body that is already taken' },
  410: {
    reasons: ['deleted', 'fullSyncRequired', 'updatedMinTooLongAgo'],
    why: 'a resource already deleted, or a token no longer valid',
  },
  412: { reasons: ['conditionNotMet'], why: 'If-Match names an etag that is not the current one' },
};

/**
 * Rules a request valid against the schemas may still break, which the spec documents in prose
 * (a schema cannot say them): a 400 for one of them is not a failure of positive_data_acceptance.
 * Each names where the spec says it. `match` is tried on `status reason message`.
 */
export const DOCUMENTED_RULES: { operations: RegExp; match: RegExp; documented: string }[] = [
  {
    operations: /^freebusy\.query$/,
    match: /^400 timeRangeEmpty /,
    documented: 'freebusy.query: "timeRangeEmpty when timeMax is not after timeMin"',
  },
  {
    operations: /^freebusy\.query$/,
    match: /^400 timeRangeTooLong /,
    documented: 'decision 0056: the live service refuses a range of more than 90 days (timeRangeTooLong)',
  },
  {
    operations: /^calendars\.delete$/,
    match: /^400 (cannotDeletePrimaryCalendar|invalid Invalid value for parameter calendarId: "primary")/,
    documented: 'calendars.delete: "A primary calendar cannot be deleted"',
  },
  {
    operations: /^calendars\.clear$/,
    match: /^400 invalid Cannot clear primary calendar\. \(calendars\.clear empties only a primary/,
    documented:
      'calendars.clear: "Deletes every event of a primary calendar ... Secondary calendars are removed whole with calendars.delete"',
  },
  {
    operations: /^acl\.insert$/,
    match: /^400 (required A (user|group|domain) scope needs a value|invalidScopeValue Invalid scope value)/,
    documented: 'AclRule.scope.value: "Left out when type is default" (and given otherwise)',
  },
  {
    operations: /^events\./,
    match:
      /^400 (invalid (start|end|originalStartTime) needs exactly one of date and dateTime|required Missing (start|end) time\.)/,
    documented:
      'EventDateTime: "An all-day event uses date only; a timed event uses dateTime. Never set both."',
  },
  {
    operations: /^events\./,
    match: /^400 invalid Invalid value for field [\w.]*dateTime: needs a UTC offset/,
    documented: 'EventDateTime: "dateTime carries a UTC offset ... unless timeZone names the zone"',
  },
  {
    operations: /^acl\.(insert|delete|update|patch)$/,
    match: /^403 cannotChangeOwn(er)?Acl /,
    documented:
      'acl.update, acl.patch, acl.delete: "The rule that gives the calendar\'s owner their own access cannot be changed: 403 cannotChangeOwnAcl"',
  },
  {
    operations: /^events\.(insert|import|update|patch)$/,
    match:
      /^400 (invalid start and end must both be dates or both be date-times|invalid Start and end times must either both be date or both be dateTime\.|timeRangeEmpty )/,
    documented:
      'Event.end: "Of the same kind as start (both date or both dateTime), and not before it: an end before the start is refused with 400 timeRangeEmpty"',
  },
  {
    operations: /^events\.(update|patch)$/,
    match: /^400 invalid The eventType of an event cannot change/,
    documented:
      'Event.eventType: "Set when the event is created: a later write with another eventType is refused with 400 invalid"',
  },
  {
    operations: /^events\.instances$/,
    match: /^400 invalid .* is not a recurring event/,
    documented: 'events.instances: "eventId must be a recurring event\'s id"',
  },
  {
    operations: /\.watch$/,
    match:
      /^400 (push\.webhookUrlNoHostOrAddress The channel's address is not a URL|push\.webhookUrlNotHttps WebHook callback must be HTTPS)/,
    documented: 'Channel.address: "The HTTPS URL that receives the notifications"',
  },
  {
    operations: /^events\.(list|watch)$/,
    match: /^400 invalid expected name=value/,
    documented: 'privateExtendedProperty / sharedExtendedProperty: "propertyName=value"',
  },
  {
    operations: /^conversion\.(get|getByCustomerId)$/,
    match:
      /^400 invalid Invalid value for parameter (startDate|endDate): .* is not a day written as yyyymmdd/,
    documented:
      'startDate / endDate: "written as the integer yyyymmdd"; a date that names no day is invalid (a startDate after endDate is an empty window, decision 0057)',
  },
  {
    operations: /^calendarList\.delete$/,
    match: /^400 cannotChangeOwnPrimarySubscription The primary calendar cannot be removed/,
    documented:
      'calendarList.delete calendarId: "not their own primary calendar, which stays on its owner\'s list"',
  },
  {
    operations: /\.(list|watch|instances)$/,
    match: /^400 invalid Invalid value for parameter pageToken: not a page token of this list/,
    documented:
      'pageToken: "The nextPageToken of the previous page. Send the other parameters unchanged while paging."',
  },
  {
    operations: /\.watch$/,
    match: /^400 channelIdNotUnique /,
    documented: 'Channel.id: "unique among its channels"',
  },
  {
    operations: /^(events\.|freebusy\.query$|calendars\.)/,
    match: /^400 invalid Invalid time zone: /,
    documented: 'timeZone: "An IANA time zone name, such as Europe/Zurich"',
  },
  {
    operations: /^events\.(insert|import|update|patch)$/,
    match: /^400 invalid Invalid recurrence rule /,
    documented: 'Event.recurrence: "as RFC 5545 lines (RRULE, EXRULE, RDATE, EXDATE)"',
  },
  {
    operations: /^events\.(list|watch|instances)$/,
    match:
      /^400 (invalid timeMax must be later than timeMin|timeRangeEmpty The specified time range is empty\.)/,
    documented: 'timeMax: "Must be later than timeMin"',
  },
  {
    operations: /^events\.(list|watch)$/,
    match:
      /^400 invalid (orderBy=startTime needs singleEvents=true|The requested ordering is not available for the particular query\.)/,
    documented: 'orderBy: "startTime, which needs singleEvents=true"',
  },
  {
    operations: /^acl\.(insert|update|patch)$/,
    match: /^400 invalid A (user|group) scope's value is an email address/,
    documented: 'AclRule.scope.value: "The email address of the user or group, or the domain name"',
  },
  {
    operations: /^conversion\.(insert|update|updateAvailability)$/,
    match: /^400 required Required field: /,
    documented: 'conversion.insert / conversion.update / conversion.updateAvailability: "Required fields."',
  },
];

export interface Tally {
  cases: number;
  pass: number;
  fail: number;
  skip: number;
  skipReasons: Record<string, number>;
}

const emptyTally = (): Tally => ({ cases: 0, pass: 0, fail: 0, skip: 0, skipReasons: {} });

export type Outcome = { pass: true } | { fail: string } | { skip: string };

/** Counts by API, check and operation; keeps the first failures of each check in full. */
export class ConformanceReport {
  readonly cases = new Map<string, number>();
  readonly byCheck = new Map<string, Tally>();
  readonly byOperation = new Map<string, Map<string, Tally>>();
  readonly failures: { check: CheckId; operationId: string; message: string }[] = [];
  /** Failures by check, operation, status and reason, all of them counted. */
  readonly failureGroups = new Map<string, number>();
  private readonly failuresKept = new Map<string, number>();

  constructor(readonly seed: number) {}

  countCase(api: string): void {
    this.cases.set(api, (this.cases.get(api) ?? 0) + 1);
  }

  record(api: string, operationId: string, check: CheckId, outcome: Outcome, group = ''): void {
    const key = `${api} ${check}`;
    const tallies = [this.byCheck.get(key) ?? emptyTally()];
    this.byCheck.set(key, tallies[0] as Tally);
    const perOp = this.byOperation.get(operationId) ?? new Map<string, Tally>();
    this.byOperation.set(operationId, perOp);
    tallies.push(perOp.get(check) ?? emptyTally());
    perOp.set(check, tallies[1] as Tally);
    for (const tally of tallies) {
      tally.cases++;
      if ('pass' in outcome) tally.pass++;
      else if ('fail' in outcome) tally.fail++;
      else {
        tally.skip++;
        tally.skipReasons[outcome.skip] = (tally.skipReasons[outcome.skip] ?? 0) + 1;
      }
    }
    if ('fail' in outcome) {
      const name = `${check} ${operationId}${group ? ` ${group}` : ''}`;
      this.failureGroups.set(name, (this.failureGroups.get(name) ?? 0) + 1);
      const kept = this.failuresKept.get(key) ?? 0;
      this.failuresKept.set(key, kept + 1);
      if (kept < 20) this.failures.push({ check, operationId, message: outcome.fail });
    }
  }

  failed(check: CheckId): number {
    let sum = 0;
    for (const [key, tally] of this.byCheck) if (key.endsWith(` ${check}`)) sum += tally.fail;
    return sum;
  }

  toJson(): Json {
    const tally = (t: Tally): JsonObject => ({ ...t, skipReasons: { ...t.skipReasons } });
    return {
      seed: this.seed,
      cases: Object.fromEntries(this.cases),
      byCheck: Object.fromEntries([...this.byCheck].sort().map(([k, t]) => [k, tally(t)])),
      byOperation: Object.fromEntries(
        [...this.byOperation]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([op, checks]) => [op, Object.fromEntries([...checks].map(([c, t]) => [c, tally(t)]))]),
      ),
      failureGroups: Object.fromEntries([...this.failureGroups].sort(([, a], [, b]) => b - a)),
      failures: this.failures.map((f) => ({ ...f })),
    };
  }

  toMarkdown(): string {
    const lines = [
      `# Conformance of the emulator (seed ${this.seed})`,
      '',
      `Cases: ${[...this.cases].map(([api, n]) => `${api} ${n}`).join(', ')}.`,
      '',
      '## By check',
      '',
      '| API | check | cases | pass | fail | skip | skip reasons |',
      '| --- | --- | ---: | ---: | ---: | ---: | --- |',
    ];
    const reasons = (t: Tally) =>
      Object.entries(t.skipReasons)
        .sort(([, a], [, b]) => b - a)
        .map(([r, n]) => `${n}× ${r.replace(/\|/g, '\\|')}`)
        .join('; ');
    const order = new Map(CHECKS.map((c, i) => [c.id as string, i]));
    const rows = [...this.byCheck].sort(([a], [b]) => {
      const [apiA = '', checkA = ''] = a.split(' ');
      const [apiB = '', checkB = ''] = b.split(' ');
      return apiA.localeCompare(apiB) || (order.get(checkA) ?? 0) - (order.get(checkB) ?? 0);
    });
    for (const [key, t] of rows) {
      const [api, check] = key.split(' ');
      lines.push(`| ${api} | ${check} | ${t.cases} | ${t.pass} | ${t.fail} | ${t.skip} | ${reasons(t)} |`);
    }
    lines.push(
      '',
      '## By operation',
      '',
      '| operation | check | cases | pass | fail | skip | skip reasons |',
    );
    lines.push('| --- | --- | ---: | ---: | ---: | ---: | --- |');
    for (const [op, checks] of [...this.byOperation].sort(([a], [b]) => a.localeCompare(b)))
      for (const [check, t] of [...checks].sort(([a], [b]) => (order.get(a) ?? 0) - (order.get(b) ?? 0)))
        lines.push(`| ${op} | ${check} | ${t.cases} | ${t.pass} | ${t.fail} | ${t.skip} | ${reasons(t)} |`);
    if (this.failures.length > 0) {
      lines.push('', '## Failures (first 20 of each check)', '');
      for (const f of this.failures)
        lines.push(`- **${f.check}** ${f.operationId}: ${f.message.replace(/\n/g, ' ')}`);
    }
    return `${lines.join('\n')}\n`;
  }

  /** One line per API and check: what the test prints. */
  summary(): string {
    const lines = [
      `conformance: seed ${this.seed}; cases ${[...this.cases].map(([a, n]) => `${a} ${n}`).join(', ')}`,
    ];
    for (const [key, t] of [...this.byCheck].sort())
      lines.push(
        `conformance: ${key.padEnd(44)} cases ${t.cases}, pass ${t.pass}, fail ${t.fail}, skip ${t.skip}`,
      );
    return lines.join('\n');
  }
}

/** A request as a failure message shows it: method, target, body (shortened). */
export function describeRequest(wire: Pick<Wire, 'method' | 'target' | 'headers' | 'body'>): string {
  const headers = Object.entries(wire.headers)
    .filter(([name]) => name !== 'content-length')
    .map(([name, value]) => `${name}: ${value.slice(0, 60)}`)
    .join(', ');
  const body = wire.body === undefined ? '' : ` body ${wire.body.slice(0, 300)}`;
  return `${wire.method} ${wire.target.slice(0, 300)} [${headers}]${body}`;
}

const describeAnswer = (answer: Answer): string =>
  `${answer.status} ${String(answer.headers['content-type'] ?? '')} ${answer.text.slice(0, 300)}`;

/** The reason of a refusal in Google's envelope (`error.errors[0].reason`). */
export function reasonOf(answer: Answer): string | undefined {
  const error = isObject(answer.body) ? answer.body.error : undefined;
  const first = isObject(error) && Array.isArray(error.errors) ? error.errors[0] : undefined;
  return isObject(first) && typeof first.reason === 'string' ? first.reason : undefined;
}

/** The message of a refusal's first error item, its variable parts (quoted, numbers) blanked. */
function messageOf(answer: Answer): string {
  const error = isObject(answer.body) ? answer.body.error : undefined;
  const first = isObject(error) && Array.isArray(error.errors) ? error.errors[0] : undefined;
  const message = isObject(first) && typeof first.message === 'string' ? first.message : '';
  return message.replace(/"[^"]*"|\b\d+\b/g, '…').slice(0, 80);
}

/** The message of a refusal's first error item. */
function firstMessage(answer: Answer): string {
  const error = isObject(answer.body) ? answer.body.error : undefined;
  const first = isObject(error) && Array.isArray(error.errors) ? error.errors[0] : undefined;
  return isObject(first) && typeof first.message === 'string' ? first.message : '';
}

const DOCUMENT_ID = 'conformance-request.json';

/** Mutations that put data outside its schema (or the body outside its media type). */
const NEGATIVE: Mutation['kind'][] = [
  'wrongParameter',
  'missingParameter',
  'malformedJson',
  'notAnObject',
  'wrongFieldType',
  'badFieldValue',
  'missingField',
  'wrongContentType',
];

/**
 * A check turned off for an operation, with the written reason (a spec fix to come); `when`
 * narrows it to the failures whose `status reason message` it matches.
 */
export type Exclusions = Partial<Record<CheckId, Record<string, { reason: string; when?: RegExp }>>>;

/** Runs the per-request checks of one API on generated cases. */
export class CaseChecker {
  private readonly ajv = createAjv();
  private readonly headerValidators = new Map<string, (value: unknown) => boolean>();

  constructor(
    readonly service: Service,
    private readonly responseCheck: ResponseCheck,
    readonly report: ConformanceReport,
    private readonly exclusions: Exclusions = {},
  ) {}

  private excluded(check: CheckId, operationId: string, key: string): string | undefined {
    const exclusion = this.exclusions[check]?.[operationId];
    return exclusion && (!exclusion.when || exclusion.when.test(key)) ? exclusion.reason : undefined;
  }

  /** The operation a request reaches, routed as the emulator routes it. */
  route(method: string, target: string) {
    const { pathname } = parseTarget(target);
    const base = this.service.spec.basePath;
    if (!pathname.startsWith(`${base}/`)) return { kind: 'noPath' } as const;
    return this.service.router.route(method, pathname.slice(base.length));
  }

  /** The response object of a status, $ref followed; undefined when not documented. */
  response(op: OperationSpec, status: number): JsonObject | undefined {
    const response = op.responses[String(status)];
    if (!isObject(response)) return undefined;
    const target =
      typeof response.$ref === 'string'
        ? follow(this.service.spec.document, response.$ref, op.where)
        : response;
    return isObject(target) ? target : undefined;
  }

  /** Records every check of one generated request and its answer. */
  check(draft: Draft, drafted: OperationSpec, wire: Wire, answer: Answer): void {
    const api = this.service.name;
    this.report.countCase(api);
    const request = describeRequest(wire);
    const where = (check: CheckId, op: string) => `${check} of ${op}: ${request} → ${describeAnswer(answer)}`;
    const mutation = draft.mutation;
    const key = `${answer.status} ${reasonOf(answer) ?? ''} ${firstMessage(answer)}`;
    const record = (check: CheckId, opId: string, outcome: Outcome) => {
      const reason = 'fail' in outcome ? this.excluded(check, opId, key) : undefined;
      this.report.record(
        api,
        opId,
        check,
        reason ? { skip: `turned off: ${reason}` } : outcome,
        `${answer.status} ${reasonOf(answer) ?? ''} ${messageOf(answer)}`,
      );
    };

    // 1. No 5xx, whatever was sent.
    record(
      'not_a_server_error',
      drafted.id,
      answer.status < 500
        ? { pass: true }
        : { fail: `${where('not_a_server_error', drafted.id)}: a server error` },
    );

    // 2–4: the answer of the operation the request reached.
    const routed = this.route(wire.method, wire.target);
    if (routed.kind === 'operation') this.checkAnswer(routed.operation, wire, answer, where, record);
    else
      for (const check of [
        'status_code_conformance',
        'content_type_conformance',
        'response_schema_conformance',
      ] as const)
        record(check, drafted.id, {
          skip:
            routed.kind === 'noMethod'
              ? 'no operation at this method (unsupported_method)'
              : 'the path matches no documented path',
        });

    // 5. Invalid data rejected with a 4xx.
    if (mutation && NEGATIVE.includes(mutation.kind)) {
      const expected = expectedRefusal(draft, drafted, this.service, wire.target);
      if (expected === undefined)
        record('negative_data_rejection', drafted.id, {
          skip: 'an empty body where the body is optional: not invalid',
        });
      else
        record(
          'negative_data_rejection',
          drafted.id,
          answer.status >= 400 && answer.status < 500
            ? { pass: true }
            : {
                fail: `${where('negative_data_rejection', drafted.id)}: ${describeMutation(mutation)} was not refused with a 4xx`,
              },
        );
    }

    // 6. Valid data accepted: 2xx (or 304), or a refusal that depends on the state.
    if (!mutation)
      record('positive_data_acceptance', drafted.id, this.acceptance(drafted, draft, wire, answer, where));

    // 7. A required header left out: 4xx.
    if (mutation?.kind === 'missingParameter' && mutation.in === 'header')
      record(
        'missing_required_header',
        drafted.id,
        answer.status >= 400 && answer.status < 500
          ? { pass: true }
          : {
              fail: `${where('missing_required_header', drafted.id)}: required header ${mutation.name} left out, not refused`,
            },
      );

    // 8. An undocumented method on a documented path: 405 with Allow naming the documented ones.
    if (mutation?.kind === 'wrongMethod') {
      if (routed.kind !== 'noMethod' && routed.kind !== 'noPath')
        record('unsupported_method', drafted.id, {
          skip: `${mutation.method} on this path is another operation's (${routed.kind === 'operation' ? routed.operation.id : ''})`,
        });
      else if (routed.kind === 'noPath')
        record('unsupported_method', drafted.id, { skip: 'the path was resolved to another one' });
      else {
        // The methods of every documented path this URL matches (…/events/quickAdd is also
        // …/events/{eventId}, so GET there is events.get).
        const documented = [...new Set(this.service.spec.operations.map((o) => o.method))]
          .filter((m) => this.route(m, wire.target).kind === 'operation')
          .sort();
        const allow = String(answer.headers.allow ?? '')
          .split(',')
          .map((m) => m.trim())
          .filter((m) => m !== '')
          .sort();
        const problems = [
          ...(answer.status === 405 ? [] : [`answered ${answer.status}, not 405`]),
          ...(answer.status === 405 && allow.join() !== documented.join()
            ? [`Allow is "${allow.join(', ')}", not the documented "${documented.join(', ')}"`]
            : []),
        ];
        record(
          'unsupported_method',
          drafted.id,
          problems.length === 0
            ? { pass: true }
            : { fail: `${where('unsupported_method', drafted.id)}: ${problems.join('; ')}` },
        );
      }
    }

    // 9. No credential, a malformed one, or a token the users map does not know: 401.
    if (mutation?.kind === 'badCredentials')
      record(
        'ignored_auth',
        drafted.id,
        answer.status === 401
          ? { pass: true }
          : {
              fail: `${where('ignored_auth', drafted.id)}: credential ${JSON.stringify(mutation.authorization)} not refused with 401`,
            },
      );
  }

  private checkAnswer(
    op: OperationSpec,
    wire: Wire,
    answer: Answer,
    where: (check: CheckId, op: string) => string,
    record: (check: CheckId, opId: string, outcome: Outcome) => void,
  ): void {
    if (HTTP_LEVEL.includes(answer.status)) {
      const skip = `${answer.status}: a refusal of the HTTP layer, before the operation (documented by no operation; spec-check.ts)`;
      for (const check of [
        'status_code_conformance',
        'content_type_conformance',
        'response_schema_conformance',
      ] as const)
        record(check, op.id, { skip });
      return;
    }
    const response = this.response(op, answer.status);
    if (!response) {
      record('status_code_conformance', op.id, {
        fail: `${where('status_code_conformance', op.id)}: status ${answer.status} is not documented (${Object.keys(op.responses).join(', ')})`,
      });
      record('content_type_conformance', op.id, { skip: 'the status is not documented' });
      record('response_schema_conformance', op.id, { skip: 'the status is not documented' });
      return;
    }
    record('status_code_conformance', op.id, { pass: true });
    const content = isObject(response.content) ? response.content : undefined;
    const media =
      String(answer.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim()
        .toLowerCase() ?? '';
    let typeProblem: string | undefined;
    if (!content) {
      if (answer.text !== '')
        typeProblem = `a body (${media || 'no content type'}) where status ${answer.status} documents none`;
    } else if (!(media in content))
      typeProblem = `content type "${media}" is not documented for ${answer.status} (${Object.keys(content).join(', ')})`;
    if (typeProblem) {
      record('content_type_conformance', op.id, {
        fail: `${where('content_type_conformance', op.id)}: ${typeProblem}`,
      });
      record('response_schema_conformance', op.id, { skip: 'the content type is not documented' });
      return;
    }
    record('content_type_conformance', op.id, { pass: true });
    const exchange: Exchange = {
      method: wire.method,
      path: wire.target,
      operationId: op.id,
      status: answer.status,
      headers: Object.fromEntries(
        Object.entries(answer.headers).map(([k, v]) => [
          k,
          Array.isArray(v) ? v.join(', ') : String(v ?? ''),
        ]),
      ),
      ...(answer.body !== undefined ? { body: answer.body } : {}),
      ...(answer.body === undefined && answer.text !== '' ? { text: answer.text } : {}),
    };
    const problems = [...this.headerProblems(op, response, answer), ...this.responseCheck(exchange)];
    record(
      'response_schema_conformance',
      op.id,
      problems.length === 0
        ? { pass: true }
        : { fail: `${where('response_schema_conformance', op.id)}: ${problems.join('; ')}` },
    );
  }

  private readonly bodyValidators = new Map<string, (value: unknown) => boolean>();

  /** Why the body sent breaks the operation's request schema; undefined when it does not. */
  private bodyProblem(op: OperationSpec, wire: Wire): string | undefined {
    if (!op.body || wire.body === undefined) return undefined;
    let validate = this.bodyValidators.get(op.id);
    if (!validate) {
      if (!this.ajv.getSchema(DOCUMENT_ID)) this.ajv.addSchema(this.service.spec.document, DOCUMENT_ID);
      const compiled = this.ajv.compile({ $ref: `${DOCUMENT_ID}${op.body.schemaPointer}` });
      validate = (value) => {
        const ok = compiled(value) as boolean;
        const first = compiled.errors?.[0];
        this.lastErrors = first ? `${first.instancePath || '/'} ${first.message ?? ''}` : '';
        return ok;
      };
      this.bodyValidators.set(op.id, validate);
    }
    let value: unknown;
    try {
      value = JSON.parse(wire.body);
    } catch {
      return 'not JSON';
    }
    return validate(value) ? undefined : this.lastErrors;
  }

  private lastErrors = '';

  /** The documented response headers: present when required, valid against their schema. */
  private headerProblems(op: OperationSpec, response: JsonObject, answer: Answer): string[] {
    const problems: string[] = [];
    const headers = isObject(response.headers) ? response.headers : {};
    for (const [name, raw] of Object.entries(headers)) {
      const header =
        isObject(raw) && typeof raw.$ref === 'string'
          ? follow(this.service.spec.document, raw.$ref, op.where)
          : raw;
      if (!isObject(header)) continue;
      const value = answer.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required === true) problems.push(`required header ${name} is missing`);
        continue;
      }
      const key = `${op.id} ${answer.status} ${name}`;
      let validate = this.headerValidators.get(key);
      if (!validate) {
        const compiled = this.ajv.compile(
          isObject(header.schema) ? resolveLocal(this.service.spec.document, header.schema) : {},
        );
        validate = (v) => compiled(v) as boolean;
        this.headerValidators.set(key, validate);
      }
      if (!validate(Array.isArray(value) ? value.join(', ') : value))
        problems.push(`header ${name}: ${JSON.stringify(value)} breaks its schema`);
    }
    return problems;
  }

  private acceptance(
    op: OperationSpec,
    draft: Draft,
    wire: Wire,
    answer: Answer,
    where: (check: CheckId, op: string) => string,
  ): Outcome {
    if ((answer.status >= 200 && answer.status < 300) || answer.status === 304) return { pass: true };
    // What the generator drew may not be valid as sent: ids and etags taken from the pool go
    // where the schema wants another form, a token drawn from the schema was never issued,
    // and a sync token does not go with some parameters (x-sync).
    const broken = this.bodyProblem(op, wire);
    if (broken)
      return {
        skip: `the body as sent breaks its schema (an id from the pool, or a value the generator could not fit): ${broken}`,
      };
    const tokens = [op.pagination?.pageTokenParameter, op.sync?.syncTokenParameter];
    if (draft.query.some(([name, value]) => tokens.includes(name) && typeof value === 'string'))
      return { skip: 'a page or sync token drawn from the schema, never issued by the service' };
    const query = new URLSearchParams(wire.target.split('?')[1] ?? '');
    if (
      op.sync &&
      query.has(op.sync.syncTokenParameter) &&
      op.sync.incompatibleParameters.some((p) => query.has(p))
    )
      return { skip: 'a sync token with a parameter it does not go with (x-sync incompatibleParameters)' };
    const key = `${answer.status} ${reasonOf(answer) ?? ''} ${firstMessage(answer)}`;
    const rule = DOCUMENTED_RULES.find((r) => r.operations.test(op.id) && r.match.test(key));
    if (rule) return { skip: `a rule beyond the schema, documented in ${rule.documented}` };
    const state = STATE_REFUSALS[answer.status];
    const reason = reasonOf(answer);
    if (state && reason && state.reasons.includes(reason) && this.response(op, answer.status))
      return { skip: `${answer.status} ${reason}: ${state.why}` };
    return { fail: `${where('positive_data_acceptance', op.id)}: a valid request refused` };
  }
}

/** A header schema with local $refs inlined one level (header schemas are plain strings here). */
function resolveLocal(document: JsonObject, schema: JsonObject): JsonObject {
  if (typeof schema.$ref === 'string') {
    const target = follow(document, schema.$ref, 'header');
    return isObject(target) ? target : {};
  }
  return schema;
}

export function describeMutation(mutation: Mutation): string {
  switch (mutation.kind) {
    case 'wrongParameter':
      return `${mutation.in} parameter ${mutation.name}=${JSON.stringify(mutation.value.slice(0, 40))} (${mutation.why})`;
    case 'missingParameter':
      return `required ${mutation.in} parameter ${mutation.name} left out`;
    case 'wrongFieldType':
      return `body field ${mutation.field} = ${JSON.stringify(mutation.value)} (wrong type)`;
    case 'badFieldValue':
      return `body field ${mutation.field} = ${JSON.stringify(mutation.value)} (${mutation.why})`;
    case 'missingField':
      return `required body field ${mutation.field} left out`;
    default:
      return mutation.kind;
  }
}

/**
 * An http proxy in front of the emulator, for the mutation tests: `misbehave` may answer a
 * request itself or change the emulator's answer, so that one route breaks one rule.
 */
export interface Breakage {
  /** Called with the request as received; may change it, or answer it (the emulator is not asked). */
  request?(wire: Pick<Wire, 'method' | 'target' | 'headers' | 'body'>): Answer | undefined;
  /** Called with the emulator's answer; returns the one to send. */
  answer?(wire: Pick<Wire, 'method' | 'target' | 'headers' | 'body'>, answer: Answer): Answer;
}

export async function brokenProxy(
  origin: string | (() => string),
  breakage: () => Breakage | undefined,
): Promise<{ origin: string; server: Server }> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers))
        if (name !== 'host' && name !== 'connection' && name !== 'content-length' && value !== undefined)
          headers[name] = Array.isArray(value) ? value.join(', ') : value;
      const body = chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined;
      const wire = {
        method: request.method ?? 'GET',
        target: request.url ?? '/',
        headers,
        ...(body !== undefined ? { body } : {}),
      };
      const broken = breakage();
      try {
        let answer =
          broken?.request?.(wire) ?? (await send(typeof origin === 'string' ? origin : origin(), wire));
        if (broken?.answer) answer = broken.answer(wire, answer);
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers))
          if (
            value !== undefined &&
            !['content-length', 'connection', 'keep-alive', 'transfer-encoding', 'date'].includes(name)
          )
            out[name] = value;
        const text = answer.body !== undefined && !answer.text ? JSON.stringify(answer.body) : answer.text;
        response.writeHead(answer.status, out);
        response.end(text);
      } catch (error) {
        response.writeHead(502);
        response.end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A JSON answer as the proxy sends it. */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  const text = JSON.stringify(body);
  return { status, headers: { 'content-type': 'application/json; charset=UTF-8', ...headers }, body, text };
}
