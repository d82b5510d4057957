// @test-lock redis-cluster: starts a Redis Cluster of its own (test/runner/plan.ts)
/**
 * The service on a Redis Cluster (REDIS_CLUSTER_NODES): a local three-master cluster started by
 * this suite (test/helpers/redis-cluster.ts, append-only files fsynced on every write), never the
 * shared Redis. Keys (CLI and API, rotation and revocation races across two servers), credits under 200 concurrent paid calls, tags, cursors,
 * counts, rate limits, crawl detection, background jobs (BullMQ) and feedback behave as on one
 * node; a master killed mid-run answers 503 and charges nothing while it is down, and once
 * restarted has lost nothing that was acknowledged.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from '../server/harness.ts';
import { startRedisCluster, type LocalCluster } from '../helpers/redis-cluster.ts';
import { raceRotations } from '../helpers/key-races.ts';
import { bintel as run } from '../helpers/cli.ts';

const t = suite('redis cluster');
let cluster: LocalCluster;
let h: Harness;
let data: DataFiles | undefined;

/** A command run in this process (test/helpers/cli.ts), on the cluster, in the server's namespace. */
const bintel = (...args: string[]) => run(args, { BINTEL_NAMESPACE: h.config.namespace, REDIS_CLUSTER_NODES: cluster.env });

const get = (path: string, secret: string) => h.call('GET', path, { secret });

t.before(async () => {
  cluster = await startRedisCluster(3);
  h = await startHarness({ REDIS_CLUSTER_NODES: cluster.env, BINTEL_CRAWL_THRESHOLD: '4', BINTEL_CACHE_TTL_S: '0', BINTEL_EXACT_COUNT_UP_TO: '10' });
  data = await loadGenerated(h, { companies: 400, personnel: 200, brokerOffices: 30, brokers: 8, seed: 41 });
});
t.after(async () => {
  try {
    // Bounded: a worker connection wedged by the restarted master must not hold the suite.
    await Promise.race([h?.close().catch(() => {}), new Promise((r) => setTimeout(r, 15_000).unref())]);
    await data?.cleanup();
  } finally {
    await cluster?.stop();
  }
});

t('keys: the CLI creates, lists, rotates and revokes on the cluster; the API agrees at once', async () => {
  const org = `rc-${Date.now()}`;
  const created = await bintel('keys', 'create', '--org', org, '--user', 'ops', '--json');
  assert.is(created.code, 0, created.err);
  const key = JSON.parse(created.out);
  assert.is((await get('/v1/whoami', key.secret)).status, 200);
  const child = await h.call('POST', '/v1/api-keys', { secret: key.secret, body: { scopes: ['read:companies'], name: 'child' } });
  assert.is(child.status, 201, JSON.stringify(child.body));
  const listed = await bintel('keys', 'list', '--org', org, '--json');
  assert.is(listed.code, 0, listed.err);
  assert.equal(JSON.parse(listed.out).map((k: { id: string }) => k.id).sort(), [key.id, child.body.data.key?.id ?? child.body.data.id].sort());
  const rotated = await bintel('keys', 'rotate', key.id, '--json');
  assert.is(rotated.code, 0, rotated.err);
  const fresh = JSON.parse(rotated.out).secret;
  assertError(await get('/v1/whoami', key.secret), 401, 'UNAUTHORIZED', { issue: 'rotated_key' });
  assert.is((await get('/v1/whoami', fresh)).status, 200);
  assert.is((await bintel('keys', 'revoke', key.id)).code, 0);
  assertError(await get('/v1/whoami', fresh), 401, 'UNAUTHORIZED', { issue: 'revoked_key' });
});

t('keys: 50 rounds of concurrent rotations and of rotation racing revocation through two servers: at most one secret works, none after the revoke', async () => {
  // The secret's record and the key's record live in different slots here: no one script spans them.
  const other = await startHarness({ REDIS_CLUSTER_NODES: cluster.env });
  try {
    const org = `rc-race-${Date.now()}`;
    const root = await h.key({ org });
    const { rotations } = await raceRotations(h, other, { org, secret: root.secret }, 50);
    assert.ok(rotations >= 50);
  } finally {
    await other.close();
  }
});

t('credits: 200 concurrent paid calls at a pool that pays for 37 never overdraw it', async () => {
  const price = 250; // a basic company row
  const { org, secret } = await withOrg(h, { field_tier: 'basic', milli: 37 * price });
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => get(`/v1/companies?page_size=1&states=TX,CA,NY,FL,OH,PA`, secret)));
  const paid = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 402);
  assert.is(paid.length + refused.length, 200, JSON.stringify(results.find((r) => r.status !== 200 && r.status !== 402)?.body));
  const charged = paid.reduce((n, r) => n + Math.round(r.body.meta.credits_charged * 1000), 0);
  assert.is(paid.length, 37);
  assert.is(await h.running.services.credits.balance(org), 37 * price - charged);
  assert.is(await h.running.services.credits.balance(org), 0);
});

t('tags, cursors, counts and crawl detection', async () => {
  const { secret } = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 });
  const page0 = await get('/v1/companies?states=TX,CA,NY,FL&page_size=5', secret);
  assert.is(page0.status, 200, JSON.stringify(page0.body));
  assert.type(page0.body.meta.total_count === undefined ? page0.body.meta.count_pending : page0.body.meta.total_count, page0.body.meta.total_count === undefined ? 'boolean' : 'number');
  const page1 = await get(`/v1/companies?states=TX,CA,NY,FL&page_size=5&cursor=${encodeURIComponent(page0.body.meta.next_cursor)}`, secret);
  assert.is(page1.status, 200, JSON.stringify(page1.body));
  const ids0 = page0.body.data.map((r: { id: string }) => r.id);
  for (const r of page1.body.data) assert.ok(!ids0.includes(r.id), 'pages never overlap');
  // The count cache: a later call of the same filters reads the exact total.
  let total: number | undefined;
  for (let i = 0; i < 50 && total === undefined; i++) {
    total = (await get('/v1/companies?states=TX,CA,NY,FL&page_size=5', secret)).body.meta.total_count;
    if (total === undefined) await new Promise((r) => setTimeout(r, 100));
  }
  const direct = await h.running.services.es.count({ index: `${h.config.namespace}-companies`, query: { terms: { state: ['TX', 'CA', 'NY', 'FL'] } } });
  assert.is(total, direct.count);
  // Tags: add, list, filter.
  const tag = await h.call('POST', '/v1/tags', { secret, body: { entity_type: 'companies', entity_id: ids0[0], tag: 'cluster-vip' } });
  assert.is(tag.status, 201, JSON.stringify(tag.body));
  const tagged = await get('/v1/companies?tags=cluster-vip', secret);
  assert.equal(tagged.body.data.map((r: { id: string }) => r.id), [ids0[0]]);
  // Crawl detection: page after page of one filter combination.
  const statuses: number[] = [];
  for (let p = 0; p < 6; p++) statuses.push((await get(`/v1/companies?states=TX&page_size=1&page=${p}`, secret)).status);
  assert.ok(statuses.includes(429), `statuses ${statuses}`);
});

t('rate limits count across processes sharing the cluster', async () => {
  const limited = await startHarness({ REDIS_CLUSTER_NODES: cluster.env, BINTEL_RATE_LIMIT_PER_MIN: '5' });
  try {
    const { secret } = await withOrg(limited, {});
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await limited.call('GET', '/v1/whoami', { secret })).status);
    assert.equal(statuses.slice(0, 5), [200, 200, 200, 200, 200]);
    assert.is(statuses[5], 429);
  } finally {
    await limited.close();
  }
});

t('background jobs (BullMQ) and feedback run on the cluster', async () => {
  const { secret, org } = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 });
  const started = await h.call('POST', '/v1/exports', { secret, body: { resource: 'companies', max_rows: 40, states: 'TX,CA,NY,FL,OH' } });
  assert.is(started.status, 202, JSON.stringify(started.body));
  let status = '';
  for (let i = 0; i < 100 && status !== 'completed' && status !== 'failed'; i++) {
    status = (await get(`/v1/exports/${started.body.data.id}`, secret)).body.data.status;
    if (status !== 'completed') await new Promise((r) => setTimeout(r, 100));
  }
  assert.is(status, 'completed');
  const file = await get(`/v1/exports/${started.body.data.id}/download`, secret);
  assert.is(file.status, 200);
  // The list walks the organization's index (one slot), dropping an id whose record is gone.
  const s = h.running.services;
  await s.redis.zadd(s.rk.exportJobs(org), Date.now() + 1000, `exp_${'9'.repeat(32)}`);
  const listed0 = await get('/v1/exports', secret);
  assert.equal([listed0.body.data.map((j: { id: string }) => j.id), listed0.body.meta.total_count], [[started.body.data.id], 1]);
  assert.equal(await s.redis.zrange(s.rk.exportJobs(org), '0', '-1'), [started.body.data.id]);
  const report = await h.call('POST', '/v1/reports', { secret, body: { endpoint: 'GET /v1/companies', message: 'on a cluster' } });
  assert.is(report.status, 201, JSON.stringify(report.body));
  const listed = await bintel('reports', 'list', '--json');
  assert.is(listed.code, 0, listed.err);
  assert.ok(JSON.parse(listed.out).some((r: { id: string }) => r.id === report.body.data.id));
});

t('a master killed mid-run: 503 and nothing charged while down; nothing acknowledged lost after its restart', async () => {
  const { org, secret } = await withOrg(h, { field_tier: 'advanced', milli: 10_000_000 });
  const services = h.running.services;
  // Acknowledged writes: paid pages, a tag.
  let charged = 0;
  for (let p = 0; p < 3; p++) {
    const r = await get(`/v1/companies?page_size=2&page=${p}&sort_by=company_name`, secret);
    assert.is(r.status, 200);
    charged += Math.round(r.body.meta.credits_charged * 1000);
  }
  const row = (await get('/v1/companies?page_size=1', secret)).body;
  charged += Math.round(row.meta.credits_charged * 1000);
  assert.is((await h.call('POST', '/v1/tags', { secret, body: { entity_type: 'companies', entity_id: row.data[0].id, tag: 'survives' } })).status, 201);
  const before = await services.credits.balance(org);
  assert.is(before, 10_000_000 - charged);

  const port = await cluster.masterOf(services.rk.credits(org));
  await cluster.kill(port);
  const during = await get('/v1/companies?page_size=2&page=7', secret);
  assertError(during, 503, 'SERVICE_UNAVAILABLE');
  await cluster.restart(port);
  // Recovers by itself: no restart of the service.
  let after = await get('/v1/companies?page_size=1', secret);
  for (let i = 0; i < 50 && after.status !== 200; i++) {
    await new Promise((r) => setTimeout(r, 200));
    after = await get('/v1/companies?page_size=1', secret);
  }
  assert.is(after.status, 200, JSON.stringify(after.body));
  const balance = await services.credits.balance(org);
  assert.is(balance, before - Math.round(after.body.meta.credits_charged * 1000), 'nothing acknowledged lost, nothing charged while down');
  const tags = await get('/v1/companies?tags=survives', secret);
  assert.equal(tags.body.data.map((r: { id: string }) => r.id), [row.data[0].id]);
});

t.run();
