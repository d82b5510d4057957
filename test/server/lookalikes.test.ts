/**
 * POST /v1/lookalikes on generated data: seeds excluded when asked, every filter honoured by every
 * result, ranked by score, stable for the same input, exactly 1 credit per result (0 for dry runs,
 * empty results, rejected calls and test keys), sandbox isolation, personnel results all with an
 * email; bad input is a 400 naming the field. Quality, measured and asserted: for seed sets drawn
 * from one NAICS subsector and one employee band, the share of results in the same subsector and in
 * the same or an adjacent band, averaged over 50 seed sets, beside a more_like_this baseline.
 *
 * The server of this suite considers 10,000 knn candidates, more than the 6,000 rows: Lucene then
 * scores every row that passes the filter, so its answers are exact and the ranking properties
 * below hold exactly (the API's answer is the ranking computed here from the rows' features). The
 * default setting is approximate (HNSW); its recall against that exact answer is measured and
 * asserted by its own test.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../core/config.ts';
import { aliasName } from '../../core/names.ts';
import { entity } from '../../mappings/index.ts';
import { againstExact, byteCosine, cosineOfScore, seedQuery, vectorBytes, type Scored } from '../../mappings/lookalike.ts';
import { EMPLOYEE_BANDS } from '../../mappings/reference.ts';
import type { EntityName } from '../../mappings/types.ts';
import { forgetIndexStatuses, knnFilter, lookalikeBody, parseLookalikes } from '../../server/read/lookalikes.ts';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';

const t = suite('lookalikes');
let h: Harness;
let data: DataFiles | undefined;
let sandbox: DataFiles | undefined;
let org = '';
let adv = '';
let basic = '';
let test = '';

type Doc = Record<string, any>;
const post = (body: unknown, secret = adv, headers?: Record<string, string>) => h.call('POST', '/v1/lookalikes', { secret, body, headers });
const BANDS = EMPLOYEE_BANDS.map((b) => b[0]);

/** Every company document of the run (id, industry path, band, state ...), read straight from Elasticsearch. */
async function allDocs(resource: EntityName, sandboxed = false): Promise<Doc[]> {
  const es = h.running.services.es;
  const ns = sandboxed ? h.running.services.dataNamespace('test') : h.running.services.dataNamespace('live');
  const res = await es.search<Doc>({ index: aliasName(ns, resource), size: 10_000, query: { match_all: {} }, sort: [{ id: 'asc' }] });
  return res.hits.hits.map((x) => x._source as Doc);
}

let companies: Doc[] = [];
const COMPANIES = 6000;
/** Candidates of this suite's server: every row (see the header). */
const EXACT_CANDIDATES = 10_000;
const features = entity('companies').lookalike!;
/** Every company's stored vector, in the order of `companies` (computed once). */
let vectors: Int8Array[] | undefined;

/** The exact ranking of every company for a seed set: cosine of the byte vectors, ties in id order (the API's order). */
function exactRanking(seeds: readonly Doc[]): Scored[] {
  const q = seedQuery(features, seeds);
  vectors ??= companies.map((c) => vectorBytes(features, c));
  return companies
    .map((c, i) => ({ id: c.id as string, score: byteCosine(q, (vectors as Int8Array[])[i]) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}

/**
 * Asserts that `got` (rows with id and score, in the API's order) is the top of `exact` up to
 * float rounding: each score is the exact one at that rank, and every row strictly above the last
 * returned score is returned.
 */
function assertExactTop(got: readonly Doc[], exact: readonly Scored[], label: string): void {
  const eps = 2e-4; // scores are rounded to 4 decimals; Elasticsearch computes in float32
  const cos = new Map(exact.map((e) => [e.id, e.score]));
  got.forEach((r, i) => {
    assert.ok(Math.abs(r.score - exact[i].score) <= eps, `${label}: rank ${i} scores ${r.score}, exact ${exact[i].score}`);
    assert.ok(Math.abs(r.score - (cos.get(r.id) as number)) <= eps, `${label}: ${r.id} scores ${r.score}, exact ${cos.get(r.id)}`);
  });
  const last = got[got.length - 1].score;
  const ids = new Set(got.map((r) => r.id));
  for (const e of exact) if (e.score > last + eps) assert.ok(ids.has(e.id), `${label}: ${e.id} (${e.score}) ranks above the last result (${last}) but was not returned`);
}

t.before(async () => {
  // The graph is built before the alias moves (BINTEL_VECTOR_BUILD=during): a load of this size
  // serving first would keep its one segment flat (exact), and the recall test below measures the graph.
  h = await startHarness({ BINTEL_CRAWL_THRESHOLD: '1000', BINTEL_CACHE_TTL_S: '0', BINTEL_RATE_LIMIT_PER_MIN: '100000', BINTEL_LOOKALIKE_CANDIDATES: String(EXACT_CANDIDATES), BINTEL_VECTOR_BUILD: 'during' });
  data = await loadGenerated(h, { companies: COMPANIES, personnel: 1500, brokerOffices: 200, brokers: 40, seed: 21 });
  sandbox = await loadGenerated(h, { companies: 300, personnel: 0, brokerOffices: 40, brokers: 10, seed: 22, sandbox: true });
  const o = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 });
  org = o.org;
  adv = o.secret;
  basic = (await h.key({ org, field_tier: 'basic' })).secret;
  test = (await h.key({ org, key_type: 'test' })).secret;
  companies = await allDocs('companies');
  assert.is(companies.length, COMPANIES);
});
t.after(async () => {
  await h.close();
  await data?.cleanup();
  await sandbox?.cleanup();
});

t('results: ranked by score, seeds excluded, each with id, score, reasons and the row; 1 credit each, debited once', async () => {
  const seeds = companies.slice(10, 13).map((c) => c.id);
  const before = await h.running.services.credits.balance(org);
  const res = await post({ type: 'companies', seed_ids: seeds, limit: 20 });
  assert.is(res.status, 200, JSON.stringify(res.body));
  const rows = res.body.data as Doc[];
  assert.is(rows.length, 20);
  for (const r of rows) {
    assert.ok(!seeds.includes(r.id), 'a seed came back');
    assert.type(r.score, 'number');
    assert.ok(r.score >= -1 && r.score <= 1);
    assert.ok(Array.isArray(r.reasons) && r.reasons.length > 0, JSON.stringify(r));
    for (const why of r.reasons) {
      assert.ok(['same', 'adjacent'].includes(why.match));
      assert.ok(why.seeds >= 1 && why.seeds <= 3);
    }
    assert.type(r.company_name, 'string');
  }
  for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].score >= rows[i].score, 'ranked by score');
  assert.is(new Set(rows.map((r) => r.id)).size, rows.length);
  assert.is(res.body.meta.credits_charged, 20);
  assert.is(res.body.meta.returned, 20);
  assert.equal(res.body.meta.seed_ids, seeds);
  assert.is(before - (await h.running.services.credits.balance(org)), 20_000);

  const again = await post({ type: 'companies', seed_ids: seeds, limit: 20 });
  assert.equal(again.body.data.map((r: Doc) => [r.id, r.score]), rows.map((r) => [r.id, r.score]), 'the same call answers the same rows in the same order');

  // The ranking is the exact one, with and without the seeds; a seed ranks where its similarity
  // to the seeds' centroid puts it (a seed need not be near the centroid of three).
  const seedDocs = companies.slice(10, 13);
  const exact = exactRanking(seedDocs);
  assertExactTop(rows, exact.filter((e) => !seeds.includes(e.id)), 'seeds excluded');
  const kept = await post({ type: 'companies', seed_ids: seeds, limit: 20, exclude_seeds: false });
  assert.is(kept.status, 200);
  assertExactTop(kept.body.data, exact, 'seeds kept');
  assert.equal(kept.body.data.filter((r: Doc) => !seeds.includes(r.id)).map((r: Doc) => r.id), rows.slice(0, kept.body.data.length - kept.body.data.filter((r: Doc) => seeds.includes(r.id)).length).map((r) => r.id), 'keeping the seeds only inserts them');
  // One seed kept is its own best lookalike: first, with score 1 (or tied at 1 with rows of the same features, in id order).
  for (const seed of seedDocs) {
    const one = await post({ type: 'companies', seed_ids: [seed.id], limit: 5, exclude_seeds: false });
    const top = one.body.data as Doc[];
    assert.is(top[0].score, 1);
    const tied = top.filter((r) => r.score === 1).map((r) => r.id);
    assert.ok(tied.includes(seed.id) || (tied.length === top.length && tied.every((id) => id < seed.id)), `seed ${seed.id} is among its own lookalikes`);
  }
});

t('the default (approximate) setting against the exact answer: at least 98% of its similarity, 90% of its rows', async () => {
  const candidates = loadConfig({}).lookalikeCandidates;
  const es = h.running.services.es;
  const index = aliasName(h.running.services.dataNamespace('live'), 'companies');
  const groups = new Map<string, Doc[]>();
  for (const c of companies) if (c.industry_path?.[1]) groups.set(c.industry_path[1], [...(groups.get(c.industry_path[1]) ?? []), c]);
  const alike = [...groups.values()].filter((g) => g.length >= 3);
  for (const limit of [20, 50]) {
    let found = 0;
    let expected = 0;
    let ratio = 0;
    const sets = 40;
    for (let s = 0; s < sets; s++) {
      // Half the seed sets are three companies of one subsector (the usual call), half taken at random.
      const seeds = s % 2 ? companies.slice(100 + 3 * s, 103 + 3 * s) : alike[s % alike.length].slice(0, 3);
      const req = parseLookalikes({ type: 'companies', seed_ids: seeds.map((d) => d.id), limit });
      const body = lookalikeBody(req, { filter: knnFilter(req, { taggedIds: null }), seeds, candidates, source: ['id'] });
      const hits = (await es.search({ index, ...body })).hits.hits;
      const exact = exactRanking(seeds).filter((e) => !seeds.some((d) => d.id === e.id));
      const m = againstExact(exact, hits.map((x) => ({ id: String(x._id), score: cosineOfScore(Number(x._score)) })), limit);
      found += m.found;
      expected += m.expected;
      ratio += m.similarity / sets;
    }
    const recall = found / expected;
    console.log(`\n  default knn (${candidates} candidates), top ${limit}, 40 seed sets: ${(100 * recall).toFixed(1)}% of the exact top rows (${found}/${expected}), mean similarity ${ratio.toFixed(4)} of the exact`);
    assert.ok(ratio >= 0.98, `mean similarity ${ratio.toFixed(4)} of the exact top ${limit}`);
    assert.ok(recall >= 0.9, `recall ${(100 * recall).toFixed(1)}% of the exact top ${limit}`);
  }
});

t('meta.index_status: ready, and building while the live index is marked so by a load (results still served, exact)', async () => {
  const es = h.running.services.es;
  const alias = aliasName(h.running.services.dataNamespace('live'), 'companies');
  const seeds = companies.slice(10, 12).map((c) => c.id);
  const ok = await post({ type: 'companies', seed_ids: seeds, limit: 5 });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.is(ok.body.meta.index_status, 'ready');
  const index = Object.keys(await es.indices.getAlias({ name: alias }))[0];
  const meta = (await es.indices.getMapping({ index }))[index].mappings._meta as { bintel: Record<string, unknown> };
  try {
    await es.indices.putMapping({ index, _meta: { bintel: { ...meta.bintel, vectors: 'building' } } });
    forgetIndexStatuses();
    const building = await post({ type: 'companies', seed_ids: seeds, limit: 5 });
    assert.is(building.status, 200, JSON.stringify(building.body));
    assert.is(building.body.meta.index_status, 'building');
    assert.is((building.body.data as Doc[]).length, 5);
  } finally {
    await es.indices.putMapping({ index, _meta: meta });
    forgetIndexStatuses();
  }
});

t('every result honours every filter (states, cf, industries, signals), and fields/mode shape the rows', async () => {
  const seeds = companies.slice(40, 42).map((c) => c.id);
  const filters = { states: 'TX,CA,NY,FL', 'cf[total_number_of_employees]': 'gte:5', funding_status: 'Fully Insured' };
  const res = await post({ type: 'companies', seed_ids: seeds, limit: 50, filters, fields: ['company_name', 'state', 'total_number_of_employees', 'funding_status'] });
  assert.is(res.status, 200, JSON.stringify(res.body));
  const rows = res.body.data as Doc[];
  assert.ok(rows.length > 10, `${rows.length} results`);
  const byId = new Map(companies.map((c) => [c.id, c]));
  for (const r of rows) {
    const doc = byId.get(r.id) as Doc;
    assert.ok(['TX', 'CA', 'NY', 'FL'].includes(doc.state), `state ${doc.state}`);
    assert.ok(doc.total_number_of_employees >= 5);
    assert.is(doc.funding_status, 'Fully Insured');
    assert.equal(Object.keys(r).sort(), ['company_name', 'funding_status', 'id', 'reasons', 'score', 'state', 'total_number_of_employees'].sort());
  }
  assert.equal(res.body.meta.applied_filters, filters);
});

t('personnel: lead_type required, results all have an email, on the side asked', async () => {
  const people = await allDocs('personnel');
  const company = people.filter((p) => p.lead_type === 'company');
  const seeds = company.slice(0, 3).map((p) => p.id);
  const missing = await post({ type: 'personnel', seed_ids: seeds });
  assertError(missing, 400, 'VALIDATION_ERROR', { field: 'lead_type', issue: 'missing_required' });
  const res = await post({ type: 'personnel', seed_ids: seeds, limit: 50, filters: { lead_type: 'company' } });
  assert.is(res.status, 200, JSON.stringify(res.body));
  const byId = new Map(people.map((p) => [p.id, p]));
  assert.ok(res.body.data.length > 10);
  for (const r of res.body.data) {
    const doc = byId.get(r.id) as Doc;
    assert.ok(doc.email_address, 'email-eligible');
    assert.is(doc.lead_type, 'company');
  }
  // lead_type beside filters is the same parameter.
  const top = await post({ type: 'personnel', seed_ids: seeds, limit: 50, lead_type: 'company' });
  assert.equal(top.body.data.map((r: Doc) => r.id), res.body.data.map((r: Doc) => r.id));
  // A broker contact is not a seed of a company-side call.
  const broker = people.find((p) => p.lead_type === 'broker') as Doc;
  assertError(await post({ type: 'personnel', seed_ids: [broker.id], lead_type: 'company' }), 400, 'VALIDATION_ERROR', { field: 'seed_ids[0]', issue: 'invalid_reference' });
});

t('broker offices: lookalikes of offices', async () => {
  const offices = await allDocs('broker-offices');
  const res = await post({ type: 'broker-offices', seed_ids: [offices[0].id, offices[1].id], limit: 10 });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.data.length, 10);
  assert.is(res.body.meta.credits_charged, 10);
});

t('zero-cost cases: dry run (the estimate), no match, rejected calls, test keys (sandbox only)', async () => {
  const seeds = companies.slice(0, 2).map((c) => c.id);
  const before = await h.running.services.credits.balance(org);
  const dry = await post({ type: 'companies', seed_ids: seeds, limit: 30, dry_run: true });
  assert.is(dry.status, 200, JSON.stringify(dry.body));
  assert.equal(dry.body.data, []);
  assert.is(dry.body.meta.dry_run, true);
  assert.is(dry.body.meta.estimated_rows, 30);
  assert.is(dry.body.meta.estimated_credits, 30);
  assert.is(dry.body.meta.credits_charged, 0);
  const none = await post({ type: 'companies', seed_ids: seeds, filters: { 'cf[company_name]': 'zzzz-no-such-company-zzzz' } });
  assert.is(none.status, 200);
  assert.equal(none.body.data, []);
  assert.is(none.body.meta.credits_charged, 0);
  assertError(await post({ type: 'companies', seed_ids: ['no-such-id'] }), 400, 'VALIDATION_ERROR', { field: 'seed_ids[0]', issue: 'invalid_reference' });
  assert.is(await h.running.services.credits.balance(org), before, 'nothing charged');

  // A test key reads the sandbox: a live seed does not exist there, a sandbox seed does, and nothing is charged.
  assertError(await post({ type: 'companies', seed_ids: seeds }, test), 400, 'VALIDATION_ERROR', { field: 'seed_ids[0]', issue: 'invalid_reference' });
  const sand = await allDocs('companies', true);
  const res = await post({ type: 'companies', seed_ids: [sand[0].id], limit: 10 }, test);
  assert.is(res.status, 200, JSON.stringify(res.body));
  const sandIds = new Set(sand.map((c) => c.id));
  assert.is(res.body.data.length, 10);
  for (const r of res.body.data) assert.ok(sandIds.has(r.id), 'a test key sees sandbox rows only');
  assert.is(res.body.meta.credits_charged, 0);
  assert.is(await h.running.services.credits.balance(org), before);
});

t('bad input: each a 400 naming the field and the issue', async () => {
  const id = companies[0].id;
  const cases: [unknown, string, string][] = [
    [{ type: 'companies', seed_ids: [] }, 'seed_ids', 'too_few_items'],
    [{ type: 'companies', seed_ids: companies.slice(0, 6).map((c) => c.id) }, 'seed_ids', 'too_many_items'],
    [{ type: 'companies', seed_ids: [id, id] }, 'seed_ids[1]', 'duplicate_items'],
    [{ type: 'companies' }, 'seed_ids', 'missing_required'],
    [{ type: 'brokers', seed_ids: [id] }, 'type', 'invalid_value'],
    [{ seed_ids: [id] }, 'type', 'missing_required'],
    [{ type: 'companies', seed_ids: [id], limit: 51 }, 'limit', 'out_of_range'],
    [{ type: 'companies', seed_ids: [id], limit: 0 }, 'limit', 'out_of_range'],
    [{ type: 'companies', seed_ids: [id], limit: 'ten' }, 'limit', 'invalid_integer'],
    [{ type: 'companies', seed_ids: [id], filters: { lead_type: 'company' } }, 'filters.lead_type', 'unknown_field'],
    [{ type: 'companies', seed_ids: [id], filters: { page_size: '50' } }, 'filters.page_size', 'unknown_field'],
    [{ type: 'companies', seed_ids: [id], filters: { states: 'XX' } }, 'filters.states', 'invalid_state'],
    [{ type: 'companies', seed_ids: [id], filters: { 'cf[nope]': '1' } }, 'filters.cf[nope]', 'unknown_column'],
    [{ type: 'companies', seed_ids: [id], filters: 'states=TX' }, 'filters', 'invalid_type'],
    [{ type: 'companies', seed_ids: [id], page: 2 }, 'page', 'unknown_field'],
    [{ type: 'companies', seed_ids: [id], exclude_seeds: 'yes' }, 'exclude_seeds', 'invalid_boolean'],
  ];
  const before = await h.running.services.credits.balance(org);
  for (const [body, field, issue] of cases) assertError(await post(body), 400, 'VALIDATION_ERROR', { field, issue });
  assert.is(await h.running.services.credits.balance(org), before);
  // A basic key asking for an advanced field is 403, as on the list.
  assertError(await post({ type: 'companies', seed_ids: [id], fields: ['participants'] }, basic), 403, 'FORBIDDEN');
  // A basic key gets no reason built on an advanced-tier field (participants: plan_size).
  const res = await post({ type: 'companies', seed_ids: [id], limit: 50 }, basic);
  assert.is(res.status, 200);
  for (const r of res.body.data) assert.ok(!r.reasons.some((x: Doc) => x.field === 'participants'));
});

/** Shares of results in the seeds' subsector and in their band or a neighbour, over seed sets of one subsector and band. */
async function quality(run: (seeds: Doc[]) => Promise<string[]>): Promise<{ subsector: number; band: number; sets: number }> {
  const groups = new Map<string, Doc[]>();
  for (const c of companies) {
    if (!c.industry_path?.[1] || !c.employee_band) continue;
    const k = `${c.industry_path[1]}|${c.employee_band}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  const eligible = [...groups.values()].filter((g) => g.length >= 6).sort((a, b) => b.length - a.length);
  const byId = new Map(companies.map((c) => [c.id, c]));
  let subsector = 0;
  let band = 0;
  let n = 0;
  for (let s = 0; s < 50; s++) {
    const g = eligible[s % eligible.length];
    const k = 3;
    const start = (Math.floor(s / eligible.length) * k) % (g.length - k);
    const seeds = g.slice(start, start + k);
    const ids = await run(seeds);
    for (const id of ids) {
      const c = byId.get(id) as Doc;
      subsector += c.industry_path?.[1] === seeds[0].industry_path[1] ? 1 : 0;
      band += Math.abs(BANDS.indexOf(c.employee_band) - BANDS.indexOf(seeds[0].employee_band)) <= 1 ? 1 : 0;
      n++;
    }
  }
  return { subsector: subsector / Math.max(n, 1), band: band / Math.max(n, 1), sets: 50 };
}

t('quality: results share the seeds\' subsector and band (>= 80% each over 50 seed sets), beside more_like_this', async () => {
  const limit = 10;
  const knn = await quality(async (seeds) => {
    const res = await post({ type: 'companies', seed_ids: seeds.map((s) => s.id), limit });
    assert.is(res.status, 200, JSON.stringify(res.body));
    return res.body.data.map((r: Doc) => r.id);
  });
  const es = h.running.services.es;
  const index = aliasName(h.running.services.dataNamespace('live'), 'companies');
  const mlt = await quality(async (seeds) => {
    const res = await es.search({
      index,
      size: limit,
      _source: false,
      query: { more_like_this: { fields: ['company_industry', 'employee_band', 'state', 'funding_status', 'premium_tier', 'benefit_types', 'carriers', 'brokers', 'dma'], like: seeds.map((s) => ({ _index: index, _id: s.id })), min_term_freq: 1, min_doc_freq: 1, max_query_terms: 50, minimum_should_match: '1' } },
    });
    return res.hits.hits.map((x) => String(x._id));
  });
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  console.log(`\n  lookalike quality over ${knn.sets} seed sets of 3 (one subsector and band), top ${limit}:\n    knn features: same subsector ${pct(knn.subsector)}, same or adjacent band ${pct(knn.band)}\n    more_like_this: same subsector ${pct(mlt.subsector)}, same or adjacent band ${pct(mlt.band)}`);
  assert.ok(knn.subsector >= 0.8, `subsector ${pct(knn.subsector)}`);
  assert.ok(knn.band >= 0.8, `band ${pct(knn.band)}`);
});

t.run();
