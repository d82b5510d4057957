/**
 * Redis faults on one node, from outside, on a redis-server this suite starts (append-only file,
 * fsync always; never the shared one): a hung Redis answers 503 within the command deadline and
 * charges nothing; a Redis killed and restarted loses no credit, key or tag that was
 * acknowledged, and the service recovers by itself.
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
import { pollUntil } from '../helpers/env.ts';

const t = suite('redis faults');
let h: Harness;
let data: DataFiles | undefined;
let dir = '';
let port = 0;
let server: ChildProcess | null = null;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const p = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return p;
}

async function startRedis(): Promise<void> {
  server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--dir', dir, '--enable-debug-command', 'yes'], { stdio: 'ignore' });
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

async function killRedis(): Promise<void> {
  const p = server;
  server = null;
  if (!p) return;
  await new Promise<void>((r) => {
    p.once('exit', () => r());
    p.kill('SIGKILL');
  });
}

t.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bintel-redis-faults-'));
  port = await freePort();
  await startRedis();
  h = await startHarness({ REDIS_URL: `redis://127.0.0.1:${port}`, BINTEL_CACHE_TTL_S: '0' });
  data = await loadGenerated(h, { companies: 80, personnel: 20, brokerOffices: 6, brokers: 2, seed: 71 });
});
t.after(async () => {
  await h?.close().catch(() => {});
  await data?.cleanup();
  await killRedis();
  await rm(dir, { recursive: true, force: true });
});

t('a hung Redis: 503 within the command deadline, nothing charged; then it answers again', async () => {
  const { org, secret } = await withOrg(h, { milli: 1_000_000 });
  assert.is((await h.call('GET', '/v1/companies?page_size=1', { secret })).status, 200);
  const balance = await h.running.services.credits.balance(org);
  const blocker = new Redis({ port, lazyConnect: true });
  await blocker.connect();
  const sleeping = blocker.call('DEBUG', 'SLEEP', '7').catch(() => null);
  await new Promise((r) => setTimeout(r, 100));
  const res = await h.call('GET', '/v1/companies?page_size=1&page=1', { secret });
  assertError(res, 503, 'SERVICE_UNAVAILABLE');
  await sleeping;
  blocker.disconnect();
  const after = await pollUntil(async () => {
    const r = await h.call('GET', '/v1/companies?page_size=1&page=2', { secret });
    return r.status === 200 && r;
  }, { what: 'a 200 once Redis answers again', everyMs: 100, timeoutMs: 10_000 });
  assert.is(after.status, 200);
  assert.is(await h.running.services.credits.balance(org), balance - Math.round(after.body.meta.credits_charged * 1000), 'the failed call charged nothing');
});

t('Redis killed and restarted: nothing acknowledged lost, the service recovers by itself', async () => {
  const { org, secret, key } = await withOrg(h, { milli: 5_000_000 });
  let charged = 0;
  for (let p = 0; p < 4; p++) {
    const r = await h.call('GET', `/v1/companies?page_size=3&page=${p}`, { secret });
    assert.is(r.status, 200);
    charged += Math.round(r.body.meta.credits_charged * 1000);
  }
  const row = (await h.call('GET', '/v1/companies?page_size=1', { secret })).body;
  charged += Math.round(row.meta.credits_charged * 1000);
  assert.is((await h.call('POST', '/v1/tags', { secret, body: { entity_type: 'companies', entity_id: row.data[0].id, tag: 'kept' } })).status, 201);
  await killRedis();
  assertError(await h.call('GET', '/v1/companies?page_size=1', { secret }), 503, 'SERVICE_UNAVAILABLE');
  await startRedis();
  const whoami = await pollUntil(async () => {
    const r = await h.call('GET', '/v1/whoami', { secret });
    return r.status === 200 && r;
  }, { what: 'the key answering after the restart', everyMs: 200, timeoutMs: 10_000 });
  assert.is(whoami.status, 200, 'the key survived');
  assert.is(whoami.body.data.key.id, key.id);
  assert.is(await h.running.services.credits.balance(org), 5_000_000 - charged, 'every acknowledged debit, nothing else');
  const tagged = await h.call('GET', '/v1/companies?tags=kept', { secret });
  assert.equal(tagged.body.data.map((r: { id: string }) => r.id), [row.data[0].id]);
});

t.run();
