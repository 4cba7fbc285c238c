/**
 * The refusals of conversion.insert and conversion.update (conversions.ts), each declared with
 * its evidence (decision 0057): what Google's reference and guides say the live service refuses.
 */

import { refusal } from '../../core/errors.js';

/** The operations that write conversions. */
const WRITES = ['conversion.insert', 'conversion.update'];

/** A row without its keys. */
export const CONVERSION_KEY_REQUIRED = refusal({
  id: 'searchads360.conversionKeyRequired',
  scope: 'searchads360',
  operations: WRITES,
  status: 400,
  reason: 'required',
  location: 'conversion[i].conversionId, conversion[i].conversionTimestamp',
  when: 'a row lacks `conversionId` or `conversionTimestamp`',
  evidence: ['decision:0057'],
});

/** A conversionTimestamp that is not milliseconds since 1970 in digits. */
export const TIMESTAMP_INVALID = refusal({
  id: 'searchads360.conversionTimestampInvalid',
  scope: 'searchads360',
  operations: WRITES,
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].conversionTimestamp',
  when: '`conversionTimestamp` is not an unsigned whole number of milliseconds since 1970 (digits, within int64)',
  evidence: ['decision:0057'],
});

/** An inserted conversion without segmentationType. */
export const SEGMENTATION_TYPE_REQUIRED = refusal({
  id: 'searchads360.segmentationTypeRequired',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'required',
  location: 'conversion[i].segmentationType',
  when: 'an inserted conversion lacks `segmentationType`',
  evidence: ['decision:0057'],
});

/** A revenue, quantity or count that is not a whole int64. */
export const VALUE_NOT_INT64 = refusal({
  id: 'searchads360.valueNotInt64',
  scope: 'searchads360',
  operations: WRITES,
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].revenueMicros, quantityMillis, countMillis',
  when: '`revenueMicros`, `quantityMillis` or `countMillis` is not a whole number within int64 (a fraction, or too large)',
  evidence: [
    'fact:searchads360-v2:schemas/Conversion/properties/quantityMillis/format',
    'fact:searchads360-v2:schemas/Conversion/properties/countMillis/format',
    'decision:0057',
  ],
});

/** A currency code that is not ISO 4217. */
export const CURRENCY_NOT_ISO_4217 = refusal({
  id: 'searchads360.currencyNotIso4217',
  scope: 'searchads360',
  operations: WRITES,
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].currencyCode',
  when: '`currencyCode` is not an ISO 4217 alphabetic code (one Node knows)',
  evidence: ['decision:0057'],
});

/** An inserted conversion attributed to nothing. */
export const ATTRIBUTION_REQUIRED = refusal({
  id: 'searchads360.attributionRequired',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'required',
  location: 'conversion[i].clickId',
  when: 'an inserted conversion names neither `clickId` nor `engineAccountId` or `customerId` (with the entity ids)',
  evidence: ['decision:0057'],
});

/** An update that names neither the click nor the attribution ids of the conversion. */
export const UPDATE_ATTRIBUTION_REQUIRED = refusal({
  id: 'searchads360.updateAttributionRequired',
  scope: 'searchads360',
  operations: ['conversion.update'],
  status: 400,
  reason: 'required',
  location: 'conversion[i].clickId',
  when: 'an updated conversion names neither its `clickId` nor any of its attribution ids (`criterionId`, `engineAccountId`, ...)',
  evidence: ['decision:0057'],
});

/** A click id the advertiser does not know (a seeded or example advertiser). */
export const CLICK_NOT_FOUND = refusal({
  id: 'searchads360.clickNotFound',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].clickId',
  when: 'the click id is no click of a seeded or example advertiser (one created on first use learns it)',
  evidence: ['decision:0057'],
});

/** An engine account the advertiser does not have. */
export const ROW_ENGINE_ACCOUNT_NOT_FOUND = refusal({
  id: 'searchads360.rowEngineAccountNotFound',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].engineAccountId',
  when: '`engineAccountId` is no engine account of a seeded or example advertiser',
  evidence: ['decision:0057'],
});

/** A customer id that is no engine account of the advertiser. */
export const ROW_CUSTOMER_ID_NOT_FOUND = refusal({
  id: 'searchads360.rowCustomerIdNotFound',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].customerId',
  when: '`customerId`, given without `engineAccountId`, is the customer id of no engine account of a seeded or example advertiser',
  evidence: ['decision:0057'],
});

/** An engine account named with a customer id that is not its own. */
export const ENGINE_ACCOUNT_CUSTOMER_MISMATCH = refusal({
  id: 'searchads360.engineAccountCustomerIdMismatch',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].customerId',
  when: '`engineAccountId` and `customerId` name two different accounts (the account has another customer id, or none)',
  evidence: ['decision:0057'],
});

/** An entity id that is no entity of that type in the engine account. */
export const ENTITY_NOT_FOUND = refusal({
  id: 'searchads360.entityNotFound',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].campaignId, adGroupId, adId, criterionId, productGroupId',
  when: 'an attribution id is no campaign, ad group, ad, keyword or product group (as its field says) of the engine account of a seeded or example advertiser',
  evidence: ['decision:0057'],
});

/** An ad, keyword or product group outside the ad group of the other ids. */
export const ENTITY_NOT_IN_AD_GROUP = refusal({
  id: 'searchads360.entityNotInAdGroup',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].adId, criterionId, productGroupId',
  when: 'an ad, keyword or product group the row names is not in the ad group its other ids name',
  evidence: ['decision:0057'],
});

/** An ad group outside the campaign the row names. */
export const AD_GROUP_NOT_IN_CAMPAIGN = refusal({
  id: 'searchads360.adGroupNotInCampaign',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].campaignId',
  when: 'the ad group the row names (or implies) is not in the campaign it names',
  evidence: ['decision:0057'],
});

/** A conversionId twice in one request, for one advertiser. */
export const CONVERSION_ID_TWICE = refusal({
  id: 'searchads360.conversionIdTwiceInRequest',
  scope: 'searchads360',
  operations: WRITES,
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].conversionId',
  when: 'an earlier row of the request has the same `conversionId` for the same advertiser (the first is handled)',
  evidence: ['decision:0057'],
});

/** An inserted conversion whose keys are stored already. */
export const CONVERSION_DUPLICATE = refusal({
  id: 'searchads360.conversionDuplicate',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'duplicate',
  location: 'conversion[i].conversionId',
  when: 'the advertiser has a stored conversion with this `conversionId` and `conversionTimestamp`',
  evidence: ['decision:0057'],
});

/** An updated conversion whose keys match nothing stored. */
export const CONVERSION_NOT_FOUND = refusal({
  id: 'searchads360.conversionNotFound',
  scope: 'searchads360',
  operations: ['conversion.update'],
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].conversionId',
  when: 'the advertiser has no stored conversion with this `conversionId` and `conversionTimestamp`',
  evidence: ['decision:0057'],
});

/** An updated conversion without its type. */
export const UPDATE_TYPE_REQUIRED = refusal({
  id: 'searchads360.updateTypeRequired',
  scope: 'searchads360',
  operations: ['conversion.update'],
  status: 400,
  reason: 'required',
  location: 'conversion[i].type',
  when: 'an updated conversion lacks `type`',
  evidence: ['decision:0057'],
});

/** A new type for a stored conversion. */
export const TYPE_CHANGE = refusal({
  id: 'searchads360.typeChange',
  scope: 'searchads360',
  operations: ['conversion.update'],
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].type',
  when: 'an update sends another `type` than the stored conversion’s',
  evidence: ['decision:0057'],
});

/** Another Floodlight activity for a stored conversion. */
export const ACTIVITY_CHANGE = refusal({
  id: 'searchads360.activityChange',
  scope: 'searchads360',
  operations: ['conversion.update'],
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].segmentationId, conversion[i].segmentationName',
  when: 'an update names another Floodlight activity than the stored conversion’s',
  evidence: ['decision:0057'],
});

/** Another click or attribution id for a stored conversion. */
export const ATTRIBUTION_CHANGE = refusal({
  id: 'searchads360.attributionChange',
  scope: 'searchads360',
  operations: ['conversion.update'],
  status: 400,
  reason: 'invalid',
  location:
    'conversion[i].clickId, engineAccountId, customerId, campaignId, adGroupId, criterionId, adId, productGroupId',
  when: 'an update sends a click or attribution id other than the stored conversion’s',
  evidence: ['decision:0057'],
});
