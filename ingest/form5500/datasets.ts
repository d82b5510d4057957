/**
 * The four DOL datasets bintel reads, as data: how a file is recognised, and which source
 * column each fact comes from (the full form and the short form name the same facts
 * differently). Columns are found by header name, never by position; a column an older
 * year lacks reads as blank.
 */
import { createRequire } from 'node:module';

export type Dataset = 'F_5500' | 'F_5500_SF' | 'F_SCH_A' | 'F_SCH_A_PART1';

/** Datasets in the order an import reads them (filings before their schedules). */
export const DATASETS: readonly Dataset[] = ['F_5500', 'F_5500_SF', 'F_SCH_A', 'F_SCH_A_PART1'];

const FILE_RE = /^(F_5500_SF|F_5500|F_SCH_A_PART1|F_SCH_A)_(\d{4})_[A-Za-z]+\.csv$/i;

/** The dataset and plan year of a file name (`f_5500_sf_2023_latest.csv`, any case), or null. */
export function datasetOf(fileName: string): { dataset: Dataset; year: number } | null {
  const base = fileName.split(/[\\/]/).pop() ?? '';
  const m = FILE_RE.exec(base);
  return m ? { dataset: m[1].toUpperCase() as Dataset, year: Number(m[2]) } : null;
}

/** Facts of a filing (the F_5500 and F_5500_SF rows), with their source column in each. */
export const FILING_COLUMNS = {
  ack: ['ACK_ID', 'ACK_ID'],
  planYearBegin: ['FORM_PLAN_YEAR_BEGIN_DATE', 'SF_PLAN_YEAR_BEGIN_DATE'],
  planYearEnd: ['FORM_TAX_PRD', 'SF_TAX_PRD'],
  entityCode: ['TYPE_PLAN_ENTITY_CD', 'SF_PLAN_ENTITY_CD'],
  dfeCode: ['TYPE_DFE_PLAN_ENTITY_CD', ''],
  initial: ['INITIAL_FILING_IND', 'SF_INITIAL_FILING_IND'],
  final: ['FINAL_FILING_IND', 'SF_FINAL_FILING_IND'],
  amended: ['AMENDED_IND', 'SF_AMENDED_IND'],
  ext5558: ['F5558_APPLICATION_FILED_IND', 'SF_5558_APPLICATION_FILED_IND'],
  extAutomatic: ['EXT_AUTOMATIC_IND', 'SF_EXT_AUTOMATIC_IND'],
  extSpecial: ['EXT_SPECIAL_IND', 'SF_EXT_SPECIAL_IND'],
  planName: ['PLAN_NAME', 'SF_PLAN_NAME'],
  planNum: ['SPONS_DFE_PN', 'SF_PLAN_NUM'],
  sponsorName: ['SPONSOR_DFE_NAME', 'SF_SPONSOR_NAME'],
  dbaName: ['SPONS_DFE_DBA_NAME', 'SF_SPONSOR_DFE_DBA_NAME'],
  mailAddress1: ['SPONS_DFE_MAIL_US_ADDRESS1', 'SF_SPONS_US_ADDRESS1'],
  mailCity: ['SPONS_DFE_MAIL_US_CITY', 'SF_SPONS_US_CITY'],
  mailState: ['SPONS_DFE_MAIL_US_STATE', 'SF_SPONS_US_STATE'],
  mailZip: ['SPONS_DFE_MAIL_US_ZIP', 'SF_SPONS_US_ZIP'],
  locAddress1: ['SPONS_DFE_LOC_US_ADDRESS1', 'SF_SPONS_LOC_US_ADDRESS1'],
  locCity: ['SPONS_DFE_LOC_US_CITY', 'SF_SPONS_LOC_US_CITY'],
  locState: ['SPONS_DFE_LOC_US_STATE', 'SF_SPONS_LOC_US_STATE'],
  locZip: ['SPONS_DFE_LOC_US_ZIP', 'SF_SPONS_LOC_US_ZIP'],
  ein: ['SPONS_DFE_EIN', 'SF_SPONS_EIN'],
  phone: ['SPONS_DFE_PHONE_NUM', 'SF_SPONS_PHONE_NUM'],
  businessCode: ['BUSINESS_CODE', 'SF_BUSINESS_CODE'],
  adminName: ['ADMIN_NAME', 'SF_ADMIN_NAME'],
  adminPhone: ['ADMIN_PHONE_NUM', 'SF_ADMIN_PHONE_NUM'],
  adminSameAsSponsor: ['ADMIN_NAME_SAME_SPON_IND', 'SF_ADMIN_NAME_SAME_SPON_IND'],
  adminSigned: ['ADMIN_SIGNED_NAME', 'SF_ADMIN_SIGNED_NAME'],
  adminManualSigned: ['ADMIN_MANUAL_SIGNED_NAME', 'SF_ADMIN_MANUAL_SIGNED_NAME'],
  sponsorSigned: ['SPONS_SIGNED_NAME', 'SF_SPONS_SIGNED_NAME'],
  sponsorManualSigned: ['SPONS_MANUAL_SIGNED_NAME', 'SF_SPONS_MANUAL_SIGNED_NAME'],
  participantsBoy: ['TOT_PARTCP_BOY_CNT', 'SF_TOT_PARTCP_BOY_CNT'],
  activeEoy: ['TOT_ACTIVE_PARTCP_CNT', 'SF_TOT_ACT_PARTCP_EOY_CNT'],
  activeBoy: ['TOT_ACT_PARTCP_BOY_CNT', 'SF_TOT_ACT_PARTCP_BOY_CNT'],
  pensionCodes: ['TYPE_PENSION_BNFT_CODE', 'SF_TYPE_PENSION_BNFT_CODE'],
  welfareCodes: ['TYPE_WELFARE_BNFT_CODE', 'SF_TYPE_WELFARE_BNFT_CODE'],
  fundingInsurance: ['FUNDING_INSURANCE_IND', ''],
  fundingTrust: ['FUNDING_TRUST_IND', ''],
  fundingGeneralAssets: ['FUNDING_GEN_ASSET_IND', ''],
  /** Line 9b, the plan's benefit arrangement (how benefits are provided, where 9a is how they are funded). */
  benefitInsurance: ['BENEFIT_INSURANCE_IND', ''],
  benefitTrust: ['BENEFIT_TRUST_IND', ''],
  benefitGeneralAssets: ['BENEFIT_GEN_ASSET_IND', ''],
  netAssetsEoy: ['', 'SF_NET_ASSETS_EOY_AMT'],
  dateReceived: ['DATE_RECEIVED', 'DATE_RECEIVED'],
} as const satisfies Record<string, readonly [full: string, short: string]>;

export type FilingFact = keyof typeof FILING_COLUMNS;

/** Schedule A welfare indicators → the project's benefit types. */
export const SCH_A_BENEFITS: readonly (readonly [column: string, benefit: string])[] = [
  ['WLFR_BNFT_HEALTH_IND', 'Medical'], ['WLFR_BNFT_HMO_IND', 'Medical'], ['WLFR_BNFT_PPO_IND', 'Medical'], ['WLFR_BNFT_INDEMNITY_IND', 'Medical'],
  ['WLFR_BNFT_DENTAL_IND', 'Dental'], ['WLFR_BNFT_VISION_IND', 'Vision'], ['WLFR_BNFT_LIFE_INSUR_IND', 'Life'],
  ['WLFR_BNFT_TEMP_DISAB_IND', 'Short-Term Disability'], ['WLFR_BNFT_LONG_TERM_DISAB_IND', 'Long-Term Disability'],
  ['WLFR_BNFT_DRUG_IND', 'Prescription Drug'], ['WLFR_BNFT_STOP_LOSS_IND', 'Stop-Loss'],
];

/**
 * Schedule A Part II columns (insurance contracts of pension plans: allocated contracts such as
 * individual or group annuities, unallocated ones such as deposit administration and guaranteed
 * investment contracts): any of them filled marks a pension contract.
 */
export const SCH_A_PENSION: readonly string[] = [
  'PENSION_EOY_GEN_ACCT_AMT', 'PENSION_EOY_SEP_ACCT_AMT', 'PENSION_PREM_PAID_TOT_AMT', 'PENSION_CONTRACT_COST_AMT',
  'ALLOC_CONTRACTS_INDIV_IND', 'ALLOC_CONTRACTS_GROUP_IND', 'ALLOC_CONTRACTS_OTHER_IND',
  'UNALLOC_CONTRACTS_DEP_ADM_IND', 'UNAL_CONTRACTS_GUAR_INVEST_IND', 'UNALLOC_CONTRACTS_OTHER_IND',
  'PENSION_END_PREV_BAL_AMT', 'PENSION_EOY_BAL_AMT',
];

/** Schedule A Part III columns that mark a welfare contract besides the benefit indicators and premium lines. */
export const SCH_A_WELFARE_OTHER: readonly string[] = ['WLFR_BNFT_UNEMP_IND', 'WLFR_BNFT_OTHER_IND', 'WLFR_CLAIMS_PAID_AMT'];

/** Facts of a Schedule A contract row. */
export const SCH_A_COLUMNS = {
  ack: 'ACK_ID',
  formId: 'FORM_ID',
  carrierName: 'INS_CARRIER_NAME',
  carrierEin: 'INS_CARRIER_EIN',
  carrierNaic: 'INS_CARRIER_NAIC_CODE',
  personsCovered: 'INS_PRSN_COVERED_EOY_CNT',
  policyFrom: 'INS_POLICY_FROM_DATE',
  policyTo: 'INS_POLICY_TO_DATE',
  commissions: 'INS_BROKER_COMM_TOT_AMT',
  fees: 'INS_BROKER_FEES_TOT_AMT',
  /** Line 9a(1)(d), experience-rated contracts: premium earned. */
  earnedPremium: 'WLFR_TOT_EARNED_PREM_AMT',
  /** Line 9a(1)(a), experience-rated contracts: premium received. */
  premiumReceived: 'WLFR_PREMIUM_RCVD_AMT',
  /** Line 10a, non-experience-rated contracts (most fully insured ones): premiums or subscription charges paid to the carrier. */
  chargesPaid: 'WLFR_TOT_CHARGES_PAID_AMT',
  /** Line 10b, non-experience-rated contracts: the carrier's acquisition costs (commissions and fees it paid). */
  acquisitionCost: 'WLFR_ACQUIS_COST_AMT',
  ...Object.fromEntries([...SCH_A_PENSION, ...SCH_A_WELFARE_OTHER].map((c) => [c, c])),
  ...Object.fromEntries(SCH_A_BENEFITS.map(([c]) => [c, c])),
} as Record<string, string>;

/** Facts of a Schedule A Part I row (one broker or agent paid on a contract). */
export const PART1_COLUMNS = {
  ack: 'ACK_ID',
  formId: 'FORM_ID',
  name: 'INS_BROKER_NAME',
  address1: 'INS_BROKER_US_ADDRESS1',
  address2: 'INS_BROKER_US_ADDRESS2',
  city: 'INS_BROKER_US_CITY',
  state: 'INS_BROKER_US_STATE',
  zip: 'INS_BROKER_US_ZIP',
  foreignAddress1: 'INS_BROKER_FOREIGN_ADDRESS1',
  foreignCity: 'INS_BROKER_FOREIGN_CITY',
  foreignCountry: 'INS_BROKER_FOREIGN_CNTRY',
  commissions: 'INS_BROKER_COMM_PD_AMT',
  fees: 'INS_BROKER_FEES_PD_AMT',
  feesText: 'INS_BROKER_FEES_PD_TEXT',
  code: 'INS_BROKER_CODE',
  rowOrder: 'ROW_ORDER',
} as const;

/** The source column of each fact of a dataset ('' when the dataset has none). */
export function columnsOf(dataset: Dataset): Record<string, string> {
  if (dataset === 'F_SCH_A') return SCH_A_COLUMNS;
  if (dataset === 'F_SCH_A_PART1') return PART1_COLUMNS;
  const i = dataset === 'F_5500' ? 0 : 1;
  return Object.fromEntries(Object.entries(FILING_COLUMNS).map(([fact, cols]) => [fact, cols[i]]));
}

/** INS_BROKER_CODE values. */
export const BROKER_CODES: Readonly<Record<string, string>> = {
  '1': 'bank', '2': 'trust company', '3': 'insurance agent or broker', '4': 'other agent or broker', '5': 'third-party administrator',
  '6': 'investment company', '7': 'investment manager or adviser', '8': 'labor union', '9': 'foreign entity', '0': 'other',
};

interface Layouts {
  years: Record<string, Record<Dataset, string[]>>;
}

const require = createRequire(import.meta.url);
const LAYOUTS = require('./layouts.json') as Layouts;

/** Years with a published layout. */
export const LAYOUT_YEARS: readonly number[] = Object.keys(LAYOUTS.years).map(Number);

/** The ordered columns of a dataset in a year's DOL layout. */
export function layoutOf(dataset: Dataset, year: number): readonly string[] {
  const y = LAYOUTS.years[String(year)];
  if (!y) throw new RangeError(`no Form 5500 layout for ${year} (years ${LAYOUT_YEARS[0]}-${LAYOUT_YEARS[LAYOUT_YEARS.length - 1]})`);
  return y[dataset];
}
