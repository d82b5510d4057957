/**
 * The typed client against a real server (generated data, real Elasticsearch and Redis): a list
 * with filters answers the same rows as the raw call, a detail, the CSV export read as a stream,
 * error envelopes typed by status (400, 403, 404), a 429 with Retry-After surfaced, a
 * BintelClientError when no answer of the API comes, and the README's TypeScript example run
 * as written. Pure helpers (query string, Retry-After)
 * are checked on exact values.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateClient } from '../../client/generator/generate.ts';
import { BintelClientError, createClient, queryString, retryAfterSeconds, type BintelClient, type CompaniesRow, type GetCompaniesQuery, type PersonnelRow } from '../../client/src/index.ts';
import { loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from '../server/harness.ts';

const t = suite('client');
let h: Harness;
let data: DataFiles | undefined;
let secret = '';
let bintel: BintelClient;
/** A state code, as the list's `states` filter types it. */
type State = NonNullable<GetCompaniesQuery['states']>[number];
let state = '' as State;

/** A list's rows: its data is the rows unless count_only was asked (then {total_count}). */
function listRows<T>(data: unknown): T[] {
  if (!Array.isArray(data)) throw new Error(`expected rows, got ${JSON.stringify(data)}`);
  return data as T[];
}

t.before(async () => {
  h = await startHarness({ BINTEL_CRAWL_THRESHOLD: '100000', BINTEL_RATE_LIMIT_PER_MIN: '100000' });
  data = await loadGenerated(h, { companies: 400, personnel: 400, brokerOffices: 40, brokers: 10, seed: 29 });
  ({ secret } = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 }));
  bintel = createClient({ baseUrl: h.url, token: secret });
  const first = await bintel.getCompanies({ query: { page_size: 1, eb: { state: 'true' } } });
  assert.ok(first.ok, JSON.stringify(first));
  state = (listRows<CompaniesRow>(first.data)[0].state ?? '') as State;
  assert.ok(state, 'a company with a state');
});
t.after(async () => {
  await h?.close();
  await data?.cleanup();
});

t('a list with filters: typed rows and meta, the same rows as the raw call, every row honours the filter', async () => {
  const res = await bintel.getCompanies({ query: { states: [state], cf: { total_number_of_employees: 'gte:1' }, sort_by: 'company_name', page_size: 20, fields: ['company_name', 'state', 'total_number_of_employees'] } });
  if (!res.ok) return assert.unreachable(JSON.stringify(res.error));
  assert.is(res.status, 200);
  const rows = listRows<CompaniesRow>(res.data);
  assert.ok(rows.length > 0);
  for (const row of rows) {
    assert.is(row.state, state);
    assert.ok((row.total_number_of_employees ?? 0) >= 1);
  }
  assert.type(res.meta.total_count, 'number');
  assert.ok(res.meta.credits_charged > 0);
  const raw = await h.call('GET', `/v1/companies?states=${state}&cf[total_number_of_employees]=gte:1&sort_by=company_name&page_size=20&fields=company_name,state,total_number_of_employees`, { secret });
  assert.equal(rows.map((r) => r.id), raw.body.data.map((r: CompaniesRow) => r.id));
  assert.is(res.requestId, res.headers.get('x-request-id'));
  assert.ok(res.rateLimit && res.rateLimit.limit === 100_000, 'RateLimit-* headers read');
});

t('a required query parameter and a detail by path parameter', async () => {
  const list = await bintel.getPersonnel({ query: { lead_type: 'company', page_size: 2 } });
  if (!list.ok) return assert.unreachable(JSON.stringify(list.error));
  const id = listRows<PersonnelRow>(list.data)[0].id as string;
  const one = await bintel.getPersonnelById({ path: { id }, query: { lead_type: 'company', mode: 'full' } });
  if (!one.ok) return assert.unreachable(JSON.stringify(one.error));
  assert.is(one.data.id, id);
  assert.type(one.meta.credits_charged, 'number');
});

t('the CSV export as a stream: header plus X-Export-Rows lines, the list\'s rows in order', async () => {
  const res = await bintel.getCompaniesExportCsv({ query: { states: [state], sort_by: 'company_name', limit: 15, fields: ['company_name'] } });
  if (!res.ok) return assert.unreachable(JSON.stringify(res.error));
  assert.is(res.kind, 'stream');
  assert.match(res.contentType, /^text\/csv/);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (let part = await reader.read(); !part.done; part = await reader.read()) text += decoder.decode(part.value, { stream: true });
  text += decoder.decode();
  const lines = text.replace(/^\uFEFF/, '').trim().split(/\r?\n/);
  assert.is(lines.length - 1, Number(res.headers.get('x-export-rows')));
  const list = await bintel.getCompanies({ query: { states: [state], sort_by: 'company_name', page_size: 15, fields: ['company_name'] } });
  if (!list.ok) return assert.unreachable();
  const listed = listRows<CompaniesRow>(list.data);
  assert.is(lines.length - 1, listed.length);
  assert.ok(lines[0].includes('id'), lines[0]);
  for (const [i, row] of listed.entries()) assert.ok(lines[i + 1].startsWith(`${row.id},`) || lines[i + 1].includes(row.id as string), `${lines[i + 1]} is ${row.id}`);
});

t('error envelopes typed by status: 400 naming the parameter, 404, 403 for a child key without the scope', async () => {
  const bad = await bintel.getCompanies({ query: { page_size: 0 } });
  if (bad.ok) return assert.unreachable('page_size 0 accepted');
  assert.is(bad.kind, 'error');
  if (bad.status !== 400) return assert.unreachable(`status ${bad.status}`);
  assert.is(bad.error.code, 'VALIDATION_ERROR');
  assert.ok(bad.error.details.some((d) => d.field === 'page_size'), JSON.stringify(bad.error.details));
  assert.is(bad.error.request_id, bad.requestId);
  assert.equal(bad.meta, { credits_charged: 0 });
  assert.is(bad.retryAfter, null);

  const missing = await bintel.getCompaniesById({ path: { id: 'cmp_no_such_row' } });
  assert.is(missing.status, 404);
  if (!missing.ok && missing.status === 404) assert.is(missing.error.code, 'NOT_FOUND');

  const child = await bintel.postApiKeys({ body: { scopes: ['read:companies'], name: 'client test' } });
  if (!child.ok) return assert.unreachable(JSON.stringify(child.error));
  assert.is(child.status, 201);
  const narrow = createClient({ baseUrl: h.url, token: child.data.secret });
  const denied = await narrow.getPersonnel({ query: { lead_type: 'company' } });
  if (denied.ok || denied.status !== 403) return assert.unreachable(`expected 403, got ${denied.status}`);
  assert.is(denied.error.code, 'FORBIDDEN');
});

t('429: Retry-After surfaced as seconds, the RateLimit headers read', async () => {
  const limited = await startHarness({ BINTEL_RATE_LIMIT_PER_MIN: '2' });
  try {
    const { secret: key } = await withOrg(limited, {});
    const client = createClient({ baseUrl: limited.url, token: key });
    const answers = [await client.getWhoami(), await client.getWhoami(), await client.getWhoami()];
    assert.equal(answers.map((a) => a.status), [200, 200, 429]);
    const last = answers[2];
    if (last.ok || last.status !== 429) return assert.unreachable();
    assert.is(last.error.code, 'RATE_LIMITED');
    assert.type(last.retryAfter, 'number');
    assert.ok(last.retryAfter! > 0 && last.retryAfter! <= 60, String(last.retryAfter));
    assert.is(last.retryAfter, Number(last.headers.get('retry-after')));
    assert.is(last.rateLimit?.remaining, 0);
  } finally {
    await limited.close();
  }
});

t('the committed client is the one the served document (GET /v1/openapi.json) generates', async () => {
  const doc = await createClient({ baseUrl: h.url }).getOpenapiJson();
  if (!doc.ok) return assert.unreachable();
  const committed = await readFile(new URL('../../client/src/generated.ts', import.meta.url), 'utf8');
  assert.ok(generateClient(doc.data) === committed, 'client/src/generated.ts differs from the served document: npm run client:generate');
});

t('public operations and plain JSON: health in the envelope, the document outside it', async () => {
  const anonymous = createClient({ baseUrl: `${h.url}/` });
  const health = await anonymous.getHealth();
  assert.ok(health.ok && health.kind === 'envelope' && health.data.status === 'ok');
  const doc = await anonymous.getOpenapiJson();
  assert.ok(doc.ok && doc.kind === 'json' && doc.data.openapi === '3.1.0');
});

t('no answer of the API: BintelClientError, never a result', async () => {
  const nowhere = createClient({ baseUrl: 'http://127.0.0.1:9', token: secret });
  try {
    await nowhere.getWhoami();
    assert.unreachable('resolved');
  } catch (err) {
    assert.instance(err, BintelClientError);
    assert.is((err as BintelClientError).status, null);
  }
});

t("the README's TypeScript example runs as written: rows or an error logged, the CSV file written", async () => {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const code = /The same from TypeScript[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!code) return assert.unreachable('README has the TypeScript example');
  const dir = await mkdtemp(join(tmpdir(), 'bintel-client-readme-'));
  const index = fileURLToPath(new URL('../../client/src/index.ts', import.meta.url));
  const source = code
    .replace("'./client/src/index.ts'", JSON.stringify(index))
    .replace("'http://localhost:3000'", JSON.stringify(h.url))
    .replace("'companies.csv'", JSON.stringify(join(dir, 'companies.csv')));
  for (const swapped of [index, h.url, 'companies.csv']) assert.ok(source.includes(swapped), `the example still has ${swapped}`);
  await writeFile(join(dir, 'example.mts'), source);
  const logged: unknown[][] = [];
  const log = console.log;
  process.env.KEY = secret;
  console.log = (...args: unknown[]) => void logged.push(args);
  try {
    await import(pathToFileURL(join(dir, 'example.mts')).href);
  } finally {
    console.log = log;
    delete process.env.KEY;
  }
  try {
    assert.is(logged.length, 1, JSON.stringify(logged));
    assert.ok(Array.isArray(logged[0][0]), `rows logged: ${JSON.stringify(logged[0])}`);
    const csv = await readFile(join(dir, 'companies.csv'), 'utf8');
    assert.match(csv.replace(/^\uFEFF/, ''), /^id,/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

t('query strings: comma-joined arrays, repeated ones, deepObject, skipped undefined', () => {
  assert.is(queryString({ states: ['TX', 'CA'], page: 0, dry_run: false, cf: { total_premiums: 'gte:5', x: undefined }, none: undefined }), '?states=TX%2CCA&page=0&dry_run=false&cf%5Btotal_premiums%5D=gte%3A5');
  assert.is(queryString({ ids: ['a', 'b'] }, ['ids']), '?ids=a&ids=b');
  assert.is(queryString({}), '');
});

t('Retry-After: seconds or an HTTP date, null when absent', () => {
  assert.is(retryAfterSeconds('17'), 17);
  assert.is(retryAfterSeconds(null), null);
  assert.is(retryAfterSeconds('soon'), null);
  const now = Date.parse('2026-11-26T07:00:00Z');
  assert.is(retryAfterSeconds('Thu, 26 Nov 2026 07:00:30 GMT', now), 30);
  assert.is(retryAfterSeconds('Thu, 26 Nov 2026 06:00:00 GMT', now), 0);
});

t.run();
