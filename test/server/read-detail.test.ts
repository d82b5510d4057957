/**
 * Detail reads: the sandbox never shows a live row to a test key; projections by mode, fields,
 * tier and format; personnel lead_type; and money: balance after = balance before − charged,
 * also when hundreds of paid calls race a pool that can pay for only some of them.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { assertError, loadFixtures, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';
import { aliasName, sandboxNamespace } from '../../core/names.ts';

const t = suite('read-detail');
const org = `org-${randomUUID().slice(0, 8)}`;
let h: Harness;
let sandbox: DataFiles | undefined;
let cleanupFixtures: () => Promise<void> = async () => {};
let live = '';
let basic = '';
let test = '';
let sandboxCompanyId = '';

const balance = () => h.running.services.credits.balance(org);

t.before(async () => {
  h = await startHarness();
  cleanupFixtures = await loadFixtures(h);
  sandbox = await loadGenerated(h, { companies: 50, personnel: 50, brokerOffices: 20, brokers: 5, seed: 3, sandbox: true });
  const res = await h.running.services.es.search<{ id: string }>({ index: aliasName(sandboxNamespace(h.config.namespace), 'companies'), size: 1 });
  sandboxCompanyId = res.hits.hits[0]._id as string;
  live = (await withOrg(h, { org, field_tier: 'advanced', milli: 100_000 })).secret;
  basic = (await h.key({ org, field_tier: 'basic' })).secret;
  test = (await h.key({ org, key_type: 'test' })).secret;
});
t.after(async () => {
  await h.close();
  await sandbox?.cleanup();
  await cleanupFixtures();
});

t('a test key never sees a live row, and reads the sandbox for free', async () => {
  for (const id of ['c1', 'c2']) assertError(await h.call('GET', `/v1/companies/${id}`, { secret: test }), 404, 'NOT_FOUND', { field: 'id' });
  assertError(await h.call('GET', '/v1/personnel/p1?lead_type=company', { secret: test }), 404, 'NOT_FOUND');
  const before = await balance();
  const res = await h.call('GET', `/v1/companies/${sandboxCompanyId}`, { secret: test });
  assert.is(res.status, 200);
  assert.is(res.body.data.id, sandboxCompanyId);
  assert.is(res.body.meta.credits_charged, 0);
  assert.is(await balance(), before);
  // And a live key never sees a sandbox row.
  assertError(await h.call('GET', `/v1/companies/${sandboxCompanyId}`, { secret: live }), 404, 'NOT_FOUND');
});

t('basic mode by default: basic fields only, null for blanks, lead_source, basic price', async () => {
  const before = await balance();
  const res = await h.call('GET', '/v1/companies/c1', { secret: live });
  assert.is(res.status, 200);
  const row = res.body.data;
  assert.is(row.id, 'c1');
  assert.is(row.company_name, 'Acme Healthcare Inc.');
  assert.is(row.primary_broker, 'Smith Benefits Group LLC');
  assert.is(row.total_premiums, undefined, 'advanced fields only on request');
  assert.is(row.phone_number, undefined);
  assert.is(row.plan_name, null);
  assert.is(row.industry_path, undefined, 'filter-only attributes are not output');
  assert.is(row.lead_source.source, 'Form 5500 (2024)');
  assert.ok(Math.abs(Date.parse(row.lead_source.retrieved_at) - Date.now()) < 60_000);
  assert.equal([res.body.meta.response_tier, res.body.meta.key_tier, res.body.meta.credits_charged], ['basic', 'advanced', 0.25]);
  assert.is(await balance(), before - 250);
});

t('mode=full and advanced fields: advanced price; a basic key gets 403 naming the field', async () => {
  const before = await balance();
  const full = await h.call('GET', '/v1/companies/c1?mode=full', { secret: live });
  assert.is(full.status, 200);
  assert.is(full.body.data.participants, 14);
  assert.ok('admin_email' in full.body.data);
  assert.equal([full.body.meta.response_tier, full.body.meta.credits_charged], ['advanced', 1]);
  assert.is(await balance(), before - 1000);

  const b0 = await balance();
  assertError(await h.call('GET', '/v1/companies/c1?mode=full', { secret: basic }), 403, 'FORBIDDEN', { field: 'mode' });
  assertError(await h.call('GET', '/v1/companies/c1?fields=company_name,total_premiums', { secret: basic }), 403, 'FORBIDDEN', { field: 'fields.total_premiums' });
  assertError(await h.call('GET', '/v1/companies/c1?fields=nope', { secret: live }), 400, 'VALIDATION_ERROR', { field: 'fields.nope', issue: 'unknown_field' });
  assertError(await h.call('GET', '/v1/companies/c1?mode=huge', { secret: live }), 400, 'VALIDATION_ERROR', { field: 'mode' });
  assertError(await h.call('GET', '/v1/companies/c1?format=xml', { secret: live }), 400, 'VALIDATION_ERROR', { field: 'format' });
  assertError(await h.call('GET', '/v1/companies/c1?sort=x', { secret: live }), 400, 'VALIDATION_ERROR', { field: 'sort', issue: 'unknown_field' });
  assertError(await h.call('GET', '/v1/companies/nope', { secret: live }), 404, 'NOT_FOUND', { field: 'id' });
  assert.is(await balance(), b0, 'rejected calls charge nothing');
});

t('fields: id always included, exactly the fields asked; format=flat gives strings in a stable order', async () => {
  const res = await h.call('GET', '/v1/companies/c1?fields=brokers,company_name', { secret: basic });
  assert.is(res.status, 200);
  assert.equal(Object.keys(res.body.data), ['id', 'company_name', 'brokers'], 'exactly id and the fields named');
  const flat = await h.call('GET', '/v1/companies/c1?fields=brokers,company_name,lead_source&format=flat', { secret: basic });
  assert.equal(flat.body.data, {
    id: 'c1',
    company_name: 'Acme Healthcare Inc.',
    brokers: 'Marsh & McLennan Agency;Smith Benefits Group LLC',
    lead_source: 'Form 5500 (2024)',
    lead_source_retrieved_at: flat.body.data.lead_source_retrieved_at,
  });
  for (const v of Object.values(flat.body.data)) assert.type(v, 'string');
});

t('personnel: lead_type required and must match the contact; crm_status and tags with mode=full', async () => {
  assertError(await h.call('GET', '/v1/personnel/p1', { secret: live }), 400, 'VALIDATION_ERROR', { field: 'lead_type', issue: 'missing_required' });
  assertError(await h.call('GET', '/v1/personnel/p1?lead_type=partner', { secret: live }), 400, 'VALIDATION_ERROR', { field: 'lead_type', issue: 'invalid_value' });
  assertError(await h.call('GET', '/v1/personnel/p1?lead_type=broker', { secret: live }), 404, 'NOT_FOUND');
  assertError(await h.call('GET', '/v1/personnel/p2?lead_type=company', { secret: live }), 404, 'NOT_FOUND');
  await h.call('POST', '/v1/tags', { secret: live, body: { entity_type: 'personnel', entity_id: 'p1', tag: '#Decision Maker' } });
  const before = await balance();
  const res = await h.call('GET', '/v1/personnel/p1?lead_type=company&mode=full', { secret: live });
  assert.is(res.status, 200);
  assert.equal(res.body.data.crm_status, []);
  assert.equal(res.body.data.tags, ['decision maker']);
  assert.is(res.body.data.broker_name, null, 'company contacts have no broker');
  assert.is(res.body.meta.credits_charged, 2);
  assert.is(await balance(), before - 2000);
  const broker = await h.call('GET', '/v1/personnel/p2?lead_type=broker', { secret: live });
  assert.is(broker.body.data.broker_name, 'Marsh & McLennan Agency');
  assert.is(broker.body.meta.credits_charged, 0.5);
});

t('hundreds of parallel paid reads against a pool that pays for some: exact balance, 402 for the rest, never below zero', async () => {
  // Cache hits off: every read is a new delivery that must be paid for.
  const uncached = await startHarness({ BINTEL_CACHE_TTL_S: '0' });
  const poor = `${org}-poor`;
  const { secret } = await uncached.key({ org: poor });
  await h.running.services.credits.grant(poor, 10_000); // 10 credits = 40 basic company rows
  const results = await Promise.all(Array.from({ length: 200 }, () => uncached.call('GET', '/v1/companies/c2', { secret }))).finally(() => uncached.close());
  const paid = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 402);
  assert.is(paid.length + refused.length, 200);
  assert.is(paid.length, 40);
  for (const r of refused) {
    assertError(r, 402, 'INSUFFICIENT_CREDITS', { field: 'credits' });
    assert.is(r.body.data, undefined);
  }
  const charged = paid.reduce((s, r) => s + r.body.meta.credits_charged, 0);
  assert.is(charged, 10);
  assert.is(await h.running.services.credits.balance(poor), 0);
  const keys = await h.call('GET', '/v1/api-keys', { secret });
  const me = keys.body.data.find((k: { secret_prefix: string }) => secret.startsWith(k.secret_prefix));
  assert.equal([me.credits_used, me.rows_returned, me.queries], [10, 40, 40]);
});

t.run();
