/**
 * `bintel import form5500` end to end against real Elasticsearch, checked through the API: a
 * two-year fixture in the DOL layouts (2022 as extracted CSVs, 2023 as the DOL's zips, generated)
 * plus hand-written 2023 rows for each quirk of real files (an amended filing, a Windows-1252
 * name, broker name and address variants, a PO box, a line with no address, a damaged row).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../core/config.ts';
import { createEs } from '../../core/adapters/es.ts';
import { aliasName } from '../../core/names.ts';
import type { EntityName } from '../../mappings/types.ts';
import { layoutOf, type Dataset } from '../../ingest/form5500/datasets.ts';
import { generateForm5500 } from '../../ingest/form5500/generate/index.ts';
import { importForm5500, type ImportSummary } from '../../ingest/form5500/import.ts';
import { startHarness, withOrg, type Harness } from '../server/harness.ts';

const t = suite('import form5500');
const runNs = loadConfig().namespace;
let h: Harness;
let secret = '';
let dir = '';
let first: ImportSummary;

const EIN = '990000001';
const ORIGINAL = '20240501120000P040099000001001';
const AMENDED = '20240901120000P040099000001002';

/** A file of hand-written rows in a year's exact layout; `raw` lines are appended as they are (latin1 bytes). */
async function quirkFile(dataset: Dataset, rows: Record<string, string>[], raw: string[] = [], cp1252 = false): Promise<void> {
  const cols = layoutOf(dataset, 2023);
  const cell = (s: string) => (/[",]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = [cols.join(','), ...rows.map((r) => cols.map((c) => cell(r[c] ?? '')).join(',')), ...raw];
  await writeFile(join(dir, 'quirks', `${dataset}_2023_quirks.csv`), Buffer.from(`${lines.join('\r\n')}\r\n`, cp1252 ? 'latin1' : 'utf8'));
}

const filing = (ack: string, ein: string, name: string, active: string, received: string, extra: Record<string, string> = {}) => ({
  ACK_ID: ack, FORM_PLAN_YEAR_BEGIN_DATE: '2023-01-01', FORM_TAX_PRD: '2023-12-31', TYPE_PLAN_ENTITY_CD: '2', PLAN_NAME: `${name} WELFARE PLAN`,
  SPONS_DFE_PN: '501', SPONSOR_DFE_NAME: name, SPONS_DFE_MAIL_US_ADDRESS1: '1 ELM ST', SPONS_DFE_MAIL_US_CITY: 'DALLAS', SPONS_DFE_MAIL_US_STATE: 'TX',
  SPONS_DFE_MAIL_US_ZIP: '75201', SPONS_DFE_EIN: ein, SPONS_DFE_PHONE_NUM: '2145550100', BUSINESS_CODE: '722511', TYPE_WELFARE_BNFT_CODE: '4A4D',
  FUNDING_INSURANCE_IND: '1', TOT_PARTCP_BOY_CNT: active, TOT_ACTIVE_PARTCP_CNT: active, DATE_RECEIVED: received, ADMIN_SIGNED_NAME: 'SMITH, JOHN Q',
  ADMIN_SIGNED_DATE: '2024-04-30T10:15:32-0500', SPONS_SIGNED_NAME: 'MS. JANE DOE', ADMIN_NAME_SAME_SPON_IND: '1', ...extra,
});
const contract = (ack: string, carrier: string, premium: string) => ({
  ACK_ID: ack, FORM_ID: '1', SCH_A_EIN: EIN, INS_CARRIER_NAME: carrier, INS_PRSN_COVERED_EOY_CNT: '150', INS_POLICY_FROM_DATE: '2023-03-01',
  INS_POLICY_TO_DATE: '2024-02-29', INS_BROKER_COMM_TOT_AMT: '10000', WLFR_BNFT_HEALTH_IND: '1', WLFR_TOT_EARNED_PREM_AMT: premium,
});
let rowOrder = 0;
const line = (ack: string, name: string, a1: string, a2: string, city: string, zip: string, paid: string) => ({
  ACK_ID: ack, FORM_ID: '1', ROW_ORDER: String(++rowOrder), INS_BROKER_NAME: name, INS_BROKER_US_ADDRESS1: a1, INS_BROKER_US_ADDRESS2: a2,
  INS_BROKER_US_CITY: city, INS_BROKER_US_STATE: city ? 'TX' : '', INS_BROKER_US_ZIP: zip, INS_BROKER_COMM_PD_AMT: paid, INS_BROKER_CODE: '3',
});

async function writeFixture(): Promise<void> {
  dir = await mkdtemp(join(tmpdir(), 'f5500-e2e-'));
  await generateForm5500({ out: join(dir, '2022'), years: [2022], scale: 0.0004, seed: 5 });
  await generateForm5500({ out: join(dir, '2023'), years: [2023], scale: 0.0004, seed: 5, zip: true });
  await mkdir(join(dir, 'quirks'));
  const other = '20240601120000P040099000002001';
  await quirkFile(
    'F_5500',
    [
      filing(ORIGINAL, EIN, 'ZÉPHYR CAFÉ HOLDINGS', '100', '2024-05-01'),
      filing(AMENDED, EIN, 'ZÉPHYR CAFÉ HOLDINGS', '120', '2024-09-01', { AMENDED_IND: '1' }),
      filing(other, '990000002', 'PLAIN TOOLS LLC', '40', '2024-06-01'),
    ],
    ['20240601120000P040099000003001,"2023-01-01,"broken'],
    true,
  );
  await quirkFile('F_SCH_A', [contract(ORIGINAL, 'OLD CARRIER INC', '1000'), contract(AMENDED, 'AETNA LIFE INSURANCE COMPANY', '500000'), { ...contract(other, 'CIGNA', '9000'), SCH_A_EIN: '990000002' }]);
  await quirkFile('F_SCH_A_PART1', [
    line(ORIGINAL, 'OLD BROKER INC', '9 OLD RD', '', 'DALLAS', '75201', '99999'),
    line(AMENDED, '1ST GLOBAL CAPITAL CORP', '100 MAIN STREET', 'SUITE 1200', 'DALLAS', '75201-1234', '9000'),
    line(AMENDED, '1ST GLOBAL CAPITAL', '100 MAIN ST STE 1200', '', 'DALLAS', '75201', '1000'),
    line(AMENDED, '1st Global Capital, Corp.', 'P.O. BOX 55', '', 'DALLAS', '75201', '10'),
    line(AMENDED, '1ST GLOBAL CAPITAL', '', '', '', '', '5'),
    line(other, '1ST GLOBAL CAPITAL CORP', '100 Main St.', '#1200', 'Dallas', '752010000', '700'),
    line(other, '1ST GLOBAL CAPITAL CORP', '100 MAIN ST', 'STE 1300', 'DALLAS', '75201', '300'),
  ]);
}

const load = (inputs: string[]) => importForm5500(h.config, inputs, { progress: null, log: null, errors: join(dir, 'report'), today: '2024-01-15' });
const api = async (path: string) => {
  const res = await h.call('GET', path, { secret });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

t.before(async () => {
  h = await startHarness({ BINTEL_NAMESPACE: `${runNs}-f5500` });
  ({ secret } = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000_000 }));
  await writeFixture();
  first = await load([join(dir, '2022'), join(dir, '2023'), join(dir, 'quirks')]);
});
t.after(async () => {
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

t('every resource is loaded and counted through the API; the damaged row is reported with file and line', async () => {
  for (const l of first.loads) {
    assert.is(l.rejected, 0, `${l.entity}: ${l.report}`);
    assert.ok(l.indexed > 0, l.entity);
    const extra = l.entity === 'personnel' ? '&lead_type=company' : '';
    const body = await api(`/v1/${l.entity}?count_only=true${extra}`);
    assert.is(body.meta?.total_count ?? body.total_count, l.indexed, l.entity);
  }
  assert.is(first.counts.dfe > 0, true, 'DFE filings counted and skipped');
  const report = await readFile(first.damagedReport as string, 'utf8');
  assert.match(report, /F_5500_2023_quirks\.csv,5,/);
});

t('a sponsor by EIN and by a typo: the amended filing replaced the original, Windows-1252 name, carriers and broker', async () => {
  const byEin = await api(`/v1/companies?cf[ein]=${EIN}&mode=full`);
  assert.is(byEin.data.length, 1);
  const c = byEin.data[0];
  assert.is(c.company_name, 'ZÉPHYR CAFÉ HOLDINGS');
  assert.is(c.participants, 120, 'the amended filing wins');
  assert.equal(c.carriers, ['AETNA LIFE INSURANCE COMPANY']);
  assert.is(c.primary_broker, '1ST GLOBAL CAPITAL CORP');
  assert.is(c.renewal_month, 'March');
  assert.is(c.funding_status, 'Fully Insured');
  assert.is(c.company_industry, 'Restaurants and Other Eating Places');
  assert.is(c.lead_source.source, `form5500:F_5500:2023:${AMENDED}`);
  assert.ok(c.signals.includes('renewal_window'), JSON.stringify(c.signals));
  const byTypo = await api('/v1/companies?search=Zephyr%20Cafe%20Holdngs&page_size=3');
  assert.is(byTypo.data[0].id, c.id);
  const contacts = await api(`/v1/personnel?lead_type=company&company_eins=${EIN}&mode=full`);
  assert.equal(contacts.data.map((p: any) => [p.full_name, p.form5500_role]).sort(), [['Jane Doe', 'Sponsor'], ['John Q Smith', 'Plan Administrator']]);
  assert.is(contacts.data[0].email_address, null, 'no invented emails');
});

t('a broker firm with its offices: name and address variants (suites, a PO box in the same city, a line with no address) resolve to one firm and one office', async () => {
  const firms = await api('/v1/brokers?search=1st%20Global%20Capital&mode=full');
  assert.is(firms.data.length, 1, JSON.stringify(firms.data.map((f: any) => f.broker_name)));
  const firm = firms.data[0];
  assert.is(firm.broker_name, '1ST GLOBAL CAPITAL CORP');
  assert.is(firm.total_offices, 1);
  assert.is(firm.total_clients, 2);
  assert.is(firm.total_commissions, 9000 + 1000 + 10 + 5 + 700 + 300);
  const offices = await api(`/v1/broker-offices?broker_ids=${firm.id}&mode=full&sort_by=office_name`);
  assert.is(offices.data.length, 1);
  assert.is(offices.data[0].client_count, 2);
  assert.is(offices.data[0].total_commissions, 9000 + 1000 + 10 + 700 + 300, 'the line with no address counts for the firm only');
});

t('a later year imported alone keeps every id (ids derive from EINs and normalized names, never from row order)', async () => {
  const es = createEs(h.config);
  const ids = async (r: EntityName) => new Set((await es.search({ index: aliasName(h.config.namespace, r), size: 5000, _source: false })).hits.hits.map((x) => x._id as string));
  try {
    const resources: EntityName[] = ['companies', 'brokers', 'broker-offices', 'personnel'];
    const before = new Map<string, Set<string>>();
    for (const r of resources) before.set(r, await ids(r));
    await load([join(dir, '2023'), join(dir, 'quirks')]);
    for (const r of resources) {
      const after = await ids(r);
      assert.ok(after.size > 0, r);
      const lost = [...after].filter((id) => !before.get(r)?.has(id));
      assert.equal(lost, [], `${r}: every id of the 2023-only import was an id of the two-year import`);
    }
  } finally {
    await es.close();
  }
});

t.run();
