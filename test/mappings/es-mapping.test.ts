// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ENTITIES } from '../../mappings/index.ts';
import fc from 'fast-check';
import { companion, esMappings, esSettings, indexSortOf, isSearchable, mappingHash, sortRank } from '../../mappings/es-mapping.ts';
import { foldText } from '../../mappings/normalize.ts';
import { expandIndustry, industryPath, INDUSTRIES } from '../../mappings/industries.ts';

// Features absent from the integration-test distribution of Elasticsearch (see architecture notes).
const FORBIDDEN = ['edge_ngram', 'ngram', 'asciifolding', 'search_as_you_type', 'scaled_float', 'rank_feature', 'token_count', 'script'];

for (const def of ENTITIES) {
  test(`${def.name}: every field is mapped, strictly, with only core features`, () => {
    const m = esMappings(def) as { dynamic: string; properties: Record<string, { type: string }> };
    assert.is(m.dynamic, 'strict');
    for (const f of def.fields) assert.ok(m.properties[f.name], `${f.name} mapped`);
    const json = JSON.stringify({ m, s: esSettings({ shards: 1, replicas: 0 }) });
    for (const bad of FORBIDDEN) assert.not.ok(json.includes(`"${bad}"`), `uses ${bad}`);
  });

  test(`${def.name}: searchable names get norm (with prefixes) and compact companions`, () => {
    const m = esMappings(def) as { properties: Record<string, Record<string, unknown>> };
    const searchable = def.fields.filter(isSearchable);
    assert.ok(searchable.length > 0, 'has a searchable name');
    for (const f of searchable) {
      assert.ok(m.properties[companion.norm(f.name)].index_prefixes, `${f.name} norm has index_prefixes`);
      assert.is(m.properties[companion.compact(f.name)].type, 'keyword');
      assert.is(m.properties[companion.sort(f.name)].type, 'keyword');
    }
  });

  test(`${def.name}: with BINTEL_INDEX_SORT the index is sorted on the default sort (keyword companions with doc values)`, () => {
    const m = esMappings(def) as { properties: Record<string, Record<string, unknown>> };
    const s = esSettings({ shards: 1, replicas: 0, indexSort: true }, def) as { sort?: { field: string[]; order: string[]; missing: string[] } };
    assert.equal(s.sort, indexSortOf(def));
    assert.equal(s.sort?.field, [companion.sort(def.defaultSort), 'id']);
    for (const f of s.sort?.field ?? []) {
      assert.is(m.properties[f].type, 'keyword', `${f} is a keyword`);
      assert.is.not(m.properties[f].doc_values, false, `${f} has doc values`);
    }
    assert.not.ok((esSettings({ shards: 1, replicas: 0 }, def) as { sort?: unknown }).sort, 'off by default');
    assert.not.ok((esSettings({ shards: 1, replicas: 0 }) as { sort?: unknown }).sort, 'no entity, no sort');
  });

  test(`${def.name}: definition is consistent`, () => {
    const names = def.fields.map((f) => f.name);
    assert.equal(new Set(names).size, names.length, 'unique field names');
    assert.ok(names.includes('id'));
    assert.ok(def.fields.find((f) => f.name === def.defaultSort)?.sortable, 'default sort is sortable');
    assert.ok(def.fields.find((f) => f.name === def.defaultAutocomplete)?.autocomplete, 'default autocomplete column');
    for (const f of def.fields) {
      if (f.cf === 'numeric' || f.cf === 'percent') assert.ok(['integer', 'long', 'double'].includes(f.type), `${f.name} numeric cf on a number`);
      if (f.source.kind === 'join') for (const [j] of f.source.paths) assert.ok(def.joins.some((x) => x.name === j), `${f.name} join ${j}`);
    }
    for (const k of def.naturalKey) assert.ok(names.includes(k), `natural key ${k}`);
  });
}

test('the advanced tier is exactly the fields the spec names', () => {
  const advanced = new Set(['filing_year', 'total_premiums', 'participants', 'participant_growth', 'client_count', 'total_commissions', 'phone_number', 'admin_email']);
  for (const def of ENTITIES) {
    for (const f of def.fields) {
      const expectAdvanced = advanced.has(f.name) || (def.name === 'personnel' && (f.name === 'total_number_of_employees' || f.name === 'signals'));
      assert.is(f.tier === 'advanced', expectAdvanced, `${def.name}.${f.name}`);
    }
  }
});

/** Elasticsearch's keyword order: UTF-8 bytes, unsigned. */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

test('sortRank never decreases along the keyword order (random strings, shared prefixes, folded names), and is exact as a double', () => {
  // Strings that share long prefixes and differ in every kind of byte: ASCII exact and lossy, non-ASCII, surrogates.
  const alphabet = fc.constantFrom(...'ab z09&\',-./!:~\u0001Zé€😀\u007f'.split(''), 'smith ', 'smith-');
  const value = fc.oneof(fc.array(alphabet, { maxLength: 6 }).map((xs) => xs.join('')), fc.string({ unit: 'grapheme', maxLength: 14 }), fc.string({ unit: 'binary', maxLength: 14 }), fc.string({ maxLength: 14 }).map(foldText));
  fc.assert(
    fc.property(value, value, (a, b) => {
      const [lo, hi] = byteOrder(a, b) <= 0 ? [a, b] : [b, a];
      const rl = sortRank(lo) as number;
      const rh = sortRank(hi) as number;
      return Number.isSafeInteger(rl) && Number.isSafeInteger(rh) && rl <= rh;
    }),
    { numRuns: 20_000 },
  );
  // Distinct where names differ early (the rank must tell apart what lists page through).
  assert.ok((sortRank('smith health') as number) < (sortRank('smith hospital') as number));
  assert.ok((sortRank('abebe') as number) < (sortRank('abebe distributors') as number));
  assert.is(sortRank('x'.repeat(513)), undefined, 'not sorted on above ignore_above');
});

for (const def of ENTITIES) {
  test(`${def.name}: every sortable name has a rank companion (long)`, () => {
    const m = esMappings(def) as { properties: Record<string, { type: string }> };
    for (const f of def.fields.filter((x) => x.sortable && x.type === 'name')) assert.is(m.properties[companion.rank(f.name)]?.type, 'long', f.name);
  });
}

test('mapping hash is stable and changes with the mapping', () => {
  const [a, b] = ENTITIES;
  assert.is(mappingHash(a), mappingHash(a));
  assert.is.not(mappingHash(a), mappingHash(b));
});

test('industry hierarchy comes from NAICS and expands to the subsector', () => {
  assert.ok(INDUSTRIES.length > 250, `${INDUSTRIES.length} industry groups`);
  const physicians = industryPath('Offices of Physicians');
  assert.equal(physicians, ['Health Care and Social Assistance', 'Ambulatory Health Care Services', 'Offices of Physicians']);
  assert.is(expandIndustry('offices of physicians'), 'Ambulatory Health Care Services');
  assert.is(expandIndustry('Health Care and Social Assistance'), 'Health Care and Social Assistance');
  assert.is(expandIndustry('no such industry'), null);
  for (const i of INDUSTRIES) assert.not.ok(/T$/.test(i.label) && !/IT$/.test(i.label), `clean title ${i.label}`);
});

test.run();
