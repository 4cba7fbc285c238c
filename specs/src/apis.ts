/** Our APIs and the Discovery document of each: which document describes which spec. */
import { type DiscoveryDocument, InputError } from './discovery.js';

/** Our API ids and the Discovery name and version of each. */
export const APIS = {
  calendar: { name: 'calendar', version: 'v3' },
  searchads360: { name: 'doubleclicksearch', version: 'v2' },
} as const;

export type ApiId = keyof typeof APIS;

export const isApiId = (value: unknown): value is ApiId =>
  typeof value === 'string' && Object.hasOwn(APIS, value);

/** Our API id for a Discovery document; `requested` (from `--api`) must be the one the document describes. */
export function apiFor(doc: DiscoveryDocument, requested: ApiId | undefined, where: string): ApiId {
  const ids = Object.keys(APIS) as ApiId[];
  const found = ids.find((id) => APIS[id].name === doc.name && APIS[id].version === doc.version);
  if (requested) {
    if (found !== requested)
      throw new InputError(
        `${where} describes ${doc.name} ${doc.version}, not ${APIS[requested].name} ${APIS[requested].version} as --api ${requested} says`,
      );
    return requested;
  }
  if (!found) {
    const ours = ids.map((id) => `${APIS[id].name} ${APIS[id].version} (${id})`).join(' and ');
    throw new InputError(
      `${where} describes ${doc.name} ${doc.version}; this package has specs of ${ours} only`,
    );
  }
  return found;
}
