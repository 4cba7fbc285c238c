/**
 * reports.getIdMappingFile and savedColumns.list: read from the advertiser's entities.
 *
 * The mapping file has a row for each entity present in both platforms: each engine account
 * with a customer id (its entity id in the new platform is that customer id), then below it,
 * parent before children, each entity with a new id: campaigns, their ad groups, and the ads,
 * keywords and product groups of each ad group (`<ad group's new id>~<new id>`).
 */
import type { JsonObject } from '../../core/spec.js';
import { openIds } from './context.js';
import { csvDocument } from './csv.js';
import type { SearchAds360Handler, SearchAds360Handlers } from './handler-types.js';
import {
  AD_GROUP_CHILDREN,
  type AdvertiserRecord,
  advertiserOfPath,
  type EntityRecord,
  readWorld,
} from './state.js';

/** The documented columns, in file order (decision 0022). */
export const ID_MAPPING_COLUMNS = [
  'Entity type',
  'Legacy agency ID',
  'Legacy advertiser ID',
  'Legacy engine account ID',
  'Legacy entity ID',
  'Customer ID',
  'Entity ID',
  'Entity name',
];

/** The rows of an advertiser's mapping file, the header line first. */
export function idMappingRows(agencyId: string, advertiser: AdvertiserRecord): string[][] {
  const rows = [ID_MAPPING_COLUMNS];
  for (const account of Object.values(advertiser.engineAccounts)) {
    const { customerId } = account;
    if (!customerId) continue;
    const row = (type: string, legacyId: string, newId: string, name = '') => [
      type,
      agencyId,
      advertiser.id,
      account.id,
      legacyId,
      customerId,
      newId,
      name,
    ];
    rows.push(row('ENGINE_ACCOUNT', account.id, customerId, account.name));
    const byId = new Map(account.entities.map((e) => [e.id, e]));
    const visit = (entity: EntityRecord, parent: EntityRecord | undefined) => {
      // An entity of the new platform hangs below one that is there too.
      if (!entity.newId) return;
      const below = AD_GROUP_CHILDREN.includes(entity.type);
      if (below && !parent?.newId) return;
      rows.push(
        row(entity.type, entity.id, below ? `${parent?.newId}~${entity.newId}` : entity.newId, entity.name),
      );
      for (const child of account.entities) if (child.parentId === entity.id) visit(child, entity);
    };
    for (const entity of account.entities)
      if (!entity.parentId || !byId.has(entity.parentId)) visit(entity, undefined);
  }
  return rows;
}

const getIdMappingFile: SearchAds360Handler<'reports.getIdMappingFile'> = (context) => {
  const world = readWorld(context.store.state, context.spec);
  const { agencyId, advertiserId } = context.request.path;
  const { advertiser } = advertiserOfPath(world, agencyId, advertiserId, openIds(context));
  return {
    text: {
      contentType: 'text/csv; charset=utf-8',
      body: csvDocument(idMappingRows(agencyId, advertiser)),
    },
    headers: { 'content-disposition': `attachment; filename="id-mapping-${advertiser.id}.csv"` },
  };
};

const listSavedColumns: SearchAds360Handler<'savedColumns.list'> = (context) => {
  const world = readWorld(context.store.state, context.spec);
  const { agencyId, advertiserId } = context.request.path;
  const { advertiser } = advertiserOfPath(world, agencyId, advertiserId, openIds(context));
  const items: JsonObject[] = advertiser.savedColumns.map((column) => ({
    kind: 'doubleclicksearch#savedColumn',
    savedColumnName: column.savedColumnName,
    type: column.type,
  }));
  // Without saved columns the list has no items, as the spec's example shows it.
  return { body: { kind: 'doubleclicksearch#savedColumnList', ...(items.length > 0 ? { items } : {}) } };
};

export const reportHandlers: SearchAds360Handlers = {
  'reports.getIdMappingFile': getIdMappingFile,
  'savedColumns.list': listSavedColumns,
};
