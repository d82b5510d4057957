/**
 * Async exports (an extension beyond the spec): a job runs to completion with progress, its file
 * is the list for the same filters and sort, the organization pays rows written × price exactly
 * once, a job whose Elasticsearch connection is cut mid-walk (a real TCP fault between the worker
 * and Elasticsearch) fails after its retries and releases the whole reservation, another
 * organization gets 404, Idempotency-Key returns the same job, max_rows over the ceiling is a
 * 400 naming it, more queued exports than the per-organization limit is a 429, the list pages,
 * an unfinished download is 409, an expired one 410, a test key cannot start one (403), and a job
 * is listed, shown and downloaded only for keys that could read its rows (scope, tier, side).
 *
 * Two server processes: `h` serves the API only (BINTEL_WORKER_IN_PROCESS=0) and `h2` also runs
 * the workers, reaching Elasticsearch through the cuttable proxy; status and download are asked
 * of either, from the job state in Redis and the shared directory.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseString } from 'fast-csv';
import { entity } from '../../mappings/index.ts';
import { rowPrice } from '../../server/pricing.ts';
import { cleanupExports, loadJob } from '../../server/jobs/kinds/export.ts';
import { saveJob } from '../helpers/export-jobs.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { pollUntil } from '../helpers/env.ts';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';

const t = suite('exports');
let h: Harness;
let h2: Harness;
let proxy: TcpProxy;
let data: DataFiles | undefined;
let sandbox: DataFiles | undefined;
let dir = '';
let org = '';
let adv = '';
let test = '';
/** The configuration both servers share (a test starting a third server uses it too). */
let baseEnv: Record<string, string> = {};

type Row = Record<string, string>;

async function parseCsv(text: string): Promise<Row[]> {
  const rows: Row[] = [];
  await new Promise<void>((resolve, reject) => {
    parseString(text, { headers: true })
      .on('data', (r: Row) => rows.push(r))
      .on('error', reject)
      .on('end', () => resolve());
  });
  return rows;
}

const post = (body: unknown, secret = adv, headers: Record<string, string> = {}) => h.call('POST', '/v1/exports', { secret, body, headers });

/** The job once it is completed or failed (polled; the workers run in `h2`). */
function finished(id: string, secret = adv): Promise<any> {
  return pollUntil(async () => {
    const res = await h.call('GET', `/v1/exports/${id}`, { secret });
    assert.is(res.status, 200, JSON.stringify(res.body));
    return (res.body.data.status === 'completed' || res.body.data.status === 'failed') && res.body.data;
  }, { what: `export ${id} completed or failed`, timeoutMs: 60_000, everyMs: 50 });
}

const FILTERS = { states: 'TX,CA,NY,FL,OH,PA,IL', sort_by: 'total_number_of_employees', sort_dir: 'desc', mode: 'full' };

t.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bintel-exports-'));
  proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(process.env.ES_URL || 'http://127.0.0.1:9200').port || 9200) });
  const env = { BINTEL_JWT_SECRET: 'a-long-random-hs256-secret-for-tests-only-0123456789', BINTEL_CRAWL_THRESHOLD: '1000', BINTEL_CACHE_TTL_S: '0', BINTEL_EXPORT_DIR: dir, BINTEL_EXPORT_MAX_ROWS: '3000', BINTEL_EXPORT_MAX_ACTIVE: '3', BINTEL_JOB_ATTEMPTS: '2' };
  baseEnv = env;
  h = await startHarness({ ...env, BINTEL_WORKER_IN_PROCESS: '0' });
  h2 = await startHarness({ ...env, ES_URL: proxy.url });
  data = await loadGenerated(h, { companies: 2600, personnel: 100, brokerOffices: 20, brokers: 5, seed: 21 });
  sandbox = await loadGenerated(h, { companies: 300, personnel: 0, brokerOffices: 10, brokers: 5, seed: 22, sandbox: true });
  const o = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 });
  org = o.org;
  adv = o.secret;
  test = (await h.key({ org, key_type: 'test' })).secret;
});
t.after(async () => {
  await h.close();
  await h2.close();
  await proxy.close();
  await data?.cleanup();
  await sandbox?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

t('a job runs to completion; the file is the list (ids, order, values); charged rows written × price, once; another process serves it', async () => {
  const before = await h.running.services.credits.balance(org);
  const res = await post({ resource: 'companies', max_rows: 1500, ...FILTERS });
  assert.is(res.status, 202, JSON.stringify(res.body));
  const id = res.body.data.id as string;
  assert.match(id, /^exp_[0-9a-f]{32}$/);
  assert.ok(['queued', 'running', 'completed'].includes(res.body.data.status));
  const job = await finished(id);
  assert.is(job.status, 'completed');
  assert.is(job.percent, 100);
  const rowsWritten = job.rows_written as number;
  assert.is(rowsWritten, job.rows_reserved);
  assert.ok(rowsWritten > 1000 && rowsWritten <= 1500, String(rowsWritten));
  const price = rowPrice(entity('companies'), 'advanced');
  assert.is(before - (await h.running.services.credits.balance(org)), rowsWritten * price.base);
  assert.is(job.credits_charged, (rowsWritten * price.base) / 1000);

  // Served by a second server process from the job state in Redis and the shared directory.
  const dl = await h2.call('GET', `/v1/exports/${id}/download`, { secret: adv });
  assert.is(dl.status, 200);
  assert.is(dl.headers.get('content-type'), 'text/csv; charset=utf-8');
  const rows = await parseCsv(dl.body as string);
  assert.is(rows.length, rowsWritten);
  const sync = await h.call('GET', `/v1/companies/export.csv?${new URLSearchParams(FILTERS)}&page_size=1000`, { secret: adv });
  const expected = await parseCsv(sync.body as string);
  const strip = ({ lead_source_retrieved_at: _t, ...r }: Row) => r;
  assert.equal(rows.slice(0, 1000).map(strip), expected.map(strip));
  assert.is((await h2.call('GET', '/v1/exports', { secret: adv })).body.data.some((j: { id: string }) => j.id === id), true);
});

t('a job whose Elasticsearch connection is cut mid-walk fails after its retries and releases the whole reservation (exactly once)', async () => {
  const before = await h.running.services.credits.balance(org);
  // The worker opens a point in time and reads one batch of 1,000 rows; then the network is gone.
  const seen = proxy.requests;
  proxy.cutAfter(2);
  const res = await post({ resource: 'companies', max_rows: 2500, states: 'TX,CA,NY,FL,OH,PA,IL,GA,NC,MI,NJ,VA,WA,AZ,MA' });
  assert.is(res.status, 202, JSON.stringify(res.body));
  assert.ok(res.body.data.rows_reserved > 1000);
  assert.is(before - (await h.running.services.credits.balance(org)), Math.round(res.body.data.credits_reserved * 1000));
  const job = await finished(res.body.data.id);
  proxy.restore();
  assert.ok(proxy.requests - seen >= 3, `the worker reached Elasticsearch ${proxy.requests - seen} times`);
  assert.is(job.status, 'failed');
  assert.is(job.attempts, 2);
  assert.is(job.credits_charged, 0);
  assert.is(await h.running.services.credits.balance(org), before);
  assert.equal((await readdir(dir)).filter((f) => f.endsWith('.part')), []);
  assertError(await h.call('GET', `/v1/exports/${job.id}/download`, { secret: adv }), 409, 'CONFLICT', { field: 'id', issue: 'invalid_state' });
});

t('another organization gets 404; Idempotency-Key returns the same job; max_rows over the ceiling is 400', async () => {
  const res = await post({ resource: 'companies', max_rows: 50, ...FILTERS }, adv, { 'Idempotency-Key': 'k-1' });
  assert.is(res.status, 202);
  const again = await post({ resource: 'companies', max_rows: 50, ...FILTERS }, adv, { 'Idempotency-Key': 'k-1' });
  assert.is(again.status, 200);
  assert.is(again.body.data.id, res.body.data.id);
  await finished(res.body.data.id);
  const other = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000 });
  assertError(await h.call('GET', `/v1/exports/${res.body.data.id}`, { secret: other.secret }), 404, 'NOT_FOUND', { field: 'id', issue: 'not_found' });
  assertError(await h.call('GET', `/v1/exports/${res.body.data.id}/download`, { secret: other.secret }), 404, 'NOT_FOUND', { field: 'id', issue: 'not_found' });
  assertError(await post({ resource: 'companies', max_rows: 3001, ...FILTERS }), 400, 'VALIDATION_ERROR', { field: 'max_rows', issue: 'out_of_range' });
  assertError(await post({ resource: 'companies', max_rows: 10, nope: 'x' }), 400, 'VALIDATION_ERROR', { field: 'nope', issue: 'unknown_field' });
  assertError(await post({ resource: 'companies', max_rows: 10, states: 'ZZ' }), 400, 'VALIDATION_ERROR', { field: 'states' });
});

t('409 before completion, 410 once expired; cleanup removes expired files, never a .part file or a running job', async () => {
  const res = await post({ resource: 'companies', max_rows: 20, ...FILTERS });
  const id = res.body.data.id as string;
  const s = h.running.services;
  await finished(id);
  const job = (await loadJob(s, org, id))!;
  await saveJob(s, { ...job, status: 'running' });
  assertError(await h.call('GET', `/v1/exports/${id}/download`, { secret: adv }), 409, 'CONFLICT', { field: 'id', issue: 'invalid_state' });
  await writeFile(join(dir, 'x.exp_0.csv.part'), 'being written');
  await cleanupExports(s, Date.now() + 48 * 3_600_000);
  // The running job's file and the .part file stay; the expired completed files of the other tests go.
  assert.equal((await readdir(dir)).sort(), [job.file, 'x.exp_0.csv.part'].sort());
  await saveJob(s, job);
  assert.is(await cleanupExports(s, Date.now() + 48 * 3_600_000), 1);
  assert.equal(await readdir(dir), ['x.exp_0.csv.part']);
  await saveJob(s, { ...job, expires_at: new Date(Date.now() - 1000).toISOString() });
  assertError(await h.call('GET', `/v1/exports/${id}/download`, { secret: adv }), 410, 'GONE', { field: 'id', issue: 'invalid_state' });
});

t('a test key cannot start an async export: 403 test_key_not_allowed before anything else, nothing charged', async () => {
  const before = await h.running.services.credits.balance(org);
  assertError(await post({ resource: 'companies', max_rows: 100, states: 'TX,CA,NY,FL' }, test), 403, 'FORBIDDEN', { field: 'authorization', issue: 'test_key_not_allowed' });
  assertError(await post({ nope: true }, test), 403, 'FORBIDDEN', { field: 'authorization', issue: 'test_key_not_allowed' });
  assert.is(await h.running.services.credits.balance(org), before);
});

t('a job is read only by keys that could read its rows (read:<resource>, tier, side): list, detail and download; anything else is 404 like an unknown id', async () => {
  const o = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 });
  const s = h.running.services;
  const BASE = { max_rows: 20, states: 'TX,CA,NY,FL' };
  const start = async (name: string, body: Record<string, unknown>, tier: string) => {
    const res = await post({ ...BASE, ...body }, o.secret, { 'Idempotency-Key': `acl-${name}-${o.org}` });
    assert.is(res.status, 202, `${name}: ${JSON.stringify(res.body)}`);
    const job = await finished(res.body.data.id, o.secret);
    assert.is(job.status, 'completed', name);
    assert.equal([job.tier, job.sandbox], [tier, false], `${name}: the job carries its tier and side`);
    return job.id as string;
  };
  // Oldest first: the list is newest first.
  const jobs: Record<string, string> = {};
  jobs.compBasic = await start('compBasic', { resource: 'companies', mode: 'basic' }, 'basic');
  jobs.compFull = await start('compFull', { resource: 'companies', mode: 'full' }, 'advanced');
  // Basic columns only, but chosen and ordered by an advanced one: a basic key could not have asked for it.
  jobs.compAdvSort = await start('compAdvSort', { resource: 'companies', sort_by: 'participants' }, 'advanced');
  jobs.persBasic = await start('persBasic', { resource: 'personnel', lead_type: 'company', states: undefined }, 'basic');
  jobs.persFull = await start('persFull', { resource: 'personnel', lead_type: 'company', states: undefined, mode: 'full' }, 'advanced');
  // A sandbox job.
  const basicRecord = (await loadJob(s, o.org, jobs.compBasic))!;
  jobs.sandbox = `exp_${'2'.repeat(24)}${o.org.slice(4, 12)}`;
  await saveJob(s, { ...basicRecord, id: jobs.sandbox, sandbox: true });
  await s.redis.zadd(s.rk.exportJobs(o.org), Date.now() + 2, jobs.sandbox);

  const child = async (body: Record<string, unknown>) => {
    const res = await h.call('POST', '/v1/api-keys', { secret: o.secret, body });
    assert.is(res.status, 201, JSON.stringify(res.body));
    return res.body.data.secret as string;
  };
  const keys: Record<string, { secret: string; sees: string[] }> = {
    liveAdvancedRoot: { secret: o.secret, sees: ['compBasic', 'compFull', 'compAdvSort', 'persBasic', 'persFull'] },
    advancedChildCompanies: { secret: await child({ scopes: ['read:companies'], field_tier: 'advanced' }), sees: ['compBasic', 'compFull', 'compAdvSort'] },
    basicChildCompanies: { secret: await child({ scopes: ['read:companies'], field_tier: 'basic' }), sees: ['compBasic'] },
    basicRoot: { secret: (await h.key({ org: o.org, field_tier: 'basic' })).secret, sees: ['compBasic', 'persBasic'] },
    testKey: { secret: (await h.key({ org: o.org, key_type: 'test' })).secret, sees: ['sandbox'] },
  };
  const newestFirst = ['sandbox', 'persFull', 'persBasic', 'compAdvSort', 'compFull', 'compBasic'];
  const files: Record<string, string> = {};
  for (const name of Object.keys(jobs)) {
    const dl = await h.call('GET', `/v1/exports/${jobs[name]}/download`, { secret: name === 'sandbox' ? keys.testKey.secret : o.secret });
    assert.is(dl.status, 200, name);
    files[name] = dl.body as string;
  }
  const errorOf = (res: { body: any }) => ({ code: res.body.error.code, message: res.body.error.message, details: res.body.error.details });
  const unknownId = `exp_${'0'.repeat(32)}`;

  for (const [who, { secret, sees }] of Object.entries(keys)) {
    const expected = newestFirst.filter((n) => sees.includes(n)).map((n) => jobs[n]);
    const all = await h.call('GET', '/v1/exports?page_size=100', { secret });
    assert.is(all.status, 200, who);
    assert.equal(all.body.data.map((j: { id: string }) => j.id), expected, `${who}: the list`);
    assert.is(all.body.meta.total_count, expected.length, `${who}: total_count counts only what the key may read`);
    const paged: string[] = [];
    for (let page = 0; page <= expected.length / 2; page++) {
      const res = await h.call('GET', `/v1/exports?page=${page}&page_size=2`, { secret });
      assert.is(res.body.meta.has_more, (page + 1) * 2 < expected.length, `${who}: has_more on page ${page}`);
      paged.push(...res.body.data.map((j: { id: string }) => j.id));
    }
    assert.equal(paged, expected, `${who}: pages of 2`);

    const unknown = await h.call('GET', `/v1/exports/${unknownId}`, { secret });
    const unknownDl = await h.call('GET', `/v1/exports/${unknownId}/download`, { secret });
    for (const [name, id] of Object.entries(jobs)) {
      const what = `${who} × ${name}`;
      const detail = await h.call('GET', `/v1/exports/${id}`, { secret });
      const dl = await h.call('GET', `/v1/exports/${id}/download`, { secret });
      if (sees.includes(name)) {
        assert.is(detail.status, 200, `${what}: detail`);
        assert.is(detail.body.data.id, id, what);
        assert.is(dl.status, 200, `${what}: download`);
        assert.is(dl.body, files[name], `${what}: the file`);
      } else {
        assertError(detail, 404, 'NOT_FOUND', { field: 'id', issue: 'not_found' });
        assertError(dl, 404, 'NOT_FOUND', { field: 'id', issue: 'not_found' });
        assert.equal(errorOf(detail), errorOf(unknown), `${what}: detail answers as for an unknown id`);
        assert.equal(errorOf(dl), errorOf(unknownDl), `${what}: download answers as for an unknown id`);
      }
    }
  }

  // An id whose record has expired is left out of the list and dropped from the index.
  const phantom = `exp_${'9'.repeat(32)}`;
  await s.redis.zadd(s.rk.exportJobs(o.org), Date.now() + 10, phantom);
  const listed = await h.call('GET', '/v1/exports?page_size=100', { secret: o.secret });
  assert.is(listed.body.meta.total_count, keys.liveAdvancedRoot.sees.length);
  assert.not.ok((await s.redis.zrange(s.rk.exportJobs(o.org), '0', '-1')).includes(phantom));

  // An Idempotency-Key of a job the key may not read never answers with that job.
  const replay = await post({ ...BASE, resource: 'companies' }, keys.basicChildCompanies.secret, { 'Idempotency-Key': `acl-compFull-${o.org}` });
  assertError(replay, 409, 'CONFLICT', { field: 'idempotency-key', issue: 'conflicting_values' });
  assert.not.ok(JSON.stringify(replay.body).includes(jobs.compFull));
});

t('a job is its user\'s: the creator, its child keys and its user\'s tokens list, show and download it; another user of the organization (root, child, token) gets 404 as for an unknown id', async () => {
  const a = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000, user: 'ann' });
  const mintFor = (user: string) => h.running.services.jwt.mint({ org: a.org, user, scopes: ['read:companies', 'tags:read'], tier: 'advanced', type: 'live', ttlS: 600 }).then((m) => m.token);
  const childOf = async (secret: string) => {
    const res = await h.call('POST', '/v1/api-keys', { secret, body: { scopes: ['read:companies'], field_tier: 'advanced' } });
    assert.is(res.status, 201, JSON.stringify(res.body));
    return res.body.data.secret as string;
  };
  const bob = (await h.key({ org: a.org, user: 'bob', field_tier: 'advanced' })).secret;
  // Ann's export chosen by her private tag.
  const first = await h.call('GET', '/v1/companies?page_size=1&states=TX', { secret: a.secret });
  const companyId = first.body.data[0].id as string;
  assert.is((await h.call('POST', '/v1/tags', { secret: a.secret, body: { entity_type: 'companies', entity_id: companyId, tag: 'ann-private' } })).status, 201);
  const res = await post({ resource: 'companies', max_rows: 5, tags: 'ann-private' }, a.secret);
  assert.is(res.status, 202, JSON.stringify(res.body));
  const job = await finished(res.body.data.id, a.secret);
  assert.is(job.status, 'completed');
  const unknownId = `exp_${'0'.repeat(32)}`;
  const errorOf = (r: { body: any }) => ({ code: r.body.error.code, message: r.body.error.message, details: r.body.error.details });
  const readers = { annRoot: a.secret, annChild: await childOf(a.secret), annToken: await mintFor('ann') };
  const strangers = { bobRoot: bob, bobChild: await childOf(bob), bobToken: await mintFor('bob') };
  for (const [who, secret] of Object.entries(readers)) {
    const list = await h.call('GET', '/v1/exports?page_size=100', { secret });
    assert.ok(list.body.data.some((j: { id: string }) => j.id === job.id), `${who}: listed`);
    assert.is((await h.call('GET', `/v1/exports/${job.id}`, { secret })).status, 200, `${who}: detail`);
    const dl = await h.call('GET', `/v1/exports/${job.id}/download`, { secret });
    assert.is(dl.status, 200, `${who}: download`);
    assert.ok(String(dl.body).includes(companyId), `${who}: the file`);
  }
  for (const [who, secret] of Object.entries(strangers)) {
    const list = await h.call('GET', '/v1/exports?page_size=100', { secret });
    assert.is(list.status, 200, who);
    assert.not.ok(list.body.data.some((j: { id: string }) => j.id === job.id), `${who}: not listed`);
    const detail = await h.call('GET', `/v1/exports/${job.id}`, { secret });
    const dl = await h.call('GET', `/v1/exports/${job.id}/download`, { secret });
    assertError(detail, 404, 'NOT_FOUND', { field: 'id', issue: 'not_found' });
    assertError(dl, 404, 'NOT_FOUND', { field: 'id', issue: 'not_found' });
    assert.equal(errorOf(detail), errorOf(await h.call('GET', `/v1/exports/${unknownId}`, { secret })), `${who}: as for an unknown id`);
    assert.equal(errorOf(dl), errorOf(await h.call('GET', `/v1/exports/${unknownId}/download`, { secret })), `${who}: download as for an unknown id`);
  }
});

t('the daily row cap: an export\'s rows count once, at acceptance, against the key that starts it; downloads deliver rows already counted and count nothing again', async () => {
  // A server with a cap of 30 rows a day (its jobs run in h2's workers, on the same namespace).
  const capped = await startHarness({ ...baseEnv, BINTEL_WORKER_IN_PROCESS: '0', BINTEL_DAILY_ROW_CAP: '30' });
  try {
    const o = await withOrg(capped, { field_tier: 'advanced', milli: 100_000_000 });
    const started = await capped.call('POST', '/v1/exports', { secret: o.secret, body: { resource: 'companies', max_rows: 20, states: 'TX,CA' } });
    assert.is(started.status, 202, JSON.stringify(started.body));
    const job = await finished(started.body.data.id, o.secret);
    assert.is(job.rows_written, 20);
    for (let i = 0; i < 3; i++) assert.is((await capped.call('GET', `/v1/exports/${job.id}/download`, { secret: o.secret })).status, 200, `download ${i}`);
    // 20 rows counted by the export: 10 more fit, the 31st does not (the downloads counted nothing).
    const ten = await capped.call('GET', '/v1/companies?states=TX,CA&page_size=10&fields=id', { secret: o.secret });
    assert.is(ten.status, 200, JSON.stringify(ten.body));
    assertError(await capped.call('GET', '/v1/companies?states=NY&page_size=1&fields=id', { secret: o.secret }), 429, 'DAILY_CAP_EXCEEDED');
    assert.is((await capped.call('GET', `/v1/exports/${job.id}/download`, { secret: o.secret })).status, 200, 'a file already counted is downloaded at the cap');
  } finally {
    await capped.close();
  }
});

t('more queued exports than the per-organization limit is 429 (nothing charged); the list pages, newest first', async () => {
  const o = await withOrg(h, { field_tier: 'advanced', milli: 10_000_000 });
  await h2.running.services.jobs.pause();
  const ids: string[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const res = await post({ resource: 'companies', max_rows: 10 + i, ...FILTERS }, o.secret);
      assert.is(res.status, 202, JSON.stringify(res.body));
      assert.is(res.body.data.status, 'queued');
      ids.unshift(res.body.data.id);
    }
    const before = await h.running.services.credits.balance(o.org);
    const over = await post({ resource: 'companies', max_rows: 10, ...FILTERS }, o.secret);
    assertError(over, 429, 'RATE_LIMITED', { field: 'exports', issue: 'rate_limited' });
    assert.ok(Number(over.headers.get('retry-after')) > 0);
    assert.is(await h.running.services.credits.balance(o.org), before);
    const seen: string[] = [];
    for (let page = 0; page < 3; page++) {
      const res = await h.call('GET', `/v1/exports?page=${page}&page_size=2`, { secret: o.secret });
      assert.is(res.status, 200);
      assert.is(res.body.meta.total_count, 3);
      assert.is(res.body.meta.has_more, page === 0);
      seen.push(...res.body.data.map((j: { id: string }) => j.id));
    }
    assert.equal(seen, ids);
    assertError(await h.call('GET', '/v1/exports?page_size=0', { secret: o.secret }), 400, 'VALIDATION_ERROR', { field: 'page_size', issue: 'out_of_range' });
  } finally {
    h2.running.services.jobs.resume();
  }
  for (const id of ids) assert.is((await finished(id, o.secret)).status, 'completed');
});

t.run();
