/**
 * Rows of the synthetic DOL datasets, by source column name (the writer puts them in the
 * year's layout order and leaves every other column blank). Each filing, contract and broker
 * line is a pure function of (seed, year, sponsor, position): the Schedule A writer recomputes
 * the filings it belongs to instead of remembering them.
 */
import { combine, rowRng, type Rng } from '../../generate/prng.ts';
import { carrierName, firmOf, officeOf, participantsIn, pickFirm, sponsorOf, type Office, type Sponsor, type World } from './world.ts';

/** A generated row: source column → value, and whether its text is written as Windows-1252. */
export interface GenRow {
  cells: Record<string, string>;
  cp1252: boolean;
}

/** One filing of a sponsor in a year (version 1 is the amendment of version 0). */
export interface FilingPlan {
  j: number;
  year: number;
  version: number;
  ack: string;
  sponsor: Sponsor;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');
const LINES = [
  ['WLFR_BNFT_HEALTH_IND', '4A'], ['WLFR_BNFT_DENTAL_IND', '4D'], ['WLFR_BNFT_VISION_IND', '4E'], ['WLFR_BNFT_LIFE_INSUR_IND', '4B'],
  ['WLFR_BNFT_LONG_TERM_DISAB_IND', '4H'], ['WLFR_BNFT_TEMP_DISAB_IND', '4F'],
] as const;

/** Sponsors amended in a year: one in fifty. */
export const isAmended = (j: number, year: number) => combine(j, year) % 50 === 0;
/** The year a sponsor first filed (new_filer in that year). */
const firstYear = (j: number) => 2009 + (combine(j, 77) % 20);

function ackId(year: number, j: number, version: number, small: boolean): string {
  return `${year + 1}${pad(5 + (j % 5), 2)}${pad(1 + (j % 28), 2)}${pad(j % 86400, 6)}P${small ? '03' : '04'}${pad(j, 10)}${pad(version, 3)}`;
}

/** The filings of sponsor j in a year: the original and, for some, an amendment. */
export function filingsOf(w: World, j: number, year: number, small: boolean): FilingPlan[] {
  const sponsor = sponsorOf(w, j, small);
  const out = [{ j, year, version: 0, ack: ackId(year, j, 0, small), sponsor }];
  if (isAmended(j, year)) out.push({ j, year, version: 1, ack: ackId(year, j, 1, small), sponsor });
  return out;
}

/** Received date: before the due date (end of July, mid-October with an extension), a few late. */
function received(rng: Rng, year: number, extension: boolean, version: number): string {
  if (version > 0) return `${year + 1}-11-${pad(rng.int(1, 28), 2)}`;
  if (rng.chance(0.04)) return `${year + 1}-12-${pad(rng.int(1, 28), 2)}`;
  return extension ? `${year + 1}-${pad(rng.int(8, 10), 2)}-${pad(rng.int(1, 14), 2)}` : `${year + 1}-${pad(rng.int(3, 7), 2)}-${pad(rng.int(1, 28), 2)}`;
}

const signedAt = (rng: Rng, year: number) => `${year + 1}-07-${pad(rng.int(1, 28), 2)}T${pad(rng.int(8, 18), 2)}:${pad(rng.int(0, 59), 2)}:${pad(rng.int(0, 59), 2)}-0500`;

/** Welfare codes and Schedule A lines of a sponsor (Medical always, others by chance). */
function linesOf(rng: Rng): (typeof LINES)[number][] {
  return LINES.filter((_, i) => i === 0 || rng.chance(0.08));
}

/** A full-form (F_5500) filing row; DFE filings are written by `dfeRow`. */
export function fullFormRow(w: World, p: FilingPlan): GenRow {
  const s = p.sponsor;
  const rng = rowRng(combine(w.sponsorKey, p.year), p.j, 1);
  const active = participantsIn(s, p.year, rng) + p.version * 5;
  const boy = participantsIn(s, p.year - 1, rng);
  const extension = rng.chance(0.3);
  const selfFunded = rowRng(w.sponsorKey, p.j, 9).chance(s.base > 500 ? 0.5 : 0.1);
  const lines = linesOf(rowRng(w.sponsorKey, p.j, 2));
  const adminSame = rng.chance(0.7);
  return {
    cp1252: rng.chance(0.5),
    cells: {
      ACK_ID: p.ack, FORM_PLAN_YEAR_BEGIN_DATE: `${p.year}-01-01`, FORM_TAX_PRD: `${p.year}-12-31`, TYPE_PLAN_ENTITY_CD: '2',
      INITIAL_FILING_IND: firstYear(p.j) === p.year ? '1' : '', AMENDED_IND: p.version ? '1' : '',
      EXT_AUTOMATIC_IND: extension ? '1' : '', F5558_APPLICATION_FILED_IND: '',
      PLAN_NAME: `${s.name} HEALTH AND WELFARE PLAN`, SPONS_DFE_PN: '501', PLAN_EFF_DATE: '2001-01-01', SPONSOR_DFE_NAME: s.name,
      SPONS_DFE_MAIL_US_ADDRESS1: s.street, SPONS_DFE_MAIL_US_CITY: s.city, SPONS_DFE_MAIL_US_STATE: s.state, SPONS_DFE_MAIL_US_ZIP: s.zip,
      SPONS_DFE_LOC_US_CITY: s.city, SPONS_DFE_LOC_US_STATE: s.state, SPONS_DFE_LOC_US_ZIP: s.zip,
      SPONS_DFE_EIN: s.ein, SPONS_DFE_PHONE_NUM: s.phone, BUSINESS_CODE: s.businessCode,
      ADMIN_NAME: adminSame ? '' : `${s.adminSigner}`, ADMIN_NAME_SAME_SPON_IND: adminSame ? '1' : '', ADMIN_PHONE_NUM: adminSame ? '' : s.phone,
      ADMIN_SIGNED_DATE: signedAt(rng, p.year), ADMIN_SIGNED_NAME: s.adminSigner,
      SPONS_SIGNED_DATE: signedAt(rng, p.year), SPONS_SIGNED_NAME: s.sponsorSigner,
      TOT_PARTCP_BOY_CNT: String(boy), TOT_ACTIVE_PARTCP_CNT: String(active), TOT_ACT_PARTCP_BOY_CNT: String(boy),
      TYPE_WELFARE_BNFT_CODE: lines.map((l) => l[1]).join(''),
      FUNDING_INSURANCE_IND: selfFunded ? '' : '1', FUNDING_GEN_ASSET_IND: selfFunded ? '1' : '', BENEFIT_INSURANCE_IND: selfFunded ? '' : '1',
      BENEFIT_GEN_ASSET_IND: selfFunded ? '1' : '', SCH_A_ATTACHED_IND: '1', NUM_SCH_A_ATTACHED_CNT: String(lines.length),
      FILING_STATUS: 'FILING_RECEIVED', DATE_RECEIVED: received(rng, p.year, extension, p.version),
      VALID_ADMIN_SIGNATURE: 'Y', VALID_SPONSOR_SIGNATURE: 'Y',
    },
  };
}

/** A DFE filing (a collective trust): counted and skipped by the import. */
export function dfeRow(year: number, k: number): GenRow {
  return {
    cp1252: false,
    cells: {
      ACK_ID: `${year + 1}0601000000P05${pad(k, 10)}000`, FORM_PLAN_YEAR_BEGIN_DATE: `${year}-01-01`, FORM_TAX_PRD: `${year}-12-31`,
      TYPE_PLAN_ENTITY_CD: '4', TYPE_DFE_PLAN_ENTITY_CD: 'C', PLAN_NAME: `COLLECTIVE TRUST FUND ${k}`, SPONS_DFE_PN: '001', SPONSOR_DFE_NAME: `FIRST NATIONAL TRUST CO ${k}`,
      SPONS_DFE_EIN: String(900_000_000 + k), DATE_RECEIVED: `${year + 1}-06-01`, FILING_STATUS: 'FILING_RECEIVED',
    },
  };
}

/** A short-form (F_5500_SF) filing row: a small 401(k) or an insured welfare plan. */
export function shortFormRow(w: World, p: FilingPlan): GenRow {
  const s = p.sponsor;
  const rng = rowRng(combine(w.sponsorKey, p.year), p.j, 1);
  const active = participantsIn(s, p.year, rng) + p.version * 5;
  const pension = rng.chance(0.7);
  const extension = rng.chance(0.3);
  return {
    cp1252: rng.chance(0.5),
    cells: {
      ACK_ID: p.ack, SF_PLAN_YEAR_BEGIN_DATE: `${p.year}-01-01`, SF_TAX_PRD: `${p.year}-12-31`, SF_PLAN_ENTITY_CD: '2',
      SF_INITIAL_FILING_IND: firstYear(p.j) === p.year ? '1' : '', SF_AMENDED_IND: p.version ? '1' : '', SF_EXT_AUTOMATIC_IND: extension ? '1' : '',
      SF_PLAN_NAME: `${s.name} ${pension ? '401(K) PLAN' : 'GROUP HEALTH PLAN'}`, SF_PLAN_NUM: pension ? '001' : '501', SF_SPONSOR_NAME: s.name,
      SF_SPONS_US_ADDRESS1: s.street, SF_SPONS_US_CITY: s.city, SF_SPONS_US_STATE: s.state, SF_SPONS_US_ZIP: s.zip,
      SF_SPONS_EIN: s.ein, SF_SPONS_PHONE_NUM: s.phone, SF_BUSINESS_CODE: s.businessCode,
      SF_ADMIN_NAME_SAME_SPON_IND: '1', SF_TOT_PARTCP_BOY_CNT: String(participantsIn(s, p.year - 1, rng)),
      SF_TOT_ACT_PARTCP_BOY_CNT: String(participantsIn(s, p.year - 1, rng)), SF_TOT_ACT_PARTCP_EOY_CNT: String(active),
      SF_TYPE_PENSION_BNFT_CODE: pension ? '2E2J2K' : '', SF_TYPE_WELFARE_BNFT_CODE: pension ? '' : '4A',
      SF_NET_ASSETS_EOY_AMT: pension ? String(Math.round(active * rng.logNormal(40_000, 0.8))) : '',
      SF_ADMIN_SIGNED_DATE: signedAt(rng, p.year), SF_ADMIN_SIGNED_NAME: s.adminSigner,
      SF_SPONS_SIGNED_DATE: signedAt(rng, p.year), SF_SPONS_SIGNED_NAME: s.sponsorSigner,
      FILING_STATUS: 'FILING_RECEIVED', DATE_RECEIVED: received(rng, p.year, extension, p.version),
    },
  };
}

/** The Schedule A contracts of a full-form filing, one per insurance line, each with its Part I broker lines. */
export function contractsOf(w: World, p: FilingPlan): { contract: GenRow; brokers: GenRow[] }[] {
  const s = p.sponsor;
  const lines = linesOf(rowRng(w.sponsorKey, p.j, 2));
  const rng = rowRng(combine(w.sponsorKey, p.year), p.j, 3);
  const active = participantsIn(s, p.year, rowRng(combine(w.sponsorKey, p.year), p.j, 1)) + p.version * 5;
  const month = 1 + (combine(p.j, 5) % 12);
  const era = (switchYear: number) => (p.year >= switchYear ? 1 : 0);
  const firmRng = rowRng(combine(w.firmKey, era(s.brokerSwitchYear)), p.j);
  const firm = pickFirm(w, firmRng);
  const office = firmRng.int(0, firmOf(w, firm).offices - 1);
  return lines.map(([indicator], k) => {
    const carrierRng = rowRng(combine(w.sponsorKey, 11 + era(s.carrierSwitchYear)), p.j, k);
    const premium = Math.round(active * (k === 0 ? rng.logNormal(7000, 0.3) : rng.logNormal(400, 0.4)));
    const commission = Math.round(premium * rng.range(0.02, 0.06));
    const contract: GenRow = {
      cp1252: false,
      cells: {
        ACK_ID: p.ack, FORM_ID: String(k + 1), SCH_A_PLAN_YEAR_BEGIN_DATE: `${p.year}-01-01`, SCH_A_PLAN_YEAR_END_DATE: `${p.year}-12-31`,
        SCH_A_PLAN_NUM: '501', SCH_A_EIN: s.ein, INS_CARRIER_NAME: carrierName(carrierRng), INS_CARRIER_EIN: String(300_000_000 + k),
        INS_CARRIER_NAIC_CODE: String(60000 + k), INS_CONTRACT_NUM: `G${pad(p.j, 8)}${k}`,
        INS_PRSN_COVERED_EOY_CNT: String(Math.round(active * (k === 0 ? 1.6 : 1))),
        INS_POLICY_FROM_DATE: `${p.year}-${pad(month, 2)}-01`, INS_POLICY_TO_DATE: `${p.year + 1}-${pad(month, 2)}-01`,
        INS_BROKER_COMM_TOT_AMT: String(commission), INS_BROKER_FEES_TOT_AMT: '0', [indicator]: '1',
        WLFR_PREMIUM_RCVD_AMT: String(premium), WLFR_TOT_EARNED_PREM_AMT: String(premium),
      },
    };
    const count = rng.chance(0.2) ? 0 : rng.chance(0.12) ? 2 : 1;
    const brokers = Array.from({ length: count }, (_, b) => brokerLine(w, p, k, b, b === 0 ? firm : pickFirm(w, rng), b === 0 ? office : 0, Math.round(commission / count)));
    return { contract, brokers };
  });
}

const SUFFIX_RE = /,? (INC\.?|LLC|CORP\.?|CORPORATION|COMPANY|CO\.?)$/;
const STREET_ABBR: Record<string, string> = { STREET: 'ST', AVENUE: 'AVE', BOULEVARD: 'BLVD', DRIVE: 'DR', ROAD: 'RD', PARKWAY: 'PKWY', LANE: 'LN' };

/** A name variant as filers type it: suffix dropped or added, '&' spelled out, punctuation dropped. */
export function nameVariant(rng: Rng, name: string): string {
  const r = rng.next();
  if (r < 0.5) return name;
  if (r < 0.65) return SUFFIX_RE.test(name) ? name.replace(SUFFIX_RE, '') : `${name} INC`;
  if (r < 0.8) return name.replace(/&/g, 'AND');
  return name.replace(/[.,]/g, '');
}

/** The office address as one filer writes it: unit as SUITE, STE or #, street types abbreviated, ZIP+4. */
export function addressVariant(rng: Rng, o: Office): Record<string, string> {
  let street = o.street;
  if (o.poBox) street = rng.pick([street, street.replace('PO BOX', 'P.O. BOX'), street.replace('PO BOX', 'P O BOX')]);
  else if (rng.chance(0.5)) street = street.replace(/\b(STREET|AVENUE|BOULEVARD|DRIVE|ROAD|PARKWAY|LANE)$/, (t) => STREET_ABBR[t]);
  const unit = o.suite ? rng.pick([`SUITE ${o.suite}`, `STE ${o.suite}`, `#${o.suite}`, `STE. ${o.suite}`]) : '';
  const inline = unit && rng.chance(0.3);
  const zip = rng.chance(0.3) ? `${o.zip}${pad(rng.int(1, 9999), 4)}` : o.zip;
  return {
    INS_BROKER_US_ADDRESS1: inline ? `${street}, ${unit}` : street,
    INS_BROKER_US_ADDRESS2: inline ? '' : unit,
    INS_BROKER_US_CITY: o.city, INS_BROKER_US_STATE: o.state, INS_BROKER_US_ZIP: zip,
  };
}

function brokerLine(w: World, p: FilingPlan, k: number, b: number, firm: number, office: number, commission: number): GenRow {
  const rng = rowRng(combine(w.firmKey, p.year * 8 + p.version), p.j * 16 + k * 2 + b);
  const name = firmOf(w, firm).name.slice(0, 35).trim();
  const address = rng.chance(0.03) ? {} : addressVariant(rng, officeOf(w, firm, office));
  return {
    cp1252: false,
    cells: {
      ACK_ID: p.ack, FORM_ID: String(k + 1), ROW_ORDER: String(b + 1), INS_BROKER_NAME: nameVariant(rng, name), ...address,
      INS_BROKER_COMM_PD_AMT: String(commission), INS_BROKER_FEES_PD_AMT: rng.chance(0.1) ? String(rng.int(500, 5000)) : '',
      INS_BROKER_FEES_PD_TEXT: '', INS_BROKER_CODE: '3',
    },
  };
}
