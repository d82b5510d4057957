/**
 * The count cache (server/services/read-memory.ts exactCount), on a real Elasticsearch and Redis:
 * the exact count of a question is asked of Elasticsearch once per concrete index (a served index
 * never changes: each load builds a new one and moves the alias), so a repeated question never
 * waits on its query; an alias moved to a new index is followed within the generation TTL; a
 * count on an index deleted meanwhile reads the alias again instead of failing. Through the API:
 * count_only, a dry run, the async export's reservation and its meta.total_count agree with
 * Elasticsearch's own count on every filter tried.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { ReadMemory } from '../../server/services/read-memory.ts';
import { NotFoundError, ServiceUnavailableError } from '../../core/errors.ts';
import { createEs } from '../../core/adapters/es.ts';
import { redisKeys } from '../../core/names.ts';
import { closeAll, testConfig, testEs, testIndex, testRedis } from '../helpers/env.ts';
import { loadGenerated, startHarness, withOrg, type Harness } from './harness.ts';

const t = suite('count cache');
const id = randomUUID().slice(0, 8);
const alias = testIndex(`countcache-${id}`);
const made: string[] = [];
const never = new Promise<Record<string, unknown>>(() => {});
const match = (state: string) => Promise.resolve({ term: { state } });

/** A concrete index of `n` documents of state TX and one of CA, behind no alias yet. */
async function generation(n: number): Promise<string> {
  const index = `${alias}-v${made.length}`;
  made.push(index);
  await testEs().indices.create({ index, mappings: { properties: { state: { type: 'keyword' } } } });
  const ops = Array.from({ length: n }, (_, i) => [{ index: { _index: index, _id: String(i) } }, { state: 'TX' }]).flat();
  await testEs().bulk({ refresh: true, operations: [...ops, { index: { _index: index, _id: 'ca' } }, { state: 'CA' }] });
  return index;
}

/** Points `alias` at `index` alone. */
async function moveAlias(index: string): Promise<void> {
  const actions: object[] = [{ add: { index, alias } }];
  const res = (await testEs().indices.getAlias({ name: alias }, { ignore: [404] })) as Record<string, unknown>;
  for (const old of Object.keys(res ?? {})) if (old !== index && made.includes(old)) actions.unshift({ remove: { index: old, alias } });
  await testEs().indices.updateAliases({ actions });
}

const memory = (ttlMs: number) => new ReadMemory(testRedis(), redisKeys(testConfig().namespace), testEs(), pino({ level: 'silent' }), ttlMs);

t.after(async () => {
  for (const index of made) await testEs().indices.delete({ index, ignore_unavailable: true });
  await closeAll();
});

t('a repeated question is answered from the cache: its query is never awaited again', async () => {
  await moveAlias(await generation(7));
  const m = memory(60_000);
  const key = `tx-${randomUUID()}`;
  assert.is(await m.exactCount(alias, key, match('TX')), 7);
  // A query that never resolves: only a cache hit can answer.
  assert.is(await m.exactCount(alias, key, never), 7);
  // Another process (another ReadMemory) shares the cache through Redis.
  assert.is(await memory(60_000).exactCount(alias, key, never), 7);
  assert.is(await m.exactCount(alias, `ca-${randomUUID()}`, match('CA')), 1, 'another question is counted');
});

t('an alias moved to a new index is followed once the generation TTL passes', async () => {
  const m = memory(50);
  const key = `tx-${randomUUID()}`;
  await moveAlias(made[made.length - 1] ?? (await generation(7)));
  const before = await m.exactCount(alias, key, match('TX'));
  await moveAlias(await generation(12));
  await new Promise((r) => setTimeout(r, 80));
  assert.is(await m.exactCount(alias, key, match('TX')), 12, `the new index's count (was ${before})`);
});

t('an index deleted while the process still names it: the alias is read again, the count does not fail', async () => {
  const m = memory(600_000);
  await moveAlias(await generation(3));
  assert.is(await m.exactCount(alias, `tx-${randomUUID()}`, match('TX')), 3);
  const stale = made[made.length - 1];
  await moveAlias(await generation(5));
  await testEs().indices.delete({ index: stale });
  assert.is(await m.exactCount(alias, `tx-${randomUUID()}`, match('TX')), 5);
});

t('a missing alias fails as the count on it always did (no cached answer)', async () => {
  const err = await memory(60_000)
    .exactCount(`${alias}-missing`, `k-${randomUUID()}`, match('TX'))
    .then(() => null, (e: unknown) => e);
  assert.instance(err, NotFoundError);
  assert.is((err as NotFoundError).what, 'index');
});

t('Elasticsearch not answering: the count fails as unavailable after one request, nothing cached', async () => {
  const asked: string[] = [];
  const down = createEs({ esUrl: 'http://127.0.0.1:1' }, { maxRetries: 0, requestTimeout: 2000, observe: (op) => asked.push(op) });
  const m = new ReadMemory(testRedis(), redisKeys(testConfig().namespace), down, pino({ level: 'silent' }));
  const key = `tx-${randomUUID()}`;
  const err = await m.exactCount(alias, key, match('TX')).then(() => null, (e: unknown) => e);
  assert.instance(err, ServiceUnavailableError);
  assert.equal(asked, ['_alias'], 'one request: the alias read, not the count on the alias after it');
  // The next call (Elasticsearch back) counts: the failure left no generation and no count behind.
  assert.is(await memory(60_000).exactCount(alias, key, match('TX')), (await testEs().count({ index: alias, query: { term: { state: 'TX' } } })).count);
  await down.close();
});

let h: Harness;
let secret = '';
let cleanup: () => Promise<void> = async () => {};
t('through the API: count_only, the dry run and an export accept agree with Elasticsearch on every filter', async () => {
  h = await startHarness({ BINTEL_NAMESPACE: `${testConfig().namespace}-countc`, BINTEL_WORKER_IN_PROCESS: '0', BINTEL_EXPORT_MAX_ACTIVE: '50' });
  cleanup = (await loadGenerated(h, { companies: 300, personnel: 0, brokerOffices: 10, brokers: 3, seed: 41 })).cleanup;
  secret = (await withOrg(h, { field_tier: 'advanced', milli: 1_000_000_000 })).secret;
  const companies = `${testConfig().namespace}-countc-companies`;
  const cases: [string, Record<string, unknown>][] = [
    ['states=TX', { terms: { state: ['TX'] } }],
    ['states=CA,NY', { terms: { state: ['CA', 'NY'] } }],
    ['cf[total_number_of_employees]=gte:100', { range: { total_number_of_employees: { gte: 100 } } }],
  ];
  for (const [filters, query] of cases) {
    const direct = (await testEs().count({ index: companies, query })).count;
    assert.ok(direct > 0, `${filters}: some rows`);
    for (let round = 0; round < 2; round++) {
      const count = await h.call('GET', `/v1/companies?${filters}&count_only=true`, { secret });
      assert.is(count.body.data?.total_count, direct, `${filters} count_only, round ${round}: ${JSON.stringify(count.body)}`);
      const dry = await h.call('GET', `/v1/companies?${filters}&dry_run=true&page_size=10`, { secret });
      assert.is(dry.body.meta?.estimated_total_matches, direct, `${filters} dry run: ${JSON.stringify(dry.body)}`);
      const body = { resource: 'companies', max_rows: direct + 5, ...Object.fromEntries(new URLSearchParams(filters)) };
      const accepted = await h.call('POST', '/v1/exports', { secret, body });
      assert.is(accepted.status, 202, JSON.stringify(accepted.body));
      assert.is(accepted.body.meta.total_count, direct, `${filters} export total_count`);
      assert.is(accepted.body.data.rows_reserved, direct, `${filters} export rows reserved`);
    }
  }
});

t.after(async () => {
  await h?.close();
  await cleanup();
});

t.run();
