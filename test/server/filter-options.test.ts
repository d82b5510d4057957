/**
 * Filter options on generated data: every key answers with values; every enumerated value is
 * accepted by the list endpoint as that filter's value; a resource lists exactly its filter
 * parameters; data-derived counts are Elasticsearch counts, cached per concrete index and read
 * fresh after a reload; test keys read the sandbox; nothing is charged; unknown names are 404.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';
import { ENTITIES, entity } from '../../mappings/index.ts';
import { OPTION_KEYS, OPTION_KEY_NAMES, industryLabelsOf, type IndustryNode } from '../../mappings/filter-options.ts';
import { filterParams } from '../../server/read/filters.ts';
import { listParams } from '../../server/read/list-request.ts';
import { resourceFilters } from '../../server/read/filter-options.ts';
import { aliasName, sandboxNamespace } from '../../core/names.ts';
import type { EntityDef } from '../../mappings/types.ts';

const t = suite('filter-options');
const org = `org-${randomUUID().slice(0, 8)}`;
let h: Harness;
let live: DataFiles | undefined;
let sandbox: DataFiles | undefined;
let secret = '';
let testKey = '';
const get = (path: string, key = secret) => h.call('GET', path, { secret: key });
const balance = () => h.running.services.credits.balance(org);

type Value = { value: string; count?: number };

t.before(async () => {
  h = await startHarness({ BINTEL_RATE_LIMIT_PER_MIN: '100000', BINTEL_CRAWL_THRESHOLD: '100000' });
  live = await loadGenerated(h, { companies: 300, personnel: 300, brokerOffices: 30, brokers: 10, seed: 21 });
  sandbox = await loadGenerated(h, { companies: 40, personnel: 40, brokerOffices: 10, brokers: 4, seed: 4, sandbox: true });
  secret = (await withOrg(h, { org, field_tier: 'advanced', milli: 1_000_000 })).secret;
  testKey = (await h.key({ org, key_type: 'test' })).secret;
});
t.after(async () => {
  await h.close();
  await live?.cleanup();
  await sandbox?.cleanup();
});

/** Runs `fn` over `items`, `width` at a time. */
async function inBatches<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(fn));
}

/** A count-only list call of a resource with one parameter (and the required side); its status. */
async function accepted(def: EntityDef, param: string, value: string): Promise<void> {
  const side = def.side ? `&${def.side.param}=${def.side.values[0]}` : '';
  const res = await get(`/v1/${def.name}?count_only=true${side}&${encodeURIComponent(param)}=${encodeURIComponent(value)}`);
  assert.is(res.status, 200, `${def.name}?${param}=${value}: ${JSON.stringify(res.body)}`);
}

/** The values a key or filter lists, flat (industry hierarchies as every label). */
const flatValues = (values: unknown[]): string[] => (values.length && 'level' in (values[0] as object) ? industryLabelsOf(values as IndustryNode[]) : (values as Value[]).map((v) => v.value));

t('the key table: reference keys list exactly the allowlist of every filter row they serve', () => {
  for (const key of OPTION_KEYS) {
    if (key.source.kind !== 'reference') continue;
    for (const def of ENTITIES) {
      for (const row of def.filters.filter((f) => key.params.includes(f.param) && f.values)) {
        assert.equal(key.source.values.map((v) => v.value), [...row.values!], `${key.key} vs ${def.name}.${row.param}`);
      }
    }
  }
});

t('GET /v1/filter-options names every key and resource; every key answers 200 with values, 0 credits', async () => {
  const index = await get('/v1/filter-options');
  assert.is(index.status, 200);
  assert.equal(index.body.data, { keys: [...OPTION_KEY_NAMES], resources: ENTITIES.map((e) => e.name) });
  const before = await balance();
  for (const key of OPTION_KEY_NAMES) {
    const res = await get(`/v1/filter-options/${key}`);
    assert.is(res.status, 200, `${key}: ${JSON.stringify(res.body)}`);
    assert.is(res.body.data.key, key);
    assert.ok(res.body.data.values.length > 0, `${key} has values`);
    assert.is(res.body.meta.returned, res.body.data.values.length);
    assert.is(res.body.meta.credits_charged, 0);
  }
  assert.is(await balance(), before);
});

t('industries: the NAICS hierarchy, sector > subsector > group, every label accepted by industries=', async () => {
  const res = await get('/v1/filter-options/industries');
  const tree = res.body.data.values as IndustryNode[];
  assert.ok(tree.every((s) => s.level === 'sector' && s.children!.every((ss) => ss.level === 'subsector' && ss.children!.every((g) => g.level === 'group' && g.code.length === 4))));
  const manufacturing = tree.find((s) => s.value === 'Manufacturing');
  assert.is(manufacturing?.code, '31-33');
  const labels = flatValues(tree);
  assert.ok(labels.length > 300, `${labels.length} labels`);
  assert.ok(labels.includes('Offices of Physicians'));
  await inBatches(labels, 16, (label) => accepted(entity('companies'), 'industries', label));
});

t('every value of every key is accepted by each list that takes its parameters', async () => {
  for (const key of OPTION_KEY_NAMES.filter((k) => k !== 'industries')) {
    const res = await get(`/v1/filter-options/${key}`);
    const values = flatValues(res.body.data.values);
    const calls = ENTITIES.flatMap((def) => (res.body.data.params as string[]).filter((p) => listParams(def).includes(p)).flatMap((p) => values.map((v) => [def, p, v] as const)));
    assert.ok(calls.length > 0, `${key} serves some list parameter`);
    await inBatches(calls, 16, ([def, p, v]) => accepted(def, p, v));
  }
});

t('a resource lists exactly its filter parameters, with kind and tier; each enumerated value is accepted', async () => {
  for (const def of ENTITIES) {
    const res = await get(`/v1/filter-options/${def.name}`);
    assert.is(res.status, 200, JSON.stringify(res.body));
    assert.is(res.body.meta.resource, def.name);
    const rows = res.body.data as { param: string; kind: string; tier: string; source: string; values?: unknown[] }[];
    assert.equal(rows.map((r) => r.param).sort(), filterParams(def).sort(), def.name);
    assert.equal(rows.map((r) => r.param), resourceFilters(def).map((f) => f.param));
    for (const row of rows) {
      assert.ok(['basic', 'advanced'].includes(row.tier) && typeof row.kind === 'string', row.param);
      assert.is(row.values === undefined, row.source === 'none', `${def.name}.${row.param}: values iff enumerated`);
      const one = await get(`/v1/filter-options/${def.name}/${row.param}`);
      assert.is(one.status, 200, JSON.stringify(one.body));
      assert.equal({ ...one.body.data, resource: undefined }, { ...row, resource: undefined });
      const values = row.values ? flatValues(row.values) : [];
      // industries: every label was sent by the industries test; here a sample of each level.
      const sample = row.kind === 'industries' ? values.filter((_, i) => i % 25 === 0) : values;
      await inBatches(sample, 16, (v) => accepted(def, row.param, v));
    }
  }
  const personnel = (await get('/v1/filter-options/personnel')).body.data as { param: string; tier: string }[];
  assert.is(personnel.find((r) => r.param === 'has_phone')?.tier, 'advanced');
  assert.is(personnel.find((r) => r.param === 'has_email')?.tier, 'basic');
});

/** The Elasticsearch count of rows of an alias whose field holds the value. */
async function esCount(alias: string, field: string, value: string): Promise<number> {
  return (await h.running.services.es.count({ index: alias, query: { term: { [field]: value } } })).count;
}

/** Asserts data-derived counts equal Elasticsearch counts on the alias. */
async function assertCounts(values: Value[], where: { alias: string; field: string }): Promise<void> {
  assert.ok(values.length > 0);
  for (const v of values) assert.is(v.count, await esCount(where.alias, where.field, v.value), `${where.field}=${v.value}`);
}

t('data-derived options: counts are Elasticsearch counts, cached per concrete index', async () => {
  const ns = h.config.namespace;
  for (const [key, field] of [['dmas', 'dma'], ['carriers', 'carriers']] as const) {
    const first = await get(`/v1/filter-options/${key}`);
    assert.is(first.body.data.source, 'data');
    await assertCounts(first.body.data.values, { alias: aliasName(ns, 'companies'), field });
    const second = await get(`/v1/filter-options/${key}`);
    assert.is(second.body.meta.cached, true);
    assert.equal(second.body.data.values, first.body.data.values);
  }
  // On a resource, a data-derived filter counts that resource's rows.
  const personDmas = await get('/v1/filter-options/personnel/person_dmas');
  await assertCounts(personDmas.body.data.values, { alias: aliasName(ns, 'personnel'), field: 'person_dma' });
  const officeCarriers = await get('/v1/filter-options/broker-offices/carrier_search');
  await assertCounts(officeCarriers.body.data.values, { alias: aliasName(ns, 'broker-offices'), field: 'carriers' });
});

t('a test key reads the sandbox, for free', async () => {
  const before = await balance();
  const res = await get('/v1/filter-options/dmas', testKey);
  assert.is(res.status, 200, JSON.stringify(res.body));
  const values = res.body.data.values as Value[];
  await assertCounts(values, { alias: aliasName(sandboxNamespace(h.config.namespace), 'companies'), field: 'dma' });
  const total = values.reduce((n, v) => n + v.count!, 0);
  assert.ok(total <= 40, `sandbox has 40 companies, counted ${total}`);
  for (const path of ['/v1/filter-options/seniority', '/v1/filter-options/personnel', '/v1/filter-options/companies/carrier']) {
    const r = await get(path, testKey);
    assert.is(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    assert.is(r.body.meta.credits_charged, 0);
  }
  assert.is(await balance(), before);
});

t('unknown key, resource or filter: 404 naming it with what exists; unknown parameter 400; no key 401', async () => {
  const key = await get('/v1/filter-options/nope');
  assertError(key, 404, 'NOT_FOUND', { field: 'key', issue: 'not_found' });
  assert.ok(key.body.error.details[0].expected.includes('industries') && key.body.error.details[0].expected.includes('companies'));
  const resource = await get('/v1/filter-options/nope/states');
  assertError(resource, 404, 'NOT_FOUND', { field: 'resource', issue: 'not_found' });
  assert.equal(resource.body.error.details[0].expected, ENTITIES.map((e) => e.name));
  const filter = await get('/v1/filter-options/companies/seniority');
  assertError(filter, 404, 'NOT_FOUND', { field: 'filter', issue: 'not_found' });
  assert.equal(filter.body.error.details[0].expected, filterParams(entity('companies')));
  assertError(await get('/v1/filter-options/industries?depth=2'), 400, 'VALIDATION_ERROR', { field: 'depth', issue: 'unknown_field' });
  assertError(await get('/v1/filter-options/companies?x=1'), 400, 'VALIDATION_ERROR', { field: 'x', issue: 'unknown_field' });
  assertError(await h.call('GET', '/v1/filter-options/industries'), 401, 'UNAUTHORIZED');
});

t('a reload moves the alias: data-derived options are read fresh, with the new counts', async () => {
  const es = h.running.services.es;
  const alias = aliasName(h.config.namespace, 'companies');
  const indexOf = async () => Object.keys(await es.indices.getAlias({ index: alias }))[0];
  const oldIndex = await indexOf();
  const before = await get('/v1/filter-options/dmas');
  assert.is(before.body.meta.cached, true);
  assert.ok(await h.running.services.redis.exists(h.running.services.rk.filterOptions(oldIndex, 'dma')));
  const reloaded = await loadGenerated(h, { companies: 120, personnel: 50, brokerOffices: 10, brokers: 4, seed: 9 });
  try {
    assert.is.not(await indexOf(), oldIndex);
    const after = await get('/v1/filter-options/dmas');
    assert.is(after.body.meta.cached, false);
    assert.is.not(JSON.stringify(after.body.data.values), JSON.stringify(before.body.data.values));
    await assertCounts(after.body.data.values, { alias, field: 'dma' });
  } finally {
    await reloaded.cleanup();
  }
});

t.run();
