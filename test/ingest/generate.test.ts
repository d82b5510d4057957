// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * The data generator: determinism, CSV shape (parsed back with fast-csv), every value
 * against its field definition, referential integrity, and Form 5500-like distributions.
 * Run: node --import tsx test/ingest/generate.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFile } from 'fast-csv';
import { GENERATED_FILES, generate } from '../../ingest/generate/index.ts';
import { ENTITY_NAMES, csvFields, entity } from '../../mappings/index.ts';
import { INDUSTRIES } from '../../mappings/industries.ts';
import { CARRIERS, EMPLOYEE_BANDS, STATE_CODES } from '../../mappings/reference.ts';
import type { Doc, EntityName, FieldDef, StringFormat } from '../../mappings/types.ts';

const SAMPLE = { companies: 2000, personnel: 3000, brokerOffices: 300, brokers: 80 };
const SEED = 7;

type Table = { header: string[]; rows: string[][]; records: Record<string, string>[] };

let root = '';
const tables = {} as Record<EntityName, Table>;

function readCsv(path: string): Promise<string[][]> {
  return new Promise((resolve, reject) => {
    const rows: string[][] = [];
    parseFile<string[], string[]>(path, { headers: false })
      .on('error', reject)
      .on('data', (r: string[]) => rows.push(r))
      .on('end', () => resolve(rows));
  });
}

async function gen(name: string, seed: number, sizes: Partial<typeof SAMPLE> = {}) {
  return generate({ out: join(root, name), seed, ...SAMPLE, ...sizes });
}

test.before(async () => {
  root = await mkdtemp(join(tmpdir(), 'bintel-generate-'));
  const r = await gen('a', SEED);
  for (const name of ENTITY_NAMES) {
    const [header, ...rows] = await readCsv(r.files[name]);
    const records = rows.map((row) => Object.fromEntries(header.map((h, i) => [h, row[i]])));
    tables[name] = { header, rows, records };
  }
});

test.after(async () => {
  await rm(root, { recursive: true, force: true });
});

const col = (name: EntityName, field: string): string[] => tables[name].records.map((r) => r[field]);
const list = (v: string): string[] => (v === '' ? [] : v.split(';'));

test('the same seed writes byte-identical files; another seed different ones', async () => {
  const again = await gen('b', SEED);
  const other = await gen('c', SEED + 1);
  for (const name of ENTITY_NAMES) {
    const a = await readFile(join(root, 'a', GENERATED_FILES[name]));
    assert.ok(a.equals(await readFile(again.files[name])), `${name}: same seed, same bytes`);
    assert.not.ok(a.equals(await readFile(other.files[name])), `${name}: other seed, other bytes`);
  }
});

test('headers are the csvFields of each definition; every row has their column count', () => {
  for (const name of ENTITY_NAMES) {
    const t = tables[name];
    assert.equal(t.header, csvFields(entity(name)).map((f) => f.name), `${name} header`);
    const expected = { brokers: SAMPLE.brokers, 'broker-offices': SAMPLE.brokerOffices, companies: SAMPLE.companies, personnel: SAMPLE.personnel }[name];
    assert.is(t.rows.length, expected, `${name} row count`);
    for (const [i, row] of t.rows.entries()) assert.is(row.length, t.header.length, `${name} row ${i + 1} columns`);
  }
});

test('quoting round-trips: values with commas and quotes survive', () => {
  const withComma = tables.personnel.records.filter((r) => r.job_description.includes(','));
  assert.ok(withComma.length > 100, 'descriptions with commas');
  const industries = new Set(INDUSTRIES.map((i) => i.label));
  const commaIndustries = col('companies', 'company_industry').filter((v) => v.includes(','));
  assert.ok(commaIndustries.length > 50, 'industry labels with commas');
  for (const v of commaIndustries) assert.ok(industries.has(v), v);
});

/** Format checks of generated values (stricter than ingest: generated URLs are https). */
const FORMAT_OK: Record<StringFormat, (s: string) => boolean> = {
  usps_state: (s) => STATE_CODES.includes(s),
  ein: (s) => /^\d{9}$/.test(s),
  email: (s) => /^[a-z0-9._-]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(s),
  url: (s) => /^https:\/\/[^\s,;"]+$/.test(s),
  domain: (s) => /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(s),
  uuid_or_slug: (s) => /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/.test(s),
  iso_date: (s) => /^\d{4}-\d{2}-\d{2}T00:00:00Z$/.test(s) && !Number.isNaN(Date.parse(s)),
};

/** Problems of one CSV value against its field definition ([] when fine). */
function problems(f: FieldDef, v: string): string[] {
  const out: string[] = [];
  if (v === '') return f.source.kind === 'csv' && f.source.required ? ['required'] : [];
  if (v !== v.trim()) out.push('untrimmed');
  const values = f.type === 'keywords' ? v.split(';') : [v];
  for (const x of values) {
    if (x === '' || x !== x.trim()) out.push(`bad list item "${x}"`);
    if (f.enum && !f.enum.includes(x)) out.push(`"${x}" not in enum`);
    if (f.format && !FORMAT_OK[f.format](x)) out.push(`"${x}" not a ${f.format}`);
  }
  if (f.type === 'integer' || f.type === 'long' || f.type === 'double') {
    const re = f.type === 'double' ? /^-?\d+(\.\d{1,2})?$/ : /^-?\d+$/;
    if (!re.test(v)) out.push(`"${v}" not a ${f.type}`);
    const n = Number(v);
    if (f.min !== undefined && n < f.min) out.push(`${n} < ${f.min}`);
    if (f.max !== undefined && n > f.max) out.push(`${n} > ${f.max}`);
  }
  if (f.type === 'boolean' && v !== 'true' && v !== 'false') out.push(`"${v}" not a boolean`);
  if (f.type === 'date' && !FORMAT_OK.iso_date(v)) out.push(`"${v}" not an ISO date`);
  return out;
}

test('every value honours its definition: required, enum, format, type and bounds', () => {
  for (const name of ENTITY_NAMES) {
    const fields = csvFields(entity(name));
    const seen: string[] = [];
    for (const [i, r] of tables[name].records.entries()) {
      for (const f of fields) for (const p of problems(f, r[f.name])) if (seen.length < 10) seen.push(`${name} row ${i + 1} ${f.name}: ${p}`);
    }
    assert.equal(seen, [], seen.join('\n'));
  }
});

test('entity rules hold and vocabularies are the reference ones', () => {
  const def = entity('personnel');
  for (const r of tables.personnel.records) {
    const doc: Doc = Object.fromEntries(Object.entries(r).filter(([, v]) => v !== ''));
    for (const rule of def.rules ?? []) assert.is(rule(doc), null, JSON.stringify(r));
  }
  const industries = new Set(INDUSTRIES.map((i) => i.label));
  const carriers = new Set<string>(CARRIERS);
  const bands = new Set(EMPLOYEE_BANDS.map((b) => b[0]));
  for (const v of col('companies', 'company_industry')) if (v) assert.ok(industries.has(v), v);
  for (const v of col('broker-offices', 'industry_coverage')) for (const x of list(v)) assert.ok(industries.has(x), x);
  for (const v of col('broker-offices', 'employee_coverage')) for (const x of list(v)) assert.ok(bands.has(x), x);
  for (const v of [...col('companies', 'carriers'), ...col('broker-offices', 'carriers')]) for (const x of list(v)) assert.ok(carriers.has(x), x);
  const phone = /^\(\d{3}\) \d{3}-\d{4}$/;
  for (const name of ENTITY_NAMES) for (const v of col(name, 'phone_number')) if (v) assert.ok(phone.test(v), v);
  for (const name of ['companies', 'broker-offices'] as const) for (const v of col(name, 'zip')) if (v) assert.ok(/^\d{5}$/.test(v), v);
});

test('ids are UUID-shaped and unique; EINs and LinkedIn profiles unique', () => {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  for (const name of ENTITY_NAMES) {
    const ids = col(name, 'id');
    for (const id of ids) assert.ok(uuid.test(id), id);
    assert.is(new Set(ids).size, ids.length, `${name} ids unique`);
  }
  const eins = col('companies', 'ein').filter(Boolean);
  assert.is(new Set(eins).size, eins.length, 'EINs unique');
  const urls = col('personnel', 'person_linkedin_url').filter(Boolean);
  assert.is(new Set(urls).size, urls.length, 'LinkedIn URLs unique');
});

test('every foreign key points to a generated row; broker totals match their offices', () => {
  const brokerIds = new Set(col('brokers', 'id'));
  const officeIds = new Set(col('broker-offices', 'id'));
  const companyIds = new Set(col('companies', 'id'));
  const officesPerBroker = new Map<string, number>();
  const clientsPerBroker = new Map<string, number>();
  for (const o of tables['broker-offices'].records) {
    assert.ok(brokerIds.has(o.broker_id), `office ${o.id} -> broker ${o.broker_id}`);
    officesPerBroker.set(o.broker_id, (officesPerBroker.get(o.broker_id) ?? 0) + 1);
    clientsPerBroker.set(o.broker_id, (clientsPerBroker.get(o.broker_id) ?? 0) + Number(o.client_count || 0));
  }
  for (const b of tables.brokers.records) {
    const n = officesPerBroker.get(b.id) ?? 0;
    assert.is(Number(b.total_offices), n, `${b.broker_name} total_offices`);
    if (n) assert.is(Number(b.total_clients), clientsPerBroker.get(b.id), `${b.broker_name} total_clients`);
    if (b.brokerage_class === 'local broker') assert.ok(n <= 1, `local broker ${b.broker_name} has ${n} offices`);
  }
  const nationals = tables.brokers.records.filter((b) => b.brokerage_class === 'national player');
  const locals = tables.brokers.records.filter((b) => b.brokerage_class === 'local broker');
  const mean = (rs: Record<string, string>[]) => rs.reduce((s, r) => s + Number(r.total_offices), 0) / Math.max(1, rs.length);
  assert.ok(nationals.length > 0 && mean(nationals) > 5 * mean(locals), 'national players have many offices');
  let none = 0;
  for (const c of tables.companies.records) {
    const ids = list(c.broker_office_ids);
    if (!ids.length) none++;
    for (const id of ids) assert.ok(officeIds.has(id), `company ${c.id} -> office ${id}`);
    assert.is(new Set(ids).size, ids.length, 'offices listed once');
    assert.ok(ids.length <= 4);
    assert.is(c.primary_broker_office_id, ids[0] ?? '', 'primary office is one of broker_office_ids');
  }
  assert.ok(none > 0 && none < SAMPLE.companies * 0.25, `companies without a broker: ${none}`);
  for (const p of tables.personnel.records) {
    if (p.lead_type === 'company') assert.ok(companyIds.has(p.company_id), `contact ${p.id} -> company ${p.company_id}`);
    else assert.ok(officeIds.has(p.broker_office_id), `contact ${p.id} -> office ${p.broker_office_id}`);
  }
});

test('contacts match their employer: email domain and usually city', () => {
  const companies = new Map(tables.companies.records.map((c) => [c.id, c]));
  let sameCity = 0;
  let n = 0;
  for (const p of tables.personnel.records) {
    if (p.lead_type !== 'company') continue;
    const c = companies.get(p.company_id);
    if (!c) continue;
    n++;
    if (p.person_city === c.city && p.person_state === c.state) sameCity++;
    if (p.email_address && c.admin_email) assert.is(p.email_address.split('@')[1], c.admin_email.split('@')[1]);
  }
  assert.ok(sameCity / n > 0.75, `contacts in their employer's city: ${sameCity}/${n}`);
});

async function rejects(fn: () => Promise<unknown>, message: RegExp): Promise<void> {
  try {
    await fn();
  } catch (err) {
    assert.match(err instanceof Error ? err.message : String(err), message);
    return;
  }
  assert.unreachable(`expected a rejection matching ${message}`);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

test('distributions look like Form 5500 filers', () => {
  const cs = tables.companies.records;
  const sf = cs.filter((c) => c.form_type === '5500-SF').length / cs.length;
  assert.ok(sf >= 0.6 && sf <= 0.9, `5500-SF share ${sf}`);
  for (const c of cs) if (c.form_type === '5500-SF') assert.ok(Number(c.participants) < 121, `SF filer with ${c.participants}`);
  const participants = cs.map((c) => Number(c.participants));
  const m = median(participants);
  assert.ok(m >= 8 && m <= 30, `median participants ${m}`);
  assert.ok(Math.max(...participants) > 2000, 'a heavy right tail');
  const band = (lo: number, hi: number) => participants.filter((p) => p >= lo && p < hi).length;
  assert.ok(band(0, 11) > band(11, 51) && band(0, 11) > band(51, 201), '1-10 is the largest band');
  const selfFunded = (rs: Record<string, string>[]) => rs.filter((c) => c.funding_status === 'Self-Funded').length / Math.max(1, rs.length);
  assert.ok(selfFunded(cs.filter((c) => Number(c.participants) >= 500)) > 0.3, 'self-funding common above 500');
  assert.ok(selfFunded(cs.filter((c) => Number(c.participants) < 100)) < 0.1, 'small plans fully insured');
  const january = cs.filter((c) => c.renewal_month === 'January').length / cs.length;
  assert.ok(january > 0.35 && january < 0.55, `January renewals ${january}`);
  const withSignals = cs.filter((c) => c.signals).length / cs.length;
  assert.ok(withSignals > 0.1 && withSignals < 0.3, `companies with signals ${withSignals}`);
  const share = tables.personnel.records.filter((p) => p.lead_type === 'company').length / SAMPLE.personnel;
  assert.ok(share >= 0.7 && share <= 0.95, `company contact share ${share}`);
  const names = new Set(cs.map((c) => c.company_name));
  assert.ok(names.size > cs.length * 0.95, `distinct company names ${names.size}`);
});

test('degenerate sizes: no offices, no companies, bad options', async () => {
  const r = await gen('no-offices', 3, { brokerOffices: 0, brokers: 5, companies: 50, personnel: 80 });
  const [, ...people] = await readCsv(r.files.personnel);
  const h = csvFields(entity('personnel')).map((f) => f.name);
  assert.ok(people.every((p) => p[h.indexOf('lead_type')] === 'company'), 'only company contacts without offices');
  const [ch, ...companies] = await readCsv(r.files.companies);
  assert.ok(companies.every((c) => c[ch.indexOf('broker_office_ids')] === '' && c[ch.indexOf('primary_broker_office_id')] === ''));
  const [bh, ...brokers] = await readCsv(r.files.brokers);
  assert.ok(brokers.every((b) => b[bh.indexOf('total_offices')] === '0'));

  const r2 = await gen('no-companies', 3, { companies: 0, personnel: 40 });
  const [, ...people2] = await readCsv(r2.files.personnel);
  assert.ok(people2.every((p) => p[h.indexOf('lead_type')] === 'broker'), 'only broker contacts without companies');
  const [, ...companies2] = await readCsv(r2.files.companies);
  assert.is(companies2.length, 0);

  await rejects(() => gen('bad', 1, { companies: -1 }), /companies must be a non-negative integer/);
  await rejects(() => gen('bad', 1, { companies: 1.5 }), /companies must be a non-negative integer/);
  await rejects(() => gen('bad', 1, { brokers: 0 }), /need at least one broker/);
  await rejects(() => gen('bad', 1, { companies: 0, brokerOffices: 0 }), /personnel need/);
});

test.run();
