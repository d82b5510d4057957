/**
 * Credit pools on real Redis: concurrent debits never overdraw and never double-charge;
 * the daily row cap is atomic with the debit.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../core/config.ts';
import { createServices } from '../../server/context.ts';
import { rowPrice, toMilli } from '../../server/pricing.ts';
import { entity } from '../../mappings/index.ts';

const services = createServices(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }));
const day = new Date().toISOString().slice(0, 10);

test.before(async () => {
  await services.redis.connect();
});
test.after(async () => {
  await services.close();
});

test('hundreds of parallel debits against a pool that pays for only some: balance = granted - charged, never below zero', async () => {
  const org = `conc-${randomUUID().slice(0, 8)}`;
  const keys = ['k1', 'k2', 'k3'];
  await services.credits.grant(org, 100_000); // 100 credits
  // 400 calls of 1..25 rows of advanced personnel (2 credits a row): far more than the pool.
  const calls = Array.from({ length: 400 }, (_, i) => ({ key: keys[i % 3], rows: 1 + ((i * 7) % 25) }));
  const results = await Promise.all(
    calls.map((c) => services.credits.debit({ org, keyId: c.key, person: c.key, milli: c.rows * entity('personnel').price.advanced, rows: c.rows, dailyRows: c.rows, dailyCap: -1, day }).then((r) => ({ ...c, ...r }))),
  );
  const charged = results.filter((r) => r.outcome === 'charged');
  const refused = results.filter((r) => r.outcome === 'insufficient');
  assert.ok(charged.length > 0 && refused.length > 0, `some paid (${charged.length}) and some refused (${refused.length})`);
  const chargedMilli = charged.reduce((s, r) => s + r.rows * 2000, 0);
  const balance = await services.credits.balance(org);
  assert.is(balance, 100_000 - chargedMilli);
  assert.ok(balance >= 0);
  // Every refused call was refused only because it could not be paid from what was left then.
  assert.ok(refused.every((r) => r.rows * 2000 > balance || ('balance' in r && r.balance < r.rows * 2000)));
  // Usage per key adds up to exactly what was charged, rows and queries included.
  let usageMilli = 0;
  let usageRows = 0;
  let usageQueries = 0;
  for (const k of keys) {
    const u = await services.credits.usage(org, k);
    usageMilli += u.credits_milli;
    usageRows += u.rows;
    usageQueries += u.queries;
  }
  assert.is(usageMilli, chargedMilli);
  assert.is(usageRows, charged.reduce((s, r) => s + r.rows, 0));
  assert.is(usageQueries, charged.length);
});

test('a refused debit changes nothing', async () => {
  const org = `refuse-${randomUUID().slice(0, 8)}`;
  await services.credits.grant(org, 1_000);
  const r = await services.credits.debit({ org, keyId: 'k', person: 'k', milli: 1_001, rows: 1, dailyRows: 1, dailyCap: -1, day });
  assert.is(r.outcome, 'insufficient');
  assert.is(await services.credits.balance(org), 1_000);
  assert.equal(await services.credits.usage(org, 'k'), { credits_milli: 0, rows: 0, queries: 0, cache_hits: 0 });
  assert.is(await services.credits.dailyRows(org, 'k', day), 0);
});

test('daily row cap is enforced atomically under concurrency', async () => {
  const org = `cap-${randomUUID().slice(0, 8)}`;
  await services.credits.grant(org, 10_000_000);
  const results = await Promise.all(Array.from({ length: 100 }, () => services.credits.debit({ org, keyId: 'k', person: 'k', milli: 250, rows: 10, dailyRows: 10, dailyCap: 555, day })));
  const charged = results.filter((r) => r.outcome === 'charged').length;
  assert.is(charged, 55);
  assert.is(results.filter((r) => r.outcome === 'daily_cap').length, 45);
  assert.is(await services.credits.dailyRows(org, 'k', day), 550);
  assert.is(await services.credits.balance(org), 10_000_000 - 55 * 250);
});

test('prices: integer milli-credits; the worked figure of the spec', () => {
  assert.equal(rowPrice(entity('companies'), 'advanced', ['broker_change']), { base: 1000, signals: 100 });
  assert.equal(rowPrice(entity('personnel'), 'basic'), { base: 500, signals: 0 });
  assert.equal(rowPrice(entity('personnel'), 'advanced'), { base: 2000, signals: 0 });
  assert.is(toMilli(0.1), 100);
  assert.is(toMilli(12.345), 12345);
  assert.is(toMilli(0.0001), null);
});

test.run();
