/**
 * The Search Ads 360 page's tables of an advertiser's availabilities and of its engine accounts'
 * entities with their rows of the ID-mapping file, and how the page writes the values of a
 * record (inspector-page.ts). Browser code, as the page is.
 */
import { h } from '../../ui/kit.js';
import type { AvailabilitiesView, EntitiesView } from './inspect.js';

/** A field of a record (a conversion, an availability) as text: empty when it has none. */
export const value = (record: Readonly<Record<string, unknown>>, name: string): string => {
  const found = record[name];
  return found === undefined || found === null ? '' : String(found);
};

/** Milliseconds since 1970 (as digits) as a UTC time, to the second. */
export function utc(ms: string): string {
  if (!/^\d+$/.test(ms)) return ms;
  const date = new Date(Number(ms));
  return Number.isNaN(date.getTime())
    ? ms
    : date
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z');
}

/** An integer count of 10^-`scale` units (micros, millis) as a decimal, exactly. */
export function decimal(digits: string, scale: number): string {
  if (!/^\d+$/.test(digits)) return digits;
  const padded = digits.padStart(scale + 1, '0');
  const whole = padded.slice(0, -scale).replace(/^0+(?=\d)/, '');
  const fraction = padded.slice(-scale).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

const simpleTable = (id: string, headings: string[], rows: HTMLElement[], empty: string): HTMLElement =>
  h(
    'table',
    { id },
    h('thead', {}, h('tr', {}, ...headings.map((t) => h('th', {}, t)))),
    h(
      'tbody',
      {},
      ...(rows.length > 0
        ? rows
        : [h('tr', {}, h('td', { colspan: String(headings.length), class: 'muted' }, empty))]),
    ),
  );

export function availabilitiesTable({ availabilities }: AvailabilitiesView): HTMLElement {
  return simpleTable(
    'availabilities',
    ['Floodlight activity', 'Segmentation', 'Available up to (UTC)', 'Customer id'],
    availabilities.map((a) =>
      h(
        'tr',
        { 'data-activity': value(a, 'segmentationId') },
        h(
          'td',
          {},
          a.segmentationName !== undefined
            ? `${value(a, 'segmentationName')} (${value(a, 'segmentationId')})`
            : value(a, 'segmentationId'),
        ),
        h('td', {}, value(a, 'segmentationType')),
        h('td', {}, utc(value(a, 'availabilityTimestamp'))),
        h('td', {}, value(a, 'customerId')),
      ),
    ),
    'none recorded (conversion.updateAvailability)',
  );
}

export function entitiesTable({ engineAccounts }: EntitiesView): HTMLElement {
  const rows: HTMLElement[] = [];
  const row = (
    account: string,
    cells: { type: string; id: string; name?: string; newId?: string; parentId?: string },
    mapping: string | undefined,
  ) =>
    h(
      'tr',
      {
        class: mapping === undefined ? 'not-in-file' : '',
        'data-entity-id': cells.id,
        'data-type': cells.type,
        'data-in-file': String(mapping !== undefined),
      },
      h('td', {}, account),
      h('td', {}, cells.type),
      h('td', {}, cells.id),
      h('td', {}, cells.name ?? ''),
      h('td', {}, cells.newId ?? ''),
      h('td', {}, cells.parentId ?? ''),
      h('td', {}, mapping ?? 'not in the file'),
    );
  for (const account of engineAccounts) {
    rows.push(
      row(
        account.id,
        {
          type: 'ENGINE_ACCOUNT',
          id: account.id,
          ...(account.name ? { name: account.name } : {}),
          ...(account.customerId ? { newId: account.customerId } : {}),
        },
        account.inMappingFile ? account.customerId : undefined,
      ),
    );
    for (const entity of account.entities)
      rows.push(row(account.id, entity, entity.inMappingFile ? (entity.mappingEntityId ?? '') : undefined));
  }
  return simpleTable(
    'entities',
    ['Engine account', 'Type', 'Id', 'Name', 'New id', 'Parent', 'ID-mapping file: Entity ID'],
    rows,
    'no engine accounts',
  );
}
