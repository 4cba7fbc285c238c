/**
 * The entities a Search Ads 360 emulator knows before anything is seeded: those the spec's
 * own examples name, read from the examples rather than written here, so that every example
 * request of the spec (and Google's, which use the same ids) works against a fresh emulator.
 *
 * - the ID-mapping example (every `text/csv` example): engine accounts with their names and
 *   customer ids, campaigns, ad groups, ads and keywords with their names and new ids;
 * - every conversion of every example (requests and answers): agencies, advertisers with
 *   their currency and attribution model, engine accounts and customer ids, the entity
 *   hierarchy (campaign > ad group > ad, keyword, product group), Floodlight activities
 *   (id and name together), and clicks (a click id with the ids it was attributed to);
 * - every availability: Floodlight activities and the advertiser's customer id;
 * - every saved-column list: the columns of the advertiser the operation's path examples name.
 *
 * dsConversionIds continue from the smallest one of the examples. Conversions and
 * availabilities themselves are not stored: the examples show them, a client writes them.
 */
import {
  type ApiSpec,
  follow,
  isObject,
  type Json,
  type JsonObject,
  pointerToken,
  SpecError,
} from '../../core/spec.js';
import { parseCsv } from './csv.js';
import type {
  AdvertiserRecord,
  EngineAccountRecord,
  EntityRecord,
  EntityType,
  SearchAds360State,
} from './records.js';

const cache = new WeakMap<ApiSpec, SearchAds360State>();

/** The world of the spec's examples, derived once per spec and frozen (copy it to write). */
export function exampleWorld(spec: ApiSpec): SearchAds360State {
  let world = cache.get(spec);
  if (!world) {
    world = freeze(deriveWorld(spec));
    cache.set(spec, world);
  }
  return world;
}

function freeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) freeze(child);
    Object.freeze(value);
  }
  return value;
}

interface Found {
  conversions: JsonObject[];
  availabilities: JsonObject[];
  csv: string[];
  savedColumns: { agencyId: string; advertiserId: string; items: JsonObject[] }[];
}

const text = (value: Json | undefined): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** The example values of a content map (`{ 'application/json': { examples } }`), by media type. */
function contentExamples(spec: ApiSpec, content: Json | undefined, where: string): [string, Json][] {
  const out: [string, Json][] = [];
  if (!isObject(content)) return out;
  for (const [media, entry] of Object.entries(content)) {
    if (!isObject(entry)) continue;
    if (entry.example !== undefined) out.push([media, entry.example]);
    for (const raw of Object.values(isObject(entry.examples) ? entry.examples : {})) {
      const example =
        isObject(raw) && typeof raw.$ref === 'string' ? follow(spec.document, raw.$ref, where) : raw;
      if (isObject(example) && example.value !== undefined) out.push([media, example.value]);
    }
  }
  return out;
}

const resolved = (spec: ApiSpec, node: Json | undefined, where: string): Json | undefined =>
  isObject(node) && typeof node.$ref === 'string' ? follow(spec.document, node.$ref, where) : node;

function gather(spec: ApiSpec): Found {
  const found: Found = { conversions: [], availabilities: [], csv: [], savedColumns: [] };
  for (const op of spec.operations) {
    const operation = follow(
      spec.document,
      `#/paths/${pointerToken(op.path)}/${op.method.toLowerCase()}`,
      op.where,
    );
    if (!isObject(operation)) continue;
    const body = resolved(spec, operation.requestBody, op.where);
    const success = resolved(spec, op.responses[String(op.successStatus)], op.where);
    const examples = [
      ...contentExamples(spec, isObject(body) ? body.content : undefined, op.where),
      ...contentExamples(spec, isObject(success) ? success.content : undefined, op.where),
    ];
    const pathExample = (name: string): string | undefined => {
      const parameter = op.parameters.find((p) => p.name === name && p.in === 'path');
      if (!parameter) return undefined;
      const raw = follow(spec.document, parameter.schemaPointer.replace(/\/schema$/, ''), op.where);
      return isObject(raw) ? text(raw.example) : undefined;
    };
    for (const [media, value] of examples) {
      if (media === 'text/csv' && typeof value === 'string') found.csv.push(value);
      if (!isObject(value)) continue;
      if (Array.isArray(value.conversion)) found.conversions.push(...value.conversion.filter(isObject));
      if (Array.isArray(value.availabilities))
        found.availabilities.push(...value.availabilities.filter(isObject));
      const agencyId = pathExample('agencyId');
      const advertiserId = pathExample('advertiserId');
      if (
        value.kind === 'doubleclicksearch#savedColumnList' &&
        Array.isArray(value.items) &&
        agencyId &&
        advertiserId
      )
        found.savedColumns.push({ agencyId, advertiserId, items: value.items.filter(isObject) });
    }
  }
  return found;
}

export function deriveWorld(spec: ApiSpec): SearchAds360State {
  const found = gather(spec);
  const world: SearchAds360State = {
    agencies: {},
    conversions: {},
    availabilities: {},
    nextDsConversionId: '1',
  };
  const currencies = new Map<string, string>();

  const advertiserOf = (agencyId: string, advertiserId: string): AdvertiserRecord => {
    world.agencies[agencyId] ??= { id: agencyId, advertisers: {} };
    const agency = world.agencies[agencyId];
    agency.advertisers[advertiserId] ??= {
      id: advertiserId,
      currencyCode: '',
      floodlightActivities: [],
      savedColumns: [],
      engineAccounts: {},
    };
    return agency.advertisers[advertiserId];
  };
  const engineAccountOf = (advertiser: AdvertiserRecord, id: string): EngineAccountRecord => {
    advertiser.engineAccounts[id] ??= { id, entities: [], clicks: {} };
    return advertiser.engineAccounts[id];
  };
  const entityOf = (
    account: EngineAccountRecord,
    id: string,
    type: EntityType,
    parentId?: string,
  ): EntityRecord => {
    let entity = account.entities.find((e) => e.id === id);
    if (!entity) {
      entity = { id, type };
      account.entities.push(entity);
    }
    if (parentId && !entity.parentId) entity.parentId = parentId;
    return entity;
  };
  const activity = (advertiser: AdvertiserRecord, id: string | undefined, name: string | undefined) => {
    if (id && name && !advertiser.floodlightActivities.some((a) => a.id === id))
      advertiser.floodlightActivities.push({ id, name });
  };

  // The mapping file first: it says what type each entity is and what it is called.
  for (const document of found.csv) {
    const [header, ...rows] = parseCsv(document);
    const column = (name: string) => header?.indexOf(name) ?? -1;
    const at = {
      type: column('Entity type'),
      agency: column('Legacy agency ID'),
      advertiser: column('Legacy advertiser ID'),
      engineAccount: column('Legacy engine account ID'),
      legacyId: column('Legacy entity ID'),
      customerId: column('Customer ID'),
      newId: column('Entity ID'),
      name: column('Entity name'),
    };
    if (Object.values(at).some((i) => i < 0))
      throw new SpecError(`the ID-mapping example lacks a documented column: ${header?.join(',')}`);
    for (const row of rows) {
      const cell = (i: number) => row[i] ?? '';
      const advertiser = advertiserOf(cell(at.agency), cell(at.advertiser));
      const account = engineAccountOf(advertiser, cell(at.engineAccount));
      const type = cell(at.type);
      const name = cell(at.name) || undefined;
      if (type === 'ENGINE_ACCOUNT') {
        account.customerId ??= cell(at.customerId);
        if (name) account.name ??= name;
        continue;
      }
      // Ads and keywords are `<ad group's new id>~<id>` in the new platform.
      const [parentNewId, newId] = cell(at.newId).includes('~')
        ? cell(at.newId).split('~')
        : [undefined, cell(at.newId)];
      const parent = parentNewId
        ? account.entities.find((e) => e.type === 'AD_GROUP' && e.newId === parentNewId)
        : undefined;
      const entity = entityOf(account, cell(at.legacyId), type as EntityType, parent?.id);
      if (name) entity.name ??= name;
      if (newId) entity.newId ??= newId;
    }
  }

  let firstDsConversionId: bigint | undefined;
  for (const c of found.conversions) {
    const agencyId = text(c.agencyId);
    const advertiserId = text(c.advertiserId);
    if (!agencyId || !advertiserId) continue;
    const advertiser = advertiserOf(agencyId, advertiserId);
    const currency = text(c.currencyCode);
    if (currency && !currencies.has(advertiserId)) currencies.set(advertiserId, currency);
    advertiser.attributionModel ??= text(c.attributionModel);
    if (advertiser.attributionModel === undefined) delete advertiser.attributionModel;
    activity(advertiser, text(c.segmentationId), text(c.segmentationName));
    const ds = text(c.dsConversionId);
    if (ds && /^\d+$/.test(ds) && (firstDsConversionId === undefined || BigInt(ds) < firstDsConversionId))
      firstDsConversionId = BigInt(ds);
    const engineAccountId = text(c.engineAccountId);
    if (!engineAccountId) continue;
    const account = engineAccountOf(advertiser, engineAccountId);
    const customerId = text(c.customerId);
    if (customerId) account.customerId ??= customerId;
    const campaignId = text(c.campaignId);
    const adGroupId = text(c.adGroupId);
    if (campaignId) entityOf(account, campaignId, 'CAMPAIGN');
    if (adGroupId) entityOf(account, adGroupId, 'AD_GROUP', campaignId);
    const children: [string, EntityType][] = [
      ['adId', 'AD'],
      ['criterionId', 'KEYWORD'],
      ['productGroupId', 'PRODUCT_GROUP'],
    ];
    for (const [field, type] of children) {
      const id = text(c[field]);
      if (id) entityOf(account, id, type, adGroupId);
    }
    const clickId = text(c.clickId);
    if (clickId && !account.clicks[clickId]) {
      const click: Record<string, string> = {};
      for (const field of [
        'campaignId',
        'adGroupId',
        'criterionId',
        'adId',
        'productGroupId',
        'deviceType',
      ]) {
        const value = text(c[field]);
        if (value) click[field] = value;
      }
      account.clicks[clickId] = click;
    }
  }
  if (firstDsConversionId !== undefined) world.nextDsConversionId = String(firstDsConversionId);

  for (const a of found.availabilities) {
    const agencyId = text(a.agencyId);
    const advertiserId = text(a.advertiserId);
    if (!agencyId || !advertiserId) continue;
    const advertiser = advertiserOf(agencyId, advertiserId);
    activity(advertiser, text(a.segmentationId), text(a.segmentationName));
    const customerId = text(a.customerId);
    if (customerId) advertiser.customerId ??= customerId;
  }

  for (const list of found.savedColumns) {
    const advertiser = advertiserOf(list.agencyId, list.advertiserId);
    for (const item of list.items) {
      const savedColumnName = text(item.savedColumnName);
      const type = text(item.type);
      if (
        savedColumnName &&
        type &&
        !advertiser.savedColumns.some((s) => s.savedColumnName === savedColumnName)
      )
        advertiser.savedColumns.push({ savedColumnName, type });
    }
  }

  for (const agency of Object.values(world.agencies))
    for (const advertiser of Object.values(agency.advertisers)) {
      const currency = currencies.get(advertiser.id);
      if (!currency)
        throw new SpecError(
          `the examples name advertiser ${advertiser.id} but no conversion of it has a currencyCode: its currency is unknown`,
        );
      advertiser.currencyCode = currency;
    }
  return world;
}
