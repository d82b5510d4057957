/**
 * Charging a read: per-row price at the response tier plus requested signals, one atomic
 * debit that also enforces the key's daily row cap. Test keys read the sandbox and pay nothing.
 *
 * Cache hits: a read names what it delivers (the rows' ids and the concrete index they came
 * from). An organization that paid for the same delivery (same rows, order, tier and signals,
 * same data load) within `cacheTtlS` seconds pays nothing again; the rows still count toward
 * the key's daily cap. A reload of the data, another page, tier or signal is a new delivery.
 */
import { createHash } from 'node:crypto';
import type { Services } from '../context.ts';
import type { AuthState } from '../middleware/auth.ts';
import { ApiError } from '../errors.ts';
import { rowPrice, toCredits } from '../pricing.ts';
import { crawlDetected, type CrawlStep } from '../services/crawl.ts';
import type { EntityName, Tier } from '../../mappings/types.ts';

export interface Charge {
  milli: number;
  credits: number;
  /** Free because the organization already paid for this delivery (see above). */
  cacheHit: boolean;
}

/** What a read delivers: the concrete index its rows came from and their ids, in order. */
export interface Delivery {
  generation: string;
  ids: readonly string[];
}

function receiptId(resource: EntityName, tier: Tier, signals: readonly string[], d: Delivery): string {
  const h = createHash('sha1').update(`${resource}|${tier}|${[...signals].sort().join(',')}|${d.generation}|`);
  for (const id of d.ids) h.update(id).update(',');
  return h.digest('base64url');
}

/**
 * Charges `rows` rows or throws 402 INSUFFICIENT_CREDITS / 429 DAILY_CAP_EXCEEDED (nothing
 * charged). A list page passes its crawl step, taken in the same Redis script as the debit
 * (429 CRAWL_DETECTED, nothing charged, when the page continues a crawl).
 */
export async function chargeRows(services: Services, auth: AuthState, resource: EntityName, tier: Tier, rows: number, signals: readonly string[] = [], crawl?: CrawlStep, delivery?: Delivery): Promise<Charge> {
  if (auth.sandbox || auth.headOnly || rows === 0) {
    if (crawl) await services.crawl.check(crawl);
    return { milli: 0, credits: 0, cacheHit: false };
  }
  const price = rowPrice(resource, tier, signals);
  const milli = rows * (price.base + price.signals);
  const day = new Date().toISOString().slice(0, 10);
  const ttlS = services.config.cacheTtlS;
  const receipt = delivery && ttlS > 0 ? { key: services.rk.paid(auth.key.org, receiptId(resource, tier, signals, delivery)), ttlS } : undefined;
  const res = await services.credits.debit({ org: auth.key.org, keyId: auth.key.id, milli, rows, dailyRows: rows, dailyCap: services.config.dailyRowCap, day }, crawl, receipt);
  if (res.outcome === 'crawl') throw crawlDetected(res.run, crawl?.windowS ?? 0);
  if (res.outcome === 'insufficient') {
    throw new ApiError('INSUFFICIENT_CREDITS', `This call costs ${toCredits(milli)} credits; the organization has ${toCredits(res.balance)}`, [{ field: 'credits', issue: 'insufficient_credits', expected: toCredits(milli) }]);
  }
  if (res.outcome === 'daily_cap') {
    const reset = new Date(`${day}T00:00:00Z`).getTime() + 86_400_000;
    throw new ApiError('DAILY_CAP_EXCEEDED', `The daily cap of ${services.config.dailyRowCap} rows for this key would be passed`, [{ field: 'page_size', issue: 'daily_row_cap' }]).withHeaders({ 'Retry-After': String(Math.ceil((reset - Date.now()) / 1000)) });
  }
  return res.cacheHit ? { milli: 0, credits: 0, cacheHit: true } : { milli, credits: toCredits(milli), cacheHit: false };
}
