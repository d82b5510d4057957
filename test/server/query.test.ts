// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * The list query builder without I/O: (entity definition, parsed parameters, caller context)
 * → Elasticsearch request. Sorts end on the id tiebreak, filters are unscored and only
 * `search` scores, crm_status and its marks point at the caller's CRM lists, building is
 * deterministic and leaves its inputs alone, and the parse and authorize steps name what is wrong.
 * Nothing here talks to Elasticsearch or Redis (the same queries run against the real index
 * in list.test.ts and crm.test.ts).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { ENTITIES, entity } from '../../mappings/index.ts';
import type { EntityDef, FieldDef } from '../../mappings/types.ts';
import { companion, indexSortOf, isSearchable } from '../../mappings/es-mapping.ts';
import { DMAS, LEAD_TYPES, STATE_CODES } from '../../mappings/reference.ts';
import { SIGNAL_NAMES } from '../../mappings/signals.ts';
import { ApiError } from '../../server/errors.ts';
import type { KeyRecord } from '../../server/services/keys.ts';
import { CRM_STATUSES, CRMS, type CrmContext, type CrmStatus } from '../../server/services/crm.ts';
import { parseListRequest, type ListRequest } from '../../server/read/list-request.ts';
import { authorizeList } from '../../server/read/authorize.ts';
import { ownFilterClauses, readOwnFilters, readOwnGeo } from '../../server/read/filters.ts';
import type { ErrorDetail } from '../../server/errors.ts';
import {
  buildListQuery, commonFilters, crmFilter, crmMarks, crmStatusOfHit, inCrm, searchClause, sortClause, sortFieldOf,
  type QueryContext, type SearchBody,
} from '../../server/read/query.ts';

const suiteOf = suite('query');
/**
 * Registers a test; an ApiError escaping it becomes a plain Error naming its details (uvu
 * 0.5.6 reads an error's `details` as an assertion diff and stops the whole file on it).
 */
const plain = (fn: () => unknown) => () => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) throw new Error(`unexpected ${err.status} ${err.code}: ${JSON.stringify(err.details)}`);
    throw err;
  }
};
const t = Object.assign((name: string, fn: () => unknown) => suiteOf(name, plain(fn)), {
  skip: (name: string, fn: () => unknown) => suiteOf.skip(name, plain(fn)),
  run: () => suiteOf.run(),
});

/** A JSON tree read back from the builder. */
type J = any;
type Q = Record<string, string | string[]>;

/** A key record as stored (plain data): advanced, live, no per-entity templates. */
function fakeKey(over: Partial<KeyRecord> = {}): KeyRecord {
  return {
    id: 'key-1', org: 'org-q', user: 'user-q', name: 'query test key', key_type: 'live', scopes: [],
    field_tier: 'advanced', entity_field_tiers: {}, field_tiers: {}, parent_id: null, internal: false,
    secret_prefix: 'bk_live_abcd', secret_hash: '0'.repeat(64), status: 'active',
    created_at: '2024-01-01T00:00:00.000Z', revoked_at: null, rotated_at: null, ...over,
  };
}
const KEY = fakeKey();
const BASIC = fakeKey({ id: 'key-basic', field_tier: 'basic' });
const TEST_KEY = fakeKey({ id: 'key-test', key_type: 'test' });

const companies = entity('companies');
const personnel = entity('personnel');
const brokers = entity('brokers');
const offices = entity('broker-offices');

const NO_CTX: QueryContext = { taggedIds: null };
const BOTH: CrmContext = { index: 'ns-crm', org: 'org-q', crms: ['hubspot', 'salesforce'] };
const HUBSPOT_ONLY: CrmContext = { index: 'ns-crm', org: 'org-q', crms: ['hubspot'] };
const MATCH_NONE = { bool: { must_not: [{ match_all: {} }] } };

/** The list pipeline's parse and authorize steps, as the endpoint runs them before any I/O. */
function parseListParams(def: EntityDef, key: KeyRecord, q: Q): ListRequest {
  const req = parseListRequest(def, q);
  authorizeList(key, req);
  return req;
}
/** An entity with a side (personnel's lead_type) always needs it; the others take the query as given. */
const withRequired = (def: EntityDef, q: Q): Q => (def.side && q[def.side.param] === undefined ? { [def.side.param]: 'company', ...q } : q);
const params = (def: EntityDef, q: Q = {}, key: KeyRecord = KEY): ListRequest => parseListParams(def, key, withRequired(def, q));
const build = (def: EntityDef, q: Q = {}, ctx: QueryContext = NO_CTX): SearchBody => buildListQuery(params(def, q), ctx);
/** The resource-filter clauses of a query (read, then built), as the builder appends them. */
function ownClauses(def: EntityDef, q: Q): J[] {
  const problems: ErrorDetail[] = [];
  const clauses = ownFilterClauses(def, readOwnFilters(def, q, problems), readOwnGeo(def, q, problems));
  assert.equal(problems, []);
  return clauses;
}
const boolOf = (b: SearchBody): J => (b.query as J).bool;
/** The filter clauses of a query, without personnel's mandatory lead_type term. */
const filtersOf = (b: SearchBody): J[] => boolOf(b).filter.filter((c: J) => !c.term?.lead_type);
const fieldOf = (def: EntityDef, name: string): FieldDef => def.fields.find((f) => f.name === name) as FieldDef;

/** Runs fn and returns the ApiError it throws (fails when it throws nothing or something else). */
function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert.instance(err, ApiError);
    return err as ApiError;
  }
  assert.unreachable('expected an ApiError');
  throw new Error('unreachable');
}

/** Expects one 400/403 whose details include { field, issue } (and `expected`, when given). */
function expectError(fn: () => unknown, want: { status: number; code: string; field: string; issue: string; expected?: unknown }): ApiError {
  const e = apiError(fn);
  assert.is(e.status, want.status, `status of ${e.code} ${JSON.stringify(e.details)}`);
  assert.is(e.code, want.code);
  const d = e.details.find((x) => x.field === want.field && x.issue === want.issue);
  assert.ok(d, `detail ${want.field}/${want.issue} in ${JSON.stringify(e.details)}`);
  if ('expected' in want) assert.equal(d!.expected, want.expected);
  return e;
}

/** Every value under `key` anywhere in a JSON tree. */
function collect(x: J, key: string, out: J[] = []): J[] {
  if (Array.isArray(x)) for (const v of x) collect(v, key, out);
  else if (x && typeof x === 'object') {
    for (const [k, v] of Object.entries(x)) {
      if (k === key) out.push(v);
      collect(v, key, out);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// 1. Sort
// ---------------------------------------------------------------------------------------

t('every sortable column, both directions, with or without search: <column> <dir>, then id asc', () => {
  for (const def of ENTITIES) {
    for (const f of def.fields.filter((x) => x.sortable)) {
      for (const dir of ['asc', 'desc'] as const) {
        for (const search of [undefined, 'acme']) {
          const q: Q = { sort_by: f.name, sort_dir: dir, ...(search ? { search } : {}) };
          const { sort } = build(def, q);
          assert.equal(sort, [{ [sortFieldOf(f)]: { order: dir, missing: '_last' } }, { id: 'asc' }], `${def.name} ${JSON.stringify(q)}`);
        }
      }
    }
  }
});

t('without sort_by: the default column ascending (sort_dir alone flips it), id asc last', () => {
  for (const def of ENTITIES) {
    const f = fieldOf(def, def.defaultSort);
    assert.equal(build(def).sort, [{ [sortFieldOf(f)]: { order: 'asc', missing: '_last' } }, { id: 'asc' }], def.name);
    assert.equal(build(def, { sort_dir: 'desc' }).sort, [{ [sortFieldOf(f)]: { order: 'desc', missing: '_last' } }, { id: 'asc' }], def.name);
  }
});

t('the default list sort is exactly the index sort (BINTEL_INDEX_SORT), so a default-ordered page stops early', () => {
  for (const def of ENTITIES) {
    const ix = indexSortOf(def);
    const sort = build(def).sort as Record<string, { order: string; missing?: string } | string>[];
    assert.equal(sort.map((c) => Object.keys(c)[0]), ix.field, def.name);
    assert.equal(sort.map((c) => { const v = Object.values(c)[0]; return typeof v === 'string' ? v : v.order; }), ix.order, def.name);
    assert.is((Object.values(sort[0])[0] as { missing: string }).missing, ix.missing[0], def.name);
    // id is always present, so its `missing` never applies.
  }
});

t('a search without sort_by sorts by relevance: _score desc, id asc (sort_dir alone does not change it)', () => {
  for (const def of ENTITIES) {
    assert.equal(build(def, { search: 'acme health' }).sort, [{ _score: 'desc' }, { id: 'asc' }], def.name);
    assert.equal(build(def, { search: 'acme health', sort_dir: 'desc' }).sort, [{ _score: 'desc' }, { id: 'asc' }], def.name);
  }
  // sort_by equal to the default still counts as explicit.
  assert.equal(build(companies, { search: 'acme', sort_by: 'company_name' }).sort, [{ company_name__sort: { order: 'asc', missing: '_last' } }, { id: 'asc' }]);
});

t('name columns sort on their folded companion; other columns on themselves', () => {
  assert.is(sortFieldOf(fieldOf(companies, 'company_name')), companion.sort('company_name'));
  assert.is(sortFieldOf(fieldOf(companies, 'company_name')), 'company_name__sort');
  assert.is(sortFieldOf(fieldOf(personnel, 'last_name')), 'last_name__sort');
  assert.is(sortFieldOf(fieldOf(companies, 'total_number_of_employees')), 'total_number_of_employees');
  for (const def of ENTITIES) {
    for (const f of def.fields.filter((x) => x.sortable)) {
      assert.is(sortFieldOf(f), f.type === 'name' ? `${f.name}__sort` : f.name, `${def.name}.${f.name}`);
    }
  }
});

t('sortClause reads only sortBy/sortDir/search/sortExplicit', () => {
  const p = params(brokers, { sort_by: 'total_clients', sort_dir: 'desc' });
  assert.equal(sortClause(brokers, p), [{ total_clients: { order: 'desc', missing: '_last' } }, { id: 'asc' }]);
  assert.equal(sortClause(brokers, { ...p, search: 'x', sortExplicit: false }), [{ _score: 'desc' }, { id: 'asc' }]);
  assert.equal(sortClause(brokers, { ...p, search: 'x', sortExplicit: true }), [{ total_clients: { order: 'desc', missing: '_last' } }, { id: 'asc' }]);
});

// ---------------------------------------------------------------------------------------
// 2. Filters: unscored in bool.filter; only search scores
// ---------------------------------------------------------------------------------------

t('no parameters: an empty bool.filter and nothing else; track_total_hits follows include_count', () => {
  for (const def of [companies, brokers, offices]) {
    const b = build(def);
    assert.equal(b.query, { bool: { filter: [] } }, def.name);
    assert.is(b.track_total_hits, true);
    assert.is(build(def, { include_count: 'false' }).track_total_hits, false);
  }
});

t('search is the only scored clause: bool.must holds searchClause, filters stay in bool.filter', () => {
  const b = build(companies, { search: '  Acme Health  ', states: 'tx' });
  const bool = boolOf(b);
  assert.equal(Object.keys(bool).sort(), ['filter', 'must']);
  assert.equal(bool.must, [searchClause(companies, 'Acme Health')], 'search is trimmed before building');
  assert.equal(bool.filter, [{ terms: { state: ['TX'] } }]);
  assert.not.ok(JSON.stringify(bool.filter).includes('__norm'), 'search clauses never land in the filter');
});

t('searchClause: only the searchable name fields, boosts scale with the field boost, minimum_should_match 1', () => {
  for (const def of ENTITIES) {
    const c = searchClause(def, 'Acme Helth Inc') as J;
    assert.is(c.bool.minimum_should_match, 1);
    const searchable = def.fields.filter((f) => isSearchable(f) && f.search !== undefined);
    assert.ok(searchable.length > 0, def.name);
    const allowed = new Set(searchable.flatMap((f) => [`${f.name}.lc`, companion.norm(f.name), `${companion.norm(f.name)}.kw`, companion.compact(f.name)]));
    for (const clause of c.bool.should as J[]) {
      const [kind] = Object.keys(clause);
      const [field] = Object.keys(clause[kind]);
      assert.ok(allowed.has(field), `${def.name}: ${field} is a search companion`);
    }
    for (const f of searchable) {
      const exact = (c.bool.should as J[]).find((x) => x.term?.[`${companion.norm(f.name)}.kw`]);
      assert.ok(exact, `${def.name}.${f.name} has an exact normalized term`);
      assert.is(exact.term[`${companion.norm(f.name)}.kw`].boost, 10 * (f.search as number));
      const asTyped = (c.bool.should as J[]).find((x) => x.term?.[`${f.name}.lc`]);
      assert.equal(asTyped.term[`${f.name}.lc`], { value: 'acme helth inc', boost: 20 * (f.search as number) }, 'the exact tier ranks above the folded one');
      const fuzzy = (c.bool.should as J[]).find((x) => x.match?.[companion.norm(f.name)]);
      assert.is(fuzzy.match[companion.norm(f.name)].fuzziness, 'AUTO');
      assert.is(fuzzy.match[companion.norm(f.name)].prefix_length, 1);
    }
  }
  // Same text, same clause; accents and case fold alike.
  assert.equal(searchClause(companies, 'Café Acme'), searchClause(companies, 'Café Acme'));
  assert.equal(searchClause(companies, 'CAFE ACME'), searchClause(companies, 'cafe acme'));
});

t('states: one terms clause on def.geo.state, uppercased, in the order given', () => {
  for (const def of ENTITIES) {
    assert.equal(filtersOf(build(def, { states: 'tx,Ca,ny' })), [{ terms: { [def.geo.state]: ['TX', 'CA', 'NY'] } }], def.name);
  }
  assert.equal(filtersOf(build(personnel, { states: 'tx' })), [{ terms: { company_state: ['TX'] } }]);
});

t('dmas: terms on def.geo.dma with canonical names; with states too, geo_mode chooses one', () => {
  const [a, b] = [DMAS[0], DMAS[1]];
  for (const def of ENTITIES) {
    const q = { dmas: `${a.toLowerCase()},${b.toUpperCase()}` };
    assert.equal(filtersOf(build(def, q)), [{ terms: { [def.geo.dma]: [a, b] } }], def.name);
    assert.equal(filtersOf(build(def, { ...q, states: 'TX' })), [{ terms: { [def.geo.state]: ['TX'] } }], `${def.name}: states win by default`);
    assert.equal(filtersOf(build(def, { ...q, states: 'TX', geo_mode: 'state' })), [{ terms: { [def.geo.state]: ['TX'] } }]);
    assert.equal(filtersOf(build(def, { ...q, states: 'TX', geo_mode: 'dma' })), [{ terms: { [def.geo.dma]: [a, b] } }], `${def.name}: geo_mode=dma`);
    assert.equal(filtersOf(build(def, { ...q, geo_mode: 'state' })), [{ terms: { [def.geo.dma]: [a, b] } }], 'dmas alone apply whatever geo_mode says');
  }
});

// Seven DMA names hold a comma ('Rochester, NY', 'Columbus, OH', ...): the list is split on
// commas and segments rejoined when together they name a DMA.
t('dmas: every DMA of the allowlist can be filtered on, alone or in a list, any case', () => {
  for (const d of DMAS) assert.equal(filtersOf(build(companies, { dmas: d })), [{ terms: { dma: [d] } }], d);
  const commaNames = DMAS.filter((d) => d.includes(','));
  assert.ok(commaNames.length > 0, 'the allowlist has names with commas');
  const all = [...DMAS].reverse();
  assert.equal(filtersOf(build(companies, { dmas: all.join(',') })), [{ terms: { dma: all } }]);
  assert.equal(filtersOf(build(companies, { dmas: all.map((d) => d.toUpperCase()).join(', ') })), [{ terms: { dma: all } }]);
  assert.equal(ownClauses(personnel, { lead_type: 'company', person_dmas: commaNames.join(',') }), [{ terms: { person_dma: commaNames } }]);
  assert.throws(() => build(companies, { dmas: `${commaNames[0]},Nowhere` }), (e: unknown) => (e as { details?: { field: string }[] }).details?.[0]?.field === 'dmas');
});

t('signals: any is one terms clause, all is one term per signal', () => {
  const [s1, s2, s3] = SIGNAL_NAMES;
  const q = { signals: `${s1},${s2},${s3}` };
  assert.equal(filtersOf(build(companies, q)), [{ terms: { signals: [s1, s2, s3] } }]);
  assert.equal(filtersOf(build(companies, { ...q, signal_match: 'any' })), [{ terms: { signals: [s1, s2, s3] } }]);
  assert.equal(filtersOf(build(companies, { ...q, signal_match: 'all' })), [{ term: { signals: s1 } }, { term: { signals: s2 } }, { term: { signals: s3 } }]);
  assert.equal(filtersOf(build(companies, { signal_match: 'all' })), [], 'signal_match alone adds nothing');
});

t('cf numeric/percent: bounds are one range clause, plain values one terms clause', () => {
  const col = 'total_number_of_employees';
  assert.equal(filtersOf(build(companies, { [`cf[${col}]`]: 'gte:10,lt:500' })), [{ range: { [col]: { gte: 10, lt: 500 } } }]);
  assert.equal(filtersOf(build(companies, { [`cf[${col}]`]: 'gt:10, lte:500' })), [{ range: { [col]: { gt: 10, lte: 500 } } }]);
  assert.equal(filtersOf(build(companies, { [`cf[${col}]`]: 'gte:5,gte:1,gt:5,lte:9,lt:20' })), [{ range: { [col]: { gt: 5, lte: 9 } } }], 'tightest bound per side');
  assert.equal(filtersOf(build(companies, { [`cf[${col}]`]: '50,+75,.5' })), [{ terms: { [col]: [50, 75, 0.5] } }]);
  assert.equal(filtersOf(build(companies, { [`cf[${col}]`]: 'gte:10,50' })), [{ range: { [col]: { gte: 10 } } }, { terms: { [col]: [50] } }]);
  assert.equal(filtersOf(build(companies, { 'cf[participant_growth]': 'gt:-5.5,lt:12' })), [{ range: { participant_growth: { gt: -5.5, lt: 12 } } }]);
  assert.equal(filtersOf(build(brokers, { 'cf[commission_growth]': 'gte:1' })), [{ range: { commission_growth: { gte: 1 } } }]);
});

/** How a numeric cf clause list judges a value (Elasticsearch semantics: gt/gte share the lower bound, lt/lte the upper). */
function matchesNumeric(clauses: J[], field: string, x: number): boolean {
  return clauses.every((c) => {
    if (c.terms) return (c.terms[field] as number[]).includes(x);
    const r = c.range[field] as Record<string, number>;
    let ok = true;
    // One lower and one upper bound survive: the last of each pair in the body.
    const lower = Object.keys(r).filter((k) => k === 'gt' || k === 'gte').pop();
    const upper = Object.keys(r).filter((k) => k === 'lt' || k === 'lte').pop();
    if (lower === 'gt') ok &&= x > r.gt;
    if (lower === 'gte') ok &&= x >= r.gte;
    if (upper === 'lt') ok &&= x < r.lt;
    if (upper === 'lte') ok &&= x <= r.lte;
    return ok;
  });
}

const num = fc.integer({ min: -2000, max: 2000 }).map((n) => n / 4);
const bound = (ops: readonly ('gt' | 'gte' | 'lt' | 'lte')[]) => fc.option(fc.record({ op: fc.constantFrom(...ops), value: num }), { nil: undefined });

t('cf numeric (property): one lower and/or one upper bound plus values match exactly the rows every condition admits', () => {
  const col = 'total_number_of_employees';
  fc.assert(
    fc.property(bound(['gt', 'gte']), bound(['lt', 'lte']), fc.array(num, { maxLength: 3 }), fc.array(num, { minLength: 1, maxLength: 12 }), (lo, hi, values, probes) => {
      const parts = [...(lo ? [`${lo.op}:${lo.value}`] : []), ...(hi ? [`${hi.op}:${hi.value}`] : []), ...values.map(String)];
      fc.pre(parts.length > 0);
      const f = filtersOf(build(companies, { [`cf[${col}]`]: parts.join(',') }));
      const ranges = f.filter((c) => c.range);
      assert.is(ranges.length, lo || hi ? 1 : 0, 'bounds combine into at most one range');
      assert.is(f.filter((c) => c.terms).length, values.length ? 1 : 0);
      if (ranges.length) assert.equal(ranges[0], { range: { [col]: { ...(lo ? { [lo.op]: lo.value } : {}), ...(hi ? { [hi.op]: hi.value } : {}) } } });
      for (const x of [...probes, ...values, ...(lo ? [lo.value] : []), ...(hi ? [hi.value] : [])]) {
        const want =
          (!lo || (lo.op === 'gt' ? x > lo.value : x >= lo.value)) && (!hi || (hi.op === 'lt' ? x < hi.value : x <= hi.value)) && (!values.length || values.includes(x));
        assert.is(matchesNumeric(f, col, x), want, `${parts.join(',')} on ${x}`);
      }
    }),
    { numRuns: 300 },
  );
});

// Several bounds on one side (gte:5,gte:1 or gte:10,gt:5) must all hold: the tightest per side is sent.
t('cf numeric (property): any number of bounds on a side all hold', () => {
  const col = 'total_number_of_employees';
  fc.assert(
    fc.property(fc.array(fc.record({ op: fc.constantFrom('gt', 'gte', 'lt', 'lte'), value: num }), { minLength: 1, maxLength: 4 }), fc.array(num, { minLength: 1, maxLength: 12 }), (bounds, probes) => {
      const f = filtersOf(build(companies, { [`cf[${col}]`]: bounds.map((b) => `${b.op}:${b.value}`).join(',') }));
      for (const x of [...probes, ...bounds.map((b) => b.value)]) {
        const want = bounds.every((b) => (b.op === 'gt' ? x > b.value : b.op === 'gte' ? x >= b.value : b.op === 'lt' ? x < b.value : x <= b.value));
        assert.is(matchesNumeric(f, col, x), want, `${JSON.stringify(bounds)} on ${x}`);
      }
    }),
  );
});

t('cf exact: one terms clause of the strings given (keyword field, not lowercased)', () => {
  assert.equal(filtersOf(build(companies, { 'cf[state]': 'TX, CA' })), [{ terms: { state: ['TX', 'CA'] } }]);
  assert.equal(filtersOf(build(companies, { 'cf[funding_status]': 'Self-Funded' })), [{ terms: { funding_status: ['Self-Funded'] } }]);
  assert.equal(filtersOf(build(personnel, { 'cf[email_address]': 'Ann@Acme.com' })), [{ terms: { email_address: ['Ann@Acme.com'] } }]);
});

t('cf string: case-insensitive *substring* wildcards OR-ed; names match folded on their sort companion; * ? \\ escaped', () => {
  assert.equal(filtersOf(build(companies, { 'cf[city]': 'Austin' })), [
    { bool: { should: [{ wildcard: { city: { value: '*Austin*', case_insensitive: true } } }], minimum_should_match: 1 } },
  ]);
  assert.equal(filtersOf(build(companies, { 'cf[company_name]': 'acme, health' })), [
    {
      bool: {
        should: [
          { wildcard: { company_name__sort: { value: '*acme*' } } },
          { wildcard: { company_name__sort: { value: '*health*' } } },
        ],
        minimum_should_match: 1,
      },
    },
  ]);
  // Folded as the companion is: case beyond ASCII, accents and punctuation do not matter.
  assert.equal(filtersOf(build(companies, { 'cf[company_name]': 'ÅBERG & Søn' })), [
    { bool: { should: [{ wildcard: { company_name__sort: { value: '*aberg and son*' } } }], minimum_should_match: 1 } },
  ]);
  // Nothing left after folding: the raw value, as typed.
  assert.equal(filtersOf(build(companies, { 'cf[company_name]': '--' })), [
    { bool: { should: [{ wildcard: { 'company_name.raw': { value: '*--*', case_insensitive: true } } }], minimum_should_match: 1 } },
  ]);
  assert.equal(filtersOf(build(companies, { 'cf[city]': 'a*b?c\\d' })), [
    { bool: { should: [{ wildcard: { city: { value: '*a\\*b\\?c\\\\d*', case_insensitive: true } } }], minimum_should_match: 1 } },
  ]);
});

/** Reads a wildcard pattern back: the literal it matches as a substring, or null when it holds an unescaped * or ? inside. */
function literalOf(pattern: string): string | null {
  if (!pattern.startsWith('*') || !pattern.endsWith('*') || pattern.length < 2) return null;
  const inner = pattern.slice(1, -1);
  let out = '';
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '\\') {
      if (i + 1 >= inner.length) return null;
      out += inner[++i];
    } else if (c === '*' || c === '?') return null;
    else out += c;
  }
  return out;
}

t('cf string (property): every value is matched literally, as a substring, case-insensitively', () => {
  const value = fc.string({ unit: fc.constantFrom('a', 'B', ' ', '*', '?', '\\', '%', '"', 'é', '[', '.'), minLength: 1, maxLength: 12 }).filter((s) => s.trim().length > 0);
  fc.assert(
    fc.property(fc.constantFrom(companies, personnel, brokers, offices), fc.array(value, { minLength: 1, maxLength: 4 }), (def, values) => {
      const col = def.fields.find((f) => f.cf === 'string' && f.type === 'keyword') as FieldDef;
      const [clause] = filtersOf(build(def, { [`cf[${col.name}]`]: values.join(',') }));
      assert.is(clause.bool.minimum_should_match, 1);
      const got = (clause.bool.should as J[]).map((w) => {
        const spec = w.wildcard[col.name];
        assert.is(spec.case_insensitive, true);
        return literalOf(spec.value);
      });
      assert.equal(got, values.map((v) => v.trim()));
    }),
    { numRuns: 300 },
  );
});

t('eb: exists on the column (names on the field itself)', () => {
  assert.equal(filtersOf(build(companies, { 'eb[website]': 'true' })), [{ exists: { field: 'website' } }]);
  assert.equal(filtersOf(build(companies, { 'eb[website]': 'true', 'eb[ein]': 'true' })), [{ exists: { field: 'website' } }, { exists: { field: 'ein' } }]);
  assert.equal(filtersOf(build(personnel, { 'eb[last_name]': 'true' })), [{ exists: { field: 'last_name' } }]);
});

t('lead_type: a term on lead_type (personnel only)', () => {
  for (const lt of LEAD_TYPES) {
    const f = boolOf(build(personnel, { lead_type: lt })).filter;
    assert.equal(f, [{ term: { lead_type: lt } }]);
  }
});

t('tags: the caller-resolved ids become one ids query; none resolved matches nothing, no tag filter adds nothing', () => {
  assert.equal(boolOf(build(companies, { tags: 'hot' }, { taggedIds: ['c1', 'c2'] })).filter, [{ ids: { values: ['c1', 'c2'] } }]);
  assert.equal(boolOf(build(companies, { tags: 'hot' }, { taggedIds: [] })).filter, [{ ids: { values: [] } }]);
  assert.equal(boolOf(build(companies, {}, { taggedIds: null })).filter, []);
});

t('resource filters follow the common ones in bool.filter, in order, and count as business filters', () => {
  const q = { funding_status: 'Self-Funded', short_form: 'true', states: 'TX' };
  const p = parseListParams(companies, KEY, q);
  assert.equal(p.own.map((f) => f.filter.param), ['funding_status', 'short_form']);
  assert.equal([...p.businessFilters].sort(), ['funding_status', 'short_form', 'states']);
  const b = buildListQuery(p, NO_CTX);
  assert.equal(boolOf(b).filter, [{ terms: { state: ['TX'] } }, { terms: { funding_status: ['Self-Funded'] } }, { term: { short_form: true } }]);
  assert.not.ok('must' in boolOf(b));
});

t('everything together: the clauses in a fixed order (geo, signals, cf, eb, lead_type, ids, crm)', () => {
  const f = commonFilters(
    personnel,
    params(personnel, { states: 'tx', signals: 'new_filer', 'cf[company_name]': 'acme', 'eb[title]': 'true', lead_type: 'broker', crm_status: 'in_hubspot' }),
    { taggedIds: ['p1'], crm: BOTH },
  );
  assert.equal(f.map((c) => Object.keys(c)[0]), ['terms', 'terms', 'bool', 'exists', 'term', 'ids', 'bool']);
  assert.equal(f[6], inCrm(personnel, BOTH, 'hubspot'));
});

// ---------------------------------------------------------------------------------------
// 3. CRM status
// ---------------------------------------------------------------------------------------

const lookup = (field: string, ctx: CrmContext, crm: string, path: 'eins' | 'domains') => ({ terms: { [field]: { index: ctx.index, id: `${ctx.org}:${crm}`, path } } });

t('inCrm: terms lookups on the context index and doc `${org}:${crm}`; EIN lookup only where the entity has one', () => {
  for (const crm of CRMS) {
    assert.equal(inCrm(companies, BOTH, crm), { bool: { should: [lookup('domain', BOTH, crm, 'domains'), lookup('ein', BOTH, crm, 'eins')], minimum_should_match: 1 } });
    assert.equal(inCrm(personnel, BOTH, crm), {
      bool: { should: [lookup('company_domain', BOTH, crm, 'domains'), lookup('company_ein', BOTH, crm, 'eins')], minimum_should_match: 1 },
    });
    for (const def of [brokers, offices]) {
      assert.equal(inCrm(def, BOTH, crm), { bool: { should: [lookup('domain', BOTH, crm, 'domains')], minimum_should_match: 1 } }, def.name);
      assert.not.ok(JSON.stringify(crmFilter(def, [...CRM_STATUSES], BOTH)).includes('"eins"'), `${def.name} has no EIN lookup`);
    }
  }
  const other: CrmContext = { index: 'other-crm', org: 'org-z', crms: ['salesforce'] };
  assert.equal(collect(inCrm(companies, other, 'salesforce'), 'index'), ['other-crm', 'other-crm']);
  assert.equal(collect(inCrm(companies, other, 'salesforce'), 'id'), ['org-z:salesforce', 'org-z:salesforce']);
});

t('crm_status with both CRMs loaded: each value, and several OR-ed in the order given', () => {
  for (const def of ENTITIES) {
    const hs = inCrm(def, BOTH, 'hubspot');
    const sf = inCrm(def, BOTH, 'salesforce');
    assert.equal(crmFilter(def, ['in_hubspot'], BOTH), [hs]);
    assert.equal(crmFilter(def, ['in_salesforce'], BOTH), [sf]);
    assert.equal(crmFilter(def, ['in_both'], BOTH), [{ bool: { filter: [hs, sf] } }]);
    assert.equal(crmFilter(def, ['not_in_crm'], BOTH), [{ bool: { must_not: [hs, sf] } }]);
    assert.equal(crmFilter(def, ['in_salesforce', 'not_in_crm'], BOTH), [{ bool: { should: [sf, { bool: { must_not: [hs, sf] } }], minimum_should_match: 1 } }]);
    assert.equal(crmFilter(def, [], BOTH), []);
  }
});

t('crm_status with only hubspot loaded: salesforce (and so in_both) matches nothing; not_in_crm excludes hubspot only', () => {
  for (const def of ENTITIES) {
    const hs = inCrm(def, HUBSPOT_ONLY, 'hubspot');
    assert.equal(crmFilter(def, ['in_hubspot'], HUBSPOT_ONLY), [hs]);
    assert.equal(crmFilter(def, ['in_salesforce'], HUBSPOT_ONLY), [MATCH_NONE]);
    assert.equal(crmFilter(def, ['in_both'], HUBSPOT_ONLY), [MATCH_NONE]);
    assert.equal(crmFilter(def, ['not_in_crm'], HUBSPOT_ONLY), [{ bool: { must_not: [hs] } }]);
    assert.equal(crmFilter(def, ['in_salesforce', 'in_hubspot'], HUBSPOT_ONLY), [{ bool: { should: [MATCH_NONE, hs], minimum_should_match: 1 } }]);
    const all = JSON.stringify(crmFilter(def, [...CRM_STATUSES], HUBSPOT_ONLY));
    assert.not.ok(all.includes('salesforce'), 'no lookup of a list that is not loaded');
  }
});

t('crm_status reaches bool.filter through parseListParams (lowercased, deduplicated)', () => {
  const b = build(companies, { crm_status: 'IN_HUBSPOT,in_hubspot,not_in_crm' }, { taggedIds: null, crm: BOTH });
  const hs = inCrm(companies, BOTH, 'hubspot');
  const sf = inCrm(companies, BOTH, 'salesforce');
  assert.equal(boolOf(b).filter, [{ bool: { should: [hs, { bool: { must_not: [hs, sf] } }], minimum_should_match: 1 } }]);
  // Without a CRM context the builder adds nothing: list.ts refuses crm_status with 403 crm_context_required first.
  assert.equal(crmFilter(companies, ['in_hubspot'], null), []);
  assert.equal(crmFilter(companies, ['in_hubspot'], undefined), []);
});

t('crmMarks: one named, zero-boost constant_score per loaded CRM', () => {
  for (const def of ENTITIES) {
    const marks = crmMarks(def, BOTH) as J[];
    assert.is(marks.length, 2);
    CRMS.forEach((n, i) => {
      const m = marks[i];
      assert.equal(Object.keys(m), ['constant_score']);
      assert.is(m.constant_score.boost, 0);
      assert.equal(m.constant_score.filter, { bool: { ...(inCrm(def, BOTH, n) as J).bool, _name: `crm:${n}` } });
    });
    assert.equal(collect(crmMarks(def, HUBSPOT_ONLY), '_name'), ['crm:hubspot']);
  }
});

t('marks in the list query: bool.should with minimum_should_match 0, only when asked and with a context', () => {
  const marked = boolOf(build(personnel, { states: 'TX' }, { taggedIds: null, crm: BOTH, crmMarks: true }));
  assert.equal(marked.should, crmMarks(personnel, BOTH));
  assert.is(marked.minimum_should_match, 0);
  assert.equal(marked.filter, [{ terms: { company_state: ['TX'] } }, { term: { lead_type: 'company' } }], 'marks never filter');
  const withSearch = boolOf(build(personnel, { search: 'smith' }, { taggedIds: null, crm: HUBSPOT_ONLY, crmMarks: true }));
  assert.equal(Object.keys(withSearch).sort(), ['filter', 'minimum_should_match', 'must', 'should']);
  assert.is(withSearch.minimum_should_match, 0);
  for (const ctx of [{ taggedIds: null, crm: BOTH, crmMarks: false }, { taggedIds: null, crm: null, crmMarks: true }, { taggedIds: null, crm: BOTH }]) {
    const bool = boolOf(build(personnel, {}, ctx));
    assert.not.ok('should' in bool, JSON.stringify(ctx));
    assert.not.ok('minimum_should_match' in bool, JSON.stringify(ctx));
  }
});

t('crmStatusOfHit: known names in the fixed order hubspot, salesforce; unknown names and non-arrays ignored', () => {
  assert.equal(crmStatusOfHit(['crm:salesforce', 'crm:hubspot']), ['hubspot', 'salesforce']);
  assert.equal(crmStatusOfHit(['crm:salesforce']), ['salesforce']);
  assert.equal(crmStatusOfHit(['crm:zoho', 'hubspot', 'crm:HUBSPOT']), []);
  assert.equal(crmStatusOfHit(undefined), []);
  assert.equal(crmStatusOfHit('crm:hubspot'), []);
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.constantFrom('crm:hubspot', 'crm:salesforce', 'crm:zoho', 'salesforce', 'crm:', ''), fc.string()), { maxLength: 8 }), (names) => {
      const got = crmStatusOfHit(names);
      assert.equal(got, CRMS.filter((n) => names.includes(`crm:${n}`)));
      assert.equal(got, [...got].sort(), 'fixed (alphabetical) order');
      assert.is(new Set(got).size, got.length, 'no duplicates');
    }),
  );
});

// ---------------------------------------------------------------------------------------
// 4. Purity and determinism
// ---------------------------------------------------------------------------------------

const caseOf = (s: string, upper: boolean) => (upper ? s.toUpperCase() : s.toLowerCase());
const companyQuery: fc.Arbitrary<Q> = fc
  .record(
    {
      states: fc.subarray([...STATE_CODES], { maxLength: 5 }).chain((s) => fc.tuple(fc.constant(s), fc.array(fc.boolean(), { minLength: s.length, maxLength: s.length }))),
      dmas: fc.subarray([...DMAS], { maxLength: 3 }),
      geo_mode: fc.constantFrom('state', 'dma'),
      lo: bound(['gt', 'gte']),
      hi: bound(['lt', 'lte']),
      growth: bound(['gt', 'gte', 'lt', 'lte']),
      // Any text but an operator (gte:… on a string column is a 400, tested below) or an empty comma item (empty_item).
      city: fc.string({ minLength: 1, maxLength: 8 }).filter((s) => s.split(',').every((p) => p.trim().length > 0) && !/(gte|gt|lte|lt):/.test(s)),
      signals: fc.subarray([...SIGNAL_NAMES], { maxLength: 4 }),
      signal_match: fc.constantFrom('any', 'all'),
      sort_by: fc.constantFrom(...companies.fields.filter((f) => f.sortable).map((f) => f.name)),
      sort_dir: fc.constantFrom('asc', 'desc'),
      search: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim().length > 0),
      eb: fc.subarray(companies.fields.filter((f) => f.blank).map((f) => f.name), { maxLength: 2 }),
      crm_status: fc.subarray([...CRM_STATUSES], { maxLength: 2 }),
    },
    { requiredKeys: [] },
  )
  .map((r) => {
    const q: Q = {};
    if (r.states && r.states[0].length) q.states = r.states[0].map((s, i) => caseOf(s, r.states![1][i])).join(',');
    if (r.dmas?.length) q.dmas = r.dmas.join(',');
    if (r.geo_mode) q.geo_mode = r.geo_mode;
    const bounds = [r.lo, r.hi].filter((b) => b).map((b) => `${b!.op}:${b!.value}`);
    if (bounds.length) q['cf[total_number_of_employees]'] = bounds.join(',');
    if (r.growth) q['cf[participant_growth]'] = `${r.growth.op}:${r.growth.value}`;
    if (r.city) q['cf[city]'] = r.city;
    if (r.signals?.length) q.signals = r.signals.join(',');
    if (r.signal_match) q.signal_match = r.signal_match;
    if (r.sort_by) q.sort_by = r.sort_by;
    if (r.sort_dir) q.sort_dir = r.sort_dir;
    if (r.search) q.search = r.search;
    for (const e of r.eb ?? []) q[`eb[${e}]`] = 'true';
    if (r.crm_status?.length) q.crm_status = r.crm_status.join(',');
    return q;
  });
const context: fc.Arbitrary<QueryContext> = fc
  .record({
    taggedIds: fc.option(fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 3 }), { nil: null }),
    crm: fc.constantFrom(BOTH, HUBSPOT_ONLY),
    crmMarks: fc.boolean(),
  })
  .map((c) => ({ ...c })); // a plain object (fc.record may build one without prototype)

t('building is pure (property): same inputs, deep-equal JSON-safe output; query, params, context and definition untouched', () => {
  const defSnapshot = JSON.stringify(companies);
  fc.assert(
    fc.property(companyQuery, context, (q, ctx) => {
      const qBefore = structuredClone(q);
      const ctxBefore = structuredClone(ctx);
      const p = parseListParams(companies, KEY, q);
      const pBefore = JSON.stringify(p);
      const a = buildListQuery(p, ctx);
      const b = buildListQuery(p, ctx);
      assert.equal(a, b, 'same params, same body');
      assert.equal(JSON.stringify(a), JSON.stringify(b), 'same key order too');
      assert.equal(buildListQuery(parseListParams(companies, KEY, q), ctx), a, 'a fresh parse of the same query builds the same body');
      assert.equal(JSON.parse(JSON.stringify(a)), a, 'plain JSON: no undefined, functions, NaN or class instances');
      assert.equal(q, qBefore, 'the query object is not mutated');
      assert.equal(ctx, ctxBefore, 'the context is not mutated');
      assert.is(JSON.stringify(p), pBefore, 'the params are not mutated');
    }),
    { numRuns: 400 },
  );
  assert.is(JSON.stringify(companies), defSnapshot, 'the entity definition is not mutated');
});

t('structure (property): filters unscored, must iff search, should iff marks, one clause per condition, id asc last', () => {
  fc.assert(
    fc.property(companyQuery, context, (q, ctx) => {
      const p = parseListParams(companies, KEY, q);
      const body = buildListQuery(p, ctx);
      const bool = boolOf(body);
      assert.is('must' in bool, p.search !== null);
      if (p.search) assert.equal(bool.must, [searchClause(companies, p.search)]);
      assert.is('should' in bool, ctx.crmMarks === true && ctx.crm != null);
      if ('should' in bool) assert.is(bool.minimum_should_match, 0);
      const expected =
        (p.states.length || p.dmas.length ? 1 : 0) +
        (p.signals.length ? (p.signalMatch === 'all' ? p.signals.length : 1) : 0) +
        p.cf.reduce((n, c) => n + (c.field.cf === 'numeric' || c.field.cf === 'percent' ? (c.ranges.length ? 1 : 0) + (c.values.length ? 1 : 0) : 1), 0) +
        p.eb.length +
        (ctx.taggedIds ? 1 : 0) +
        (p.crmStatus.length && ctx.crm ? 1 : 0);
      assert.is(bool.filter.length, expected, JSON.stringify(q));
      for (const s of p.states) assert.ok(s === s.toUpperCase());
      assert.equal(body.sort[body.sort.length - 1], { id: 'asc' });
      assert.is(body.sort.length, 2);
      assert.is(body.track_total_hits, true);
      assert.not.ok(collect(bool.filter, 'boost').some((x) => x !== 0), 'no boosts in the filter');
    }),
    { numRuns: 400 },
  );
});

// ---------------------------------------------------------------------------------------
// 5. parseListParams errors
// ---------------------------------------------------------------------------------------

t('page_size above 500 is out_of_range; not a number is invalid_integer', () => {
  expectError(() => params(companies, { page_size: '501', states: 'TX' }), { status: 400, code: 'VALIDATION_ERROR', field: 'page_size', issue: 'out_of_range', expected: '1 to 500' });
  expectError(() => params(companies, { page_size: '0' }), { status: 400, code: 'VALIDATION_ERROR', field: 'page_size', issue: 'out_of_range' });
  expectError(() => params(companies, { page_size: '1e2' }), { status: 400, code: 'VALIDATION_ERROR', field: 'page_size', issue: 'invalid_integer' });
  assert.is(params(companies, { page_size: '500', states: 'TX' }).pageSize, 500);
});

t('page_size above 25 needs a business filter (resource filters count too)', () => {
  expectError(() => params(companies, { page_size: '100' }), { status: 400, code: 'FILTER_REQUIRED', field: 'page_size', issue: 'filter_required' });
  expectError(() => params(companies, { page_size: '26', sort_by: 'company_name', sort_dir: 'desc', signal_match: 'all', geo_mode: 'dma' }), {
    status: 400, code: 'FILTER_REQUIRED', field: 'page_size', issue: 'filter_required',
  });
  // lead_type is not a business filter.
  expectError(() => params(personnel, { page_size: '100', lead_type: 'company' }), { status: 400, code: 'FILTER_REQUIRED', field: 'page_size', issue: 'filter_required' });
  assert.is(params(companies, { page_size: '25' }).pageSize, 25);
  assert.is(params(companies, { page_size: '100', states: 'TX' }).pageSize, 100);
  assert.is(params(companies, { page_size: '100', search: 'acme' }).pageSize, 100);
  assert.is(params(companies, { page_size: '100', funding_status: 'Self-Funded' }).pageSize, 100);
  assert.equal(params(companies, { page_size: '100', states: 'TX', funding_status: 'Self-Funded' }).businessFilters, ['states', 'funding_status']);
  // filing_year=latest (the default) narrows nothing: not a business filter; a year is.
  expectError(() => params(companies, { page_size: '100', filing_year: 'latest' }), { status: 400, code: 'FILTER_REQUIRED', field: 'page_size', issue: 'filter_required' });
  assert.equal(params(companies, { page_size: '100', filing_year: '2023' }).businessFilters, ['filing_year']);
});

t('test keys: page_size above 100 is out_of_range', () => {
  expectError(() => params(companies, { page_size: '101', states: 'TX' }, TEST_KEY), { status: 400, code: 'VALIDATION_ERROR', field: 'page_size', issue: 'out_of_range', expected: '1 to 100 for test keys' });
  assert.is(params(companies, { page_size: '100', states: 'TX' }, TEST_KEY).pageSize, 100);
});

t('sort_by outside the allowlist: invalid_value listing the sortable columns', () => {
  for (const def of ENTITIES) {
    expectError(() => params(def, { sort_by: 'nope' }), {
      status: 400, code: 'VALIDATION_ERROR', field: 'sort_by', issue: 'invalid_value', expected: def.fields.filter((f) => f.sortable).map((f) => f.name),
    });
  }
  const e = apiError(() => params(companies, { sort_by: 'ein' }));
  assert.equal(e.details[0].expected, ['company_name', 'filing_year', 'total_premiums', 'total_number_of_employees', 'participants', 'participant_growth']);
  expectError(() => params(companies, { sort_dir: 'up' }), { status: 400, code: 'VALIDATION_ERROR', field: 'sort_dir', issue: 'invalid_value', expected: ['asc', 'desc'] });
});

t('states: a name instead of a code is invalid_state', () => {
  expectError(() => params(companies, { states: 'Texas' }), { status: 400, code: 'VALIDATION_ERROR', field: 'states', issue: 'invalid_state', expected: STATE_CODES });
  expectError(() => params(companies, { states: 'TX,Texas' }), { status: 400, code: 'VALIDATION_ERROR', field: 'states', issue: 'invalid_state' });
  expectError(() => params(companies, { states: ' , ' }), { status: 400, code: 'VALIDATION_ERROR', field: 'states', issue: 'missing_value' });
  expectError(() => params(companies, { dmas: 'Gotham' }), { status: 400, code: 'VALIDATION_ERROR', field: 'dmas', issue: 'invalid_value', expected: DMAS });
});

t('cf: unknown column, empty value, retired names, bad numbers and operators', () => {
  expectError(() => params(companies, { 'cf[unknown]': '1' }), {
    status: 400, code: 'VALIDATION_ERROR', field: 'cf[unknown]', issue: 'unknown_column', expected: companies.fields.filter((f) => f.cf).map((f) => f.name),
  });
  // A column without cf (plan_name is text) is unknown to cf too.
  expectError(() => params(companies, { 'cf[plan_name]': 'x' }), { status: 400, code: 'VALIDATION_ERROR', field: 'cf[plan_name]', issue: 'unknown_column' });
  expectError(() => params(companies, { 'cf[company_name]': '' }), { status: 400, code: 'VALIDATION_ERROR', field: 'cf[company_name]', issue: 'missing_value' });
  expectError(() => params(companies, { 'cf[total_number_of_employees]': ' , ' }), { status: 400, code: 'VALIDATION_ERROR', field: 'cf[total_number_of_employees]', issue: 'missing_value' });
  expectError(() => params(personnel, { 'cf[email]': 'a@b.com' }), { status: 400, code: 'VALIDATION_ERROR', field: 'cf[email]', issue: 'unknown_column', expected: 'cf[email_address]' });
  expectError(() => params(personnel, { 'cf[linkedin]': 'x' }), { status: 400, code: 'VALIDATION_ERROR', field: 'cf[linkedin]', issue: 'unknown_column', expected: 'cf[person_linkedin_url]' });
  expectError(() => params(companies, { 'cf[total_number_of_employees]': 'gte:abc' }), { status: 400, code: 'VALIDATION_ERROR', field: 'cf[total_number_of_employees]', issue: 'invalid_number' });
  expectError(() => params(companies, { 'cf[total_number_of_employees]': '1e3' }), { status: 400, code: 'VALIDATION_ERROR', field: 'cf[total_number_of_employees]', issue: 'invalid_number' });
  expectError(() => params(companies, { 'cf[city]': 'gte:3' }), { status: 400, code: 'VALIDATION_ERROR', field: 'cf[city]', issue: 'operator_not_supported' });
});

t('eb: only true is accepted, only on blank-able columns', () => {
  expectError(() => params(companies, { 'eb[website]': 'false' }), { status: 400, code: 'VALIDATION_ERROR', field: 'eb[website]', issue: 'invalid_value', expected: ['true'] });
  expectError(() => params(companies, { 'eb[website]': '1' }), { status: 400, code: 'VALIDATION_ERROR', field: 'eb[website]', issue: 'invalid_value', expected: ['true'] });
  expectError(() => params(companies, { 'eb[id]': 'true' }), {
    status: 400, code: 'VALIDATION_ERROR', field: 'eb[id]', issue: 'unknown_column', expected: companies.fields.filter((f) => f.blank).map((f) => f.name),
  });
});

t('personnel: lead_type is required and must be company or broker', () => {
  expectError(() => parseListParams(personnel, KEY, {}), { status: 400, code: 'VALIDATION_ERROR', field: 'lead_type', issue: 'missing_required', expected: LEAD_TYPES });
  expectError(() => parseListParams(personnel, KEY, { lead_type: '' }), { status: 400, code: 'VALIDATION_ERROR', field: 'lead_type', issue: 'missing_required' });
  expectError(() => parseListParams(personnel, KEY, { lead_type: 'Company' }), { status: 400, code: 'VALIDATION_ERROR', field: 'lead_type', issue: 'invalid_value', expected: LEAD_TYPES });
  assert.is(parseListParams(companies, KEY, { lead_type: 'anything' }).side, null, 'resources without a side have none');
});

t('crm_status and signals: unknown values are invalid_value with the allowed list', () => {
  expectError(() => params(companies, { crm_status: 'bogus' }), { status: 400, code: 'VALIDATION_ERROR', field: 'crm_status', issue: 'invalid_value', expected: CRM_STATUSES });
  expectError(() => params(companies, { crm_status: 'in_hubspot,bogus' }), { status: 400, code: 'VALIDATION_ERROR', field: 'crm_status', issue: 'invalid_value' });
  expectError(() => params(companies, { signals: 'new_filer,nope' }), { status: 400, code: 'VALIDATION_ERROR', field: 'signals', issue: 'invalid_value', expected: SIGNAL_NAMES });
  assert.equal(params(companies, { crm_status: 'In_Both,in_both' }).crmStatus, ['in_both'] as CrmStatus[]);
});

t('all 400 problems come back together, before any 403', () => {
  const e = expectError(() => params(companies, { page_size: '501', states: 'Texas', sort_by: 'filing_year', 'eb[website]': 'no' }, BASIC), {
    status: 400, code: 'VALIDATION_ERROR', field: 'states', issue: 'invalid_state',
  });
  assert.equal(e.details.map((d) => `${d.field}/${d.issue}`).sort(), ['eb[website]/invalid_value', 'page_size/out_of_range', 'states/invalid_state']);
  // The same advanced sort alone is a 403 for a basic key, and fine for an advanced one.
  expectError(() => params(companies, { sort_by: 'filing_year' }, BASIC), { status: 403, code: 'FORBIDDEN', field: 'sort_by', issue: 'advanced_sort' });
  expectError(() => params(companies, { 'cf[participants]': 'gte:10' }, BASIC), { status: 403, code: 'FORBIDDEN', field: 'cf[participants]', issue: 'advanced_field' });
  expectError(() => params(companies, { 'eb[admin_email]': 'true' }, BASIC), { status: 403, code: 'FORBIDDEN', field: 'eb[admin_email]', issue: 'advanced_field' });
  assert.is(params(companies, { sort_by: 'filing_year' }).sortBy, 'filing_year');
});

t.run();
