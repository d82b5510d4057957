/**
 * Credit budgets of child keys: the child spends from the organization's pool, and the debit
 * script enforces the key's total and daily budgets atomically. 200 parallel paid calls through
 * a child with a small budget never overspend it; over budget is 402 key_budget_exhausted with
 * nothing charged while the pool still has credits; the budget and what is left show in
 * GET /v1/api-keys and GET /v1/credits; `bintel keys budget` sets and clears it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';
import { bintel } from '../helpers/cli.ts';

const t = suite('key budgets');
let h: Harness;
let data: DataFiles | undefined;

t.before(async () => {
  h = await startHarness({ BINTEL_CACHE_TTL_S: '0', BINTEL_RATE_LIMIT_PER_MIN: '100000', BINTEL_CRAWL_THRESHOLD: '100000' });
  data = await loadGenerated(h, { companies: 60, personnel: 10, brokerOffices: 4, brokers: 2, seed: 131 });
});
t.after(async () => {
  await h.close();
  await data?.cleanup();
});

const child = async (secret: string, budget: Record<string, number>) => {
  const res = await h.call('POST', '/v1/api-keys', { secret, body: { scopes: ['read:companies'], field_tier: 'basic', budget } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  const d = res.body.data as { id: string; budget: unknown; secret: string };
  return { key: { id: d.id, budget: d.budget }, secret: d.secret };
};

t('200 parallel paid calls through a child with a 5-credit budget: exactly 5 credits spent, the rest 402 key_budget_exhausted', async () => {
  const { org, secret } = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000 });
  const c = await child(secret, { total: 5 });
  assert.equal(c.key.budget, { total_milli: 5000, daily_milli: null });
  const results = await Promise.all(Array.from({ length: 200 }, () => h.call('GET', '/v1/companies?page_size=1&states=TX,CA,NY,FL,OH,PA', { secret: c.secret })));
  const paid = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 402);
  assert.is(paid.length + refused.length, 200);
  for (const r of refused) assert.is(r.body.error.details[0].issue, 'key_budget_exhausted');
  const spent = paid.reduce((n, r) => n + Math.round(r.body.meta.credits_charged * 1000), 0);
  assert.ok(spent <= 5000, `spent ${spent} of a 5,000 budget`);
  assert.is(spent, 5000, 'the budget is used to the last credit');
  assert.is(await h.running.services.credits.balance(org), 1_000_000 - spent, 'the pool paid exactly that and still has credits');
  const keys = await h.call('GET', '/v1/api-keys', { secret });
  const row = keys.body.data.find((k: { id: string }) => k.id === c.key.id);
  assert.equal(row.budget, { total: 5, total_remaining: 0, daily: null, daily_remaining: null });
  const credits = await h.call('GET', '/v1/credits', { secret: c.secret });
  assert.equal(credits.body.data.key_budget, { total: 5, total_remaining: 0, daily: null, daily_remaining: null });
  // Other keys of the org are not limited by it.
  assert.is((await h.call('GET', '/v1/companies?page_size=1', { secret })).status, 200);
});

t('a daily budget; bad budgets are 400; a root key has none; bintel keys budget sets and clears', async () => {
  const { secret } = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000 });
  const c = await child(secret, { daily: 1 });
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await h.call('GET', `/v1/companies?page_size=1&page=${i}`, { secret: c.secret })).status);
  assert.equal(statuses, [200, 200, 200, 200, 402, 402]);
  // The next UTC day: today's spend becomes yesterday's (the usage hash keeps a field per day),
  // and the daily budget is whole again.
  const redis = h.running.services.redis;
  const usageKey = h.running.services.rk.usage((await h.call('GET', '/v1/whoami', { secret })).body.data.organization, c.key.id);
  const today = new Date().toISOString().slice(0, 10);
  const spentToday = await redis.hget(usageKey, `credits_milli:${today}`);
  assert.is(spentToday, '1000');
  await redis.hdel(usageKey, `credits_milli:${today}`);
  await redis.hset(usageKey, 'credits_milli:2000-01-01', spentToday!);
  assert.is((await h.call('GET', '/v1/companies?page_size=1&page=7', { secret: c.secret })).status, 200, 'a new day, a new daily budget');
  assertError(await h.call('POST', '/v1/api-keys', { secret, body: { scopes: ['read:companies'], budget: { total: -1 } } }), 400, 'VALIDATION_ERROR');
  assertError(await h.call('POST', '/v1/api-keys', { secret, body: { scopes: ['read:companies'], budget: { weekly: 3 } } }), 400, 'VALIDATION_ERROR');
  const run = (...args: string[]) => bintel(args, { BINTEL_NAMESPACE: h.config.namespace });
  const raised = await run('keys', 'budget', c.key.id, '--daily', '2', '--json');
  assert.is(raised.code, 0, raised.err);
  assert.equal(JSON.parse(raised.out).budget, { total_milli: null, daily_milli: 2000 });
  assert.is((await h.call('GET', '/v1/companies?page_size=1&page=9', { secret: c.secret })).status, 200, 'the raised budget applies at once');
  const cleared = await run('keys', 'budget', c.key.id, '--clear', '--json');
  assert.is(cleared.code, 0, cleared.err);
  assert.is(JSON.parse(cleared.out).budget, null);
  const root = await h.running.services.keys.list((await h.call('GET', '/v1/whoami', { secret })).body.data.organization);
  const rootId = root.find((k) => k.parent_id === null)!.id;
  assert.is((await run('keys', 'budget', rootId, '--total', '1')).code, 1, 'a root key takes no budget');
});

t.run();
