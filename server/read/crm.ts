/**
 * crm_status of rows read by id (detail, batch): one search over the ids with the CRM marks
 * of the list query, only when the caller's org has CRM context.
 */
import type { Services } from '../context.ts';
import type { EntityDef } from '../../mappings/types.ts';
import { forbidden, type ApiError } from '../errors.ts';
import { crmMarks, crmStatusOfHit } from './query.ts';

/** 403 for crm_status without CRM context (the filter needs a CRM list to match against). */
export function noCrmContext(): ApiError {
  return forbidden("crm_status needs CRM context: this key's organization has no CRM list loaded (an operator loads one with `bintel crm import --org ORG --crm hubspot|salesforce FILE`)", 'crm_status', 'crm_context_required');
}

/** crm_status by id for rows of `index` (every id maps to an array, empty when in no CRM). */
export async function crmStatusByIds(services: Services, org: string, def: EntityDef, index: string, ids: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  const crm = await services.crm.context(org);
  if (!crm) return out;
  const res = await services.es.search({
    index,
    query: { bool: { filter: [{ ids: { values: [...ids] } }], should: crmMarks(def, crm), minimum_should_match: 0 } },
    size: ids.length,
    _source: false,
    track_total_hits: false,
  });
  for (const h of res.hits.hits) out.set(h._id as string, crmStatusOfHit(h.matched_queries));
  return out;
}
