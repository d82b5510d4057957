/**
 * CRM context: `bintel crm import` (a real CLI process) loads an org's HubSpot and Salesforce
 * exports; the crm_status filter and the personnel crm_status field then agree, row for row,
 * with the lists computed here from the documents, and never cross organizations.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { normalizeDomain } from '../../mappings/normalize.ts';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';
import { aliasName } from '../../core/names.ts';
import { bintel as run } from '../helpers/cli.ts';

const t = suite('crm');
const org = `crm-${randomUUID().slice(0, 8)}`;
const other = `crm-other-${randomUUID().slice(0, 8)}`;
let h: Harness;
let data: DataFiles | undefined;
let dir = '';
let secret = '';
let otherSecret = '';
type Row = Record<string, any>;
let companies: Row[] = [];
const hubspot = new Set<string>(); // domains
const salesforce = new Set<string>(); // EINs and domains

/** A command run in this process (test/helpers/cli.ts), in the server's namespace. */
const bintel = (...args: string[]) => run(args, { BINTEL_NAMESPACE: h.config.namespace });

const get = (path: string, s = secret) => h.call('GET', path, { secret: s });
const csvCell = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** The CRMs a company-side record (ein, domain) is in, by the lists written to the files. */
function expected(ein: string | null, domain: string | null): string[] {
  const out: string[] = [];
  if (domain && hubspot.has(domain)) out.push('hubspot');
  if ((ein && salesforce.has(ein)) || (domain && salesforce.has(domain))) out.push('salesforce');
  return out;
}

async function idsOf(path: string): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 0; ; page++) {
    const res = await get(`${path}&page=${page}&page_size=500&fields=id`);
    assert.is(res.status, 200, JSON.stringify(res.body));
    ids.push(...res.body.data.map((r: Row) => r.id));
    if (!res.body.meta.has_more) return ids.sort();
  }
}

t.before(async () => {
  h = await startHarness({ BINTEL_CRAWL_THRESHOLD: '1000' });
  data = await loadGenerated(h, { companies: 600, personnel: 900, brokerOffices: 60, brokers: 15, seed: 11 });
  dir = data.dir;
  secret = (await withOrg(h, { org, field_tier: 'advanced', milli: 100_000_000 })).secret;
  otherSecret = (await withOrg(h, { org: other, field_tier: 'advanced', milli: 100_000_000 })).secret;
  const res = await h.running.services.es.search({ index: aliasName(h.config.namespace, 'companies'), size: 1000, _source: ['id', 'ein', 'website', 'domain'], sort: [{ id: 'asc' }] });
  companies = res.hits.hits.map((x) => x._source as Row);
  // HubSpot: every 3rd company with a website, written as a full URL (normalized on import).
  // Salesforce: every 4th company by EIN, every 10th by its domain; overlaps HubSpot.
  const hs = ['Company name,Company Domain Name,Phone Number'];
  const sf = ['Account Name,Website,EIN'];
  companies.forEach((c, i) => {
    if (i % 3 === 0 && c.domain) {
      hubspot.add(c.domain);
      hs.push(`${csvCell(`Co ${i}`)},https://www.${c.domain}/about,555-0100`);
    }
    if (i % 4 === 0 && c.ein) {
      salesforce.add(c.ein);
      sf.push(`Account ${i},,${c.ein.slice(0, 2)}-${c.ein.slice(2)}`);
    }
    if (i % 10 === 5 && c.domain) {
      salesforce.add(c.domain);
      sf.push(`Account ${i},${c.domain},`);
    }
  });
  sf.push('Broken,not a domain,12');
  await writeFile(join(dir, 'hubspot.csv'), hs.join('\n'));
  await writeFile(join(dir, 'salesforce.csv'), sf.join('\r\n'));
  assert.ok(hubspot.size > 50 && salesforce.size > 50, `${hubspot.size} / ${salesforce.size}`);
});
t.after(async () => {
  await h.close();
  await data?.cleanup();
});

t('without CRM context: crm_status filter is 403 naming crm_status; rows carry crm_status []', async () => {
  assertError(await get('/v1/companies?crm_status=in_hubspot'), 403, 'FORBIDDEN', { field: 'crm_status', issue: 'crm_context_required' });
  assertError(await get('/v1/companies?crm_status=in_sharepoint'), 400, 'VALIDATION_ERROR', { field: 'crm_status', issue: 'invalid_value' });
  assertError(await get('/v1/companies?crm_status='), 400, 'VALIDATION_ERROR', { field: 'crm_status', issue: 'missing_value' });
  const res = await get('/v1/personnel?lead_type=company&page_size=5');
  assert.is(res.status, 200);
  for (const r of res.body.data) assert.equal(r.crm_status, []);
});

t('crm import: bad files import nothing and exit 1; good files report what they read', async () => {
  await writeFile(join(dir, 'nocols.csv'), 'name,phone\nAcme,555\n');
  const bad = await bintel('crm', 'import', '--org', org, '--crm', 'hubspot', join(dir, 'nocols.csv'));
  assert.is(bad.code, 1);
  assert.match(bad.err, /no domain or EIN column/);
  assert.match(bad.err, /nothing was imported/);
  const wrongCrm = await bintel('crm', 'import', '--org', org, '--crm', 'pipedrive', join(dir, 'hubspot.csv'));
  assert.is.not(wrongCrm.code, 0);
  assert.match(wrongCrm.err, /hubspot, salesforce/);
  assertError(await get('/v1/companies?crm_status=in_hubspot'), 403, 'FORBIDDEN', { field: 'crm_status' });

  const hs = await bintel('crm', 'import', '--org', org, '--crm', 'hubspot', join(dir, 'hubspot.csv'), '--json');
  assert.is(hs.code, 0, hs.err);
  const hsOut = JSON.parse(hs.out);
  assert.is(hsOut.domains, hubspot.size);
  assert.is(hsOut.eins, 0);
  const sf = await bintel('crm', 'import', '--org', org, '--crm', 'salesforce', join(dir, 'salesforce.csv'));
  assert.is(sf.code, 0, sf.err);
  assert.match(sf.out, /imported salesforce for org/);
  assert.match(sf.out, /line \d+: Website "not a domain" is not a valid domain/);
  assert.match(sf.out, /EIN "12" is not a valid EIN/);
  const list = JSON.parse((await bintel('crm', 'list', '--org', org, '--json')).out);
  assert.equal(list.map((l: Row) => l.crm), ['hubspot', 'salesforce']);
});

t('crm_status filter: each value, and combinations, match exactly the companies the lists name', async () => {
  const all = companies.map((c) => ({ id: c.id as string, crm: expected(c.ein ?? null, c.domain ?? null) }));
  const want = (pred: (crm: string[]) => boolean) => all.filter((c) => pred(c.crm)).map((c) => c.id).sort();
  const cases: [string, (crm: string[]) => boolean][] = [
    ['in_hubspot', (c) => c.includes('hubspot')],
    ['in_salesforce', (c) => c.includes('salesforce')],
    ['in_both', (c) => c.length === 2],
    ['not_in_crm', (c) => c.length === 0],
    ['in_both,not_in_crm', (c) => c.length !== 1],
  ];
  for (const [status, pred] of cases) {
    const expectedIds = want(pred);
    assert.ok(expectedIds.length > 0, status);
    assert.equal(await idsOf(`/v1/companies?crm_status=${status}`), expectedIds, status);
  }
  // Combined with another filter, and counted the same way.
  const count = (await get('/v1/companies?crm_status=IN_HUBSPOT&count_only=true')).body.data.total_count;
  assert.is(count, want((c) => c.includes('hubspot')).length);
});

t('personnel: crm_status per row follows the employer; filter, detail and batch agree', async () => {
  const res = await get('/v1/personnel?lead_type=company&eb[company_ein]=true&page_size=500&fields=company_ein,company_website,crm_status');
  assert.is(res.status, 200);
  let inSome = 0;
  for (const r of res.body.data) {
    const want = expected(r.company_ein, r.company_website ? normalizeDomain(r.company_website) : null);
    assert.equal(r.crm_status, want, JSON.stringify(r));
    if (want.length) inSome++;
  }
  assert.ok(inSome > 10, `${inSome} contacts in a CRM`);
  const both = await get('/v1/personnel?lead_type=company&crm_status=in_both&page_size=100&fields=company_ein,crm_status');
  assert.ok(both.body.data.length > 0);
  for (const r of both.body.data) assert.equal(r.crm_status, ['hubspot', 'salesforce']);
  const one = both.body.data[0];
  const detail = await get(`/v1/personnel/${one.id}?lead_type=company`);
  assert.equal(detail.body.data.crm_status, ['hubspot', 'salesforce']);
  const batch = await h.call('POST', '/v1/personnel/batch', { secret, body: { lead_type: 'company', ids: both.body.data.slice(0, 5).map((r: Row) => r.id) } });
  assert.is(batch.status, 200, JSON.stringify(batch.body));
  for (const r of batch.body.data) assert.equal(r.crm_status, ['hubspot', 'salesforce']);
});

t('another organization sees none of it', async () => {
  assertError(await get('/v1/companies?crm_status=in_hubspot', otherSecret), 403, 'FORBIDDEN', { field: 'crm_status' });
  const res = await get('/v1/personnel?lead_type=company&eb[company_ein]=true&page_size=200', otherSecret);
  assert.is(res.status, 200);
  assert.ok(res.body.data.length > 0);
  for (const r of res.body.data) assert.equal(r.crm_status, []);
});

t('crm remove: the list stops matching at once; with none left the filter is 403 again', async () => {
  const rm1 = await bintel('crm', 'remove', '--org', org, '--crm', 'hubspot');
  assert.is(rm1.code, 0, rm1.err);
  assert.equal(await idsOf('/v1/companies?crm_status=in_hubspot'), []);
  assert.equal(await idsOf('/v1/companies?crm_status=in_both'), []);
  const sfIds = companies.filter((c) => expected(c.ein ?? null, c.domain ?? null).includes('salesforce')).map((c) => c.id).sort();
  assert.equal(await idsOf('/v1/companies?crm_status=in_salesforce'), sfIds);
  const again = await bintel('crm', 'remove', '--org', org, '--crm', 'hubspot');
  assert.is(again.code, 1);
  assert.is((await bintel('crm', 'remove', '--org', org, '--crm', 'salesforce')).code, 0);
  assertError(await get('/v1/companies?crm_status=not_in_crm'), 403, 'FORBIDDEN', { field: 'crm_status' });
});

t.run();
