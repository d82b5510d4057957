/**
 * One person's question is one question: crawl detection, the daily row cap and the rate window
 * are kept per user of an organization (server/services/person.ts), whatever key asks. A user's
 * child keys, its root keys and its JWTs share one count; making and revoking child keys gives
 * no fresh one; another user of the same organization has its own. Async exports take the same
 * crawl step and the same daily rows as the pages they replace.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';
import { awaitFreshRateWindow } from '../helpers/env.ts';
import { personOf } from '../../server/services/person.ts';

const t = suite('per-person limits');
const THRESHOLD = 30;
const JWT = { BINTEL_JWT_SECRET: 'person-limits-test-secret-0123456789abcdef', BINTEL_JWT_MAX_TTL_S: '3600' };
let h: Harness;
let data: DataFiles | undefined;

t.before(async () => {
  h = await startHarness({ ...JWT, BINTEL_CRAWL_THRESHOLD: String(THRESHOLD), BINTEL_RATE_LIMIT_PER_MIN: '100000', BINTEL_CACHE_TTL_S: '0' });
  data = await loadGenerated(h, { companies: 160, personnel: 10, brokerOffices: 4, brokers: 2, seed: 377 });
});
t.after(async () => {
  await h.close();
  await data?.cleanup();
});

/** A child key of `secret` (read:companies), its id and secret. */
async function child(secret: string, on: Harness = h): Promise<{ id: string; secret: string }> {
  const res = await on.call('POST', '/v1/api-keys', { secret, body: { scopes: ['read:companies'] } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return { id: res.body.data.id, secret: res.body.data.secret };
}

const page = (p: number) => `/v1/companies?page_size=1&page=${p}&sort_by=company_name`;

t('four child keys of one user walking 120 pages of one question are stopped where one key is', async () => {
  const { secret } = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 });
  const children = [await child(secret), await child(secret), await child(secret), await child(secret)];
  const statuses: number[] = [];
  for (let p = 0; p < 4 * THRESHOLD; p++) statuses.push((await h.call('GET', page(p), { secret: children[Math.floor(p / THRESHOLD)].secret })).status);
  assert.is(statuses.filter((s) => s === 200).length, THRESHOLD, `served ${statuses.filter((s) => s === 200).length} distinct pages`);
  assert.ok(statuses.slice(THRESHOLD).every((s) => s === 429), 'every page past the threshold is 429');
  // The root key and the children share it too; a page already served is served again.
  assertError(await h.call('GET', page(200), { secret }), 429, 'CRAWL_DETECTED', { field: 'page', issue: 'sequential_page_walking' });
  assert.is((await h.call('GET', page(3), { secret: children[3].secret })).status, 200);
});

t('property, in parallel: however the calls of four child keys interleave, exactly threshold distinct pages are served and only they are charged', async () => {
  for (const spread of [1, 7]) {
    const { org, secret } = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 });
    const children = [await child(secret), await child(secret), await child(secret), await child(secret)];
    // 60 distinct pages, each asked twice by two different keys, all at once.
    const calls = Array.from({ length: 120 }, (_, i) => ({ p: (i * spread) % 60, by: children[i % 4] }));
    const results = await Promise.all(calls.map(({ p, by }) => h.call('GET', page(p), { secret: by.secret }).then((r) => ({ p, status: r.status, charged: r.status === 200 ? Math.round(r.body.meta.credits_charged * 1000) : 0 }))));
    assert.ok(results.every((r) => r.status === 200 || r.status === 429), results.map((r) => r.status).join(','));
    const served = new Set(results.filter((r) => r.status === 200).map((r) => r.p));
    assert.is(served.size, THRESHOLD, `distinct pages served: ${served.size}`);
    for (const r of results.filter((x) => x.status === 429)) assert.not.ok(served.has(r.p), `page ${r.p} refused after it was served`);
    const charged = results.reduce((n, r) => n + r.charged, 0);
    assert.is(await h.running.services.credits.balance(org), 100_000_000 - charged, 'the pool moved by exactly what the served pages say');
  }
});

t('making and revoking child keys gives no fresh count', async () => {
  const { secret } = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 });
  let served = 0;
  for (let round = 0; round < 4; round++) {
    const c = await child(secret);
    for (let p = 0; p < THRESHOLD; p++) if ((await h.call('GET', page(round * THRESHOLD + p), { secret: c.secret })).status === 200) served++;
    const revoked = await h.call('DELETE', `/v1/api-keys/${c.id}`, { secret });
    assert.is(revoked.status, 200, JSON.stringify(revoked.body));
  }
  assert.is(served, THRESHOLD);
});

t('another user of the organization has a count of its own; a JWT of the user shares the user\'s', async () => {
  const { org, secret } = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000, user: 'ana' });
  const bob = await h.key({ org, user: 'bob', field_tier: 'advanced' });
  for (let p = 0; p < THRESHOLD; p++) assert.is((await h.call('GET', page(p), { secret })).status, 200);
  assertError(await h.call('GET', page(THRESHOLD), { secret }), 429, 'CRAWL_DETECTED');
  assert.is((await h.call('GET', page(THRESHOLD), { secret: bob.secret })).status, 200, "bob's count is his own");
  const { token } = await h.running.services.jwt.mint({ org, user: 'ana', scopes: ['read:companies'], tier: 'advanced', type: 'live', ttlS: 600 });
  assertError(await h.call('GET', page(THRESHOLD + 1), { secret: token }), 429, 'CRAWL_DETECTED');
  const { token: bobs } = await h.running.services.jwt.mint({ org, user: 'bob', scopes: ['read:companies'], tier: 'advanced', type: 'live', ttlS: 600 });
  assert.is((await h.call('GET', page(THRESHOLD + 1), { secret: bobs })).status, 200);
});

t('an async export takes the crawl step of the list it replaces', async () => {
  const { secret } = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 });
  // Pages 1..threshold of one question: the export (its first row is row 0) would be a new page.
  for (let p = 1; p <= THRESHOLD; p++) assert.is((await h.call('GET', page(p), { secret })).status, 200);
  const refused = await h.call('POST', '/v1/exports', { secret, body: { resource: 'companies', max_rows: 5, sort_by: 'company_name' } });
  assertError(refused, 429, 'CRAWL_DETECTED', { field: 'page', issue: 'sequential_page_walking' });
  const other = await h.call('POST', '/v1/exports', { secret, body: { resource: 'companies', max_rows: 5, sort_by: 'company_name', states: 'TX' } });
  assert.is(other.status, 202, JSON.stringify(other.body));
});

t('the daily row cap is the user\'s: child keys, exports and batches draw on one count', async () => {
  const capped = await startHarness({ BINTEL_DAILY_ROW_CAP: '6', BINTEL_CRAWL_THRESHOLD: '1000', BINTEL_RATE_LIMIT_PER_MIN: '100000', BINTEL_CACHE_TTL_S: '0' });
  try {
    const { org, secret } = await withOrg(capped, { field_tier: 'advanced', milli: 100_000_000 });
    const [a, b] = [await child(secret, capped), await child(secret, capped)];
    assert.is((await capped.call('GET', '/v1/companies?page_size=3&page=0', { secret: a.secret })).status, 200);
    assert.is((await capped.call('GET', '/v1/companies?page_size=2&page=5', { secret: b.secret })).status, 200);
    assertError(await capped.call('GET', '/v1/companies?page_size=2&page=9', { secret: b.secret }), 429, 'DAILY_CAP_EXCEEDED', { issue: 'daily_row_cap' });
    const ids = (await capped.call('GET', '/v1/companies?page_size=2&page=20&mode=light', { secret: (await capped.key({ org, user: 'other', field_tier: 'advanced' })).secret })).body.data.map((r: { id: string }) => r.id);
    assertError(await capped.call('POST', '/v1/companies/batch', { secret: a.secret, body: { ids } }), 429, 'DAILY_CAP_EXCEEDED');
    assertError(await capped.call('POST', '/v1/exports', { secret, body: { resource: 'companies', max_rows: 2 } }), 429, 'DAILY_CAP_EXCEEDED');
    assert.is((await capped.call('GET', '/v1/companies?page_size=1&page=0', { secret: a.secret })).status, 200, 'one row left');
  } finally {
    await capped.close();
  }
});

t('property, in parallel: child keys of one user never take more than the daily cap, and take all of it', async () => {
  const capped = await startHarness({ BINTEL_DAILY_ROW_CAP: '25', BINTEL_CRAWL_THRESHOLD: '1000', BINTEL_RATE_LIMIT_PER_MIN: '100000', BINTEL_CACHE_TTL_S: '0' });
  try {
    const { org, secret } = await withOrg(capped, { field_tier: 'advanced', milli: 100_000_000 });
    const children = [await child(secret, capped), await child(secret, capped), await child(secret, capped)];
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => capped.call('GET', `/v1/companies?page_size=${1 + (i % 3)}&page=${i}`, { secret: children[i % 3].secret })));
    const rows = results.filter((r) => r.status === 200).reduce((n, r) => n + r.body.meta.returned, 0);
    for (const r of results.filter((x) => x.status !== 200)) assertError(r, 429, 'DAILY_CAP_EXCEEDED');
    assert.ok(rows <= 25, `${rows} rows served under a cap of 25`);
    assert.ok(rows >= 23, `${rows} rows: a refusal only when the next call would pass the cap`);
    const day = new Date().toISOString().slice(0, 10);
    assert.is(await capped.running.services.credits.dailyRows(org, personOf({ id: '', user: 'u1', parent_id: null }), day), rows);
  } finally {
    await capped.close();
  }
});

t('a revoked key does not spend its user\'s rate window', async () => {
  const limited = await startHarness({ BINTEL_RATE_LIMIT_PER_MIN: '100' });
  try {
    const { secret } = await withOrg(limited, {});
    const c = await child(secret, limited);
    // The child is used before its revocation: this process knows whose it is.
    assert.is((await limited.call('GET', '/v1/whoami', { secret: c.secret })).status, 200);
    assert.is((await limited.call('DELETE', `/v1/api-keys/${c.id}`, { secret })).status, 200);
    await awaitFreshRateWindow();
    const remaining = async () => Number((await limited.call('GET', '/v1/whoami', { secret })).headers.get('ratelimit-remaining'));
    const before = await remaining();
    for (let i = 0; i < 8; i++) assertError(await limited.call('GET', '/v1/whoami', { secret: c.secret }), 401, 'UNAUTHORIZED', { issue: 'revoked_key' });
    assert.is(await remaining(), before - 1, 'only the root\'s own call was counted');
  } finally {
    await limited.close();
  }
});

t('the rate window is the user\'s: a child key and its root share it', async () => {
  const limited = await startHarness({ ...JWT, BINTEL_RATE_LIMIT_PER_MIN: '5' });
  try {
    const { org, secret } = await withOrg(limited, {});
    const { token } = await limited.running.services.jwt.mint({ org, user: 'u1', scopes: ['read:companies'], tier: 'basic', type: 'live', ttlS: 600 });
    const other = await limited.key({ org, user: 'u2' });
    await awaitFreshRateWindow();
    // The child's creation is the user's first request of the window.
    const c = await child(secret, limited);
    const statuses = [];
    for (const s of [secret, c.secret, token, secret, c.secret]) statuses.push((await limited.call('GET', '/v1/whoami', { secret: s })).status);
    assert.equal(statuses, [200, 200, 200, 200, 429]);
    const refused = await limited.call('GET', '/v1/whoami', { secret: token });
    assertError(refused, 429, 'RATE_LIMITED', { field: 'authorization', issue: 'rate_limited' });
    assert.is(refused.headers.get('ratelimit-remaining'), '0');
    assert.is((await limited.call('GET', '/v1/whoami', { secret: other.secret })).status, 200, 'another user has a window of its own');
  } finally {
    await limited.close();
  }
});

t.run();
