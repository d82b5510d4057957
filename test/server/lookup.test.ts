/**
 * Lookups and batches on the fixtures: exact single results, 404 on a miss, 400 with
 * suggestions for an ambiguous broker name, batch limits, prices per returned row.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { assertError, loadFixtures, startHarness, withOrg, type Harness } from './harness.ts';

const t = suite('lookup');
const org = `org-${randomUUID().slice(0, 8)}`;
let h: Harness;
let cleanup: () => Promise<void> = async () => {};
let secret = '';
const get = (path: string) => h.call('GET', path, { secret });
const post = (path: string, body: unknown) => h.call('POST', path, { secret, body });

t.before(async () => {
  h = await startHarness();
  // Two brokers share a name, for the ambiguous case.
  cleanup = await loadFixtures(h, { append: { brokers: 'b3,Smith Benefits Group Inc.,,local broker,5,0,1000,\n' } });
  secret = (await withOrg(h, { org, milli: 1_000_000 })).secret;
});
t.after(async () => {
  await h.close();
  await cleanup();
});

t('company lookup by domain (normalized), EIN (with or without dash) and name (suffix and case folded)', async () => {
  for (const qs of ['domain=https://WWW.acmehealth.com/about', 'ein=12-3456789', 'ein=123456789', 'name=ACME%20HEALTHCARE', 'name=Acme%20Healthcare%2C%20LLC']) {
    const res = await get(`/v1/companies/lookup?${qs}`);
    assert.is(res.status, 200, `${qs}: ${JSON.stringify(res.body)}`);
    assert.is(res.body.data.id, 'c1', qs);
    // The first lookup pays for c1; the same row again is a cache hit (spec, Limits).
    const first = qs.startsWith('domain=');
    assert.equal([res.body.meta.credits_charged, res.body.meta.cache_hit], first ? [0.25, false] : [0, true], qs);
  }
  assertError(await get('/v1/companies/lookup?domain=nobody.example'), 404, 'NOT_FOUND', { field: 'domain' });
  // cf on a name: case beyond ASCII and accents do not matter ("Café Lumière LLC").
  for (const v of ['CAFÉ LUMI', 'lumiere', 'Café Lumière']) {
    const res = await get(`/v1/companies?cf[company_name]=${encodeURIComponent(v)}&fields=company_name`);
    assert.equal(res.body.data.map((r: { id: string }) => r.id), ['c2'], v);
  }
  assertError(await get('/v1/companies/lookup'), 400, 'VALIDATION_ERROR', { field: 'domain', issue: 'missing_required' });
  assertError(await get('/v1/companies/lookup?domain=acmehealth.com&ein=123456789'), 400, 'VALIDATION_ERROR');
  const dry = await get('/v1/companies/lookup?ein=123456789&dry_run=true&mode=full');
  assert.equal([dry.body.meta.dry_run, dry.body.meta.estimated_credits, dry.body.meta.credits_charged], [true, 1, 0]);
});

t('broker lookup: one match, 400 AMBIGUOUS_LOOKUP with suggestions, 404 with near names', async () => {
  const one = await get('/v1/brokers/lookup?name=marsh%20%26%20mclennan%20agency');
  assert.is(one.status, 200);
  assert.is(one.body.data.id, 'b1');
  const amb = await get('/v1/brokers/lookup?name=Smith%20Benefits%20Group');
  assertError(amb, 400, 'AMBIGUOUS_LOOKUP', { field: 'name', issue: 'ambiguous' });
  assert.equal(amb.body.error.details[0].suggestions.map((s: { id: string }) => s.id).sort(), ['b2', 'b3']);
  // Spelled out with its suffix, the name is one broker's.
  for (const [name, id] of [['Smith Benefits Group LLC', 'b2'], ['smith benefits group, inc.', 'b3']]) {
    const res = await get(`/v1/brokers/lookup?name=${encodeURIComponent(name)}`);
    assert.is(res.status, 200, `${name}: ${JSON.stringify(res.body)}`);
    assert.is(res.body.data.id, id);
  }
  const miss = await get('/v1/brokers/lookup?name=Marsh%20McLenan');
  assertError(miss, 404, 'NOT_FOUND', { field: 'name' });
  assert.ok(miss.body.error.details[0].suggestions.some((s: { id: string }) => s.id === 'b1'));
  assertError(await get('/v1/brokers/lookup'), 400, 'VALIDATION_ERROR', { field: 'name', issue: 'missing_required' });
});

t('company batch: found rows in request order, not_found listed, charged per returned row; limits', async () => {
  const res = await post('/v1/companies/batch', { ids: ['c2', 'nope', 'c1', 'c2'] });
  assert.is(res.status, 200);
  assert.equal(res.body.data.map((r: { id: string }) => r.id), ['c2', 'c1']);
  assert.equal(res.body.meta.not_found, ['nope']);
  assert.is(res.body.meta.credits_charged, 0.5);
  assertError(await post('/v1/companies/batch', { ids: Array.from({ length: 101 }, (_, i) => `x${i}`) }), 400, 'VALIDATION_ERROR', { field: 'ids', issue: 'too_many_items' });
  assertError(await post('/v1/companies/batch', { ids: ['c1'], extra: 1 }), 400, 'VALIDATION_ERROR', { field: 'extra', issue: 'unknown_field' });
});

t('personnel batch: contacts per EIN (page_size per input), lead_type required and respected', async () => {
  const res = await post('/v1/personnel/batch', { company_eins: ['12-3456789', '987654321', '111111111'], lead_type: 'company', page_size: 5 });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.data.map((g: { company_ein: string; contacts: unknown[] }) => [g.company_ein, g.contacts.length]), [['123456789', 1], ['987654321', 1], ['111111111', 0]]);
  assert.is(res.body.meta.credits_charged, 1);
  const broker = await post('/v1/personnel/batch', { ids: ['p1', 'p2'], lead_type: 'broker' });
  assert.equal(broker.body.data.map((r: { id: string }) => r.id), ['p2']);
  assertError(await post('/v1/personnel/batch', { company_eins: ['123456789'] }), 400, 'VALIDATION_ERROR', { field: 'lead_type', issue: 'missing_required' });
  assertError(await post('/v1/personnel/batch', { lead_type: 'company' }), 400, 'VALIDATION_ERROR', { field: 'company_eins' });
  assertError(await post('/v1/personnel/batch', { company_eins: Array.from({ length: 51 }, () => '123456789'), lead_type: 'company' }), 400, 'VALIDATION_ERROR', { field: 'company_eins', issue: 'too_many_items' });
});

t('batch paths take POST only: GET is 405 with Allow, not a detail read of the id "batch"', async () => {
  for (const path of ['/v1/companies/batch', '/v1/personnel/batch?lead_type=company']) {
    const res = await get(path);
    assertError(res, 405, 'METHOD_NOT_ALLOWED', { field: 'method', issue: 'not_allowed' });
    assert.is(res.headers.get('allow'), 'POST', path);
  }
  const lookup = await h.call('POST', '/v1/companies/lookup', { secret, body: {} });
  assertError(lookup, 405, 'METHOD_NOT_ALLOWED');
  assert.ok(lookup.headers.get('allow')?.includes('GET'));
  // Allow names only methods that work: the detail route does not claim the batch path.
  const del = await h.call('DELETE', '/v1/companies/batch', { secret });
  assertError(del, 405, 'METHOD_NOT_ALLOWED');
  assert.is(del.headers.get('allow'), 'POST');
  // Other reserved segments are not record ids either: the export route answers (here: it needs a filter).
  assertError(await get('/v1/brokers/export.csv'), 400, 'FILTER_REQUIRED', { field: 'page_size' });
  // autocomplete is an endpoint of its own (its 400, never "no record with id autocomplete").
  assertError(await get('/v1/companies/autocomplete'), 400, 'VALIDATION_ERROR', { field: 'query', issue: 'missing_required' });
  assertError(await h.call('POST', '/v1/companies/autocomplete', { secret, body: {} }), 405, 'METHOD_NOT_ALLOWED');
});

t('bodies: not JSON is 415; dry runs answer data in the shape of the real call; personnel batch takes lead_type from the query too', async () => {
  const res = await h.call('POST', '/v1/companies/batch', { secret, raw: 'ids=c1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assertError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', { field: 'content-type', issue: 'unsupported_media_type' });
  const dryLookup = await get('/v1/companies/lookup?ein=123456789&dry_run=true');
  assert.equal([dryLookup.body.data, dryLookup.body.meta.estimated_rows], [{}, 1]);
  const dryBatch = await h.call('POST', '/v1/companies/batch?dry_run=true', { secret, body: { ids: ['c1', 'c2'] } });
  assert.equal([dryBatch.body.data, dryBatch.body.meta.estimated_rows], [[], 2]);
  const viaQuery = await h.call('POST', '/v1/personnel/batch?lead_type=company', { secret, body: { company_eins: ['12-3456789'] } });
  assert.is(viaQuery.status, 200, JSON.stringify(viaQuery.body));
  assert.equal(viaQuery.body.data[0].contacts.map((c: { id: string }) => c.id), ['p1']);
  assertError(await h.call('POST', '/v1/personnel/batch?lead_type=broker', { secret, body: { company_eins: ['123456789'], lead_type: 'company' } }), 400, 'VALIDATION_ERROR', { field: 'lead_type', issue: 'conflicting_values' });
  assertError(await post('/v1/personnel/batch', { company_eins: ['123456789'] }), 400, 'VALIDATION_ERROR', { field: 'lead_type', issue: 'missing_required' });
  // An EIN given twice (with and without the dash) is one input, charged once.
  const once = await post('/v1/personnel/batch', { company_eins: ['987654321'], lead_type: 'company', page_size: 5 });
  const twice = await post('/v1/personnel/batch?dry_run=true', { company_eins: ['98-7654321', '987654321'], lead_type: 'company' });
  assert.equal([twice.body.meta.requested, twice.body.meta.estimated_rows], [1, once.body.meta.returned]);
  // format=flat: one table of contact rows, every value a string, each row naming its input EIN.
  const flat = await h.call('POST', '/v1/personnel/batch?format=flat&fields=full_name', { secret, body: { company_eins: ['12-3456789', '987654321'], lead_type: 'company' } });
  assert.is(flat.status, 200, JSON.stringify(flat.body));
  assert.equal(flat.body.data.map((r: Record<string, string>) => [r.company_ein, r.id]), [['123456789', 'p1'], ['987654321', 'p4']]);
  for (const r of flat.body.data) for (const v of Object.values(r)) assert.type(v, 'string');
  // fields may name the per-caller members of a contact: crm_status and tags.
  await h.call('POST', '/v1/tags', { secret, body: { entity_type: 'personnel', entity_id: 'p4', tag: 'Renewal Q3' } });
  const withTags = await h.call('POST', '/v1/personnel/batch?fields=full_name,tags,crm_status', { secret, body: { ids: ['p1', 'p4'], lead_type: 'company' } });
  assert.equal(withTags.body.data.map((r: { id: string; tags: string[]; crm_status: string[] }) => [r.id, r.tags, r.crm_status]), [['p1', [], []], ['p4', ['renewal q3'], []]]);
});

/** `n` company contacts of company `company` (fixture columns), one CSV line each. */
const contacts = (company: string, n: number): string =>
  Array.from({ length: n }, (_, i) => `${company}x${i},Pat,Batch${String(i).padStart(4, '0')},Pat Batch${i},Benefits Analyst,Mid-Level,company,${company},,pat${i}@${company}.example\n`).join('');

// Last: it reloads the fixtures with hundreds of contacts added (the tests above count the plain fixtures).
t('personnel batch: page_size up to the list limit (500); the answer holds at most 500 contacts over all EINs, filled in input order', async () => {
  const more = await loadFixtures(h, { append: { personnel: contacts('c1', 600) + contacts('c2', 100) } });
  // Its own pool: each answer of 500 contacts costs 250 credits.
  const own = (await withOrg(h, { milli: 10_000_000 })).secret;
  const post = (path: string, body: unknown) => h.call('POST', path, { secret: own, body });
  try {
    const one = await post('/v1/personnel/batch', { company_eins: ['12-3456789'], lead_type: 'company', page_size: 500 });
    assert.is(one.status, 200, JSON.stringify(one.body).slice(0, 300));
    assert.is(one.body.data[0].contacts.length, 500);
    assert.is(one.body.meta.returned, 500);
    assert.is(one.body.meta.truncated, undefined, 'nothing was cut: 500 asked for one EIN');
    assertError(await post('/v1/personnel/batch', { company_eins: ['12-3456789'], lead_type: 'company', page_size: 501 }), 400, 'VALIDATION_ERROR', { field: 'page_size' });

    // 450 + 101 contacts asked for: the first EIN keeps its 450, the second is cut at 50, the third answers none.
    const two = await post('/v1/personnel/batch', { company_eins: ['123456789', '987654321', '111111111'], lead_type: 'company', page_size: 450 });
    assert.is(two.status, 200, JSON.stringify(two.body).slice(0, 300));
    assert.equal(two.body.data.map((g: { company_ein: string; contacts: unknown[] }) => [g.company_ein, g.contacts.length]), [['123456789', 450], ['987654321', 50], ['111111111', 0]]);
    assert.is(two.body.meta.returned, 500);
    assert.is(two.body.meta.truncated, true);
    const flat = await h.call('POST', '/v1/personnel/batch?format=flat', { secret: own, body: { company_eins: ['123456789', '987654321'], lead_type: 'company', page_size: 480 } });
    assert.is(flat.body.data.length, 500, 'flat: one table of at most 500 contact rows');
    assert.is(flat.body.data.filter((r: { company_ein: string }) => r.company_ein === '987654321').length, 20);
    const ids = flat.body.data.map((r: { id: string }) => r.id);
    assert.is(new Set(ids).size, 500);
  } finally {
    await more();
  }
});

t.run();
