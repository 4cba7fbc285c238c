/**
 * The attribution of an inserted conversion (conversions.ts): from its click, or from its
 * engine account and entity ids, checked against what the advertiser knows; and, for an
 * advertiser made on first use, the engine account and entities a row names made with it.
 */
import { own } from '../../core/own.js';
import type { Json, JsonObject } from '../../core/spec.js';
import { type BatchProblems, field } from './batch.js';
import {
  AD_GROUP_NOT_IN_CAMPAIGN,
  ATTRIBUTION_REQUIRED,
  CLICK_NOT_FOUND,
  ENGINE_ACCOUNT_CUSTOMER_MISMATCH,
  ENTITY_NOT_FOUND,
  ENTITY_NOT_IN_AD_GROUP,
  ROW_CUSTOMER_ID_NOT_FOUND,
  ROW_ENGINE_ACCOUNT_NOT_FOUND,
} from './conversion-refusals.js';
import {
  type AdvertiserRecord,
  type ClickRecord,
  type EngineAccountRecord,
  type EntityRecord,
  type EntityType,
  findClick,
} from './state.js';

/** The attribution of a conversion besides the click: fixed once stored. */
export const ATTRIBUTION = [
  'engineAccountId',
  'customerId',
  'campaignId',
  'adGroupId',
  'criterionId',
  'adId',
  'productGroupId',
] as const;

/** The attribution ids naming entities, with the entity type they name. */
const ENTITY_FIELDS: [field: string, type: EntityType, label: string][] = [
  ['campaignId', 'CAMPAIGN', 'Campaign'],
  ['adGroupId', 'AD_GROUP', 'Ad group'],
  ['adId', 'AD', 'Ad'],
  ['criterionId', 'KEYWORD', 'Criterion'],
  ['productGroupId', 'PRODUCT_GROUP', 'Product group'],
];
/**
 * An advertiser created on first use (default mode) gets the engine account and the entities a
 * row names and it does not know yet, each recorded in `problems` to be taken back if the row
 * is refused. An entity is created with the type of the field that names it and, as parent, the
 * campaign or ad group the row names; entities it knows are left to the usual checks.
 */
function createNamed(
  advertiser: AdvertiserRecord,
  row: JsonObject,
  i: number,
  problems: BatchProblems,
): void {
  const engineAccountId = field(row, 'engineAccountId');
  const customerId = field(row, 'customerId');
  let account = engineAccountId ? own(advertiser.engineAccounts, engineAccountId) : undefined;
  if (engineAccountId && !account && /^\d+$/.test(engineAccountId)) {
    const taken = customerId
      ? Object.values(advertiser.engineAccounts).some((a) => a.customerId === customerId)
      : false;
    const created: EngineAccountRecord = {
      id: engineAccountId,
      ...(customerId && !taken ? { customerId } : {}),
      entities: [],
      clicks: {},
    };
    advertiser.engineAccounts[engineAccountId] = created;
    problems.created(i, () => delete advertiser.engineAccounts[engineAccountId]);
    account = created;
  } else if (account && customerId && !account.customerId) {
    const known = account;
    known.customerId = customerId;
    problems.created(i, () => delete known.customerId);
  }
  if (!engineAccountId && customerId)
    account = Object.values(advertiser.engineAccounts).find((a) => a.customerId === customerId);
  if (!account) return;
  const entities = account.entities;
  const parents: Record<string, string | undefined> = {
    campaignId: undefined,
    adGroupId: field(row, 'campaignId'),
    adId: field(row, 'adGroupId'),
    criterionId: field(row, 'adGroupId'),
    productGroupId: field(row, 'adGroupId'),
  };
  for (const [name, type] of ENTITY_FIELDS) {
    const id = field(row, name);
    if (!id || !/^\d+$/.test(id) || entities.some((e) => e.id === id)) continue;
    const parentId = parents[name];
    const entity: EntityRecord = { id, type, ...(parentId ? { parentId } : {}) };
    entities.push(entity);
    problems.created(i, () => entities.splice(entities.indexOf(entity), 1));
  }
}

/**
 * The attribution of a new conversion, from its click or from its engine account and entity
 * ids. With a known click, the ids the row gives are kept as sent and the click fills in the
 * others (no evidence says the live service refuses ids that differ from the click's).
 */
export function attributionOfRow(
  advertiser: AdvertiserRecord,
  row: JsonObject,
  i: number,
  problems: BatchProblems,
): JsonObject | undefined {
  const clickId = field(row, 'clickId');
  const open = advertiser.createdOnFirstUse === true;
  // A click an advertiser created on first use does not know yet is made from the row's ids.
  if (clickId && !(open && !findClick(advertiser, clickId))) {
    const found = findClick(advertiser, clickId);
    if (!found) {
      problems.add(
        i,
        'clickId',
        CLICK_NOT_FOUND,
        `Click id ${clickId} is not found for advertiser ${advertiser.id}.`,
      );
      return undefined;
    }
    const { engineAccount, click } = found;
    const out: JsonObject = {
      clickId,
      engineAccountId: engineAccount.id,
      ...(engineAccount.customerId ? { customerId: engineAccount.customerId } : {}),
      ...click,
    };
    for (const name of [...ATTRIBUTION, 'deviceType']) {
      const given = field(row, name);
      if (given !== undefined) out[name] = given;
    }
    return out;
  }

  if (open) createNamed(advertiser, row, i, problems);
  const engineAccountId = field(row, 'engineAccountId');
  const customerId = field(row, 'customerId');
  const accountOfRow = engineAccountId
    ? own(advertiser.engineAccounts, engineAccountId)
    : Object.values(advertiser.engineAccounts).find((a) => a.customerId === customerId);
  if (open && !accountOfRow && (clickId || customerId)) {
    // No engine account to hold the click or the entities: the ids are stored as sent.
    const out: JsonObject = {};
    for (const name of ['clickId', ...ATTRIBUTION, 'deviceType'])
      if (field(row, name)) out[name] = row[name] as Json;
    return out;
  }
  if (!engineAccountId && !customerId) {
    problems.required(
      i,
      'clickId',
      ATTRIBUTION_REQUIRED,
      'clickId, or engineAccountId (or customerId) with the ids of the entities the conversion is attributed to',
    );
    return undefined;
  }
  const accounts = Object.values(advertiser.engineAccounts);
  let account: EngineAccountRecord | undefined;
  if (engineAccountId) {
    account = own(advertiser.engineAccounts, engineAccountId);
    if (!account) {
      problems.add(
        i,
        'engineAccountId',
        ROW_ENGINE_ACCOUNT_NOT_FOUND,
        `Engine account ${engineAccountId} is not found for advertiser ${advertiser.id}.`,
      );
      return undefined;
    }
    if (customerId && account.customerId !== customerId) {
      problems.add(
        i,
        'customerId',
        ENGINE_ACCOUNT_CUSTOMER_MISMATCH,
        `Engine account ${engineAccountId} has customer id ${account.customerId ?? '(none)'}, not ${customerId}.`,
      );
      return undefined;
    }
  } else {
    account = accounts.find((a) => a.customerId === customerId);
    if (!account) {
      problems.add(
        i,
        'customerId',
        ROW_CUSTOMER_ID_NOT_FOUND,
        `Customer id ${customerId} is not an account of advertiser ${advertiser.id}.`,
      );
      return undefined;
    }
  }
  const entities = new Map(account.entities.map((e) => [e.id, e]));
  const given = new Map<string, EntityRecord>();
  let fits = true;
  for (const [name, type, label] of ENTITY_FIELDS) {
    const id = field(row, name);
    if (!id) continue;
    const entity = entities.get(id);
    if (!entity || entity.type !== type) {
      fits = false;
      problems.add(i, name, ENTITY_NOT_FOUND, `${label} ${id} is not found in engine account ${account.id}.`);
    } else given.set(name, entity);
  }
  if (!fits) return undefined;
  // An ad, a keyword and a product group name their ad group; an ad group names its campaign.
  let adGroupId = given.get('adGroupId')?.id;
  for (const [name, , label] of ENTITY_FIELDS.slice(2)) {
    const entity = given.get(name);
    if (!entity) continue;
    if (adGroupId === undefined) adGroupId = entity.parentId;
    else if (entity.parentId !== adGroupId) {
      fits = false;
      problems.add(
        i,
        name,
        ENTITY_NOT_IN_AD_GROUP,
        `${label} ${entity.id} is in ad group ${entity.parentId ?? '(none)'}, not in ad group ${adGroupId} of the other attribution ids.`,
      );
    }
  }
  const adGroup = adGroupId ? entities.get(adGroupId) : undefined;
  const campaignId = field(row, 'campaignId');
  if (campaignId && adGroup && adGroup.parentId !== campaignId) {
    fits = false;
    problems.add(
      i,
      'campaignId',
      AD_GROUP_NOT_IN_CAMPAIGN,
      `Ad group ${adGroup.id} is in campaign ${adGroup.parentId ?? '(none)'}, not ${campaignId}.`,
    );
  }
  if (!fits) return undefined;
  const out: JsonObject = { engineAccountId: account.id };
  if (account.customerId) out.customerId = account.customerId;
  const campaign = campaignId ?? adGroup?.parentId;
  if (campaign) out.campaignId = campaign;
  if (adGroupId) out.adGroupId = adGroupId;
  for (const name of ['criterionId', 'adId', 'productGroupId']) {
    const id = field(row, name);
    if (id) out[name] = id;
  }
  const device = field(row, 'deviceType');
  if (device) out.deviceType = device;
  if (clickId) {
    // Open advertiser: the click is known from now on, with what this row attributed it to.
    const { engineAccountId: _account, customerId: _customer, ...click } = out;
    const clicks = account.clicks;
    clicks[clickId] = click as ClickRecord;
    problems.created(i, () => delete clicks[clickId]);
    return { clickId, ...out };
  }
  return out;
}
