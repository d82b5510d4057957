// @test-lock es-nodes: starts Elasticsearch nodes of its own (test/runner/plan.ts)
/**
 * The service on a three-node Elasticsearch cluster started by this suite (test/helpers/es-cluster.ts,
 * 512 MB heap each): ES_URL names the three nodes, indices are loaded with 2 shards and 1 replica
 * (BINTEL_SHARDS, BINTEL_REPLICAS; the load runs without replicas and waits for green before the
 * alias moves), the whole read path answers, a reindex moves the alias; one node SIGKILLed while
 * 20 readers call the API: no failed query, the alias unchanged, and the cluster green again once
 * the node is back.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { aliasName } from '../../core/names.ts';
import { reindexResource } from '../../ingest/run.ts';
import { loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from '../server/harness.ts';
import { startEsCluster, type LocalEsCluster } from '../helpers/es-cluster.ts';

const t = suite('elasticsearch cluster');
let cluster: LocalEsCluster;
let h: Harness;
let data: DataFiles | undefined;
let secret = '';

t.before(async () => {
  // Said here too: uvu 0.5.6 swallows an error thrown in a before() hook.
  await setUp().catch((err: Error) => {
    console.error(`set-up failed: ${err.stack}`);
    throw err;
  });
});

async function setUp(): Promise<void> {
  cluster = await startEsCluster(3);
  h = await startHarness({ ES_URL: cluster.env, BINTEL_SHARDS: '2', BINTEL_REPLICAS: '1', BINTEL_RATE_LIMIT_PER_MIN: '1000000', BINTEL_CRAWL_THRESHOLD: '1000000', BINTEL_CACHE_TTL_S: '0' });
  // Small: what is under test is the cluster (shape, reads through a node loss), not the data.
  data = await loadGenerated(h, { companies: 300, personnel: 120, brokerOffices: 20, brokers: 5, seed: 91 });
  secret = (await withOrg(h, { field_tier: 'advanced', milli: 1_000_000_000 })).secret;
}
t.after(async () => {
  await h?.close().catch(() => {});
  await data?.cleanup();
  await cluster?.stop();
});

t('loaded with the configured shape; the whole read path answers; a reindex moves the alias', async () => {
  const es = h.running.services.es;
  const alias = aliasName(h.config.namespace, 'companies');
  const index = Object.keys(await es.indices.getAlias({ name: alias }))[0];
  const settings = (await es.indices.getSettings({ index }))[index].settings?.index;
  assert.is(String(settings?.number_of_shards), '2');
  assert.is(String(settings?.number_of_replicas), '1');
  const list = await h.call('GET', '/v1/companies?states=TX,CA,NY,FL&page_size=5', { secret });
  assert.is(list.status, 200, JSON.stringify(list.body));
  const id = list.body.data[0].id;
  for (const path of [`/v1/companies/${id}`, '/v1/companies?search=health&page_size=3', '/v1/companies/autocomplete?query=sm', '/v1/personnel?lead_type=company&page_size=3', '/v1/broker-offices?page_size=3', '/v1/companies/export.csv?states=TX&page_size=20', '/v1/filter-options/companies']) {
    const res = await h.call('GET', path, { secret });
    assert.is(res.status, 200, `${path}: ${JSON.stringify(res.body).slice(0, 200)}`);
  }
  const like = await h.call('POST', '/v1/lookalikes', { secret, body: { type: 'companies', seed_ids: [id], limit: 5 } });
  assert.is(like.status, 200, JSON.stringify(like.body));
  await reindexResource(h.config, 'companies', { progress: null });
  const after = Object.keys(await es.indices.getAlias({ name: alias }))[0];
  assert.ok(after > index, 'the alias moved to the new version');
});

t('a node SIGKILLed during 20 readers: no failed query, the alias unchanged, green again when it returns', async () => {
  const es = h.running.services.es;
  const alias = aliasName(h.config.namespace, 'companies');
  const before = Object.keys(await es.indices.getAlias({ name: alias }))[0];
  const ids = (await h.call('GET', '/v1/companies?page_size=20', { secret })).body.data.map((r: { id: string }) => r.id);
  const paths = ['/v1/companies?states=TX,CA&page_size=10', '/v1/companies?search=group&page_size=5', ...ids.map((id: string) => `/v1/companies/${id}`), '/v1/personnel?lead_type=company&states=TX&page_size=5'];
  let running = true;
  let calls = 0;
  const failures: string[] = [];
  const reader = async (n: number) => {
    for (let i = n; running; i++) {
      const res = await h.call('GET', paths[i % paths.length], { secret });
      calls++;
      if (res.status !== 200) failures.push(`${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
    }
  };
  const readers = Array.from({ length: 20 }, (_, n) => reader(n));
  await new Promise((r) => setTimeout(r, 1500));
  await cluster.kill(1);
  await new Promise((r) => setTimeout(r, 4000));
  running = false;
  await Promise.all(readers);
  console.log(`\n  ${calls} API calls by 20 readers, one of three nodes SIGKILLed: ${failures.length} failed`);
  assert.equal(failures.slice(0, 3), [], `${failures.length} of ${calls} failed`);
  assert.is(Object.keys(await es.indices.getAlias({ name: alias }))[0], before, 'alias unchanged');
  await cluster.restart(1);
  await cluster.waitFor(3, 'green');
  assert.is((await h.call('GET', '/v1/health')).status, 200);
});

t.run();
