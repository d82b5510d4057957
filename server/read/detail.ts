/**
 * GET /v1/{resource}/{id}: one record, as the composition of the read pipeline's steps:
 *
 *   parse (shape and side) → authorize (authorize.ts) → caller context (decorate.ts) → fetch by id
 *   (fetch.ts) → decorate → price + debit (charge.ts)
 *
 * A HEAD request runs the same steps to the fetch and answers no row and no charge.
 */
import type { Services } from '../context.ts';
import type { AuthState } from '../access.ts';
import { notFound, type ErrorDetail } from '../errors.ts';
import type { EntityDef } from '../../mappings/types.ts';
import { authorizeShape, tierMeta } from './authorize.ts';
import { chargeRows, deliveryOf } from './charge.ts';
import { callerContext, decorate } from './decorate.ts';
import { fetchByIds } from './fetch.ts';
import type { ReadResult } from './list.ts';
import { checkFieldNames } from './projection.ts';
import { ID_RE, SHAPE_PARAMS, one, readShape, readSide, sideParams, throwProblems, type RawQuery } from './request.ts';

/** The allowlist of GET /v1/{resource}/{id}: shape and side. */
export const detailParams = (def: EntityDef): string[] => [...SHAPE_PARAMS, ...sideParams(def)];

/** Parse step of the detail endpoint: shape and side. */
function parseDetail(def: EntityDef, q: RawQuery) {
  const problems: ErrorDetail[] = [];
  const shape = readShape(q, problems);
  if (shape.fields) checkFieldNames(def, shape.fields, problems);
  const side = readSide(def, def.side ? one(q, def.side.param) : undefined, problems);
  throwProblems(problems);
  return { shape, side };
}

/** The record `id` of `def` (null: the path named none; 404 like an unknown id, after the query's 400). */
export async function readDetail(services: Services, auth: AuthState, def: EntityDef, q: RawQuery, id: string | null): Promise<ReadResult> {
  const { shape, side } = parseDetail(def, q);
  const grant = authorizeShape(def, auth.key, shape);
  if (id === null || !ID_RE.test(id)) throw notFound(def.label, 'id');
  const caller = await callerContext(services, auth, { def, rows: grant.projection });
  const hits = await fetchByIds(services, auth, { def, ids: [id], side, caller });
  if (!hits.length) throw notFound(def.label, 'id');
  // HEAD: the status and headers, no row (nor its length) and no charge.
  if (auth.headOnly) return { data: {}, meta: { credits_charged: 0, ...tierMeta(grant) } };
  const [row] = await decorate(services, auth, { def, projection: grant.projection, format: shape.format }, hits);
  const charge = await chargeRows(services, { auth, def, tier: grant.projection.tier, rows: 1, delivery: deliveryOf(hits) });
  return { data: row, meta: { credits_charged: charge.credits, cache_hit: charge.cacheHit, ...tierMeta(grant) } };
}
