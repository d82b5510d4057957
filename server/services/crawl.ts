/**
 * Crawl detection: a key that walks page after page (0, 1, 2, …) of one filter combination
 * is scraping, not searching. Each (key, filter fingerprint) keeps its last page and the
 * length of its run of consecutive next-page requests; a run may be `threshold` pages long,
 * the next page is refused with 429 CRAWL_DETECTED until the state expires (`windowS` after
 * the last request). Changing the filters (a new fingerprint), jumping around or going back
 * restarts the run.
 *
 * The state lives in the organization's Redis slot, so a paid page takes its crawl step and
 * its debit in one script (services/credits.ts `debit` with `crawl`); CrawlGuard.check is the
 * step alone, for pages that cost nothing.
 */
import type { RedisClient } from '../../core/adapters/redis.ts';
import type { RedisKeys } from '../../core/names.ts';
import { ApiError } from '../errors.ts';

/**
 * The crawl step in Lua, on the state key KEYS[k] with the page in ARGV[a] and the window in
 * ARGV[a + 1]: leaves the new run length in the local `run`.
 */
export function crawlStepLua(k: number, a: number): string {
  return `
local run = tonumber(redis.call('HGET', KEYS[${k}], 'run') or '0')
do
  local last = tonumber(redis.call('HGET', KEYS[${k}], 'last') or '-1')
  local page = tonumber(ARGV[${a}])
  if page == last + 1 then run = run + 1 elseif page ~= last then run = 1 end
  redis.call('HSET', KEYS[${k}], 'last', page, 'run', run)
  redis.call('EXPIRE', KEYS[${k}], tonumber(ARGV[${a + 1}]))
end
`;
}

/** What a paid page passes to the debit so both happen in one step. */
export interface CrawlStep {
  key: string;
  page: number;
  windowS: number;
  threshold: number;
}

/** The 429 for a refused page. */
export function crawlDetected(streak: number, windowS: number): ApiError {
  return new ApiError(
    'CRAWL_DETECTED',
    `${streak} consecutive pages of the same filters were requested; narrow the filters, or continue after Retry-After seconds`,
    [{ field: 'page', issue: 'sequential_page_walking' }],
  ).withHeaders({ 'Retry-After': String(windowS) });
}

export class CrawlGuard {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly threshold: number,
    private readonly windowS = 900,
  ) {
    this.redis.defineCommand('bintelCrawlStep', { numberOfKeys: 1, lua: `${crawlStepLua(1, 1)}\nreturn run` });
  }

  /** The step of one page request, for the debit script to take (see services/credits.ts). */
  step(org: string, keyId: string, fingerprint: string, page: number): CrawlStep {
    return { key: this.keys.crawl(org, keyId, fingerprint), page, windowS: this.windowS, threshold: this.threshold };
  }

  /** Takes a page's step on its own (pages that cost nothing); throws CRAWL_DETECTED past the threshold. */
  async check(step: CrawlStep): Promise<void> {
    const run = (this.redis as unknown as { bintelCrawlStep: (...a: (string | number)[]) => Promise<number> }).bintelCrawlStep;
    const streak = await run.call(this.redis, step.key, step.page, step.windowS);
    if (streak > step.threshold) throw crawlDetected(streak, step.windowS);
  }
}
