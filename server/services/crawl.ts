/**
 * Crawl detection: a key that walks page after page (0, 1, 2, …) of one filter combination
 * is scraping, not searching. Each (key, filter fingerprint) keeps its last page and the
 * length of its run of consecutive next-page requests; a run may be `threshold` pages long,
 * the next page is refused
 * with 429 CRAWL_DETECTED until the state expires (`windowS` after the last request).
 * Changing the filters (a new fingerprint), jumping around or going back restarts the run.
 */
import type { RedisClient } from '../adapters/redis.ts';
import type { RedisKeys } from '../redis-keys.ts';
import { ApiError } from '../errors.ts';

const STEP = `
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '-1')
local run = tonumber(redis.call('HGET', KEYS[1], 'run') or '0')
local page = tonumber(ARGV[1])
if page == last + 1 then run = run + 1 elseif page ~= last then run = 1 end
redis.call('HSET', KEYS[1], 'last', page, 'run', run)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
return run
`;

export class CrawlGuard {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly threshold: number,
    private readonly windowS = 900,
  ) {
    this.redis.defineCommand('bintelCrawlStep', { numberOfKeys: 1, lua: STEP });
  }

  /** Records a page request; throws CRAWL_DETECTED when the run reaches the threshold. */
  async check(keyId: string, fingerprint: string, page: number): Promise<void> {
    const run = (this.redis as unknown as { bintelCrawlStep: (...a: (string | number)[]) => Promise<number> }).bintelCrawlStep;
    const streak = await run.call(this.redis, this.keys.crawl(keyId, fingerprint), page, this.windowS);
    if (streak > this.threshold) {
      throw new ApiError(
        'CRAWL_DETECTED',
        `${streak} consecutive pages of the same filters were requested; narrow the filters or use the CSV export`,
        [{ field: 'page', issue: 'sequential_page_walking' }],
      ).withHeaders({ 'Retry-After': String(this.windowS) });
    }
  }
}
