/**
 * A full Redis (maxmemory reached, `maxmemory-policy noeviction`, as the compose Redis runs):
 * writes are refused with OOM, and the API answers 503 naming Redis with Retry-After, never a
 * 500, and charges nothing; once memory is available again the same call succeeds. On a
 * redis-server this suite starts on a free port (never the shared one).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.ts';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';

const t = suite('redis out of memory');
let h: Harness;
let data: DataFiles | undefined;
let redis: RedisServer | null = null;
let admin: Redis;

/**
 * Sets maxmemory below what is used (noeviction evicts nothing: Redis only refuses writes from
 * then on, as a Redis that filled up does); checks that a write is refused with OOM.
 */
async function fillMemory(): Promise<void> {
  const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
  await admin.config('SET', 'maxmemory', String(Math.floor(used / 2)));
  const refused = await admin.set('filler', 'x').then(() => null, (err: Error) => err);
  assert.ok(refused, 'Redis refuses a write');
  assert.match(refused!.message, /^OOM /);
}

t.before(async () => {
  redis = await startRedisServer(['--maxmemory-policy', 'noeviction']);
  admin = new Redis({ port: redis.port, lazyConnect: true, maxRetriesPerRequest: 0 });
  await admin.connect();
  h = await startHarness({ REDIS_URL: redis.url, BINTEL_CACHE_TTL_S: '0' });
  data = await loadGenerated(h, { companies: 40, personnel: 10, brokerOffices: 4, brokers: 2, seed: 73 });
});
t.after(async () => {
  await admin?.config('SET', 'maxmemory', '0').catch(() => {});
  await h?.close().catch(() => {});
  await data?.cleanup();
  admin?.disconnect();
  await redis?.stop();
});

t('Redis refusing writes (OOM): a clear 503 naming Redis, nothing charged; then the call succeeds', async () => {
  const { org, secret } = await withOrg(h, { milli: 1_000_000 });
  assert.is((await h.call('GET', '/v1/companies?page_size=1', { secret })).status, 200);
  const balance = await h.running.services.credits.balance(org);
  await fillMemory();
  try {
    const read = await h.call('GET', '/v1/companies?page_size=2&page=1', { secret });
    assertError(read, 503, 'SERVICE_UNAVAILABLE');
    assert.match(read.body.error.message, /Redis/);
    assert.match(read.body.error.message, /memory/);
    assert.ok(Number(read.headers.get('retry-after')) > 0, 'Retry-After on 503');
    const tag = await h.call('POST', '/v1/tags', { secret, body: { entity_type: 'companies', entity_id: 'x', tag: 'full' } });
    assertError(tag, 503, 'SERVICE_UNAVAILABLE');
    assert.is(await h.running.services.credits.balance(org), balance, 'nothing charged while Redis refuses writes');
  } finally {
    await admin.config('SET', 'maxmemory', '0');
  }
  const after = await h.call('GET', '/v1/companies?page_size=2&page=1', { secret });
  assert.is(after.status, 200, JSON.stringify(after.body));
  assert.is(await h.running.services.credits.balance(org), balance - Math.round(after.body.meta.credits_charged * 1000));
});

t.run();
