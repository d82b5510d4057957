/**
 * Crawl detection: a person who reads page after page of one filter combination is scraping, not
 * searching, in whatever order they ask them (a consecutive run was dodged by asking 1, 0, 3, 2,
 * …) and with whatever keys (server/services/person.ts: a user's keys and tokens share the
 * count, so more child keys give no more pages). Each (person, filter fingerprint) keeps the set of distinct pages it was served; `threshold`
 * pages are served, a new page after them is refused with 429 CRAWL_DETECTED until the state
 * expires (`windowS` after the last request, refused ones included). A page already in the set
 * is served again (it reads nothing new), and a refused page is not added, so the set holds at
 * most `threshold` members. The fingerprint is the parsed filters, search and sort
 * (read/crawl-key.ts): only other filters or another order start another count.
 *
 * A page is told apart by its first row (page × page_size), so changing page_size can neither
 * reset the count nor read new rows under a page number already counted.
 *
 * The state lives in the organization's Redis slot, so a paid page takes its crawl step and
 * its debit in one script (services/credits.ts `debit` with `crawl`); CrawlGuard.check is the
 * step alone, for pages that cost nothing.
 */
import { defineScript, type RedisClient } from '../../core/adapters/redis.ts';
import type { RedisKeys } from '../../core/names.ts';
import { ApiError } from '../errors.ts';

/**
 * The crawl step in Lua, on the state key KEYS[k] (a set of page starts) with the page's start in
 * ARGV[a], the window in ARGV[a + 1] and the threshold in ARGV[a + 2]: leaves in the local `run`
 * the distinct pages counted with this one, above the threshold when the page is refused.
 */
export function crawlStepLua(k: number, a: number): string {
  return `
local run
do
  local seen = redis.call('SCARD', KEYS[${k}])
  if redis.call('SISMEMBER', KEYS[${k}], ARGV[${a}]) == 1 then
    run = seen
  elseif seen >= tonumber(ARGV[${a + 2}]) then
    run = seen + 1
  else
    redis.call('SADD', KEYS[${k}], ARGV[${a}])
    run = seen + 1
  end
  redis.call('EXPIRE', KEYS[${k}], tonumber(ARGV[${a + 1}]))
end
`;
}

/** The step alone (CrawlGuard.check). KEYS: the state. ARGV: the page's start, the window, the threshold. The distinct pages counted with this one. */
const STEP = defineScript<number, [start: number, windowS: number, threshold: number]>({ name: 'crawl:step', keys: 1, lua: `${crawlStepLua(1, 1)}\nreturn run` });

/** What a paid page passes to the debit so both happen in one step. */
export interface CrawlStep {
  key: string;
  /** The page's first row (page × page_size): what tells pages apart. */
  start: number;
  windowS: number;
  threshold: number;
}

/** The 429 for a refused page. */
export function crawlDetected(pages: number, windowS: number): ApiError {
  return new ApiError(
    'CRAWL_DETECTED',
    `${pages} distinct pages of the same filters and order were requested within ${windowS} s; narrow the filters, or continue after Retry-After seconds`,
    [{ field: 'page', issue: 'sequential_page_walking' }],
  ).withHeaders({ 'Retry-After': String(windowS) });
}

export class CrawlGuard {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly threshold: number,
    private readonly windowS = 900,
  ) {}

  /** The step of one page request of a person (`start`: its first row), for the debit script to take (see services/credits.ts). */
  step(org: string, person: string, fingerprint: string, start: number): CrawlStep {
    return { key: this.keys.crawl(org, person, fingerprint), start, windowS: this.windowS, threshold: this.threshold };
  }

  /** Takes a page's step on its own (pages that cost nothing); throws CRAWL_DETECTED past the threshold. */
  async check(step: CrawlStep): Promise<void> {
    const pages = await STEP.run(this.redis, [step.key], [step.start, step.windowS, step.threshold]);
    if (pages > step.threshold) throw crawlDetected(pages, step.windowS);
  }
}
