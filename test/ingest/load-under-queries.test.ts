/**
 * A reindex and a bulk load never make a query fail: 10 readers call the API (lists, searches,
 * details, counts) without pause while `bintel reindex companies` and then a new load of
 * companies run; every call answers 200, and the alias ends on the newest version.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { aliasName } from '../../core/names.ts';
import { ingestFile, reindexResource } from '../../ingest/run.ts';
import { loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from '../server/harness.ts';
import { pollUntil } from '../helpers/env.ts';

let h: Harness;
let data: DataFiles | undefined;

test.before(async () => {
  h = await startHarness({ BINTEL_RATE_LIMIT_PER_MIN: '1000000', BINTEL_CRAWL_THRESHOLD: '1000000', BINTEL_CACHE_TTL_S: '0' });
  data = await loadGenerated(h, { companies: 4000, personnel: 50, brokerOffices: 40, brokers: 8, seed: 81 });
});
test.after(async () => {
  await h.close();
  await data?.cleanup();
});

test('10 readers during a reindex and a reload: no failed query, the alias on the newest version', async () => {
  const { secret } = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000_000 });
  const es = h.running.services.es;
  const alias = aliasName(h.config.namespace, 'companies');
  const before = Object.keys(await es.indices.getAlias({ name: alias }))[0];
  const sample = (await h.call('GET', '/v1/companies?page_size=20', { secret })).body.data.map((r: { id: string }) => r.id);
  const paths = [
    '/v1/companies?states=TX,CA,NY&page_size=10',
    '/v1/companies?search=health&page_size=5',
    '/v1/companies?count_only=true&states=FL',
    '/v1/companies?sort_by=total_number_of_employees&sort_dir=desc&page_size=5&page=3',
    ...sample.map((id: string) => `/v1/companies/${id}`),
  ];
  let running = true;
  let calls = 0;
  const failures: string[] = [];
  const reader = async (n: number) => {
    for (let i = n; running; i++) {
      const path = paths[i % paths.length];
      const res = await h.call('GET', path, { secret });
      calls++;
      if (res.status !== 200) failures.push(`${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
  };
  const readers = Array.from({ length: 10 }, (_, n) => reader(n));
  try {
    const reindexed = await reindexResource(h.config, 'companies', { progress: null });
    assert.is(reindexed.indexed, 4000);
    const reloaded = await ingestFile(h.config, 'companies', data!.files.companies, { progress: null });
    assert.is(reloaded.indexed, 4000);
  } finally {
    running = false;
    await Promise.all(readers);
  }
  const after = Object.keys(await es.indices.getAlias({ name: alias }))[0];
  assert.ok(after !== before && after > before, `alias moved from ${before} to ${after}`);
  assert.ok(calls > 50, `${calls} calls made`);
  assert.equal(failures.slice(0, 5), [], `${failures.length} of ${calls} calls failed`);
  console.log(`\n  ${calls} API calls during a reindex and a reload of 4,000 companies: ${failures.length} failed`);
});

test('a walk that spans the alias swap says stale_cursor, never mixes indices; counts follow the new index', async () => {
  const { secret } = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000_000 });
  const q = '/v1/companies?states=TX,CA,NY,FL&page_size=7';
  const first = await h.call('GET', q, { secret });
  assert.is(first.status, 200);
  const cursor = first.body.meta.next_cursor as string;
  // A file with fewer rows: after the reload the counts must say so.
  const { readFile, writeFile } = await import('node:fs/promises');
  const lines = (await readFile(data!.files.companies, 'utf8')).trim().split('\n');
  const smaller = `${data!.files.companies}.smaller.csv`;
  await writeFile(smaller, `${lines.slice(0, 3001).join('\n')}\n`);
  await ingestFile(h.config, 'companies', smaller, { progress: null });
  const next = await h.call('GET', `${q}&cursor=${encodeURIComponent(cursor)}`, { secret });
  assert.is(next.status, 400, JSON.stringify(next.body));
  assert.is(next.body.error.details[0].issue, 'stale_cursor');
  const direct = await h.running.services.es.count({ index: aliasName(h.config.namespace, 'companies'), query: { terms: { state: ['TX', 'CA', 'NY', 'FL'] } } });
  const total = await pollUntil(async () => (await h.call('GET', q, { secret })).body.meta.total_count as number | undefined, { what: 'the total of the new index', everyMs: 100 });
  assert.is(total, direct.count, 'the count is of the new index');
  assert.ok(total! < first.body.meta.total_count, `${total} rows now, ${first.body.meta.total_count} before`);
});

test.run();
