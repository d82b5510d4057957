/**
 * Bounded work of async exports per organization: an export matching no row is refused (400
 * naming why, nothing charged, no job), an organization keeps at most BINTEL_EXPORT_MAX_RETAINED
 * export jobs (429 QUOTA_EXCEEDED with the limit and when a place frees), and GET /v1/exports
 * reads at most that many of the organization's newest jobs, however long its index has grown.
 *
 * The server runs no worker (BINTEL_WORKER_IN_PROCESS=0): accepted jobs stay queued.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { loadJob } from '../../server/jobs/kinds/export.ts';
import { saveJob } from '../helpers/export-jobs.ts';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';

const t = suite('export limits');
const RETAINED = 4;
let h: Harness;
let data: DataFiles | undefined;

t.before(async () => {
  h = await startHarness({ BINTEL_WORKER_IN_PROCESS: '0', BINTEL_EXPORT_MAX_RETAINED: String(RETAINED), BINTEL_EXPORT_MAX_ACTIVE: '100', BINTEL_CRAWL_THRESHOLD: '1000', BINTEL_CACHE_TTL_S: '0' });
  data = await loadGenerated(h, { companies: 60, personnel: 10, brokerOffices: 4, brokers: 2, seed: 388 });
});
t.after(async () => {
  await h.close();
  await data?.cleanup();
});

const post = (secret: string, body: Record<string, unknown>) => h.call('POST', '/v1/exports', { secret, body });

t('an export matching no row is 400 naming why: nothing reserved, no job', async () => {
  const { org, secret } = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000 });
  const refused = await post(secret, { resource: 'companies', max_rows: 100, 'cf[total_number_of_employees]': 'gte:2000000000' });
  assertError(refused, 400, 'VALIDATION_ERROR', { field: 'filters', issue: 'no_matching_rows' });
  assert.is(await h.running.services.credits.balance(org), 1_000_000);
  assert.is((await h.call('GET', '/v1/exports', { secret })).body.meta.total_count, 0);
});

t('an organization keeps at most BINTEL_EXPORT_MAX_RETAINED jobs: the next is 429 QUOTA_EXCEEDED with the limit, nothing charged', async () => {
  const { org, secret } = await withOrg(h, { field_tier: 'advanced', milli: 10_000_000 });
  for (let i = 0; i < RETAINED; i++) assert.is((await post(secret, { resource: 'companies', max_rows: 2 + i })).status, 202);
  const before = await h.running.services.credits.balance(org);
  const over = await post(secret, { resource: 'companies', max_rows: 2 });
  assertError(over, 429, 'QUOTA_EXCEEDED', { field: 'exports', issue: 'quota_exceeded' });
  assert.equal(over.body.error.details[0].expected, { max_retained_exports: RETAINED });
  assert.ok(Number(over.headers.get('retry-after')) > 0, 'says when the oldest leaves');
  assert.is(await h.running.services.credits.balance(org), before);
  // Parallel attempts never pass the cap either.
  const other = await withOrg(h, { field_tier: 'advanced', milli: 10_000_000 });
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => post(other.secret, { resource: 'companies', max_rows: 1 + (i % 3) })));
  const accepted = results.filter((r) => r.status === 202);
  assert.is(accepted.length, RETAINED, results.map((r) => r.status).join(','));
  for (const r of results.filter((x) => x.status !== 202)) assertError(r, 429, 'QUOTA_EXCEEDED');
  const reserved = accepted.reduce((n, r) => n + Math.round(r.body.meta.credits_reserved * 1000), 0);
  assert.is(await h.running.services.credits.balance(other.org), 10_000_000 - reserved, 'only the accepted ones reserved');
});

t('GET /v1/exports reads the newest BINTEL_EXPORT_MAX_RETAINED jobs of the index, however many it lists', async () => {
  const { org, secret } = await withOrg(h, { field_tier: 'advanced', milli: 10_000_000 });
  const first = await post(secret, { resource: 'companies', max_rows: 3 });
  assert.is(first.status, 202);
  const job = await loadJob(h.running.services, org, first.body.data.id);
  assert.ok(job);
  // Records as an older server left them: many more than the cap, all in the organization's index.
  const { redis, rk } = h.running.services;
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) {
    const id = `exp_${randomUUID().replace(/-/g, '')}`;
    const created = new Date(Date.now() - (i + 1) * 1000).toISOString();
    await saveJob(h.running.services, { ...job!, id, created_at: created });
    await redis.zadd(rk.exportJobs(org), Date.parse(created), id);
    ids.push(id);
  }
  const listed = await h.call('GET', '/v1/exports?page_size=100', { secret });
  assert.is(listed.status, 200, JSON.stringify(listed.body));
  assert.is(listed.body.meta.total_count, RETAINED);
  assert.equal(listed.body.data.map((j: { id: string }) => j.id), [first.body.data.id, ...ids.slice(0, RETAINED - 1)], 'the newest first');
  // A job past the listing is still shown by its id.
  assert.is((await h.call('GET', `/v1/exports/${ids[20]}`, { secret })).status, 200);
});

t.run();
