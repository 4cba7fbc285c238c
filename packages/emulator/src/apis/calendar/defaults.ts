/**
 * What a new user starts with, taken from the spec's own examples rather than written here:
 * the settings of the settings.list example and the palettes of the colors.get example.
 */
import type { ApiSpec, JsonObject } from '../../core/spec.js';
import { follow, isObject, SpecError } from '../../core/spec.js';

function firstExample(spec: ApiSpec, operationId: string): JsonObject {
  const op = spec.byId.get(operationId);
  const where = `${operationId}: the ${op?.successStatus ?? '2xx'} answer's first example`;
  const response = op?.responses[String(op.successStatus)];
  const resolved =
    isObject(response) && typeof response.$ref === 'string'
      ? follow(spec.document, response.$ref, where)
      : response;
  const content =
    isObject(resolved) && isObject(resolved.content) ? resolved.content['application/json'] : undefined;
  const examples = isObject(content) && isObject(content.examples) ? Object.values(content.examples) : [];
  let example = examples[0];
  if (isObject(example) && typeof example.$ref === 'string')
    example = follow(spec.document, example.$ref, where);
  if (!isObject(example) || !isObject(example.value)) throw new SpecError(`${where} is missing`);
  return example.value;
}

export interface Defaults {
  settings: Record<string, string>;
  colors: JsonObject;
}

export function readDefaults(spec: ApiSpec): Defaults {
  const page = firstExample(spec, 'settings.list');
  const settings: Record<string, string> = {};
  for (const item of Array.isArray(page.items) ? page.items : []) {
    if (isObject(item) && typeof item.id === 'string' && typeof item.value === 'string')
      settings[item.id] = item.value;
  }
  return { settings, colors: firstExample(spec, 'colors.get') };
}
