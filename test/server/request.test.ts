// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * The parse step of the read pipeline, without I/O: shared parameters (paging numbers, the side,
 * mode/fields/format/dry_run) and what the list parse computes for later steps (the fingerprint
 * inputs, the echo of applied filters). Properties over generated input where a rule is general.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { ENTITIES, entity } from '../../mappings/index.ts';
import type { ErrorDetail } from '../../server/errors.ts';
import { parseListRequest } from '../../server/read/list-request.ts';
import { checkFieldNames } from '../../server/read/projection.ts';
import { ApiError } from '../../server/errors.ts';
import { checkDepth, fingerprint } from '../../server/read/page.ts';
import { FORMATS, MODES, PAGE_MAX, PAGE_SIZE_MAX, integerParam, pageParams, readShape, readSide, type RawQuery } from '../../server/read/request.ts';

const t = suite('request');
const companies = entity('companies');
const personnel = entity('personnel');

t('checkDepth (property): a page of an order that cannot be counted to must start inside the window; the 400 names page, the bound, the last page and the cursor', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: PAGE_MAX }), fc.integer({ min: 1, max: PAGE_SIZE_MAX }), fc.integer({ min: 1, max: 10_000 }), fc.boolean(), (page, pageSize, window, counted) => {
      let err: unknown = null;
      try {
        checkDepth({ page, pageSize, counted, window });
      } catch (e) {
        err = e;
      }
      assert.is(err !== null, !counted && page * pageSize >= window);
      if (!(err instanceof ApiError)) return;
      assert.is(err.status, 400);
      const [detail] = err.details;
      assert.equal([detail.field, detail.issue], ['page', 'out_of_range']);
      const last = Number(/at most page (\d+) /.exec(String(detail.expected))?.[1]);
      // The last page named is the deepest that passes.
      assert.ok(last * pageSize < window && (last + 1) * pageSize >= window, String(detail.expected));
      assert.match(String(detail.expected), `below ${window} `);
      assert.match(String(detail.expected), 'next_cursor');
    }),
  );
});

t('integerParam (property): digits within range are the number; outside out_of_range; anything else invalid_integer', () => {
  const range = { min: 1, max: 500, fallback: 25 };
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 10_000 }), (n) => {
      const problems: ErrorDetail[] = [];
      const v = integerParam('page_size', String(n), range, problems);
      assert.is(v, n);
      assert.equal(problems.map((p) => p.issue), n >= 1 && n <= 500 ? [] : ['out_of_range']);
    }),
  );
  fc.assert(
    fc.property(fc.string({ minLength: 1 }).filter((s) => !/^\d+$/.test(s)), (s) => {
      const problems: ErrorDetail[] = [];
      assert.is(integerParam('page', s, range, problems), 25, 'the fallback, the problem recorded');
      assert.equal(problems, [{ field: 'page', issue: 'invalid_integer', expected: 'a whole number from 1 to 500' }]);
    }),
  );
  const none: ErrorDetail[] = [];
  assert.is(integerParam('page', undefined, range, none), 25);
  assert.equal(none, []);
});

t('pageParams: the same rules for every paged endpoint (defaults 0 and 25, bounds named)', () => {
  const problems: ErrorDetail[] = [];
  assert.equal(pageParams({}, problems), { page: 0, pageSize: 25 });
  assert.equal(pageParams({ page: String(PAGE_MAX), page_size: String(PAGE_SIZE_MAX) }, problems), { page: PAGE_MAX, pageSize: PAGE_SIZE_MAX });
  assert.equal(problems, []);
  pageParams({ page: '-1', page_size: '0' }, problems);
  assert.equal(problems.map((p) => `${p.field}/${p.issue}`), ['page/invalid_integer', 'page_size/out_of_range']);
});

t('readSide: every entity with a side requires one of its values; entities without a side have none', () => {
  for (const def of ENTITIES) {
    const problems: ErrorDetail[] = [];
    if (!def.side) {
      assert.is(readSide(def, 'company', problems), null);
      assert.equal(problems, []);
      continue;
    }
    for (const v of def.side.values) assert.is(readSide(def, v, problems), v);
    assert.equal(problems, []);
    readSide(def, undefined, problems);
    readSide(def, '', problems);
    readSide(def, 'Company', problems);
    assert.equal(problems.map((p) => `${p.field}/${p.issue}`), [`${def.side.param}/missing_required`, `${def.side.param}/missing_required`, `${def.side.param}/invalid_value`]);
  }
});

t('readShape: mode and format from their allowlists, fields split (no empty or padded item), an empty fields is missing_value', () => {
  const problems: ErrorDetail[] = [];
  assert.equal(readShape({}, problems), { mode: 'basic', fields: null, format: 'json', dryRun: false });
  assert.equal(readShape({ mode: 'light', fields: 'id,company_name', format: 'flat', dry_run: 'true' }, problems), { mode: 'light', fields: ['id', 'company_name'], format: 'flat', dryRun: true });
  assert.equal(problems, []);
  readShape({ mode: 'all', format: 'csv', fields: ' ', dry_run: 'yes' }, problems);
  assert.equal(problems.map((p) => `${p.field}/${p.issue}`).sort(), ['dry_run/invalid_boolean', 'fields/missing_value', 'format/invalid_value', 'mode/invalid_value']);
  for (const [fields, issue] of [['id,,company_name', 'empty_item'], ['id,', 'empty_item'], [' , ', 'missing_value'], [' id,company_name', 'invalid_format'], ['id, company_name', 'invalid_format']]) {
    const found: ErrorDetail[] = [];
    readShape({ fields }, found);
    assert.equal(found.map((p) => `${p.field}/${p.issue}`), [`fields/${issue}`], fields);
  }
  assert.equal(problems.find((p) => p.field === 'mode')?.expected, MODES);
  assert.equal(problems.find((p) => p.field === 'format')?.expected, FORMATS);
});

t('checkFieldNames: output fields and the entity\'s members pass; filter-only attributes and other entities\' members do not', () => {
  const problems: ErrorDetail[] = [];
  checkFieldNames(personnel, ['id', 'full_name', 'lead_source', 'crm_status', 'tags'], problems);
  assert.equal(problems, []);
  checkFieldNames(personnel, ['industry_path'], problems);
  checkFieldNames(companies, ['tags', 'crm_status'], problems);
  assert.equal(problems.map((p) => p.field), ['fields.industry_path', 'fields.tags', 'fields.crm_status']);
});

/** Company list queries over a few parameters, in any order. */
const companyQuery = fc
  .record(
    {
      states: fc.constantFrom('TX', 'ca', 'NY,TX'),
      page: fc.integer({ min: 0, max: 50 }).map(String),
      page_size: fc.integer({ min: 1, max: 25 }).map(String),
      sort_dir: fc.constantFrom('asc', 'desc'),
      mode: fc.constantFrom('light', 'basic'),
      funding_status: fc.constantFrom('Self-Funded', 'Fully Insured'),
      explain: fc.constantFrom('true', 'false'),
    },
    { requiredKeys: [] },
  )
  .chain((q) => fc.shuffledSubarray(Object.keys(q), { minLength: Object.keys(q).length }).map((order) => Object.fromEntries(order.map((k) => [k, q[k as keyof typeof q] as string])) as RawQuery));

t('list parse (property): the fingerprint inputs ignore parameter order; rows ignore page/explain, counts also paging and projection', () => {
  fc.assert(
    fc.property(companyQuery, (q) => {
      const r = parseListRequest(companies, q);
      const reversed = parseListRequest(companies, Object.fromEntries(Object.entries(q).reverse()));
      assert.is(r.rowsKey, reversed.rowsKey);
      assert.is(r.countKey, reversed.countKey);
      const { page: _p, explain: _e, ...rowsOnly } = q;
      assert.is(parseListRequest(companies, rowsOnly).rowsKey, r.rowsKey, 'page and explain do not decide the rows');
      const { page_size: _s, sort_dir: _d, mode: _m, ...filtersOnly } = rowsOnly;
      assert.is(parseListRequest(companies, filtersOnly).countKey, r.countKey, 'paging, sort and projection do not decide the total');
      assert.equal(Object.keys(r.applied).sort(), Object.keys(q).filter((k) => ['states', 'sort_dir', 'funding_status'].includes(k)).sort());
    }),
  );
});

t('fingerprint: the caller context and the resource are part of it', () => {
  const base = { resource: 'companies', rowsKey: 'tags="vip"', context: 'ns||u:org/ana|' };
  const fp = fingerprint(base);
  assert.is(fingerprint({ ...base }), fp);
  assert.is.not(fingerprint({ ...base, context: 'ns||u:org/bob|' }), fp);
  assert.is.not(fingerprint({ ...base, resource: 'personnel' }), fp);
  assert.ok(/^[0-9a-f]{20}$/.test(fp));
});

t.run();
