/**
 * Step 5 of the read pipeline: rows for the caller. What the query needs to know about the caller
 * (`callerContext`: the ids their tags select, their organization's CRM context) and the
 * per-caller members of each row (`decorate`: crm_status from the hit's named CRM clauses, tags
 * from Redis), declared by the entity (`callerMembers`); then every row is shaped by the projection.
 */
import type { Services } from '../context.ts';
import type { AuthState } from '../access.ts';
import type { Doc, EntityDef } from '../../mappings/types.ts';
import { forbidden, type ApiError } from '../errors.ts';
import { normalizeTag, scopeOf } from '../services/tags.ts';
import type { CrmStatus } from '../services/crm.ts';
import { crmStatusOfHit, type QueryContext } from './query.ts';
import { flattenRow, shapeRow, type Projection } from './projection.ts';
import type { Format } from './request.ts';

/** A search hit as the fetch step returns it. */
export interface Hit {
  _id?: string | null;
  _index: string;
  _source?: Doc;
  matched_queries?: unknown;
  sort?: unknown[];
}

/** 403 for crm_status without CRM context (the filter needs a CRM list to match against). */
export function noCrmContext(): ApiError {
  return forbidden("crm_status needs CRM context: this key's organization has no CRM list loaded (an operator loads one with `bintel crm import --org ORG --crm hubspot|salesforce FILE`)", 'crm_status', 'crm_context_required');
}

const carries = (def: EntityDef, member: 'crm_status' | 'tags'): boolean => (def.callerMembers ?? []).includes(member);

/**
 * What the query of a read needs from Redis, in one auto-pipelined batch: the ids of the caller's
 * `tags`, and the org's CRM context when `crm_status` filters or when rows carry crm_status.
 */
export async function callerContext(services: Services, auth: AuthState, opts: { def: EntityDef; /** Rows are delivered with this projection (null: no rows, a count or dry run). */ rows: Projection | null; tags?: readonly string[]; crmStatus?: readonly CrmStatus[] }): Promise<QueryContext> {
  const { def, rows } = opts;
  const tags = opts.tags ?? [];
  const filtersByCrm = (opts.crmStatus ?? []).length > 0;
  const marks = rows !== null && rows.crmStatus && carries(def, 'crm_status');
  const [taggedIds, crm] = await Promise.all([
    tags.length ? services.tags.entityIdsWithAllTags(scopeOf(auth.key), def.name, tags.map((t) => normalizeTag(t, 'tags'))) : null,
    filtersByCrm || marks ? (auth.crm ?? services.crm.context(auth.key.org)) : null,
  ]);
  if (filtersByCrm && !crm) throw noCrmContext();
  return { taggedIds, crm, crmMarks: marks };
}

/** How rows are shaped: the projection and the format. */
export interface RowShape {
  def: EntityDef;
  projection: Projection;
  format: Format;
}

/** Every hit as a row for the caller: projected fields, lead_source, per-caller members, in the format asked. */
export async function decorate(services: Services, auth: AuthState, shape: RowShape, hits: readonly Hit[]): Promise<Record<string, unknown>[]> {
  const { def, projection } = shape;
  const tagsOf = projection.tags && hits.length ? await services.tags.namesOfMany(scopeOf(auth.key), def.name, hits.map((h) => String(h._id))) : null;
  const crm = projection.crmStatus;
  const now = new Date().toISOString();
  return hits.map((h) => {
    const doc = h._source ?? {};
    const extra = crm || tagsOf ? { ...(crm ? { crm_status: crmStatusOfHit(h.matched_queries) } : {}), ...(tagsOf ? { tags: tagsOf.get(String(h._id)) ?? [] } : {}) } : undefined;
    const row = shapeRow(doc, projection.fields, { source: projection.leadSource ? def.leadSource(doc) : undefined, retrievedAt: now, extra });
    return shape.format === 'flat' ? flattenRow(row) : row;
  });
}

/** The fields a search must return for rows of this projection (and what lead_source reads). */
export const sourceFields = (def: EntityDef, projection: Projection): string[] => [...projection.fields.map((f) => f.name), 'filing_year', 'source_record', ...(def.side ? [def.side.field] : [])];
