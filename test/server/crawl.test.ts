import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../core/config.ts';
import { createRedis } from '../../core/adapters/redis.ts';
import { redisKeys } from '../../core/names.ts';
import { CrawlGuard } from '../../server/services/crawl.ts';
import { ApiError } from '../../server/errors.ts';
import { assertError, loadFixtures, startHarness, withOrg } from './harness.ts';

const config = loadConfig();
const redis = createRedis(config);
const guard = new CrawlGuard(redis, redisKeys(config.namespace), 5, 60);

async function walk(key: string, fp: string, pages: number[]): Promise<number | null> {
  for (const p of pages) {
    try {
      await guard.check(guard.step('org-crawl', key, fp, p));
    } catch (err) {
      assert.instance(err, ApiError);
      assert.is((err as ApiError).code, 'CRAWL_DETECTED');
      assert.is((err as ApiError).status, 429);
      return p;
    }
  }
  return null;
}

test.before(() => redis.connect());
test.after(() => redis.disconnect());

test('a walk of pages 0,1,2,... of one filter set may be threshold pages long, then it is stopped', async () => {
  const key = randomUUID();
  assert.is(await walk(key, 'fp', [0, 1, 2, 3, 4, 5, 6, 7]), 5);
});

test('browsing is not crawling: repeats, jumps, going back and new filters restart the run', async () => {
  const key = randomUUID();
  assert.is(await walk(key, 'fp', [0, 1, 2, 3, 3, 7, 8, 9, 10, 2, 3, 4, 5, 0]), null);
  assert.is(await walk(key, 'a', [0, 1, 2, 3]), null);
  assert.is(await walk(key, 'b', [0, 1, 2, 3]), null);
});

test('runs are per key', async () => {
  const [k1, k2] = [randomUUID(), randomUUID()];
  assert.is(await walk(k1, 'fp', [0, 1, 2, 3]), null);
  assert.is(await walk(k2, 'fp', [0, 1, 2, 3]), null);
  assert.is(await walk(k1, 'fp', [4, 5]), 5);
});

test('over HTTP: the page after the threshold is 429 CRAWL_DETECTED with Retry-After, and costs nothing', async () => {
  const h = await startHarness({ BINTEL_CRAWL_THRESHOLD: '1' });
  const cleanup = await loadFixtures(h);
  try {
    const { org, secret, key } = await withOrg(h, { milli: 10_000 });
    const get = (path: string) => h.call('GET', path, { secret });
    const first = await get('/v1/companies?page_size=1&page=0');
    assert.is(first.status, 200, JSON.stringify(first.body));
    assert.is(first.body.meta.returned, 1);
    assert.is(first.body.meta.has_more, true);
    const before = await h.running.services.credits.balance(org);
    assert.is(before, 10_000 - 250);
    // Page 1 has a row: its crawl step and its debit are one script, and the debit does not happen.
    const refused = await get('/v1/companies?page_size=1&page=1');
    assertError(refused, 429, 'CRAWL_DETECTED', { field: 'page', issue: 'sequential_page_walking' });
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.is(await h.running.services.credits.balance(org), before);
    assert.is((await h.running.services.credits.usage(org, key.id)).queries, 1);
    // Pages past the end cost nothing and still count: a jump restarts the run, the next page is refused.
    assert.is((await get('/v1/companies?page_size=1&page=50')).status, 200);
    assertError(await get('/v1/companies?page_size=1&page=51'), 429, 'CRAWL_DETECTED');
    // Other filters are another run.
    assert.is((await get('/v1/companies?page_size=1&page=1&states=TX')).status, 200);
  } finally {
    await cleanup();
    await h.close();
  }
});

test.run();
