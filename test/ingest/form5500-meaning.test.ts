// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * What Form 5500 filings mean to a benefits analyst (issue 36, items 1, 3, 4, 5, 6, 9, 10):
 * rows written by DOL column name, as real filings hold them, read through the importer's
 * collector and builder. Each case was seen wrong on the importer before this change.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { companyOf, world } from '../helpers/form5500-world.ts';
import { csvFields, entity } from '../../mappings/index.ts';
import type { EntityName } from '../../mappings/types.ts';
import { isRejected, prepareRow } from '../../ingest/transform.ts';

const EIN = '311234567';

/** A 401(k) plan's group annuity contract (Schedule A Part II) and its broker-dealer line. */
function pensionContract(w: ReturnType<typeof world>, ack: string, formId: string) {
  w.contract(ack, {
    FORM_ID: formId, INS_CARRIER_NAME: 'LINCOLN NATIONAL LIFE INSURANCE CO', INS_CARRIER_NAIC_CODE: '65676', INS_PRSN_COVERED_EOY_CNT: '212',
    INS_POLICY_FROM_DATE: '2024-07-01', INS_POLICY_TO_DATE: '2025-06-30', INS_BROKER_COMM_TOT_AMT: '18250', ALLOC_CONTRACTS_GROUP_IND: '1',
    PENSION_EOY_GEN_ACCT_AMT: '2450000', PENSION_CONTRACT_COST_AMT: '0',
  });
  w.line(ack, {
    FORM_ID: formId, INS_BROKER_NAME: 'LPL FINANCIAL LLC', INS_BROKER_US_ADDRESS1: '4707 EXECUTIVE DR', INS_BROKER_US_CITY: 'SAN DIEGO',
    INS_BROKER_US_STATE: 'CA', INS_BROKER_US_ZIP: '92121', INS_BROKER_COMM_PD_AMT: '18250', INS_BROKER_CODE: '1',
  });
}

/** A welfare plan's medical contract (Schedule A Part III) and its agency's line. */
function medicalContract(w: ReturnType<typeof world>, ack: string, formId: string, cols: Record<string, string> = {}) {
  w.contract(ack, {
    FORM_ID: formId, INS_CARRIER_NAME: 'BLUE CROSS BLUE SHIELD OF OHIO', INS_CARRIER_NAIC_CODE: '54321', INS_PRSN_COVERED_EOY_CNT: '180',
    INS_POLICY_FROM_DATE: '2024-10-01', INS_POLICY_TO_DATE: '2025-09-30', INS_BROKER_COMM_TOT_AMT: '42000', WLFR_BNFT_HEALTH_IND: '1',
    WLFR_TOT_CHARGES_PAID_AMT: '910000', ...cols,
  });
  w.line(ack, {
    FORM_ID: formId, INS_BROKER_NAME: 'BUCKEYE BENEFITS GROUP LLC', INS_BROKER_US_ADDRESS1: '10 W BROAD ST', INS_BROKER_US_CITY: 'COLUMBUS',
    INS_BROKER_US_STATE: 'OH', INS_BROKER_US_ZIP: '43215', INS_BROKER_COMM_PD_AMT: '42000', INS_BROKER_CODE: '3', ROW_ORDER: '1',
  });
}

test('item 1: a 401(k) sponsor\'s group annuity gives no carrier, premium, renewal or benefits broker', () => {
  const w = world();
  const ack = w.filing({ SPONS_DFE_EIN: EIN, SPONS_DFE_PN: '001', TYPE_PENSION_BNFT_CODE: '2E2F2G2J2K2T', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', TOT_PARTCP_BOY_CNT: '230', TOT_ACTIVE_PARTCP_CNT: '205' });
  pensionContract(w, ack, '1');
  const out = w.build('2025-05-15');
  const co = companyOf(out, EIN);
  assert.equal(co.carriers, []);
  assert.is(co.total_premiums, null);
  assert.is(co.broker_commissions, null);
  assert.is(co.renewal_month, null);
  assert.is(co.primary_broker_office_id, null);
  assert.ok(!(co.signals as string[]).includes('renewal_window'), 'no renewal window from an annuity contract');
  const lpl = out.brokers.find((b) => b.broker_name === 'LPL FINANCIAL LLC');
  assert.ok(lpl, 'the broker-dealer is still a broker firm');
  assert.equal(lpl?.lines_of_business, ['retirement']);
  assert.equal(lpl?.broker_codes, ['bank']);
  assert.equal(out.offices[0].lines_of_business, ['retirement']);
});

test('item 1: a sponsor with a health plan and a 401(k): the health picture, and each broker with its line of business', () => {
  const w = world();
  const k = w.filing({ SPONS_DFE_EIN: EIN, SPONS_DFE_PN: '001', TYPE_PENSION_BNFT_CODE: '2J', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', TOT_PARTCP_BOY_CNT: '230' });
  pensionContract(w, k, '1');
  const h = w.filing({ SPONS_DFE_EIN: EIN, SPONS_DFE_PN: '501', TYPE_WELFARE_BNFT_CODE: '4A4D', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', TOT_PARTCP_BOY_CNT: '190' });
  medicalContract(w, h, '1');
  const out = w.build('2025-08-15');
  const co = companyOf(out, EIN);
  assert.equal(co.carriers, ['BLUE CROSS BLUE SHIELD OF OHIO']);
  assert.is(co.total_premiums, 910000);
  assert.is(co.broker_commissions, 42000);
  assert.is(co.renewal_month, 'October');
  const buckeye = out.offices.find((o) => String(o.office_name).startsWith('BUCKEYE'));
  assert.is(co.primary_broker_office_id, buckeye?.id);
  assert.equal(co.broker_office_ids, [buckeye?.id], 'the retirement broker-dealer is no benefits relationship');
  assert.equal(buckeye?.lines_of_business, ['welfare']);
  assert.equal(buckeye?.broker_codes, ['insurance agent or broker']);
});

test('item 3: the latest filing of each plan, not the newest year of the sponsor', () => {
  const w = world();
  // The 401(k) filed for plan year 2024 already; the health plan's latest filing is for 2023.
  const k = w.filing({ SPONS_DFE_EIN: EIN, SPONS_DFE_PN: '001', TYPE_PENSION_BNFT_CODE: '2J', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', TOT_PARTCP_BOY_CNT: '230' }, { year: 2024 });
  pensionContract(w, k, '1');
  const h = w.filing({ SPONS_DFE_EIN: EIN, SPONS_DFE_PN: '501', TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2023-01-01', TOT_PARTCP_BOY_CNT: '190' }, { year: 2023 });
  medicalContract(w, h, '1');
  const co = companyOf(w.build(), EIN);
  assert.equal(co.carriers, ['BLUE CROSS BLUE SHIELD OF OHIO']);
  assert.is(co.total_premiums, 910000);
  assert.is(co.filing_year, 2024);
  assert.equal(co.filing_years, ['2023', '2024']);
  assert.is(co.first_filing_year, 2023);
});

test('item 3: the plan year is the filing\'s own (FORM_PLAN_YEAR_BEGIN_DATE), not the year of the file it came in', () => {
  const w = world();
  w.filing({ SPONS_DFE_EIN: EIN, TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2021-01-01', FORM_TAX_PRD: '2021-12-31', DATE_RECEIVED: '2024-11-02', TOT_PARTCP_BOY_CNT: '40' }, { year: 2024 });
  const co = companyOf(w.build(), EIN);
  assert.is(co.filing_year, 2021);
  assert.ok((co.signals as string[]).includes('late_filer'));
});

test('item 3: growth compares a plan with the same plan\'s year before', () => {
  const w = world();
  w.filing({ SPONS_DFE_EIN: EIN, SPONS_DFE_PN: '501', TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2023-01-01', TOT_PARTCP_BOY_CNT: '200' }, { year: 2023 });
  w.filing({ SPONS_DFE_EIN: EIN, SPONS_DFE_PN: '501', TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', TOT_PARTCP_BOY_CNT: '220' }, { year: 2024 });
  // A 401(k) filed for 2024 only: it neither adds to the count nor makes growth.
  w.filing({ SPONS_DFE_EIN: EIN, SPONS_DFE_PN: '001', TYPE_PENSION_BNFT_CODE: '2J', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', TOT_PARTCP_BOY_CNT: '150' }, { year: 2024 });
  const co = companyOf(w.build(), EIN);
  assert.is(co.participants, 220);
  assert.is(co.participant_growth, 10);
});

test('item 3: a final filing ends the plan and is a signal; its 0 at year end is no head count', () => {
  const w = world();
  w.filing({ SPONS_DFE_EIN: EIN, TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', FINAL_FILING_IND: '1', TOT_PARTCP_BOY_CNT: '75', TOT_ACTIVE_PARTCP_CNT: '0' });
  const co = companyOf(w.build(), EIN);
  assert.is(co.participants, 75);
  assert.is(co.total_number_of_employees, null);
  assert.ok((co.signals as string[]).includes('plan_terminated'));
});

test('item 4: participants are the largest plan\'s count at the beginning of the year, never a sum over plans', () => {
  const w = world();
  w.filing({ SPONS_DFE_EIN: EIN, SPONS_DFE_PN: '501', TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', TOT_PARTCP_BOY_CNT: '350', TOT_ACTIVE_PARTCP_CNT: '324' });
  w.filing({ SPONS_DFE_EIN: EIN, SPONS_DFE_PN: '001', TYPE_PENSION_BNFT_CODE: '2J', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', TOT_PARTCP_BOY_CNT: '190', TOT_ACTIVE_PARTCP_CNT: '190' });
  const co = companyOf(w.build(), EIN);
  assert.is(co.participants, 350);
  assert.is(co.total_number_of_employees, 324);
});

test('item 4: short-form filers read line 5 too (SF_TOT_PARTCP_BOY_CNT)', () => {
  const w = world();
  w.filing({ SF_SPONS_EIN: EIN, SF_TYPE_WELFARE_BNFT_CODE: '4A', SF_PLAN_YEAR_BEGIN_DATE: '2024-01-01', SF_TOT_PARTCP_BOY_CNT: '48', SF_TOT_ACT_PARTCP_EOY_CNT: '45' }, { dataset: 'F_5500_SF' });
  const co = companyOf(w.build(), EIN);
  assert.is(co.participants, 48);
  assert.is(co.total_number_of_employees, 45);
});

test('item 6: an insured plan that pays premiums from general assets is Fully Insured; 9b and stop-loss decide', () => {
  const insured = world();
  const a = insured.filing({ SPONS_DFE_EIN: EIN, TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', FUNDING_INSURANCE_IND: '1', FUNDING_GEN_ASSET_IND: '1', BENEFIT_INSURANCE_IND: '1' });
  medicalContract(insured, a, '1');
  assert.is(companyOf(insured.build(), EIN).funding_status, 'Fully Insured');

  const self = world();
  const b = self.filing({ SPONS_DFE_EIN: EIN, TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', FUNDING_GEN_ASSET_IND: '1', BENEFIT_GEN_ASSET_IND: '1', BENEFIT_INSURANCE_IND: '1' });
  self.contract(b, { INS_CARRIER_NAME: 'HCC LIFE INSURANCE CO', WLFR_BNFT_STOP_LOSS_IND: '1', WLFR_TOT_CHARGES_PAID_AMT: '120000' });
  const co = companyOf(self.build(), EIN);
  assert.is(co.funding_status, 'Self-Funded');
  assert.ok((co.funding_by_benefit as string[]).includes('Medical: Self-Funded'));

  const trust = world();
  trust.filing({ SPONS_DFE_EIN: EIN, TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', FUNDING_TRUST_IND: '1', BENEFIT_TRUST_IND: '1' });
  assert.is(companyOf(trust.build(), EIN).funding_status, 'Self-Funded', 'benefits paid from a trust with no insurance');
});

test('item 5: carrier_change compares the medical carrier\'s NAIC code, not spellings or an added dental line', () => {
  const w = world();
  const y23 = w.filing({ SPONS_DFE_EIN: EIN, TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2023-01-01' }, { year: 2023 });
  medicalContract(w, y23, '1', { INS_CARRIER_NAME: 'BLUE CROSS & BLUE SHIELD OF OHIO' });
  const y24 = w.filing({ SPONS_DFE_EIN: EIN, TYPE_WELFARE_BNFT_CODE: '4A4D', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01' }, { year: 2024 });
  medicalContract(w, y24, '1', { INS_CARRIER_NAME: 'BCBS OF OHIO' });
  w.contract(y24, { FORM_ID: '2', INS_CARRIER_NAME: 'DELTA DENTAL OF OHIO', INS_CARRIER_NAIC_CODE: '11111', WLFR_BNFT_DENTAL_IND: '1', WLFR_TOT_CHARGES_PAID_AMT: '40000' });
  assert.ok(!(companyOf(w.build(), EIN).signals as string[]).includes('carrier_change'));

  const moved = world();
  const m23 = moved.filing({ SPONS_DFE_EIN: EIN, TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2023-01-01' }, { year: 2023 });
  medicalContract(moved, m23, '1');
  const m24 = moved.filing({ SPONS_DFE_EIN: EIN, TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01' }, { year: 2024 });
  medicalContract(moved, m24, '1', { INS_CARRIER_NAME: 'UNITEDHEALTHCARE INSURANCE CO', INS_CARRIER_NAIC_CODE: '79413' });
  assert.ok((companyOf(moved.build(), EIN).signals as string[]).includes('carrier_change'));
});

test('item 5: new_filer is a new sponsor, not a new plan of a sponsor that filed before', () => {
  const w = world();
  w.filing({ SPONS_DFE_EIN: EIN, SPONS_DFE_PN: '001', TYPE_PENSION_BNFT_CODE: '2J', FORM_PLAN_YEAR_BEGIN_DATE: '2023-01-01' }, { year: 2023 });
  w.filing({ SPONS_DFE_EIN: EIN, SPONS_DFE_PN: '001', TYPE_PENSION_BNFT_CODE: '2J', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01' }, { year: 2024 });
  w.filing({ SPONS_DFE_EIN: EIN, SPONS_DFE_PN: '501', TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', INITIAL_FILING_IND: '1' }, { year: 2024 });
  w.filing({ SPONS_DFE_EIN: '319999999', TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', INITIAL_FILING_IND: '1' }, { year: 2024 });
  const out = w.build();
  assert.ok(!(companyOf(out, EIN).signals as string[]).includes('new_filer'));
  assert.ok((companyOf(out, '319999999').signals as string[]).includes('new_filer'));
});

test('item 5: a late filing stays late when an amendment follows', () => {
  const w = world();
  const base = { SPONS_DFE_EIN: EIN, TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2023-01-01', FORM_TAX_PRD: '2023-12-31' };
  w.filing({ ...base, DATE_RECEIVED: '2024-12-20' }, { year: 2023 });
  w.filing({ ...base, DATE_RECEIVED: '2025-02-03', AMENDED_IND: '1' }, { year: 2024 });
  assert.ok((companyOf(w.build(), EIN).signals as string[]).includes('late_filer'));
});

test('item 5: high_cost_plan peers are sponsors that pay welfare premiums, not every sponsor at cost 0', () => {
  const w = world();
  // 20 payers in one industry at 1,000..20,000 per participant and 60 sponsors with no premium.
  for (let i = 0; i < 20; i++) {
    const ack = w.filing({ SPONS_DFE_EIN: String(320000000 + i), TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', TOT_PARTCP_BOY_CNT: '100' });
    w.contract(ack, { INS_CARRIER_NAME: 'AETNA LIFE INSURANCE CO', WLFR_BNFT_HEALTH_IND: '1', WLFR_TOT_CHARGES_PAID_AMT: String((i + 1) * 100000), INS_PRSN_COVERED_EOY_CNT: '100' });
  }
  for (let i = 0; i < 60; i++) w.filing({ SPONS_DFE_EIN: String(330000000 + i), TYPE_PENSION_BNFT_CODE: '2J', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', TOT_PARTCP_BOY_CNT: '100' });
  const out = w.build();
  const high = out.companies.filter((d) => (d.signals as string[]).includes('high_cost_plan')).map((d) => d.ein);
  assert.equal(high, ['320000019'], 'only the top decile of payers');
});

test('item 10: multiemployer and multiple-employer plans are labelled; the location address wins; the DBA is kept', () => {
  const w = world();
  w.filing({
    SPONS_DFE_EIN: EIN, TYPE_PLAN_ENTITY_CD: '1', TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01', SPONS_DFE_DBA_NAME: 'ACME WIDGETS',
    SPONS_DFE_MAIL_US_ADDRESS1: 'C/O BENEFIT ADMINISTRATORS INC', SPONS_DFE_MAIL_US_CITY: 'PHOENIX', SPONS_DFE_MAIL_US_STATE: 'AZ', SPONS_DFE_MAIL_US_ZIP: '85004',
    SPONS_DFE_LOC_US_ADDRESS1: '200 E MAIN ST', SPONS_DFE_LOC_US_CITY: 'DAYTON', SPONS_DFE_LOC_US_STATE: 'OH', SPONS_DFE_LOC_US_ZIP: '45402',
  });
  w.filing({ SPONS_DFE_EIN: '319999999', TYPE_PLAN_ENTITY_CD: '3', TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01' });
  const out = w.build();
  const co = companyOf(out, EIN);
  assert.is(co.plan_entity, 'multiemployer');
  assert.equal([co.city, co.state, co.zip], ['DAYTON', 'OH', '45402']);
  assert.is(co.dba_name, 'ACME WIDGETS');
  assert.is(companyOf(out, '319999999').plan_entity, 'multiple-employer');
});

test('item 10: IRS-style xxx000 and NAICS 2022 business codes have an industry', () => {
  const w = world();
  w.filing({ SPONS_DFE_EIN: '310000001', BUSINESS_CODE: '813000', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01' });
  w.filing({ SPONS_DFE_EIN: '310000002', BUSINESS_CODE: '455110', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01' });
  w.filing({ SPONS_DFE_EIN: '310000003', BUSINESS_CODE: '524210', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01' });
  const out = w.build();
  for (const ein of ['310000001', '310000002', '310000003']) assert.ok(companyOf(out, ein).company_industry, `industry of ${ein}`);
});

test('item 10: the renewal month comes from the medical contract with the largest premium', () => {
  const w = world();
  const ack = w.filing({ SPONS_DFE_EIN: EIN, TYPE_WELFARE_BNFT_CODE: '4A4B', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01' });
  // Life covers more persons; the medical contract pays the most premium.
  w.contract(ack, { FORM_ID: '1', INS_CARRIER_NAME: 'METLIFE', WLFR_BNFT_LIFE_INSUR_IND: '1', INS_PRSN_COVERED_EOY_CNT: '400', INS_POLICY_FROM_DATE: '2024-01-01', WLFR_TOT_CHARGES_PAID_AMT: '30000' });
  w.contract(ack, { FORM_ID: '2', INS_CARRIER_NAME: 'AETNA', WLFR_BNFT_HEALTH_IND: '1', INS_PRSN_COVERED_EOY_CNT: '150', INS_POLICY_FROM_DATE: '2024-04-01', WLFR_TOT_CHARGES_PAID_AMT: '800000' });
  assert.is(companyOf(w.build(), EIN).renewal_month, 'April');
});

test('item 9: a schedule row read twice (ACK_ID, FORM_ID, ROW_ORDER) counts once', () => {
  const w = world();
  const ack = w.filing({ SPONS_DFE_EIN: EIN, TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01' });
  medicalContract(w, ack, '1');
  medicalContract(w, ack, '1');
  const out = w.build();
  assert.is(companyOf(out, EIN).total_premiums, 910000);
  assert.is(companyOf(out, EIN).broker_commissions, 42000);
  assert.is(out.brokers.find((b) => String(b.broker_name).startsWith('BUCKEYE'))?.total_commissions, 42000);
});

test('item 9: a chargeback (negative commission) never makes a negative figure', () => {
  const w = world();
  const ack = w.filing({ SPONS_DFE_EIN: EIN, TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01' });
  w.contract(ack, { FORM_ID: '1', INS_CARRIER_NAME: 'AETNA', WLFR_BNFT_HEALTH_IND: '1', WLFR_TOT_CHARGES_PAID_AMT: '50000', INS_BROKER_COMM_TOT_AMT: '-1200' });
  w.line(ack, { FORM_ID: '1', INS_BROKER_NAME: 'SMALLTOWN AGENCY INC', INS_BROKER_US_ADDRESS1: '1 MAIN ST', INS_BROKER_US_CITY: 'DAYTON', INS_BROKER_US_STATE: 'OH', INS_BROKER_US_ZIP: '45402', INS_BROKER_COMM_PD_AMT: '-1200', INS_BROKER_CODE: '3' });
  const out = w.build();
  for (const doc of [...out.companies, ...out.brokers, ...out.offices]) {
    for (const k of ['broker_commissions', 'total_commissions', 'total_premiums']) if (typeof doc[k] === 'number') assert.ok((doc[k] as number) >= 0, `${k} = ${doc[k]}`);
  }
  assert.is(out.offices.length, 1, 'the office is kept');
});

test('item 7: firms resolved on name and geography; an individual agent is a contact at the office, a placeholder is no one', () => {
  const w = world();
  const lines: Record<string, string>[] = [
    { INS_BROKER_NAME: 'ARTHUR J. GALLAGHER & CO.', INS_BROKER_US_ADDRESS1: '2850 GOLF RD', INS_BROKER_US_CITY: 'ROLLING MEADOWS', INS_BROKER_US_STATE: 'IL', INS_BROKER_US_ZIP: '60008' },
    { INS_BROKER_NAME: 'ARTHUR J GALLAGHER', INS_BROKER_US_ADDRESS1: '2850 GOLF ROAD', INS_BROKER_US_CITY: 'ROLLING MEADOWS', INS_BROKER_US_STATE: 'IL', INS_BROKER_US_ZIP: '60008-4050' },
    { INS_BROKER_NAME: 'JOHN SMITH', INS_BROKER_US_ADDRESS1: '2850 GOLF RD', INS_BROKER_US_CITY: 'ROLLING MEADOWS', INS_BROKER_US_STATE: 'IL', INS_BROKER_US_ZIP: '60008' },
    { INS_BROKER_NAME: 'SMITH INSURANCE AGENCY', INS_BROKER_US_ADDRESS1: '12 MAIN ST', INS_BROKER_US_CITY: 'AUSTIN', INS_BROKER_US_STATE: 'TX', INS_BROKER_US_ZIP: '78701' },
    { INS_BROKER_NAME: 'SMITH INSURANCE AGENCY', INS_BROKER_US_ADDRESS1: '400 OAK AVE', INS_BROKER_US_CITY: 'DAYTON', INS_BROKER_US_STATE: 'OH', INS_BROKER_US_ZIP: '45402' },
    { INS_BROKER_NAME: 'NONE', INS_BROKER_US_ADDRESS1: '', INS_BROKER_US_CITY: '', INS_BROKER_US_STATE: '', INS_BROKER_US_ZIP: '' },
  ];
  lines.forEach((cols, i) => {
    const ack = w.filing({ SPONS_DFE_EIN: String(340000000 + i), TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '2024-01-01' });
    medicalContract(w, ack, '1');
    // The medical contract's own line is BUCKEYE's; this one is the case under test.
    w.line(ack, { FORM_ID: '1', ROW_ORDER: '2', INS_BROKER_COMM_PD_AMT: '1000', INS_BROKER_CODE: '3', ...cols });
  });
  const out = w.build();
  const names = out.brokers.map((b) => String(b.broker_name)).sort();
  assert.equal(names.filter((n) => /GALLAGHER/.test(n)).length, 1, `one Gallagher firm: ${names.join(' / ')}`);
  assert.equal(names.filter((n) => n === 'SMITH INSURANCE AGENCY').length, 2, 'two unrelated agencies that share a name');
  assert.ok(!names.includes('JOHN SMITH') && !names.includes('NONE'), names.join(' / '));
  const gallagher = out.offices.filter((o) => /GALLAGHER/.test(String(o.office_name)));
  assert.is(gallagher.length, 1, 'one office for the address written two ways');
  const agent = out.personnel.find((p) => p.form5500_role === 'Agent');
  assert.ok(agent, 'the agent is a contact');
  assert.equal([agent?.first_name, agent?.last_name, agent?.lead_type, agent?.broker_office_id], ['John', 'Smith', 'broker', gallagher[0].id]);
  assert.is(gallagher[0].total_commissions, 3000, 'the agent\'s commission counts for the office');
});

test('item 9: odd figures as filers write them never make a row the load rejects (so no child is lost with its parent)', () => {
  const w = world();
  const ack = w.filing({
    SPONS_DFE_EIN: EIN, TYPE_WELFARE_BNFT_CODE: '4A', FORM_PLAN_YEAR_BEGIN_DATE: '0204-01-01', SPONS_DFE_MAIL_US_STATE: 'XX', SPONS_DFE_MAIL_US_CITY: 'DAYTON',
    TOT_PARTCP_BOY_CNT: '-12', TOT_ACTIVE_PARTCP_CNT: '-3', ADMIN_SIGNED_NAME: 'JANE DOE',
  });
  w.contract(ack, { FORM_ID: '1', INS_CARRIER_NAME: 'AETNA', WLFR_BNFT_HEALTH_IND: '1', WLFR_TOT_CHARGES_PAID_AMT: '-5000', INS_BROKER_COMM_TOT_AMT: '-900', INS_POLICY_FROM_DATE: '2024-13-45' });
  w.line(ack, { FORM_ID: '1', INS_BROKER_NAME: 'ODD STATE AGENCY LLC', INS_BROKER_US_ADDRESS1: '1 MAIN ST', INS_BROKER_US_CITY: 'DAYTON', INS_BROKER_US_STATE: 'ZZ', INS_BROKER_US_ZIP: '4540', INS_BROKER_COMM_PD_AMT: '-900', INS_BROKER_CODE: 'X' });
  w.line(ack, { FORM_ID: '1', ROW_ORDER: '9', INS_BROKER_NAME: 'ODD ZIP AGENCY LLC', INS_BROKER_US_ADDRESS1: '9 ELM ST', INS_BROKER_US_CITY: 'dayton', INS_BROKER_US_STATE: 'oh', INS_BROKER_US_ZIP: '4540', INS_BROKER_COMM_PD_AMT: '-10', INS_BROKER_CODE: '3' });
  const out = w.build();
  const rows: [EntityName, typeof out.companies][] = [['brokers', out.brokers], ['broker-offices', out.offices], ['companies', out.companies], ['personnel', out.personnel]];
  for (const [name, docs] of rows) {
    assert.ok(docs.length > 0, `${name} built`);
    const def = entity(name);
    const fields = csvFields(def);
    docs.forEach((doc, i) => {
      const r = prepareRow(def, { row: i + 1, line: 0, values: doc }, fields);
      assert.ok(!isRejected(r), `${name} row ${i + 1} rejected: ${isRejected(r) ? JSON.stringify(r.issues) : ''}`);
    });
  }
  assert.is(companyOf(out, EIN).state, null, 'a state that is no USPS code is unknown');
  assert.is(companyOf(out, EIN).filing_year, 2024, 'a plan year out of range is the file\'s year');
});

test.run();
