// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * The Form 5500 generator's `variety: 'real'` mode (pure): a small two-year data set holds each
 * feature of real filings at least once (pension Schedule A with broker-dealers, line-10a-only
 * premiums, NAIC codes, funding and benefit boxes, TPA administrators and titled signers, agents,
 * placeholders, chargebacks, 35-character names, address variants, late, amended and final
 * filings, a partial newest year, multiemployer, multiple-employer and DFE filings, DBA and care-of
 * names, NAICS 2022 and IRS-style codes), in the year's layout with every field quoted; the same
 * seed writes the same bytes; and the default mode writes what it wrote before the mode existed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { layoutOf, type Dataset } from '../../ingest/form5500/datasets.ts';
import { findDatasetFiles, readDataset } from '../../ingest/form5500/read.ts';
import { generateForm5500 } from '../../ingest/form5500/generate/index.ts';

/** sha256 of the default output (years 2013 and 2023, scale 0.0005, seed 3: CSVs, then zips), computed before `variety` existed. */
const DEFAULT_CSV_SHA256 = 'fa46cd786d9b43c6507cf19cca178c001f97236cb265ac258f63d3cc59201d0a';
const DEFAULT_ZIP_SHA256 = '2448e2aaee5d06d0a3795f49a8958bf5ba2190ac28ac3ff0b5515a0e70062753';

type Row = Record<string, string>;
let dir = '';
const data = new Map<string, Row[]>();
const rows = (dataset: Dataset, year: number): Row[] => data.get(`${dataset}_${year}`) ?? [];
const all = (dataset: Dataset): Row[] => [...rows(dataset, 2022), ...rows(dataset, 2023)];

/** A line where every field is double-quoted (the DOL's form): its fields, or null when one is not. */
function quotedFields(line: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] !== '"') return null;
    let v = '';
    i++;
    for (;;) {
      const q = line.indexOf('"', i);
      if (q < 0) return null;
      v += line.slice(i, q);
      if (line[q + 1] === '"') {
        v += '"';
        i = q + 2;
        continue;
      }
      i = q + 1;
      break;
    }
    out.push(v);
    if (i === line.length) return out;
    if (line[i] !== ',') return null;
    i++;
  }
  return out;
}

async function hashDir(d: string): Promise<string> {
  const h = createHash('sha256');
  for (const f of (await readdir(d)).sort()) {
    h.update(f);
    h.update(await readFile(join(d, f)));
  }
  return h.digest('hex');
}

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'f5500-variety-'));
  const written = await generateForm5500({ out: join(dir, 'real'), years: [2022, 2023], scale: 0.002, seed: 3, variety: 'real' });
  for (const w of written) {
    const text = (await readFile(w.path)).toString('latin1');
    const lines = text.split('\r\n');
    assert.is(lines.pop(), '', 'CRLF after the last line');
    const header = quotedFields(lines[0]);
    assert.equal(header, [...layoutOf(w.dataset, w.year)], `${w.dataset} ${w.year}: the year's layout, quoted`);
    const parsed: Row[] = [];
    for (let i = 1; i < lines.length; i++) {
      const f = quotedFields(lines[i]);
      assert.ok(f, `${w.dataset} ${w.year} line ${i + 1}: every field quoted: ${lines[i].slice(0, 120)}`);
      assert.is(f!.length, header!.length, `${w.dataset} ${w.year} line ${i + 1}: column count`);
      parsed.push(Object.fromEntries(header!.map((c, k) => [c, f![k]])));
    }
    assert.is(parsed.length, w.rows);
    data.set(`${w.dataset}_${w.year}`, parsed);
  }
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const some = (rs: Row[], what: string, p: (r: Row) => boolean) => assert.ok(rs.some(p), what);
const num = (s: string | undefined) => (s ? Number(s) : Number.NaN);
const WELFARE = /^WLFR_/;

test('the importer reads every generated row (no damaged rows)', async () => {
  const found = await findDatasetFiles([join(dir, 'real')]);
  let n = 0;
  const damaged: unknown[] = [];
  for (const f of found.files) for await (const batch of readDataset(f, (d) => damaged.push(d))) n += batch.length;
  assert.is(damaged.length, 0);
  assert.is(n, [...data.values()].reduce((t, r) => t + r.length, 0));
});

test('pension Schedule A contracts (Part II, allocated/unallocated, no WLFR_) beside welfare contracts', () => {
  const a = all('F_SCH_A');
  const pension = a.filter((r) => r.PENSION_EOY_GEN_ACCT_AMT !== '' || r.PENSION_EOY_SEP_ACCT_AMT !== '');
  assert.ok(pension.length > 0, 'pension contracts');
  for (const r of pension) assert.ok(Object.keys(r).every((c) => !WELFARE.test(c) || r[c] === ''), `no WLFR_ column on a pension contract ${r.ACK_ID}`);
  some(pension, 'allocated contracts', (r) => r.ALLOC_CONTRACTS_GROUP_IND === '1' && r.PENSION_PREM_PAID_TOT_AMT !== '');
  some(pension, 'unallocated contracts', (r) => ['UNALLOC_CONTRACTS_DEP_ADM_IND', 'UNAL_CONTRAC_IMM_PART_GUAR_IND', 'UNAL_CONTRACTS_GUAR_INVEST_IND', 'UNALLOC_CONTRACTS_OTHER_IND'].some((c) => r[c] === '1') && r.PENSION_EOY_BAL_AMT !== '');
  some(a, 'welfare contracts', (r) => r.WLFR_BNFT_HEALTH_IND === '1');
  some(a, 'stop-loss contracts', (r) => r.WLFR_BNFT_STOP_LOSS_IND === '1');
  const byAck = new Map<string, Row[]>();
  for (const r of a.filter((r) => r.PENSION_EOY_GEN_ACCT_AMT === '')) byAck.set(r.ACK_ID, [...(byAck.get(r.ACK_ID) ?? []), r]);
  const premium = (r: Row) => Math.max(num(r.WLFR_TOT_CHARGES_PAID_AMT) || 0, num(r.WLFR_TOT_EARNED_PREM_AMT) || 0);
  assert.ok([...byAck.values()].some((cs) => cs.every((c) => c.WLFR_BNFT_HEALTH_IND !== '1')), 'a welfare Schedule A without a medical contract');
  assert.ok([...byAck.values()].some((cs) => cs.length > 1 && cs.reduce((m, c) => (premium(c) > premium(m) ? c : m)).WLFR_BNFT_HEALTH_IND !== '1'), 'medical is not always the largest contract');
});

test('premiums on line 10a only, experience-rated on 9a, acquisition costs on 10b; NAIC codes on every contract', () => {
  const a = all('F_SCH_A').filter((r) => r.PENSION_EOY_GEN_ACCT_AMT === '');
  some(a, '10a only, 9a blank', (r) => num(r.WLFR_TOT_CHARGES_PAID_AMT) > 0 && r.WLFR_TOT_EARNED_PREM_AMT === '' && r.WLFR_PREMIUM_RCVD_AMT === '');
  some(a, '10a only, 9a 0', (r) => num(r.WLFR_TOT_CHARGES_PAID_AMT) > 0 && r.WLFR_TOT_EARNED_PREM_AMT === '0' && r.WLFR_PREMIUM_RCVD_AMT === '0');
  some(a, 'experience-rated on 9a', (r) => num(r.WLFR_TOT_EARNED_PREM_AMT) > 0 && r.WLFR_TOT_CHARGES_PAID_AMT === '');
  some(a, 'line 10b', (r) => num(r.WLFR_ACQUIS_COST_AMT) >= 0 && r.WLFR_ACQUIS_COST_AMT !== '');
  const every = all('F_SCH_A');
  assert.ok(every.every((r) => /^\d{5}$/.test(r.INS_CARRIER_NAIC_CODE)), 'a NAIC code on every contract');
  const names = new Map<string, Set<string>>();
  for (const r of every) names.set(r.INS_CARRIER_NAIC_CODE, (names.get(r.INS_CARRIER_NAIC_CODE) ?? new Set()).add(r.INS_CARRIER_NAME));
  assert.ok([...names.values()].some((s) => s.size > 1), 'one NAIC code, its name spelled in variants');
  const codes = new Map<string, Set<string>>();
  for (const r of every) codes.set(r.INS_CARRIER_NAME, (codes.get(r.INS_CARRIER_NAME) ?? new Set()).add(r.INS_CARRIER_NAIC_CODE));
  assert.ok([...codes.values()].every((s) => s.size === 1), 'a carrier keeps its NAIC code');
});

test('Part I: codes 1 and 7 on pension contracts, 3 and 4 on welfare ones, a code on every line', () => {
  const p1 = all('F_SCH_A_PART1');
  assert.ok(p1.every((r) => /^\d$/.test(r.INS_BROKER_CODE)), 'INS_BROKER_CODE on every line');
  const pensionKeys = new Set(all('F_SCH_A').filter((r) => r.PENSION_EOY_GEN_ACCT_AMT !== '').map((r) => `${r.ACK_ID}/${r.FORM_ID}`));
  const onPension = p1.filter((r) => pensionKeys.has(`${r.ACK_ID}/${r.FORM_ID}`));
  const onWelfare = p1.filter((r) => !pensionKeys.has(`${r.ACK_ID}/${r.FORM_ID}`));
  for (const code of ['1', '7']) some(onPension, `code ${code} on a pension contract`, (r) => r.INS_BROKER_CODE === code);
  for (const code of ['3', '4']) some(onWelfare, `code ${code} on a welfare contract`, (r) => r.INS_BROKER_CODE === code);
  assert.ok(onPension.every((r) => ['1', '7'].includes(r.INS_BROKER_CODE)) && onWelfare.every((r) => ['3', '4'].includes(r.INS_BROKER_CODE)));
});

test('Part I names and addresses as filers write them', () => {
  const p1 = all('F_SCH_A_PART1');
  some(p1, 'an individual agent', (r) => /^[A-Z'.]+, [A-Z]+$/.test(r.INS_BROKER_NAME) || /^[A-Z]+ [A-Z] [A-Z]+$/.test(r.INS_BROKER_NAME));
  some(p1, 'a placeholder', (r) => ['NONE', 'N/A', 'NOT APPLICABLE', 'NA'].includes(r.INS_BROKER_NAME));
  some(p1, 'a chargeback', (r) => num(r.INS_BROKER_COMM_PD_AMT) < 0);
  some(p1, 'a name cut at 35 characters', (r) => r.INS_BROKER_NAME.length === 35);
  assert.ok(p1.every((r) => r.INS_BROKER_NAME.length <= 35));
  some(p1, 'a state tag', (r) => /(US LLC|\((NY|CA|MA)\)?$)/.test(r.INS_BROKER_NAME));
  some(p1, 'a lockbox', (r) => /LOCKBOX/.test(r.INS_BROKER_US_ADDRESS1));
  some(p1, 'a PO box', (r) => /^P\.? ?O\.? BOX/.test(r.INS_BROKER_US_ADDRESS1));
  some(p1, 'a suite', (r) => /SUITE|STE|#/.test(r.INS_BROKER_US_ADDRESS1 + r.INS_BROKER_US_ADDRESS2));
  some(p1, 'a floor', (r) => /\bFL\b|FLOOR/.test(r.INS_BROKER_US_ADDRESS2));
  some(p1, 'a C/O line', (r) => r.INS_BROKER_US_ADDRESS1.startsWith('C/O '));
  // Variants of one office: one firm office (name stem, city, ZIP) written as a lockbox and as its street.
  const streets = new Map<string, Set<string>>();
  for (const r of p1) if (r.INS_BROKER_US_ZIP) streets.set(`${r.INS_BROKER_NAME.split(' ')[0]}|${r.INS_BROKER_US_CITY}|${r.INS_BROKER_US_ZIP.slice(0, 5)}`, (streets.get(`${r.INS_BROKER_NAME.split(' ')[0]}|${r.INS_BROKER_US_CITY}|${r.INS_BROKER_US_ZIP.slice(0, 5)}`) ?? new Set()).add(r.INS_BROKER_US_ADDRESS1));
  assert.ok([...streets.values()].some((s) => s.size > 2), 'one office in several address variants');
});

test('filings: funding and benefit boxes, administrators, signers, entities, DFEs, addresses, business codes, counts', () => {
  const f = all('F_5500');
  const plans = f.filter((r) => r.TYPE_PLAN_ENTITY_CD !== '4');
  some(plans, 'insured plans ticking insurance and general assets', (r) => r.FUNDING_INSURANCE_IND === '1' && r.FUNDING_GEN_ASSET_IND === '1' && r.BENEFIT_INSURANCE_IND === '1' && r.BENEFIT_GEN_ASSET_IND === '1');
  some(plans, 'trust funding', (r) => r.FUNDING_TRUST_IND === '1' && r.BENEFIT_TRUST_IND === '1');
  const stopLoss = new Set(all('F_SCH_A').filter((r) => r.WLFR_BNFT_STOP_LOSS_IND === '1').map((r) => r.ACK_ID));
  some(plans, 'self-funded with stop-loss', (r) => r.FUNDING_GEN_ASSET_IND === '1' && r.FUNDING_INSURANCE_IND === '' && stopLoss.has(r.ACK_ID));
  some(plans, 'pension plans', (r) => r.TYPE_PENSION_BNFT_CODE !== '' && r.TYPE_WELFARE_BNFT_CODE === '');
  some(plans, 'an organisation as administrator', (r) => /\b(INC|LLC|TRUSTEES|COMMITTEE|SOLUTIONS|BENEFITS|ADMINISTRATORS)\b/.test(r.ADMIN_NAME));
  const signers = [...plans.map((r) => r.ADMIN_SIGNED_NAME), ...plans.map((r) => r.SPONS_SIGNED_NAME), ...all('F_5500_SF').map((r) => r.SF_SPONS_SIGNED_NAME)];
  assert.ok(signers.some((s) => /^[A-Z' .-]+, [A-Z ]+$/.test(s)), 'a titled signer');
  assert.ok(signers.some((s) => s.startsWith('/S/ ')), 'a /S/ signer');
  assert.ok(signers.some((s) => /\b(VAN DER|DE LA|DEL|VON|DI|DA|LE) /.test(s)), 'a particle');
  some(plans, 'a multiemployer plan', (r) => r.TYPE_PLAN_ENTITY_CD === '1');
  some(plans, 'a multiple-employer plan', (r) => r.TYPE_PLAN_ENTITY_CD === '3');
  some(f, 'a DFE with its code', (r) => r.TYPE_PLAN_ENTITY_CD === '4' && /^[MCPEG]$/.test(r.TYPE_DFE_PLAN_ENTITY_CD));
  some(plans, 'a DBA name', (r) => r.SPONS_DFE_DBA_NAME !== '');
  some(all('F_5500_SF'), 'a DBA name (SF)', (r) => r.SF_SPONSOR_DFE_DBA_NAME !== '');
  some(plans, 'a care-of mailing address', (r) => r.SPONS_DFE_CARE_OF_NAME.startsWith('C/O '));
  some(plans, 'a PO box mailing address with a street location', (r) => /BOX/.test(r.SPONS_DFE_MAIL_US_ADDRESS1) && r.SPONS_DFE_LOC_US_ADDRESS1 !== '' && r.SPONS_DFE_LOC_US_ADDRESS1 !== r.SPONS_DFE_MAIL_US_ADDRESS1);
  some(all('F_5500_SF'), 'a location address (SF)', (r) => r.SF_SPONS_LOC_US_ADDRESS1 !== '' && r.SF_SPONS_LOC_US_ADDRESS1 !== r.SF_SPONS_US_ADDRESS1);
  some(plans, 'an IRS-style code', (r) => /^\d{3}000$/.test(r.BUSINESS_CODE));
  some([...plans, ...all('F_5500_SF').map((r) => ({ BUSINESS_CODE: r.SF_BUSINESS_CODE }))], 'a NAICS 2022 code', (r) => /^(45[5-9]|51[36]|519290)/.test(r.BUSINESS_CODE));
  assert.ok(plans.every((r) => /^\d+$/.test(r.TOT_PARTCP_BOY_CNT) && /^\d+$/.test(r.TOT_ACTIVE_PARTCP_CNT)), 'TOT_PARTCP_BOY_CNT and active counts on every plan filing');
  assert.ok(all('F_5500_SF').every((r) => /^\d+$/.test(r.SF_TOT_PARTCP_BOY_CNT) && /^\d+$/.test(r.SF_TOT_ACT_PARTCP_EOY_CNT)), 'SF_TOT_PARTCP_BOY_CNT and active counts on every SF filing');
  const sizes = new Map<string, Set<string>>();
  for (const r of rows('F_5500', 2022).filter((r) => r.AMENDED_IND === '' && r.TYPE_PLAN_ENTITY_CD !== '4')) sizes.set(r.SPONS_DFE_EIN, (sizes.get(r.SPONS_DFE_EIN) ?? new Set()).add(`${r.SPONS_DFE_PN}:${r.TOT_ACTIVE_PARTCP_CNT}`));
  assert.ok([...sizes.values()].some((s) => s.size === 2 && new Set([...s].map((x) => x.split(':')[1])).size === 2), 'a sponsor with two plans of different sizes');
});

test('late, amended-after-late and final filings; a partial newest year; a 401(k) filed before its health plan', () => {
  const late = rows('F_5500', 2023).filter((r) => r.FORM_PLAN_YEAR_BEGIN_DATE < '2023');
  assert.ok(late.length > 0, 'a late filing in the 2023 file');
  assert.ok(late.some((r) => r.AMENDED_IND === '1'), 'an amendment after a late filing');
  some(rows('F_5500_SF', 2023), 'a late short-form filing', (r) => r.SF_PLAN_YEAR_BEGIN_DATE < '2023');
  some(all('F_5500'), 'a final filing with 0 participants', (r) => r.FINAL_FILING_IND === '1' && r.TOT_ACTIVE_PARTCP_CNT === '0');
  some(all('F_5500_SF'), 'a final short-form filing with 0 participants', (r) => r.SF_FINAL_FILING_IND === '1' && r.SF_TOT_ACT_PARTCP_EOY_CNT === '0');
  const onTime = (rs: Row[], y: string) => rs.filter((r) => r.FORM_PLAN_YEAR_BEGIN_DATE.startsWith(y) && r.TYPE_PLAN_ENTITY_CD !== '4').length;
  const [n22, n23] = [onTime(rows('F_5500', 2022), '2022'), onTime(rows('F_5500', 2023), '2023')];
  assert.ok(n23 < n22 * 0.8, `the newest year is partial (${n23} of ${n22})`);
  const plansOf = (rs: Row[], y: string) => {
    const m = new Map<string, Set<string>>();
    for (const r of rs) if (r.FORM_PLAN_YEAR_BEGIN_DATE.startsWith(y)) m.set(r.SPONS_DFE_EIN, (m.get(r.SPONS_DFE_EIN) ?? new Set()).add(r.TYPE_PENSION_BNFT_CODE ? 'pension' : 'welfare'));
    return m;
  };
  const [p22, p23] = [plansOf(rows('F_5500', 2022), '2022'), plansOf(rows('F_5500', 2023), '2023')];
  assert.ok([...p23].some(([ein, k]) => k.size === 1 && k.has('pension') && p22.get(ein)?.has('welfare')), 'a sponsor whose 401(k) filed the newest year before its health plan');
});

test('the same seed writes the same bytes', async () => {
  const a = join(dir, 'again');
  await generateForm5500({ out: a, years: [2022, 2023], scale: 0.002, seed: 3, variety: 'real' });
  assert.is(await hashDir(a), await hashDir(join(dir, 'real')));
});

test('the default mode writes what it wrote before the variety mode existed', async () => {
  await generateForm5500({ out: join(dir, 'csv'), years: [2013, 2023], scale: 0.0005, seed: 3 });
  await generateForm5500({ out: join(dir, 'zip'), years: [2013, 2023], scale: 0.0005, seed: 3, zip: true });
  assert.is(await hashDir(join(dir, 'csv')), DEFAULT_CSV_SHA256);
  assert.is(await hashDir(join(dir, 'zip')), DEFAULT_ZIP_SHA256);
  await generateForm5500({ out: join(dir, 'csv-explicit'), years: [2013, 2023], scale: 0.0005, seed: 3, variety: 'default' });
  assert.is(await hashDir(join(dir, 'csv-explicit')), DEFAULT_CSV_SHA256);
});

test.run();
