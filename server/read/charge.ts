/**
 * Step 6 of the read pipeline, price and debit: per-row price at the response tier plus requested
 * signals, one atomic debit that also enforces the daily row cap of the key's user (services/person.ts) (or, for a dry run, the
 * estimate of what the call would cost). Test keys read the sandbox and pay nothing.
 *
 * Cache hits: a read names what it delivers (the rows' ids and the concrete index they came
 * from). An organization that paid for the same delivery (same rows, order, tier and signals,
 * same data load) within `cacheTtlS` seconds pays nothing again; the rows still count toward
 * the daily cap of the key's user. A reload of the data, another page, tier or signal is a new delivery.
 */
import { utcDay } from '../../core/clock.ts';
import { createHash } from 'node:crypto';
import type { Services } from '../context.ts';
import type { AuthState } from '../access.ts';
import { rowPrice, toCredits } from '../pricing.ts';
import { crawlDetected, type CrawlStep } from '../services/crawl.ts';
import { personOf } from '../services/person.ts';
import { debitRefused } from '../services/credits.ts';
import type { EntityDef, Tier } from '../../mappings/types.ts';

export interface Charge {
  milli: number;
  credits: number;
  /** The UTC day the rows counted toward (a refund gives them back on that day's counter). */
  day?: string;
  /** Free because the organization already paid for this delivery (see above). */
  cacheHit: boolean;
}

/** What a read delivers: the concrete index its rows came from and their ids, in order. */
export interface Delivery {
  generation: string;
  ids: readonly string[];
}

/** The delivery of some hits: their concrete index and ids. */
export const deliveryOf = (hits: readonly { _index: string; _id?: string | null }[]): Delivery => ({ generation: hits[0]?._index ?? '', ids: hits.map((h) => String(h._id)) });

/** What is charged: `rows` rows of `def` at `tier`, with `signals`. */
export interface ChargeRequest {
  auth: AuthState;
  def: EntityDef;
  tier: Tier;
  rows: number;
  signals?: readonly string[];
  /** A list page's crawl step, taken in the same Redis script as the debit. */
  crawl?: CrawlStep;
  /** What the rows are (for cache hits). */
  delivery?: Delivery;
  /** A flat price per row in milli-credits, in place of the entity's tier price and signals (lookalikes: 1 credit a result). */
  unitMilli?: number;
}

/** The price of one row of a charge: the flat unit when given, else the tier price plus signals. */
const priceOf = (c: Pick<ChargeRequest, 'def' | 'tier' | 'signals' | 'unitMilli'>) => (c.unitMilli !== undefined ? { base: c.unitMilli, signals: 0 } : rowPrice(c.def, c.tier, c.signals));

function receiptId(c: ChargeRequest, d: Delivery): string {
  const h = createHash('sha1').update(`${c.def.name}|${c.tier}|${[...(c.signals ?? [])].sort().join(',')}|${c.unitMilli ?? ''}|${d.generation}|`);
  for (const id of d.ids) h.update(id).update(',');
  return h.digest('base64url');
}

/**
 * Charges the rows or throws 402 INSUFFICIENT_CREDITS / 429 DAILY_CAP_EXCEEDED (nothing
 * charged); a list page whose crawl step continues a crawl is 429 CRAWL_DETECTED, nothing charged.
 */
export async function chargeRows(services: Services, c: ChargeRequest): Promise<Charge> {
  const { auth, crawl } = c;
  if (auth.sandbox || auth.headOnly || c.rows === 0) {
    if (crawl) await services.crawl.check(crawl);
    return { milli: 0, credits: 0, cacheHit: false };
  }
  const price = priceOf(c);
  const milli = c.rows * (price.base + price.signals);
  const day = utcDay();
  const ttlS = services.config.cacheTtlS;
  const receipt = c.delivery && ttlS > 0 ? { key: services.rk.paid(auth.key.org, receiptId(c, c.delivery)), ttlS } : undefined;
  const res = await services.credits.debit({ org: auth.key.org, keyId: auth.key.id, person: personOf(auth.key), milli, rows: c.rows, dailyRows: c.rows, dailyCap: services.config.dailyRowCap, day, budget: auth.key.budget }, crawl, receipt);
  if (res.outcome === 'crawl') throw crawlDetected(res.run, crawl?.windowS ?? 0);
  if (res.outcome !== 'charged') throw debitRefused(res.outcome, { what: 'This call costs', milli, balance: res.balance, key: auth.key, field: 'page_size', cap: services.config.dailyRowCap, day });
  return res.cacheHit ? { milli: 0, credits: 0, cacheHit: true, day } : { milli, credits: toCredits(milli), cacheHit: false, day };
}

/**
 * Gives back `rows` rows of a charge (charged, not delivered) at the same price, in one Redis
 * script: pool, the key's usage and budget spend of the charge's day, and its daily rows.
 * Returns the milli-credits given back.
 */
export async function refundRows(services: Services, c: Omit<ChargeRequest, 'crawl' | 'delivery'> & { charge: Charge }): Promise<number> {
  if (!c.charge.milli || !c.charge.day || c.rows <= 0) return 0;
  const price = priceOf(c);
  const milli = Math.min(c.charge.milli, c.rows * (price.base + price.signals));
  await services.credits.refund({ org: c.auth.key.org, keyId: c.auth.key.id, person: personOf(c.auth.key), milli, rows: c.rows, day: c.charge.day });
  return milli;
}

/** What `rows` rows of a charge cost, in milli-credits (a reservation's amount), charging nothing. */
export const chargeMilli = (c: Pick<ChargeRequest, 'def' | 'tier' | 'signals' | 'unitMilli' | 'rows'>): number => {
  const price = priceOf(c);
  return c.rows * (price.base + price.signals);
};

/** The meta of a dry run: what the same call would charge for `rows` rows (test keys: nothing), charging nothing. */
export function estimate(c: Omit<ChargeRequest, 'crawl' | 'delivery'>): Record<string, unknown> {
  const price = priceOf(c);
  const [base, signal] = c.auth.sandbox ? [0, 0] : [c.rows * price.base, c.rows * price.signals];
  return { dry_run: true, estimated_rows: c.rows, base_credits: toCredits(base), signal_credits: toCredits(signal), estimated_credits: toCredits(base + signal), credits_charged: 0, phase: 'internal-phase-1' };
}
