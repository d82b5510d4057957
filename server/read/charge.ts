/**
 * Charging a read: per-row price at the response tier plus requested signals, one atomic
 * debit that also enforces the key's daily row cap. Test keys read the sandbox and pay nothing.
 */
import type { Services } from '../context.ts';
import type { AuthState } from '../middleware/auth.ts';
import { ApiError } from '../errors.ts';
import { rowPrice, toCredits } from '../pricing.ts';
import { crawlDetected, type CrawlStep } from '../services/crawl.ts';
import type { EntityName, Tier } from '../../mappings/types.ts';

export interface Charge {
  milli: number;
  credits: number;
}

/**
 * Charges `rows` rows or throws 402 INSUFFICIENT_CREDITS / 429 DAILY_CAP_EXCEEDED (nothing
 * charged). A list page passes its crawl step, taken in the same Redis script as the debit
 * (429 CRAWL_DETECTED, nothing charged, when the page continues a crawl).
 */
export async function chargeRows(services: Services, auth: AuthState, resource: EntityName, tier: Tier, rows: number, signals: readonly string[] = [], crawl?: CrawlStep): Promise<Charge> {
  if (auth.sandbox || rows === 0) {
    if (crawl) await services.crawl.check(crawl);
    return { milli: 0, credits: 0 };
  }
  const price = rowPrice(resource, tier, signals);
  const milli = rows * (price.base + price.signals);
  const day = new Date().toISOString().slice(0, 10);
  const res = await services.credits.debit({ org: auth.key.org, keyId: auth.key.id, milli, rows, dailyRows: rows, dailyCap: services.config.dailyRowCap, day }, crawl);
  if (res.outcome === 'crawl') throw crawlDetected(res.run, crawl?.windowS ?? 0);
  if (res.outcome === 'insufficient') {
    throw new ApiError('INSUFFICIENT_CREDITS', `This call costs ${toCredits(milli)} credits; the organization has ${toCredits(res.balance)}`, [{ field: 'credits', issue: 'insufficient_credits', expected: toCredits(milli) }]);
  }
  if (res.outcome === 'daily_cap') {
    const reset = new Date(`${day}T00:00:00Z`).getTime() + 86_400_000;
    throw new ApiError('DAILY_CAP_EXCEEDED', `The daily cap of ${services.config.dailyRowCap} rows for this key would be passed`, [{ field: 'page_size', issue: 'daily_row_cap' }]).withHeaders({ 'Retry-After': String(Math.ceil((reset - Date.now()) / 1000)) });
  }
  return { milli, credits: toCredits(milli) };
}
