/**
 * List endpoints on generated data: every row honours every filter, order is
 * `<sort_by> <dir>, id asc`, pages concatenate to one big page (also past the from/size
 * window, where pages walk with search_after), counts agree, and the charge is rows × price.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { assertError, loadGenerated, startHarness, withOrg, type Harness, type Res } from './harness.ts';
import { pollUntil, testConfig } from '../helpers/env.ts';
import { useDataset } from '../helpers/datasets.ts';

const t = suite('list');
const org = `org-${randomUUID().slice(0, 8)}`;
let h: Harness;
let adv = '';
let basic = '';
let test = '';

type Row = Record<string, any>;
const get = (path: string, secret = adv) => h.call('GET', path, { secret });

async function walk(path: string, pageSize: number, pages: number): Promise<Row[]> {
  const out: Row[] = [];
  for (let page = 0; page < pages; page++) {
    const res = await get(`${path}&page=${page}&page_size=${pageSize}`);
    assert.is(res.status, 200, JSON.stringify(res.body));
    out.push(...res.body.data);
    if (!res.body.meta.has_more) break;
  }
  return out;
}

t.before(async () => {
  // The shared standard data set (1,500 companies and contacts, 150 offices, 30 brokers): read only.
  const data = await useDataset('standard');
  h = await startHarness({ ...data.env, BINTEL_PAGE_WINDOW: '60', BINTEL_CRAWL_THRESHOLD: '1000', BINTEL_EXACT_COUNT_UP_TO: '400' });
  adv = (await withOrg(h, { org, field_tier: 'advanced', milli: 100_000_000 })).secret;
  basic = (await h.key({ org, field_tier: 'basic' })).secret;
  test = (await h.key({ org, key_type: 'test' })).secret;
});
t.after(async () => {
  await h.close();
});

t('every row honours every filter; total_count = count_only = rows walked', async () => {
  const filters = 'states=tx,ca,ny&cf[total_number_of_employees]=gte:11,lt:5000&eb[website]=true&fields=state,total_number_of_employees,website';
  const big = await get(`/v1/companies?${filters}&page_size=500`);
  assert.is(big.status, 200, JSON.stringify(big.body));
  const rows: Row[] = big.body.data;
  assert.ok(rows.length > 20, `${rows.length} rows`);
  for (const r of rows) {
    assert.ok(['TX', 'CA', 'NY'].includes(r.state), r.state);
    assert.ok(r.total_number_of_employees >= 11 && r.total_number_of_employees < 5000);
    assert.ok(r.website);
  }
  const count = await get(`/v1/companies?${filters}&count_only=true`);
  assert.is(count.body.data.total_count, big.body.meta.total_count);
  assert.is(count.body.meta.credits_charged, 0);
  assert.is(rows.length, big.body.meta.total_count);
});

t('dmas: names holding a comma ("Rochester, NY") filter as one market; bounds on one side all hold', async () => {
  const dmas = 'Columbus, OH,Portland, OR,Washington, DC (Hagrstwn),New York';
  const res = await get(`/v1/companies?dmas=${encodeURIComponent(dmas)}&page_size=500&fields=dma`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  const wanted = ['Columbus, OH', 'Portland, OR', 'Washington, DC (Hagrstwn)', 'New York'];
  assert.ok(res.body.data.length > 0);
  for (const r of res.body.data) assert.ok(wanted.includes(r.dma), r.dma);
  assert.ok(res.body.data.some((r: Row) => r.dma.includes(',')), 'some rows are in a comma-named market');
  assertError(await get(`/v1/companies?dmas=${encodeURIComponent('Columbus, Nowhere')}`), 400, 'VALIDATION_ERROR', { field: 'dmas', issue: 'invalid_value' });
  const tight = await get('/v1/companies?cf[total_number_of_employees]=gte:5,gte:1,gt:20,lt:900,lte:2000&page_size=500&fields=total_number_of_employees');
  assert.is(tight.status, 200, JSON.stringify(tight.body));
  assert.ok(tight.body.data.length > 0);
  for (const r of tight.body.data) assert.ok(r.total_number_of_employees > 20 && r.total_number_of_employees < 900, String(r.total_number_of_employees));
});

t('order is sort_by, sort_dir, then id; pages 0..k concatenate to one big page, across the from/size window', async () => {
  for (const [sort, dir] of [['company_name', 'asc'], ['total_number_of_employees', 'desc'], ['company_name', 'desc']] as const) {
    const base = `/v1/companies?states=CA,TX,NY,FL&sort_by=${sort}&sort_dir=${dir}&fields=company_name,total_number_of_employees`;
    const big = (await get(`${base}&page_size=200`)).body.data as Row[];
    const paged = await walk(base, 20, 10);
    assert.equal(paged.map((r) => r.id), big.map((r) => r.id), `${sort} ${dir}`);
    assert.is(new Set(paged.map((r) => r.id)).size, paged.length, 'no overlaps');
    for (let i = 1; i < big.length; i++) {
      const [a, b] = [big[i - 1], big[i]];
      const key = (r: Row) => (sort === 'company_name' ? String(r.company_name).toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '') : r.total_number_of_employees);
      const [ka, kb] = [key(a), key(b)];
      if (ka === kb) assert.ok(a.id < b.id, 'id breaks ties');
      else if (sort === 'total_number_of_employees') assert.ok(dir === 'desc' ? ka > kb : ka < kb);
    }
  }
});

t('next_cursor walks the same rows as pages (past the window too); bad, foreign and stale cursors are 400', async () => {
  const base = '/v1/companies?states=CA,TX,NY,FL&sort_by=company_name&fields=company_name&page_size=20';
  const big = (await get(base.replace('page_size=20', 'page_size=200'))).body.data as Row[];
  const walked: Row[] = [];
  let res = await get(base);
  let cursor: string | undefined;
  for (let i = 0; i < 10; i++) {
    walked.push(...res.body.data);
    cursor = res.body.meta.next_cursor;
    if (!cursor) break;
    res = await get(`${base}&cursor=${cursor}`);
    assert.is(res.status, 200, JSON.stringify(res.body));
    assert.is(res.body.meta.page, i + 1);
  }
  assert.equal(walked.map((r) => r.id), big.map((r) => r.id).slice(0, walked.length));
  assert.ok(walked.length >= 200);
  assertError(await get(`${base}&cursor=garbage`), 400, 'VALIDATION_ERROR', { field: 'cursor', issue: 'invalid_cursor' });
  assertError(await get(`/v1/companies?states=CA&sort_by=company_name&fields=company_name&page_size=20&cursor=${cursor}`), 400, 'VALIDATION_ERROR', { field: 'cursor', issue: 'cursor_filter_mismatch' });
});

t('a cursor from before a reindex is stale (400), on data of its own: the shared data set is read only', async () => {
  const own = await startHarness({ BINTEL_NAMESPACE: `${testConfig().namespace}-list`, BINTEL_PAGE_WINDOW: '60', BINTEL_CRAWL_THRESHOLD: '1000' });
  const data = await loadGenerated(own, { companies: 200, personnel: 0, brokerOffices: 10, brokers: 3, seed: 5 });
  try {
    const { secret } = await withOrg(own, { field_tier: 'advanced', milli: 10_000_000 });
    const base = '/v1/companies?sort_by=company_name&fields=company_name&page_size=20';
    const cursor = (await own.call('GET', base, { secret })).body.meta.next_cursor;
    assert.type(cursor, 'string');
    assert.is((await own.call('GET', `${base}&cursor=${cursor}`, { secret })).status, 200, 'the cursor works before the reindex');
    const { reindexResource } = await import('../../ingest/run.ts');
    await reindexResource(own.config, 'companies', { progress: null });
    assertError(await own.call('GET', `${base}&cursor=${cursor}`, { secret }), 400, 'VALIDATION_ERROR', { field: 'cursor', issue: 'stale_cursor' });
  } finally {
    await own.close();
    await data.cleanup();
  }
});

t('large totals: the first call says count_pending (no total_count), later calls get the exact count', async () => {
  const path = '/v1/companies?signal_match=any&fields=company_name&page_size=5&cf[total_number_of_employees]=gte:0';
  const first = await get(path);
  assert.is(first.body.meta.count_pending, true, JSON.stringify(first.body.meta));
  assert.is(first.body.meta.total_count, undefined);
  assert.is(first.body.meta.has_more, true);
  const exact = (await get(`${path}&count_only=true`)).body.data.total_count;
  assert.ok(exact > 400);
  const later: Row = await pollUntil(async () => {
    const meta = (await get(path)).body.meta;
    return meta.total_count !== undefined && meta;
  }, { what: 'the background count', everyMs: 100 });
  assert.is(later.total_count, exact);
  assert.is(later.count_pending, undefined);
});

t('include_count=false: no total_count, has_more from one extra row', async () => {
  const res = await get('/v1/companies?states=TX&include_count=false&page_size=5');
  assert.is(res.body.meta.total_count, undefined);
  assert.is(res.body.meta.returned, 5);
  assert.is(res.body.meta.has_more, true);
  const all = await get('/v1/companies?states=TX&page_size=500&fields=state');
  const last = Math.floor((all.body.data.length - 1) / 5);
  const end = await get(`/v1/companies?states=TX&include_count=false&page_size=5&page=${last}`);
  assert.is(end.body.meta.has_more, false);
});

t('credits: charged = rows × price at the response tier; balance after = before − charged; dry run costs 0', async () => {
  const before = await h.running.services.credits.balance(org);
  const a = await get('/v1/companies?states=TX&page_size=7');
  const b = await get('/v1/companies?states=TX&page_size=7&mode=full');
  const c = await get('/v1/personnel?lead_type=company&page_size=3&signals=broker_change,likely_to_switch&mode=full');
  assert.is(a.body.meta.credits_charged, a.body.meta.returned * 0.25);
  assert.is(b.body.meta.credits_charged, b.body.meta.returned * 1);
  assert.is(c.body.meta.credits_charged, Number((c.body.meta.returned * (2 + 0.1 + 0.2)).toFixed(3)));
  const dry = await get('/v1/companies?states=TX&page_size=7&dry_run=true&signals=broker_change');
  assert.is(dry.body.meta.credits_charged, 0);
  assert.is(dry.body.meta.estimated_credits, dry.body.meta.base_credits + dry.body.meta.signal_credits);
  const charged = a.body.meta.credits_charged + b.body.meta.credits_charged + c.body.meta.credits_charged;
  assert.is(await h.running.services.credits.balance(org), before - Math.round(charged * 1000));
});

t('personnel: lead_type required, and a company contact never appears under lead_type=broker', async () => {
  assertError(await get('/v1/personnel'), 400, 'VALIDATION_ERROR', { field: 'lead_type', issue: 'missing_required' });
  for (const side of ['company', 'broker']) {
    const res = await get(`/v1/personnel?lead_type=${side}&page_size=25`);
    assert.ok(res.body.data.length > 0);
    for (const r of res.body.data) assert.is(r.lead_type, side);
  }
  assertError(await get('/v1/personnel?lead_type=company&cf[email]=x@y.com'), 400, 'VALIDATION_ERROR', { field: 'cf[email]' });
  assertError(await get('/v1/personnel?lead_type=company&cf[linkedin]=x'), 400, 'VALIDATION_ERROR', { field: 'cf[linkedin]' });
});

t('reverse lookup by exact email: one match, or an empty list (not 404)', async () => {
  const some = await get('/v1/personnel?lead_type=company&eb[email_address]=true&page_size=1&fields=email_address');
  const email = some.body.data[0].email_address;
  const hit = await get(`/v1/personnel?lead_type=company&cf[email_address]=${encodeURIComponent(email)}`);
  assert.ok(hit.body.data.length >= 1);
  for (const r of hit.body.data) assert.is(r.email_address, email);
  const miss = await get(`/v1/personnel?lead_type=company&cf[email_address]=${encodeURIComponent(email.toUpperCase())}`);
  assert.is(miss.status, 200);
  assert.equal(miss.body.data, []);
});

t('parameter errors name the field; tier errors are 403; limits hold', async () => {
  const bad = await get('/v1/companies?sort_by=ein');
  assertError(bad, 400, 'VALIDATION_ERROR', { field: 'sort_by', issue: 'invalid_value' });
  assert.ok(bad.body.error.details[0].expected.includes('company_name'));
  assertError(await get('/v1/companies?sort_by=total_premiums', basic), 403, 'FORBIDDEN', { field: 'sort_by' });
  assertError(await get('/v1/companies?cf[participants]=gte:5&states=TX', basic), 403, 'FORBIDDEN', { field: 'cf[participants]' });
  assertError(await get('/v1/companies?states=Texas'), 400, 'VALIDATION_ERROR', { field: 'states', issue: 'invalid_state' });
  assertError(await get('/v1/companies?page_size=501&states=TX'), 400, 'VALIDATION_ERROR', { field: 'page_size' });
  assertError(await get('/v1/companies?page_size=26'), 400, 'FILTER_REQUIRED', { field: 'page_size' });
  assertError(await get('/v1/companies?page_size=101&states=TX', test), 400, 'VALIDATION_ERROR', { field: 'page_size' });
  assertError(await get('/v1/companies?cf[company_name]='), 400, 'VALIDATION_ERROR', { field: 'cf[company_name]', issue: 'missing_value' });
  assertError(await get('/v1/companies?eb[website]=false'), 400, 'VALIDATION_ERROR', { field: 'eb[website]' });
  assertError(await get('/v1/companies?cf[nope]=1'), 400, 'VALIDATION_ERROR', { field: 'cf[nope]' });
  assertError(await get('/v1/companies?colour=red'), 400, 'VALIDATION_ERROR', { field: 'colour', issue: 'unknown_field' });
  assertError(await get('/v1/companies?signals=not_a_signal'), 400, 'VALIDATION_ERROR', { field: 'signals' });
  // Contains-matches are bounded (a 3,000-character one made Elasticsearch refuse the automaton: a 500).
  assertError(await get(`/v1/companies?cf[company_name]=${'a'.repeat(3000)}`), 400, 'VALIDATION_ERROR', { field: 'cf[company_name]', issue: 'too_long' });
  assertError(await get(`/v1/companies?broker_office=${'a'.repeat(201)}`), 400, 'VALIDATION_ERROR', { field: 'broker_office', issue: 'too_long' });
  assertError(await get(`/v1/companies?search=${'a'.repeat(501)}`), 400, 'VALIDATION_ERROR', { field: 'search', issue: 'too_long' });
  const many = (n: number) => Array.from({ length: n }, (_, i) => `x${i}`).join(',');
  assertError(await get(`/v1/companies?broker=${many(51)}`), 400, 'VALIDATION_ERROR', { field: 'broker', issue: 'too_many_values' });
  assertError(await get(`/v1/companies?cf[company_name]=${many(51)}`), 400, 'VALIDATION_ERROR', { field: 'cf[company_name]', issue: 'too_many_values' });
  assert.is((await get(`/v1/companies?broker=${many(50)}`)).status, 200);
  // Past Node's 16 KB request head, still the envelope (431), not a bare status line.
  const huge = await get(`/v1/companies?cf[participants]=${many(3000)}`);
  assert.is(huge.status, 431);
  assert.equal([huge.body.ok, huge.body.error.code, huge.body.error.details[0].issue, huge.body.meta.credits_charged], [false, 'REQUEST_TOO_LARGE', 'too_long', 0]);
  assert.is(huge.body.error.request_id, huge.headers.get('x-request-id'));
  assert.is((await get(`/v1/companies?cf[company_name]=${'a'.repeat(200)}`)).status, 200, 'the longest allowed contains-match is answered');
});

t('resource filters: every row honours them; industries expand across the NAICS subsector while cf[company_industry] stays strict', async () => {
  const rows = async (path: string) => {
    const res = await get(path);
    assert.is(res.status, 200, JSON.stringify(res.body));
    return res.body.data as Row[];
  };
  for (const r of await rows('/v1/companies?employee_bands=11-50,51-200&funding_status=Fully%20Insured&page_size=200&fields=employee_band,funding_status')) {
    assert.ok(['11-50', '51-200'].includes(r.employee_band));
    assert.is(r.funding_status, 'Fully Insured');
  }
  for (const r of await rows('/v1/companies?short_form=true&renewal_month=January&page_size=200&fields=form_type,renewal_month')) {
    assert.is(r.form_type, '5500-SF');
    assert.is(r.renewal_month, 'January');
  }
  const label = 'Offices of Physicians';
  const expanded = await rows(`/v1/companies?industries=${encodeURIComponent(label)}&page_size=500&fields=company_industry`);
  const strict = await rows(`/v1/companies?cf[company_industry]=${encodeURIComponent(label)}&page_size=500&fields=company_industry`);
  const { industryPath } = await import('../../mappings/industries.ts');
  for (const r of expanded) assert.is(industryPath(r.company_industry)[1], 'Ambulatory Health Care Services');
  for (const r of strict) assert.ok(r.company_industry.includes(label));
  assert.ok(expanded.length > strict.length, `expanded ${expanded.length} > strict ${strict.length}`);
  // seniority: the level, or (spec: "matched by title substring") one of its title words.
  const { SENIORITY_TITLES } = await import('../../mappings/reference.ts');
  const words = (title: string) => ` ${String(title ?? '').toLowerCase().replace(/[^a-z0-9]+/g, ' ')} `;
  const titled = (title: string, levels: (keyof typeof SENIORITY_TITLES)[]) =>
    levels.some((l) => SENIORITY_TITLES[l].some((w) => {
      const [phrase, unless] = w.split('!');
      return words(title).includes(` ${phrase} `) && !(unless && words(title).includes(` ${unless} `));
    }));
  const senior = await rows('/v1/personnel?lead_type=company&seniority=C-suite,VP-Director&has_email=false&page_size=500&fields=seniority,title,email_address');
  for (const r of senior) {
    assert.ok(['C-suite', 'VP-Director'].includes(r.seniority) || titled(r.title, ['C-suite', 'VP-Director']), `${r.seniority} / ${r.title}`);
    assert.is(r.email_address, null);
  }
  const blankButChief = await rows('/v1/personnel?lead_type=company&seniority=C-suite&eb[title]=true&job_title=chief&page_size=500&fields=seniority,title');
  assert.ok(blankButChief.some((r) => r.seniority === null), 'a Chief ... with no seniority value is found by its title');
  assert.ok(!senior.some((r) => r.seniority === 'Entry-Level' && !titled(r.title, ['C-suite', 'VP-Director'])));
  const brokers = await rows('/v1/brokers?page_size=2&fields=broker_name');
  const offices = await rows(`/v1/broker-offices?broker_ids=${brokers.map((b) => b.id).join(',')}&page_size=500&fields=broker_id`);
  assert.ok(offices.length >= 2);
  for (const o of offices) assert.ok(brokers.some((b) => b.id === o.broker_id));
  assertError(await get('/v1/companies?industries=Nope'), 400, 'VALIDATION_ERROR', { field: 'industries', issue: 'invalid_value' });
  assertError(await get('/v1/companies?funding_status=self'), 400, 'VALIDATION_ERROR', { field: 'funding_status', issue: 'invalid_value' });
  assertError(await get('/v1/personnel?lead_type=company&job_function=HRX'), 400, 'VALIDATION_ERROR', { field: 'job_function', issue: 'invalid_value' });
  assertError(await get('/v1/personnel?lead_type=company&has_phone=true', basic), 403, 'FORBIDDEN', { field: 'has_phone', issue: 'advanced_filter' });
});

t('filing_year: a common parameter on every resource (personnel by the employer filing; brokers and offices only latest)', async () => {
  const years = (await get('/v1/companies?states=TX,CA,NY,FL&page_size=200&fields=filing_year', adv)).body.data.map((r: Row) => r.filing_year);
  const year = years.find((y: number) => y !== years[0]) ?? years[0];
  const companies = await get(`/v1/companies?filing_year=${year}&page_size=200&fields=filing_year,ein`, adv);
  assert.ok(companies.body.data.length > 0);
  for (const r of companies.body.data) assert.is(r.filing_year, year);
  const people = await get(`/v1/personnel?lead_type=company&filing_year=${year}&page_size=200&fields=company_ein`);
  assert.is(people.status, 200, JSON.stringify(people.body));
  assert.ok(people.body.data.length > 0);
  const eins = [...new Set(people.body.data.map((r: Row) => r.company_ein).filter(Boolean))];
  const employers = await h.running.services.es.search({ index: `${h.config.namespace}-companies`, query: { terms: { ein: eins } }, size: 500, _source: ['filing_year'] });
  for (const e of employers.hits.hits) assert.is((e._source as Row).filing_year, year);
  for (const r of ['brokers', 'broker-offices']) {
    assert.is((await get(`/v1/${r}?filing_year=latest`)).status, 200);
    assertError(await get(`/v1/${r}?filing_year=${year}`), 400, 'VALIDATION_ERROR', { field: 'filing_year', issue: 'year_not_available' });
  }
  assertError(await get('/v1/companies?filing_year=last'), 400, 'VALIDATION_ERROR', { field: 'filing_year', issue: 'invalid_value' });
  // filing_year is an advanced field: a basic key may only say latest (the default).
  assert.is((await get('/v1/companies?filing_year=latest', basic)).status, 200);
  assertError(await get(`/v1/companies?filing_year=${year}`, basic), 403, 'FORBIDDEN');
  assertError(await get(`/v1/personnel?lead_type=company&filing_year=${year}`, basic), 403, 'FORBIDDEN');
});

t('explain=true: internal tokens get the Elasticsearch request that served the call; others 403', async () => {
  const internal = (await h.key({ org, internal: true })).secret;
  const res = await get('/v1/companies?states=TX&page_size=3&explain=true', internal);
  assert.is(res.status, 200);
  const { index, body } = res.body.meta.explain;
  assert.match(index, /-companies$/);
  const direct = await h.running.services.es.search({ index, ...body });
  assert.equal(direct.hits.hits.slice(0, 3).map((x) => x._id), res.body.data.map((r: Row) => r.id));
  assertError(await get('/v1/companies?states=TX&explain=true'), 403, 'FORBIDDEN', { field: 'explain' });
});

t('format=flat: the same columns in a stable order, every value a string', async () => {
  const res = await get('/v1/companies?states=TX&page_size=5&format=flat&fields=company_name,benefit_types,total_number_of_employees');
  const cols = Object.keys(res.body.data[0]);
  for (const r of res.body.data) {
    assert.equal(Object.keys(r), cols);
    for (const v of Object.values(r)) assert.type(v, 'string');
  }
});

t('out-of-range numbers, malformed cf[/eb[ names and non-filters are refused; HEAD and repeated signals cost nothing extra', async () => {
  assertError(await get('/v1/companies?cf[total_number_of_employees]=gte:2147483648'), 400, 'VALIDATION_ERROR', { field: 'cf[total_number_of_employees]', issue: 'out_of_range' });
  assertError(await get('/v1/companies?cf[total_premiums]=lt:-99999999999999999999999'), 400, 'VALIDATION_ERROR', { field: 'cf[total_premiums]', issue: 'out_of_range' });
  assert.is((await get('/v1/companies?cf[total_number_of_employees]=lte:2147483647&count_only=true')).status, 200);
  assertError(await get('/v1/companies?cf[company_name=health&page_size=100'), 400, 'VALIDATION_ERROR', { field: 'cf[company_name', issue: 'unknown_field' });
  assertError(await get('/v1/companies?eb[website=true'), 400, 'VALIDATION_ERROR', { field: 'eb[website', issue: 'unknown_field' });
  // Parameters that narrow nothing are not business filters.
  assertError(await get('/v1/companies?page_size=26&filing_year=latest'), 400, 'FILTER_REQUIRED', { field: 'page_size' });
  assertError(await get('/v1/personnel?lead_type=company&page_size=26&person_geo_mode=dma'), 400, 'FILTER_REQUIRED', { field: 'page_size' });
  assert.is((await get('/v1/personnel?lead_type=company&page_size=26&person_states=TX')).status, 200);
  // HEAD runs the GET (same status) but delivers no rows: nothing charged.
  const before = await h.running.services.credits.balance(org);
  const head = await h.call('HEAD', '/v1/companies?states=CA&page_size=4&page=3&sort_by=company_name', { secret: adv });
  assert.is(head.status, 200);
  assert.is(await h.running.services.credits.balance(org), before, 'HEAD charges nothing');
  const once = await get('/v1/companies?signals=broker_change&dry_run=true&page_size=10');
  const thrice = await get('/v1/companies?signals=broker_change,broker_change,broker_change&dry_run=true&page_size=10');
  assert.is(thrice.body.meta.signal_credits, once.body.meta.signal_credits, 'a signal named twice is one signal');
});

t('applied_filters echoes what was applied, as it was read', async () => {
  const res = await get('/v1/companies?states=tx,ca&dmas=Atlanta&signals=broker_change,broker_change&page_size=1');
  assert.equal(res.body.meta.applied_filters, { states: 'TX,CA', signals: 'broker_change' });
  const dma = await get('/v1/companies?states=tx&dmas=Atlanta&geo_mode=dma&page_size=1');
  assert.equal(dma.body.meta.applied_filters, { dmas: 'Atlanta', geo_mode: 'dma' });
});

t('an empty page past the end still carries the exact total; company_eins and cf[broker_office_name] read like their siblings', async () => {
  const past = await get('/v1/companies?states=TX,CA,NY,FL,IL,PA,OH,GA&page=400&page_size=10');
  assert.is(past.status, 200);
  assert.is(past.body.meta.returned, 0);
  const count = await get('/v1/companies?states=TX,CA,NY,FL,IL,PA,OH,GA&count_only=true');
  assert.ok(count.body.meta.total_count > 400, 'above the exact-count threshold of this suite');
  assert.is(past.body.meta.total_count, count.body.meta.total_count);
  assert.is(past.body.meta.count_pending, undefined);
  const contact = (await get('/v1/personnel?lead_type=company&eb[company_ein]=true&page_size=1&fields=company_ein')).body.data[0];
  const ein: string = contact.company_ein;
  const dashed = await get(`/v1/personnel?lead_type=company&company_eins=${ein.slice(0, 2)}-${ein.slice(2)}&fields=company_ein`);
  assert.ok(dashed.body.data.length > 0);
  for (const r of dashed.body.data) assert.is(r.company_ein, ein);
  assertError(await get('/v1/personnel?lead_type=company&company_eins=12-34'), 400, 'VALIDATION_ERROR', { field: 'company_eins', issue: 'invalid_format' });
  const office = (await get('/v1/broker-offices?page_size=1&fields=office_name')).body.data[0].office_name as string;
  const part = office.slice(0, 6).toLowerCase();
  const alias = await get(`/v1/broker-offices?cf[broker_office_name]=${encodeURIComponent(part)}&fields=office_name`);
  assert.ok(alias.body.data.length > 0, JSON.stringify(alias.body));
  for (const r of alias.body.data) assert.ok(r.office_name.toLowerCase().includes(part));
});

t("contacts carry their employer's industry; broker contacts the broker firm's LinkedIn", async () => {
  const contacts = (await get('/v1/personnel?lead_type=company&eb[company_industry]=true&eb[company_ein]=true&page_size=20&fields=company_ein,company_industry')).body.data as Row[];
  assert.ok(contacts.length >= 10, `${contacts.length} company contacts with an industry`);
  for (const c of contacts.slice(0, 10)) {
    const company = await get(`/v1/companies/lookup?ein=${c.company_ein}&fields=company_industry`);
    assert.is(c.company_industry, company.body.data?.company_industry, `${c.company_ein}: ${JSON.stringify(company.body)}`);
  }
  const all = await get('/v1/personnel?lead_type=company&count_only=true');
  const withIndustry = await get('/v1/personnel?lead_type=company&eb[company_industry]=true&count_only=true');
  const companies = await get('/v1/companies?count_only=true');
  const companiesWith = await get('/v1/companies?eb[company_industry]=true&count_only=true');
  // The same share (within a few points) of contacts as of companies has an industry.
  const share = (a: Res, b: Res) => a.body.meta.total_count / b.body.meta.total_count;
  assert.ok(Math.abs(share(withIndustry, all) - share(companiesWith, companies)) < 0.1, `${share(withIndustry, all)} vs ${share(companiesWith, companies)}`);
  const linkedinOf = new Map<string, string>();
  for (const b of (await get('/v1/brokers?eb[broker_linkedin]=true&page_size=500&fields=broker_name,broker_linkedin')).body.data as Row[]) linkedinOf.set(b.broker_name, b.broker_linkedin);
  const brokerContacts = (await get('/v1/personnel?lead_type=broker&eb[company_linkedin]=true&page_size=50&fields=broker_name,company_linkedin')).body.data as Row[];
  assert.ok(brokerContacts.length > 0);
  for (const c of brokerContacts) assert.is(c.company_linkedin, linkedinOf.get(c.broker_name), c.broker_name);
});

t('personnel fields may name crm_status and tags; empty person_ geography is 400; a cursor of other data is invalid; OPTIONS answers in the envelope', async () => {
  const some = (await get('/v1/personnel?lead_type=company&page_size=2&fields=full_name')).body.data as Row[];
  await h.call('POST', '/v1/tags', { secret: adv, body: { entity_type: 'personnel', entity_id: some[0].id, tag: 'Decision maker' } });
  const res = await get(`/v1/personnel?lead_type=company&page_size=2&fields=full_name,tags,crm_status`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.data.map((r: Row) => [r.id, r.tags]), [[some[0].id, ['decision maker']], [some[1].id, []]]);
  for (const r of res.body.data) assert.equal(r.crm_status, []);
  const detail = await get(`/v1/personnel/${some[0].id}?lead_type=company&fields=tags`);
  assert.equal(detail.body.data.tags, ['decision maker']);
  assertError(await get('/v1/personnel?lead_type=company&fields=nope'), 400, 'VALIDATION_ERROR', { field: 'fields.nope', issue: 'unknown_field' });
  for (const qs of ['person_states=', 'person_states=,,', 'person_dmas=%20']) {
    assertError(await get(`/v1/personnel?lead_type=company&${qs}`), 400, 'VALIDATION_ERROR', { field: qs.split('=')[0], issue: 'missing_value' });
  }
  // Cursors are signed: an edited position, page or index is refused (an edited position was a
  // 500, an edited page walked past crawl detection).
  const page = await get('/v1/companies?states=TX&page_size=2');
  const [body, signature] = String(page.body.meta.next_cursor).split('.');
  const cursor = JSON.parse(Buffer.from(body, 'base64url').toString());
  for (const edit of [{ a: [] }, { a: ['x', 1, 2] }, { p: 7 }, { g: cursor.g.replace(/-companies-/, '-sandbox-companies-') }]) {
    const forged = `${Buffer.from(JSON.stringify({ ...cursor, ...edit })).toString('base64url')}.${signature}`;
    assertError(await get(`/v1/companies?states=TX&page_size=2&cursor=${forged}`), 400, 'VALIDATION_ERROR', { field: 'cursor', issue: 'invalid_cursor' });
  }
  assertError(await get(`/v1/companies?states=TX&page_size=2&cursor=${body}`), 400, 'VALIDATION_ERROR', { field: 'cursor', issue: 'invalid_cursor' });
  assert.is((await get(`/v1/companies?states=TX&page_size=2&cursor=${page.body.meta.next_cursor}`)).body.meta.page, 1);
  const options = await h.call('OPTIONS', '/v1/companies', { secret: adv });
  assert.is(options.status, 200);
  assert.equal([options.body.ok, options.body.data.methods.includes('GET'), options.body.meta.credits_charged], [true, true, 0]);
});

t("two users' tags= of the same name never share page positions", async () => {
  const other = (await h.key({ org, user: 'u2', field_tier: 'advanced' })).secret;
  const first = (await get('/v1/companies?states=TX&page_size=6&fields=company_name')).body.data as Row[];
  const [mine, theirs] = [first.slice(0, 3), first.slice(3, 6)];
  for (const [secret, rows] of [[adv, mine], [other, theirs]] as const) {
    for (const r of rows) assert.ok([200, 201].includes((await h.call('POST', '/v1/tags', { secret, body: { entity_type: 'companies', entity_id: r.id, tag: 'shared-name' } })).status));
  }
  const path = '/v1/companies?tags=shared-name&states=TX&page_size=1&fields=company_name';
  const a0 = await get(`${path}&page=0`);
  const a1 = await get(`${path}&page=1`);
  assert.equal([a0.body.data[0].id, a1.body.data[0].id], [mine[0].id, mine[1].id]);
  // The other user's page 1 starts after their own page 0, not after this user's.
  const b1 = await get(`${path}&page=1`, other);
  assert.is(b1.body.data[0].id, theirs[1].id);
  assert.is(b1.body.meta.total_count, 3);
});

t('labels holding commas, repeated empty values, and lengths counted in characters', async () => {
  const both = await get(`/v1/companies?industries=${encodeURIComponent('Architectural, Engineering, and Related Services,Offices of Physicians')}&count_only=true`);
  assert.is(both.status, 200, JSON.stringify(both.body));
  const { industryPath } = await import('../../mappings/industries.ts');
  const rows = (await get(`/v1/companies?industries=${encodeURIComponent('Architectural, Engineering, and Related Services')}&page_size=100&fields=company_industry`)).body.data as Row[];
  for (const r of rows) assert.is(industryPath(r.company_industry)[1], 'Professional, Scientific, and Technical Services');
  assertError(await get('/v1/companies?primary_broker_office=x&primary_broker_office='), 400, 'VALIDATION_ERROR', { field: 'primary_broker_office', issue: 'missing_value' });
  assert.is((await get(`/v1/companies?cf[company_name]=${encodeURIComponent('💡'.repeat(200))}&count_only=true`)).status, 200, '200 emoji are 200 characters');
  assertError(await get(`/v1/companies?cf[company_name]=${encodeURIComponent('💡'.repeat(201))}`), 400, 'VALIDATION_ERROR', { field: 'cf[company_name]', issue: 'too_long' });
});

t.run();
