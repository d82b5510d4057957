/**
 * CSV export on generated data: the file parsed back (fast-csv) holds exactly the list's rows for
 * the same filters and sort (ids, order, values), the charge is rows × price and the balance moves
 * by exactly that, the 2,000-row limit and dry_run are 400s naming the parameter, cells that a
 * spreadsheet would run as formulas are escaped, and a refund gives back exactly what it says.
 * A client pays only for rows written to its connection: gone before the first byte, nothing;
 * gone mid-file, at most the rows the socket took (and at least those it received); a full
 * download moves the pool by exactly what the export said it charged.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { parseString } from 'fast-csv';
import { entity } from '../../mappings/index.ts';
import { rowPrice } from '../../server/pricing.ts';
import { csvCell, csvLine } from '../../server/read/export.ts';
import { personOf } from '../../server/services/person.ts';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness, type LogLine } from './harness.ts';

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

/** Lines the server logged, and the tests waiting for one. */
const logLines: LogLine[] = [];
const waiting = new Set<{ match: (l: LogLine) => boolean; resolve: (l: LogLine) => void }>();
function onLog(line: LogLine): void {
  logLines.push(line);
  for (const w of waiting) if (w.match(line)) (waiting.delete(w), w.resolve(line));
}
/** The first line the server logs (or logged) that matches: how a test knows the server finished a request. */
function logged(match: (l: LogLine) => boolean): Promise<LogLine> {
  const seen = logLines.find(match);
  return seen ? Promise.resolve(seen) : new Promise((resolve) => waiting.add({ match, resolve }));
}
/** The server's access log line of a request: written once the request is handled to the end. */
const handled = (requestId: string) => logged((l) => l.msg === 'request' && l.requestId === requestId);

t.before(async () => {
  h = await startHarness({ BINTEL_CRAWL_THRESHOLD: '1000', BINTEL_CACHE_TTL_S: '0' }, { onLog });
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

t('bad input: over 2,000 rows, page_size with limit, dry_run and cursor are 400s naming the parameter; nothing charged', async () => {
  const before = await h.running.services.credits.balance(org);
  assertError(await get('/v1/companies/export.csv?states=TX&page_size=2001'), 400, 'VALIDATION_ERROR', { field: 'page_size', issue: 'out_of_range' });
  assertError(await get('/v1/companies/export.csv?states=TX&limit=5000'), 400, 'VALIDATION_ERROR', { field: 'limit', issue: 'out_of_range' });
  assertError(await get('/v1/companies/export.csv?states=TX&limit=10&page_size=10'), 400, 'VALIDATION_ERROR', { field: 'limit', issue: 'conflicting_values' });
  assertError(await get('/v1/companies/export.csv?states=TX&dry_run=true'), 400, 'VALIDATION_ERROR', { field: 'dry_run', issue: 'invalid_value' });
  assertError(await get('/v1/companies/export.csv?states=TX&cursor=abc'), 400, 'VALIDATION_ERROR', { field: 'cursor', issue: 'unknown_field' });
  // Without a business filter the default (2,000 rows) needs one, as a list page above 25 does.
  assertError(await get('/v1/companies/export.csv'), 400, 'FILTER_REQUIRED', { field: 'page_size', issue: 'filter_required' });
  assert.is(await h.running.services.credits.balance(org), before);
});

/** The ids of an export's file. */
const idsOf = async (res: { status: number; body: unknown }): Promise<string[]> => {
  assert.is(res.status, 200, String(res.body).slice(0, 300));
  return (await parseCsv(res.body as string)).rows.map((r) => r.id);
};

t('page: page N of an export holds rows N × size + 1 to (N + 1) × size of the list, in the same order; pages never overlap; charged for its rows', async () => {
  const query = 'eb[ein]=true&sort_by=total_number_of_employees&sort_dir=desc';
  const first = await get(`/v1/companies/export.csv?${query}&limit=2000`);
  const second = await get(`/v1/companies/export.csv?${query}&limit=2000&page=1`);
  const total = Number(second.headers.get('x-total-count'));
  assert.ok(total > 2000 && total < 4000, `${total} rows match`);
  const [a, b] = [await idsOf(first), await idsOf(second)];
  assert.is(a.length, 2000);
  assert.is(b.length, total - 2000, 'page 1 holds rows 2,001 to the last');
  assert.is(second.headers.get('x-export-rows'), String(b.length));
  assert.is(new Set([...a, ...b]).size, total, 'the two pages never overlap and leave nothing out');
  // The list's pages of 500 from row 2,000 are the same rows in the same order.
  const list = [...(await get(`/v1/companies?${query}&format=flat&page_size=500&page=4`)).body.data, ...(await get(`/v1/companies?${query}&format=flat&page_size=500&page=5`)).body.data].map((r: Row) => r.id);
  assert.equal(b, list);
  const price = rowPrice(entity('companies'), 'basic').base;
  assert.is(Number(second.headers.get('x-credits-charged')), (b.length * price) / 1000);
  // Smaller pages alike: page 3 of 300 is rows 901-1,200 of page 0 of 2,000.
  assert.equal(await idsOf(await get(`/v1/companies/export.csv?${query}&page_size=300&page=3`)), a.slice(900, 1200));
  // Past the last row: an empty file (its header), nothing charged.
  const past = await get(`/v1/companies/export.csv?${query}&limit=2000&page=2`);
  assert.is((await idsOf(past)).length, 0);
  assert.is(Number(past.headers.get('x-credits-charged')), 0);
});

t('page: bounded as list pages (relevance order inside BINTEL_PAGE_WINDOW, a walk below 10,000 rows); 400 naming page, nothing charged', async () => {
  const before = await h.running.services.credits.balance(org);
  assertError(await get('/v1/companies/export.csv?search=health&limit=2000&page=5'), 400, 'VALIDATION_ERROR', { field: 'page', issue: 'out_of_range' });
  assertError(await get('/v1/companies/export.csv?eb[ein]=true&sort_by=company_name&limit=2000&page=5'), 400, 'VALIDATION_ERROR', { field: 'page', issue: 'out_of_range' });
  assertError(await get('/v1/companies/export.csv?eb[ein]=true&limit=10&page=-1'), 400, 'VALIDATION_ERROR', { field: 'page' });
  assert.is(await h.running.services.credits.balance(org), before);
});

t('page: export pages are steps of crawl detection, shared with the list pages of the same filters', async () => {
  const low = await startHarness({ BINTEL_CRAWL_THRESHOLD: '3', BINTEL_CACHE_TTL_S: '0' });
  try {
    const { secret } = await withOrg(low, { milli: 10_000_000 });
    const path = (page: number) => `/v1/companies/export.csv?states=TX&sort_by=company_name&limit=10&page=${page}`;
    for (const page of [2, 0]) assert.is((await low.call('GET', path(page), { secret })).status, 200);
    assert.is((await low.call('GET', '/v1/companies?states=TX&sort_by=company_name&page_size=10&page=1', { secret })).status, 200);
    assert.is((await low.call('GET', path(0), { secret })).status, 200, 'a page already served is served again');
    const refused = await low.call('GET', path(3), { secret });
    assertError(refused, 429, 'CRAWL_DETECTED', { field: 'page', issue: 'sequential_page_walking' });
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
  } finally {
    await low.close();
  }
});

t('format and the count parameters: format=flat changes nothing, json is 400 not_supported; count_only and include_count are 400 not_supported saying why', async () => {
  const plain = await get('/v1/brokers/export.csv?limit=5');
  const flat = await get('/v1/brokers/export.csv?limit=5&format=flat');
  assert.equal(await idsOf(flat), await idsOf(plain));
  assert.equal((await parseCsv(flat.body as string)).header, (await parseCsv(plain.body as string)).header);
  const before = await h.running.services.credits.balance(org);
  assertError(await get('/v1/brokers/export.csv?limit=5&format=json'), 400, 'VALIDATION_ERROR', { field: 'format', issue: 'not_supported' });
  assertError(await get('/v1/brokers/export.csv?limit=5&format=xml'), 400, 'VALIDATION_ERROR', { field: 'format', issue: 'invalid_value' });
  for (const q of ['count_only=true', 'include_count=true', 'include_count=false', 'count_only=false']) {
    const res = await get(`/v1/brokers/export.csv?limit=5&${q}`);
    const name = q.split('=')[0];
    assertError(res, 400, 'VALIDATION_ERROR', { field: name, issue: 'not_supported' });
    const detail = (res.body as { error: { details: { field: string; expected: string }[] } }).error.details.find((d) => d.field === name);
    assert.match(String(detail?.expected), /no meta/);
  }
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
  const debit = await services.credits.debit({ org: o, keyId: key.id, person: personOf(key), milli: 2500, rows: 10, dailyRows: 10, dailyCap: -1, day });
  assert.is(debit.outcome, 'charged');
  assert.is(await services.credits.refund({ org: o, keyId: key.id, person: personOf(key), milli: 1000, rows: 4, day }), 8500);
  assert.is((await services.credits.usage(o, key.id)).rows, 6);
  assert.is((await services.credits.usage(o, key.id)).credits_milli, 1500);
  assert.is(await services.credits.dailyRows(o, personOf(key), day), 6);
});

/** A 2,000-row export of advanced companies (about a megabyte: more than the sockets buffer between client and server). */
const BIG = '/v1/companies/export.csv?eb[ein]=true&mode=full&sort_by=company_name&limit=2000';
const ADVANCED_COMPANY = rowPrice(entity('companies'), 'advanced').base;
const today = () => new Date().toISOString().slice(0, 10);
const newRequestId = () => `req_export_${randomUUID().replace(/-/g, '')}`;

/** Whose daily rows every key here takes: withOrg's default user, u1 (daily rows are kept per user). */
const U1 = personOf({ id: '', user: 'u1', parent_id: null });

/** What an organization and one key of it have paid: pool, key usage, spend of the day and its user's daily rows. */
async function account(o: string, keyId: string) {
  const { credits } = h.running.services;
  const usage = await credits.usage(o, keyId);
  return { balance: await credits.balance(o), credits_milli: usage.credits_milli, rows: usage.rows, spent_today: await credits.spentOn(o, keyId, today()), daily_rows: await credits.dailyRows(o, U1, today()) };
}

/** A child key of the organization (advanced, read:companies) with a total budget in credits. */
async function childKey(rootSecret: string, total: number): Promise<{ id: string; secret: string }> {
  const res = await h.call('POST', '/v1/api-keys', { secret: rootSecret, body: { scopes: ['read:companies'], field_tier: 'advanced', budget: { total } } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return { id: res.body.data.id, secret: res.body.data.secret };
}

/** Sends a GET on a raw connection and destroys it as soon as the request is on the wire: the server answers nobody. */
async function requestAndLeave(path: string, secret: string, requestId: string): Promise<void> {
  const url = new URL(h.url);
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  const head = `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${secret}\r\nX-Request-Id: ${requestId}\r\n\r\n`;
  await new Promise<void>((resolve, reject) => socket.write(head, (err) => (err ? reject(err) : resolve())));
  socket.destroy();
}

/** A GET whose client reads at least `bytes` of the body, then destroys the connection (or reads to the end if the body is shorter). */
function readAndLeave(path: string, secret: string, requestId: string, bytes: number): Promise<{ status: number; headers: Record<string, unknown>; text: string; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(h.url + path, { agent: false, headers: { authorization: `Bearer ${secret}`, 'x-request-id': requestId } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (complete: boolean) => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), complete });
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= bytes) (req.destroy(), done(false));
      });
      res.on('end', () => done(true));
    });
    // After destroy() the request errors; that is the point of it.
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end();
  });
}

/** Complete CSV records at the start of a file's text (a line end inside quotes is cell content). */
function completeRecords(text: string): number {
  let quoted = false;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') quoted = !quoted;
    else if (!quoted && text[i] === '\n' && text[i - 1] === '\r') n++;
  }
  return n;
}

t('a client gone before the first byte pays nothing: pool, key usage, budget spend and daily rows unchanged', async () => {
  const { org: o, secret } = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 });
  const child = await childKey(secret, 10_000);
  const before = await account(o, child.id);
  const requestId = newRequestId();
  const done = handled(requestId);
  await requestAndLeave(BIG, child.secret, requestId);
  await done;
  assert.equal(await account(o, child.id), before);
  // The same export read to the end is charged in full: the one above was paid for by nobody only because nobody got it.
  const full = await h.call('GET', BIG, { secret: child.secret });
  assert.is(full.status, 200);
  assert.is(full.headers.get('x-export-rows'), '2000');
  assert.is((await account(o, child.id)).rows - before.rows, 2000);
});

/**
 * One export read in part: the client reads at least 4 KB and destroys the connection. Checks,
 * once the server has handled the request, received ≤ charged ≤ written to the socket, and that
 * pool, key usage, the key's spend of the day (its budget) and its daily rows all moved by the
 * charge. Returns the rows the server wrote and the file's rows.
 */
async function partRead(o: string, child: { id: string; secret: string }): Promise<{ written: number; total: number }> {
  const before = await account(o, child.id);
  const requestId = newRequestId();
  const done = handled(requestId);
  const got = await readAndLeave(BIG, child.secret, requestId, 4096);
  assert.is(got.status, 200);
  assert.not.ok(got.complete, 'the client went before the end of the file');
  const total = Number(got.headers['x-export-rows']);
  assert.is(total, 2000);
  await done;
  const after = await account(o, child.id);
  const charged = after.rows - before.rows;
  const received = Math.max(0, completeRecords(got.text) - 1);
  assert.ok(received <= charged, `received ${received} rows, charged for ${charged}`);
  assert.is(before.balance - after.balance, charged * ADVANCED_COMPANY);
  assert.is(after.credits_milli - before.credits_milli, charged * ADVANCED_COMPANY);
  assert.is(after.spent_today - before.spent_today, charged * ADVANCED_COMPANY);
  assert.is(after.daily_rows - before.daily_rows, charged);
  // The server's own account of the export, logged before the request's access line.
  const ended = logLines.find((l) => l.msg === 'export ended' && l.requestId === requestId);
  assert.ok(ended, `no 'export ended' line for ${requestId}: charged for ${charged} of ${total} rows, the client read ${received}`);
  const written = Number(ended.rows_written);
  assert.ok(charged <= written, `charged for ${charged} rows, ${written} written to the socket`);
  assert.is(ended.client_gone, true);
  return { written, total };
}

t('a client gone mid-file pays for at most the rows written to its socket, and at least the rows it received', async () => {
  const { org: o, secret } = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 });
  const child = await childKey(secret, 20_000);
  // The sockets between client and server may hold the whole file (a loopback's buffers grow to
  // megabytes), so whether the server finished writing before it saw the client go is a race:
  // every attempt must hold the bounds, and at least one must have gone mid-file.
  const runs: { written: number; total: number }[] = [];
  for (let i = 0; i < 5; i++) runs.push(await partRead(o, child));
  assert.ok(runs.some((r) => r.written < r.total), `no attempt went mid-file: ${JSON.stringify(runs)}`);
});

t('full downloads (property): the pool moves by exactly X-Credits-Charged, which is rows in the file × price; usage says the same', async () => {
  const { org: o, secret, key } = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 });
  const queries = ['/v1/companies/export.csv?eb[ein]=true&mode=full', '/v1/companies/export.csv?states=TX,CA,NY&sort_by=company_name', '/v1/personnel/export.csv?lead_type=company&states=TX,CA,NY,FL,OH,PA,IL&mode=full'];
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...queries), fc.integer({ min: 1, max: 2000 }), async (query, limit) => {
      const before = await account(o, key.id);
      const res = await get(`${query}&limit=${limit}`, secret);
      assert.is(res.status, 200, String(res.body).slice(0, 300));
      const rows = (await parseCsv(res.body as string)).rows.length;
      const after = await account(o, key.id);
      const milli = Math.round(Number(res.headers.get('x-credits-charged')) * 1000);
      assert.is(Number(res.headers.get('x-export-rows')), rows);
      assert.is(before.balance - after.balance, milli);
      assert.is(after.credits_milli - before.credits_milli, milli);
      assert.is(after.rows - before.rows, rows);
      assert.ok(rows === 0 || milli > 0);
    }),
    { numRuns: 8 },
  );
});

t('the balance and budget are still checked before the first byte: 402 as the JSON envelope, nothing charged', async () => {
  const { org: o, secret, key } = await withOrg(h, { field_tier: 'advanced', milli: 1_000 });
  assertError(await get(BIG, secret), 402, 'INSUFFICIENT_CREDITS', { field: 'credits', issue: 'insufficient_credits' });
  assert.is(await h.running.services.credits.balance(o), 1_000);
  await h.running.services.credits.grant(o, 100_000_000);
  const child = await childKey(secret, 5);
  assertError(await get(BIG, child.secret), 402, 'INSUFFICIENT_CREDITS', { field: 'credits', issue: 'key_budget_exhausted' });
  assert.equal((await account(o, child.id)).rows, 0);
  assert.is((await account(o, key.id)).balance, 100_001_000);
});

t.run();
