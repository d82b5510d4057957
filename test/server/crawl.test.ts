import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../server/config.ts';
import { createRedis } from '../../server/adapters/redis.ts';
import { redisKeys } from '../../server/redis-keys.ts';
import { CrawlGuard } from '../../server/services/crawl.ts';
import { ApiError } from '../../server/errors.ts';

const config = loadConfig();
const redis = createRedis(config);
const guard = new CrawlGuard(redis, redisKeys(config.namespace), 5, 60);

async function walk(key: string, fp: string, pages: number[]): Promise<number | null> {
  for (const p of pages) {
    try {
      await guard.check(key, fp, p);
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

test.run();
