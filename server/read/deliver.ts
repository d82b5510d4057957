/**
 * Steps 6 and 7 for reads that deliver a known set of rows (lookups, batches): a dry run answers
 * the estimate with no data, in the shape the real call would have; a real call charges the rows
 * delivered and answers them. `extra` is the endpoint's own meta (matches, requested, not_found).
 */
import type { Services } from '../context.ts';
import type { AuthState } from '../access.ts';
import type { EntityDef } from '../../mappings/types.ts';
import { tierMeta, type Grant } from './authorize.ts';
import { chargeRows, deliveryOf, estimate } from './charge.ts';
import type { Hit } from './decorate.ts';
import type { ReadResult } from './list.ts';

export interface Delivered {
  def: EntityDef;
  grant: Grant;
  dryRun: boolean;
  /** The response data (rows, or rows grouped by input). */
  data: unknown;
  /** The hits behind the data, in order: what is charged. */
  hits: readonly Hit[];
  /** A dry run's rows, counted without fetching them (default: the hits). */
  rows?: number;
  extra?: Record<string, unknown>;
}

export async function deliver(services: Services, auth: AuthState, d: Delivered): Promise<ReadResult> {
  const tier = d.grant.projection.tier;
  // HEAD answers as the dry run: the status and headers of the call, no rows, nothing charged.
  if (d.dryRun || auth.headOnly) {
    const rows = d.rows ?? d.hits.length;
    return { data: Array.isArray(d.data) ? [] : {}, meta: { ...estimate({ auth, def: d.def, tier, rows }), ...tierMeta(d.grant), ...d.extra } };
  }
  const rows = d.hits.length;
  const charge = await chargeRows(services, { auth, def: d.def, tier, rows, delivery: deliveryOf(d.hits) });
  return { data: d.data, meta: { ...tierMeta(d.grant), returned: rows, credits_charged: charge.credits, cache_hit: charge.cacheHit, ...d.extra } };
}
