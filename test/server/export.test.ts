/**
 * CSV export on generated data: the file parsed back (fast-csv) holds exactly the list's rows for
 * the same filters and sort (ids, order, values), the charge is rows × price and the balance moves
 * by exactly that, the 2,000-row limit and dry_run are 400s naming the parameter, cells that a
 * spreadsheet would run as formulas are escaped, and a refund gives back exactly what it says.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { parseString } from 'fast-csv';
import { entity } from '../../mappings/index.ts';
import { rowPrice } from '../../server/pricing.ts';
import { csvCell, csvLine } from '../../server/read/export.ts';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';

const t = suite('export');
let h: Harness;
let data: DataFiles | undefined;
let sandbox: DataFiles | undefined;
let org = '';
let adv = '';
let test = '';

type Row = Record<string, string>;
const get = (path: string, secret = adv) => h.call('GET', path, { secret });

/** CSV text to header and rows (the BOM stripped by the parser). */
async function parseCsv(text: string): Promise<{ header: string[]; rows: Row[] }> {
  const rows: Row[] = [];
  let header: string[] = [];
  await new Promise<void>((resolve, reject) => {
    parseString(text, { headers: (hs) => ((header = hs as string[]), hs) })
      .on('data', (r: Row) => rows.push(r))
      .on('error', reject)
      .on('end', () => resolve());
  });
  return { header, rows };
}

/** The cells of one CSV record, read back with fast-csv (no header semantics: cells may repeat). */
async function parseRecord(text: string): Promise<string[]> {
  let cells: string[] = [];
  await new Promise<void>((resolve, reject) => {
    parseString(text, { headers: false, maxRows: 1 })
      .on('data', (r: string[]) => (cells = r))
      .on('error', reject)
      .on('end', () => resolve());
  });
  return cells;
}

/** The list's flat rows for the same query, walked page by page. */
async function listRows(path: string, total: number): Promise<Row[]> {
  const out: Row[] = [];
  for (let page = 0; out.length < total; page++) {
    const res = await get(`${path}&format=flat&page_size=100&page=${page}`);
    assert.is(res.status, 200, JSON.stringify(res.body));
    out.push(...res.body.data);
    if (!res.body.meta.has_more) break;
  }
  return out.slice(0, total);
}

const withoutTime = (r: Row): Row => {
  const { lead_source_retrieved_at: _t, ...rest } = r;
  return rest;
};

t.before(async () => {
  h = await startHarness({ BINTEL_CRAWL_THRESHOLD: '1000', BINTEL_CACHE_TTL_S: '0' });
  data = await loadGenerated(h, { companies: 2600, personnel: 1200, brokerOffices: 150, brokers: 30, seed: 13 });
  sandbox = await loadGenerated(h, { companies: 300, personnel: 0, brokerOffices: 40, brokers: 10, seed: 14, sandbox: true });
  const o = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 });
  org = o.org;
  adv = o.secret;
  test = (await h.key({ org, key_type: 'test' })).secret;
});
t.after(async () => {
  await h.close();
  await data?.cleanup();
  await sandbox?.cleanup();
});

t('the file is the list: same ids, order and values; header = the flat columns; charged rows × price, exactly once', async () => {
  const query = 'states=TX,CA,NY,FL,OH,PA,IL&sort_by=total_number_of_employees&sort_dir=desc&mode=full';
  const before = await h.running.services.credits.balance(org);
  const res = await get(`/v1/companies/export.csv?${query}&page_size=700`);
  assert.is(res.status, 200, String(res.body).slice(0, 300));
  assert.is(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="companies-\d{4}-\d{2}-\d{2}\.csv"$/);
  const { header, rows } = await parseCsv(res.body as string);
  const expected = await listRows(`/v1/companies?${query}`, 700);
  assert.ok(expected.length > 300, `${expected.length} rows match`);
  assert.is(rows.length, expected.length);
  assert.equal(header, Object.keys(expected[0]));
  assert.equal(rows.map(withoutTime), expected.map(withoutTime));
  assert.is(res.headers.get('x-export-rows'), String(rows.length));
  const price = rowPrice(entity('companies'), 'advanced');
  const charged = rows.length * (price.base + price.signals);
  assert.is(Number(res.headers.get('x-credits-charged')), charged / 1000);
  // The list walk above was charged too: compare with what the export alone said and the pool moved by both.
  const listCharged = expected.length * price.base;
  assert.is(before - (await h.running.services.credits.balance(org)), charged + listCharged);
});

t('personnel: lead_type required; crm_status and the side come through; fields= chooses the columns', async () => {
  assertError(await get('/v1/personnel/export.csv?page_size=10'), 400, 'VALIDATION_ERROR', { field: 'lead_type', issue: 'missing_required' });
  const res = await get('/v1/personnel/export.csv?lead_type=company&states=TX,CA,NY&fields=full_name,title,lead_source,crm_status&page_size=50');
  assert.is(res.status, 200, String(res.body).slice(0, 300));
  const { header, rows } = await parseCsv(res.body as string);
  assert.equal(header, ['id', 'full_name', 'title', 'lead_source', 'lead_source_retrieved_at', 'crm_status']);
  const bare = await parseCsv((await get('/v1/personnel/export.csv?lead_type=company&states=TX&fields=full_name&page_size=5')).body as string);
  assert.equal(bare.header, ['id', 'full_name'], 'fields= gives exactly id and the named columns');
  assert.ok(rows.length > 0 && rows.length <= 50);
  for (const r of rows) assert.is(r.lead_source, 'Form 5500 contacts');
});

t('bad input: over 2,000 rows, page_size with limit, dry_run, page and format are 400s naming the parameter; nothing charged', async () => {
  const before = await h.running.services.credits.balance(org);
  assertError(await get('/v1/companies/export.csv?states=TX&page_size=2001'), 400, 'VALIDATION_ERROR', { field: 'page_size', issue: 'out_of_range' });
  assertError(await get('/v1/companies/export.csv?states=TX&limit=5000'), 400, 'VALIDATION_ERROR', { field: 'limit', issue: 'out_of_range' });
  assertError(await get('/v1/companies/export.csv?states=TX&limit=10&page_size=10'), 400, 'VALIDATION_ERROR', { field: 'limit', issue: 'conflicting_values' });
  assertError(await get('/v1/companies/export.csv?states=TX&dry_run=true'), 400, 'VALIDATION_ERROR', { field: 'dry_run', issue: 'invalid_value' });
  assertError(await get('/v1/companies/export.csv?states=TX&page=2'), 400, 'VALIDATION_ERROR', { field: 'page', issue: 'unknown_field' });
  assertError(await get('/v1/companies/export.csv?states=TX&format=json'), 400, 'VALIDATION_ERROR', { field: 'format', issue: 'unknown_field' });
  // Without a business filter the default (2,000 rows) needs one, as a list page above 25 does.
  assertError(await get('/v1/companies/export.csv'), 400, 'FILTER_REQUIRED', { field: 'page_size', issue: 'filter_required' });
  assert.is(await h.running.services.credits.balance(org), before);
});

t('limit is an alias of page_size; a small unfiltered export is allowed; a test key reads the sandbox free, at most 100 rows', async () => {
  const res = await get('/v1/brokers/export.csv?limit=5');
  assert.is(res.status, 200);
  assert.is((await parseCsv(res.body as string)).rows.length, 5);
  const before = await h.running.services.credits.balance(org);
  const sandbox = await get('/v1/companies/export.csv?limit=10', test);
  assert.is(sandbox.status, 200);
  assert.is(Number(sandbox.headers.get('x-credits-charged')), 0);
  assert.is(await h.running.services.credits.balance(org), before);
  assertError(await get('/v1/companies/export.csv?states=TX&limit=101', test), 400, 'VALIDATION_ERROR', { field: 'page_size', issue: 'out_of_range' });
});

t('cells (property): every string reads back as written, with formula starts (= + - @ tab CR) behind a quote', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.string({ unit: 'binary' }).map((s) => s.replace(/\uFEFF/g, '')), { minLength: 1, maxLength: 6 }), async (cells) => {
      const header = await parseRecord(csvLine(cells));
      fc.pre(cells.some((c) => c !== ''));
      const expected = cells.map((c) => (/^[=+\-@\t\r]/.test(c) && !/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(c) ? `'${c}` : c));
      assert.equal(header, expected);
    }),
    { numRuns: 300 },
  );
  assert.is(csvCell('=HYPERLINK("http://x")'), `"'=HYPERLINK(""http://x"")"`);
  assert.is(csvCell('@SUM(A1)'), "'@SUM(A1)");
  assert.is(csvCell('plain'), 'plain');
  assert.is(csvCell('-4.23'), '-4.23', 'a negative number stays a number');
  assert.is(csvCell('-4.23+A1'), "'-4.23+A1");
});

t('a refund gives back exactly the rows not delivered: pool, usage and daily rows', async () => {
  const { services } = h.running;
  const { org: o, key } = await withOrg(h, { milli: 10_000 });
  const day = new Date().toISOString().slice(0, 10);
  const debit = await services.credits.debit({ org: o, keyId: key.id, milli: 2500, rows: 10, dailyRows: 10, dailyCap: -1, day });
  assert.is(debit.outcome, 'charged');
  assert.is(await services.credits.refund({ org: o, keyId: key.id, milli: 1000, rows: 4, day }), 8500);
  assert.is((await services.credits.usage(o, key.id)).rows, 6);
  assert.is((await services.credits.usage(o, key.id)).credits_milli, 1500);
  assert.is(await services.credits.dailyRows(o, key.id, day), 6);
});

t.run();
