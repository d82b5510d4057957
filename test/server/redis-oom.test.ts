/**
 * A full Redis (maxmemory reached, `maxmemory-policy noeviction`, as the compose Redis runs):
 * writes are refused with OOM, and the API answers 503 naming Redis with Retry-After, never a
 * 500, and charges nothing; once memory is available again the same call succeeds. On a
 * redis-server this suite starts on a free port (never the shared one).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';

const t = suite('redis out of memory');
let h: Harness;
let data: DataFiles | undefined;
let dir = '';
let port = 0;
let server: ChildProcess | null = null;
let admin: Redis;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const p = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return p;
}

async function startRedis(): Promise<void> {
  server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--appendonly', 'no', '--save', '', '--dir', dir, '--maxmemory-policy', 'noeviction'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const r = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => {});
    const up = await r.connect().then(() => r.ping()).catch(() => null);
    r.disconnect();
    if (up === 'PONG') return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('redis-server did not start');
}

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
  dir = await mkdtemp(join(tmpdir(), 'bintel-redis-oom-'));
  port = await freePort();
  await startRedis();
  admin = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0 });
  await admin.connect();
  h = await startHarness({ REDIS_URL: `redis://127.0.0.1:${port}`, BINTEL_CACHE_TTL_S: '0' });
  data = await loadGenerated(h, { companies: 40, personnel: 10, brokerOffices: 4, brokers: 2, seed: 73 });
});
t.after(async () => {
  await admin?.config('SET', 'maxmemory', '0').catch(() => {});
  await h?.close().catch(() => {});
  await data?.cleanup();
  admin?.disconnect();
  const p = server;
  if (p) await new Promise<void>((r) => { p.once('exit', () => r()); p.kill('SIGKILL'); });
  await rm(dir, { recursive: true, force: true });
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
