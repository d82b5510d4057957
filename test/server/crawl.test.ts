// @test-lock redis-cluster: starts a Redis Cluster of its own (test/runner/plan.ts)
/**
 * Crawl detection: a key may see `threshold` distinct pages of one filter fingerprint in the
 * window, in any order; the next new page is 429 CRAWL_DETECTED. The fingerprint is the parsed
 * filters, search and sort: no-op spellings share it, other filters do not.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { entity } from '../../mappings/index.ts';
import { parseListRequest } from '../../server/read/list-request.ts';
import { crawlKey } from '../../server/read/crawl-key.ts';
import { loadConfig } from '../../core/config.ts';
import { createRedis } from '../../core/adapters/redis.ts';
import { redisKeys } from '../../core/names.ts';
import { CrawlGuard } from '../../server/services/crawl.ts';
import { CreditService } from '../../server/services/credits.ts';
import { startRedisCluster } from '../helpers/redis-cluster.ts';
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

test('order does not matter: swapped pairs (1, 0, 3, 2, 5, 4) are stopped at the same page count as 0, 1, 2, ...', async () => {
  assert.is(await walk(randomUUID(), 'fp', [1, 0, 3, 2, 5, 4, 7, 6]), 4, 'the 6th distinct page (page 4) is refused');
  assert.is(await walk(randomUUID(), 'fp', [9, 2, 40, 7, 0, 13]), 13, 'jumps count too');
});

test('a page seen again costs no count, before and after detection; other filters are another count', async () => {
  const key = randomUUID();
  assert.is(await walk(key, 'fp', [0, 1, 2, 2, 2, 1, 0, 3, 4, 0, 4]), null, 'five distinct pages');
  assert.is(await walk(key, 'fp', [5]), 5);
  assert.is(await walk(key, 'fp', [4, 3, 2, 1, 0]), null, 'pages already counted are still served');
  assert.is(await walk(key, 'fp', [6]), 6, 'a new page is not');
  assert.is(await walk(key, 'a', [0, 1, 2, 3, 4]), null);
  assert.is(await walk(key, 'b', [4, 3, 2, 1, 0]), null);
});

test('property: over any order of pages (repeats included), a page is refused exactly when it is new and threshold distinct pages were already served', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 16 }), async (pages) => {
      const key = randomUUID();
      const served = new Set<number>();
      for (const p of pages) {
        const refused = (await walk(key, 'fp', [p])) !== null;
        const expected = !served.has(p) && served.size >= 5;
        assert.is(refused, expected, `page ${p} after ${[...served].join(',')} (sequence ${pages.join(',')})`);
        if (!refused) served.add(p);
      }
    }),
    { numRuns: 60 },
  );
});

test('on a Redis Cluster: paid pages (crawl step and debit in one script) and free pages share one count; a refused page is not charged', async () => {
  const cluster = await startRedisCluster(3);
  const client = createRedis({ ...config, redisClusterNodes: cluster.nodes });
  try {
    await client.connect();
    const rk = redisKeys(config.namespace);
    const onCluster = new CrawlGuard(client, rk, 5, 60);
    const credits = new CreditService(client, rk);
    const org = `org-${randomUUID()}`;
    await credits.grant(org, 1_000);
    const day = new Date().toISOString().slice(0, 10);
    const outcomes: string[] = [];
    for (const [i, page] of [1, 0, 3, 2, 5, 4, 7, 6].entries()) {
      const step = onCluster.step(org, 'key_1', 'fp', page);
      if (i % 2) {
        const res = await credits.debit({ org, keyId: 'key_1', person: 'u:dTE', milli: 10, rows: 1, dailyRows: 1, dailyCap: 1_000, day }, step);
        outcomes.push(res.outcome);
      } else {
        outcomes.push(await onCluster.check(step).then(() => 'free', (err: ApiError) => err.code));
      }
    }
    assert.equal(outcomes, ['free', 'charged', 'free', 'charged', 'free', 'crawl', 'CRAWL_DETECTED', 'crawl']);
    assert.is(await credits.balance(org), 1_000 - 2 * 10, 'two paid pages charged, the refused ones not');
  } finally {
    client.disconnect();
    await cluster.stop();
  }
});

const companies = entity('companies');
const keyOf = (q: string) => crawlKey(parseListRequest(companies, Object.fromEntries(new URLSearchParams(q))));

test('the fingerprint is the parsed filters, search and sort: no-op spellings share it', () => {
  const base = keyOf('states=TX,CA&signals=new_filer');
  for (const q of [
    'states=TX,CA&signals=new_filer&include_count=1',
    'states=tx,ca&signals=new_filer&include_count=true&signal_match=any',
    'states=CA,TX&signals=new_filer&signal_match=all',
    'states=TX,CA&signals=new_filer,new_filer&page=3&page_size=50&fields=company_name&mode=full&format=flat',
    'signals=new_filer&states=TX,CA&sort_by=company_name&sort_dir=asc&include_count=false',
    'states=TX,CA&signals=new_filer&cursor=abc&explain=false',
  ]) assert.is(keyOf(q), base, q);
  assert.is(keyOf('cf[participants]=gte:10,gte:5,lt:100'), keyOf('cf[participants]=lt:100,gte:10'), 'the tightest bounds');
  assert.is(keyOf('signals=broker_change&signal_match=all'), keyOf('signals=broker_change'), 'one signal: any is all');
  assert.is(keyOf('search=acme&sort_dir=desc'), keyOf('search=acme'), 'relevance order has no direction');
  assert.is(keyOf('cf[participants]=gte:10,lte:100'), keyOf('cf[participants]=lte:100,gte:10'));
});

test('bounds the field cannot fail and the case and spacing of search are no new fingerprint', () => {
  // total_number_of_employees is a whole number, never negative: every bound at or under 0 asks only for a value.
  const employees = ['gte:-1', 'gte:-2', 'gte:-1000000', 'gt:-1', 'gte:0', 'gte:-0.5', 'gt:-0.5', 'gte:-2,gte:-1'].map((b) => keyOf(`states=TX&cf[total_number_of_employees]=${b}`));
  assert.is(new Set(employees).size, 1, employees.join('\n'));
  assert.is(employees[0], keyOf('states=TX&eb[total_number_of_employees]=true'), 'as eb asks');
  assert.is(keyOf('cf[total_number_of_employees]=gt:5'), keyOf('cf[total_number_of_employees]=gte:6'), 'whole numbers: gt:5 is gte:6');
  assert.is(keyOf('cf[total_number_of_employees]=lt:10.5'), keyOf('cf[total_number_of_employees]=lte:10'));
  assert.is(keyOf('cf[total_number_of_employees]=gte:-3,lte:100'), keyOf('cf[total_number_of_employees]=lte:100'), 'the vacuous side alone goes');
  assert.is(keyOf('cf[participant_growth]=gte:-100'), keyOf('cf[participant_growth]=gte:-250'), 'percent: nothing is under -100%');
  assert.is(keyOf('cf[participant_growth]=lte:100000'), keyOf('cf[participant_growth]=lte:200000'), 'nor over the maximum');
  assert.is(keyOf('cf[total_number_of_employees]=lt:0'), keyOf('cf[total_number_of_employees]=lt:-5'), 'no row passes either');
  for (const q of ['search=ACME', 'search=%20acme%20', 'search=Acme', 'search=acme%20%20']) assert.is(keyOf(q), keyOf('search=acme'), q);
  assert.is(keyOf('search=Acme%20%20Corp'), keyOf('search=acme%20corp'));
  // Bounds that do exclude rows stay apart.
  const apart = ['', 'cf[total_number_of_employees]=gte:1', 'cf[total_number_of_employees]=gt:0.5,lte:10', 'cf[total_number_of_employees]=gte:-1', 'cf[participant_growth]=gte:-99.5', 'cf[participant_growth]=gt:-100', 'search=acme', 'search=acme%20corp'].map(keyOf);
  assert.is(new Set(apart).size, apart.length, apart.join('\n'));
});

test('other filters, search or order are another fingerprint', () => {
  const keys = [
    '',
    'states=TX',
    'states=TX,CA',
    'states=TX&dmas=Dallas-Ft. Worth&geo_mode=dma',
    'signals=new_filer,broker_change',
    'signals=new_filer,broker_change&signal_match=all',
    'search=acme',
    'search=acme&sort_by=company_name',
    'sort_by=participants',
    'sort_by=participants&sort_dir=desc',
    'cf[participants]=gte:10',
    'cf[participants]=gt:10',
    'cf[participants]=10',
    'eb[website]=true',
    'tags=vip',
    'crm_status=in_hubspot',
  ].map(keyOf);
  assert.is(new Set(keys).size, keys.length, keys.join('\n'));
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
    // The page already counted is served again; pages past the end cost nothing and count too.
    assert.is((await get('/v1/companies?page_size=1&page=0&include_count=1')).status, 200);
    assertError(await get('/v1/companies?page_size=1&page=50'), 429, 'CRAWL_DETECTED');
    // Other filters are another count.
    assert.is((await get('/v1/companies?page_size=1&page=1&states=TX')).status, 200);
  } finally {
    await cleanup();
    await h.close();
  }
});

test('over HTTP: swapped pairs and no-op spellings are stopped at the same page as an in-order walk', async () => {
  const h = await startHarness({ BINTEL_CRAWL_THRESHOLD: '3' });
  const cleanup = await loadFixtures(h);
  try {
    const walkHttp = async (paths: string[]): Promise<number> => {
      const { secret } = await withOrg(h, { milli: 100_000 });
      for (const [i, path] of paths.entries()) {
        const res = await h.call('GET', path, { secret });
        if (res.status === 429) {
          assertError(res, 429, 'CRAWL_DETECTED', { field: 'page' });
          return i + 1;
        }
        assert.is(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
      }
      return 0;
    };
    const pages = (order: number[], spell: (i: number) => string = () => '') => order.map((p, i) => `/v1/companies?page_size=1&page=${p}${spell(i)}`);
    assert.is(await walkHttp(pages([0, 1, 2, 3, 4, 5])), 4, 'in order: the 4th call');
    assert.is(await walkHttp(pages([1, 0, 3, 2, 5, 4])), 4, 'swapped pairs: the 4th call too');
    const spellings = ['&include_count=1', '&include_count=true&signal_match=any', '&fields=company_name&format=json', '&mode=basic&include_count=false'];
    assert.is(await walkHttp(pages([0, 1, 2, 3], (i) => spellings[i])), 4, 'no-op spellings are one fingerprint');
    assert.is(await walkHttp(pages([0, 1, 2, 3], (i) => ['', '&states=TX', '&sort_dir=desc', '&search=a'][i])), 0, 'other filters are not');
    // A page is told apart by its first row: page 1 at sizes 1, 2, 3, 4 reads rows 1, 2-3, 3-5, 4-7.
    assert.is(await walkHttp([1, 2, 3, 4].map((size) => `/v1/companies?page=1&page_size=${size}`)), 4, 'page_size does not dodge the count');
    const firstRows = ['page=2&page_size=1', 'page=1&page_size=2', 'page=0&page_size=4', 'page=2&page_size=2', 'page=4&page_size=1', 'page=1&page_size=4'];
    assert.is(await walkHttp(firstRows.map((q) => `/v1/companies?${q}`)), 0, 'three first rows (2, 0, 4): the same first row is the same page');
  } finally {
    await cleanup();
    await h.close();
  }
});

test.run();
