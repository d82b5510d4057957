/**
 * `--variety real`: rows with the variety of real filings, for tests that can fail. The default
 * generator writes what the importer expects; this one writes what the DOL publishes: pension
 * plans with group annuity contracts and broker-dealers, premiums on line 10a only, NAIC codes,
 * funding and benefit-arrangement boxes in their real combinations, TPA administrators and titled
 * signers, agents, placeholders and chargebacks on Part I, late, amended and final filings, a
 * partial newest year, multiemployer and multiple-employer plans, DBA and care-of names, and
 * every field quoted. Rates are in docs/data.md ("Generated data: --variety real").
 *
 * As in rows.ts, every filing, contract and broker line is a pure function of (seed, year,
 * sponsor, plan, position), so files stream at any size and one seed writes the same bytes.
 */
import { combine, hashString, rowRng, type Rng } from '../../generate/prng.ts';
import { FIRST_NAMES, lastName } from '../../generate/names.ts';
import { CARRIERS } from '../../../mappings/reference.ts';
import { addressVariant, nameVariant, type GenRow } from './rows.ts';
import { firmOf, officeOf, participantsIn, person, pickFirm, sponsorOf, street, up, type Sponsor, type World } from './world.ts';

const pad = (n: number, w: number) => String(n).padStart(w, '0');
const unit = (h: number) => h / 4294967296;
/** A uniform [0, 1) of a few integers: decisions that must agree between the files of one year. */
const draw = (a: number, b: number, c: number, d = 0) => unit(combine(combine(combine(combine(0x5eed, a), b), c), d));

// ---------------------------------------------------------------------------------------------
// Rates (documented in docs/data.md)
// ---------------------------------------------------------------------------------------------

export const VARIETY_RATES = {
  multiemployer: 0.015,
  multipleEmployer: 0.015,
  welfarePlan: 0.62,
  pensionPlan: 0.55,
  sfSecondPlan: 0.1,
  fiscalPlanYear: 0.08,
  late1: 0.02,
  late2: 0.005,
  amendAfterLate: 0.3,
  amended: 0.02,
  final: 0.015,
  dba: 0.08,
  careOf: 0.05,
  mailPoBox: 0.1,
  locationDiffers: 0.06,
  adminOrg: 0.25,
  titledSigner: 0.06,
  slashSigner: 0.04,
  particle: 0.03,
  irsBusinessCode: 0.25,
  naics2022: 0.05,
  experienceRated: 0.15,
  zeroNineA: 0.3,
  agent: 0.12,
  placeholder: 0.005,
  chargeback: 0.005,
  nameTag: 0.03,
  longName: 0.06,
  lockbox: 0.04,
  floor: 0.05,
  careOfBroker: 0.02,
  pensionAnnuity: 0.45,
  newestFiled: 0.6,
} as const;

// ---------------------------------------------------------------------------------------------
// Sponsors and plans
// ---------------------------------------------------------------------------------------------

export type PlanKind = 'welfare' | 'pension';
/** 9a/9b boxes of a welfare plan. */
export type Funding = 'insured' | 'insured+general' | 'self' | 'trust' | 'general-insured';

export interface VPlan {
  kind: PlanKind;
  /** Plan number of the first plan of this kind (501, 001); a successor after a final filing is +1. */
  pn: number;
  /** Participants relative to the sponsor's base (two plans of one sponsor differ in size). */
  size: number;
  funding: Funding;
  /** Pension plans: the trust holds a group annuity contract (Schedule A Part II). */
  annuity: boolean;
  /** Index of the plan within the sponsor (streams). */
  i: number;
}

export interface VSponsor extends Sponsor {
  entity: '1' | '2' | '3';
  dba: string;
  careOf: string;
  mail: { street: string; street2: string; city: string; state: string; zip: string };
  /** Location address (line 2a) when it differs from the mailing address, else null. */
  location: { street: string; city: string; state: string; zip: string } | null;
  /** Administrator as an organisation (TPA, payroll company), else '' (a person). */
  adminOrg: string;
  adminSignerVariant: string;
  sponsorSignerVariant: string;
  plans: VPlan[];
  /** Plan year begin month (1 for calendar years). */
  month: number;
}

const TPAS = ['BENEFIT ADMINISTRATIVE SYSTEMS LLC', 'PAYCHEX INC', 'ADP TOTALSOURCE INC', 'INSPERITY INC', 'JUSTWORKS EMPLOYMENT GROUP LLC', 'TRUSTMARK HEALTH BENEFITS INC', 'MERITAIN HEALTH INC', 'UMR INC', 'TRISTAR BENEFIT ADMINISTRATORS', 'ASR HEALTH BENEFITS', 'AMERIBEN SOLUTIONS INC', 'ALLIED BENEFIT SYSTEMS LLC', 'BOARD OF TRUSTEES', 'ADMINISTRATIVE COMMITTEE'];
const TITLES = ['PRESIDENT', 'CEO', 'CFO', 'OWNER', 'HR DIRECTOR', 'TRUSTEE', 'PLAN ADMINISTRATOR', 'VP HUMAN RESOURCES', 'CONTROLLER'];
const PARTICLES = ['VAN DER BERG', 'DE LA CRUZ', 'DEL RIO', 'VAN BUREN', 'DE LA HOYA', 'DI MARCO', 'VON ESSEN', "O'BRIEN", 'MC DONALD', 'ST. JOHN', 'DA SILVA', 'LE BLANC'];
const TRADES = ['CARPENTERS', 'ELECTRICAL WORKERS', 'TEAMSTERS', 'OPERATING ENGINEERS', 'PLUMBERS AND PIPEFITTERS', 'IRONWORKERS', 'LABORERS', 'PAINTERS', 'UNITE HERE'];
/** NAICS 2022 codes that NAICS 2017 did not have (retail trade regrouped, publishing and web search). */
const NAICS_2022 = ['455110', '455211', '455219', '456110', '457110', '458110', '459110', '459999', '513210', '516210', '519290'];
const DFE_KINDS = ['M', 'C', 'P', 'E', 'G'] as const;
const DFE_NAMES: Record<(typeof DFE_KINDS)[number], string> = { M: 'MASTER TRUST', C: 'COLLECTIVE INVESTMENT TRUST', P: 'POOLED SEPARATE ACCOUNT', E: '103-12 INVESTMENT ENTITY', G: 'GROUP INSURANCE ARRANGEMENT' };

/** A name as a person signs it: plain mostly, with a title, "/S/", a particle surname. */
function signer(rng: Rng, name: string): string {
  let n = name;
  if (rng.chance(VARIETY_RATES.particle)) n = `${n.split(' ')[0]} ${rng.pick(PARTICLES)}`;
  const r = rng.next();
  if (r < VARIETY_RATES.titledSigner) return `${n}, ${rng.pick(TITLES)}`;
  if (r < VARIETY_RATES.titledSigner + VARIETY_RATES.slashSigner) return `/S/ ${n}`;
  return n;
}

function businessCode(rng: Rng, code: string, year: number): string {
  const r = rng.next();
  if (r < VARIETY_RATES.irsBusinessCode) return `${code.slice(0, 3)}000`;
  if (year >= 2022 && r < VARIETY_RATES.irsBusinessCode + VARIETY_RATES.naics2022) return rng.pick(NAICS_2022);
  return `${code}${rng.pick(['10', '20', '90', '00'])}`;
}

/** Sponsor j with the variety of real filers; `small` for short-form sponsors. */
export function vSponsorOf(w: World, j: number, small: boolean, year: number): VSponsor {
  const s = sponsorOf(w, j, small);
  const rng = rowRng(combine(w.sponsorKey, 0x7a1e), j, 20);
  const r = rng.next();
  const entity: VSponsor['entity'] = small ? (r < 0.005 ? '3' : '2') : r < VARIETY_RATES.multiemployer ? '1' : r < VARIETY_RATES.multiemployer + VARIETY_RATES.multipleEmployer ? '3' : '2';
  let name = s.name;
  if (entity === '1') name = `BOARD OF TRUSTEES ${rng.pick(TRADES)} LOCAL ${rng.int(1, 999)}`;
  else if (entity === '3') name = `${s.name.replace(/,? (INC\.?|LLC|CORP\.?|COMPANY|CO\.?)$/, '')} ${rng.pick(['PEO LLC', 'EMPLOYERS BENEFIT TRUST', 'MULTIPLE EMPLOYER PLAN TRUST', 'ASSOCIATION HEALTH PLAN'])}`;
  const dba = rng.chance(VARIETY_RATES.dba) ? `${up(lastName(rng))} ${rng.pick(['SERVICES', 'GROUP', 'MARKET', 'HOLDINGS', 'AND SONS'])}` : '';
  const careOf = rng.chance(VARIETY_RATES.careOf) ? `C/O ${rng.pick(TPAS.slice(0, 12))}` : '';
  const poBox = !careOf && rng.chance(VARIETY_RATES.mailPoBox);
  const tpaStreet = street(rng);
  const mail = careOf
    ? { street: tpaStreet, street2: rng.chance(0.5) ? `SUITE ${rng.int(1, 40) * 100}` : '', city: s.city, state: s.state, zip: s.zip }
    : poBox
      ? { street: rng.pick([`PO BOX ${rng.int(10, 99999)}`, `P.O. BOX ${rng.int(10, 99999)}`]), street2: '', city: s.city, state: s.state, zip: s.zip }
      : { street: s.street, street2: rng.chance(0.15) ? `${rng.pick(['SUITE', 'STE', 'FL'])} ${rng.int(1, 30)}` : '', city: s.city, state: s.state, zip: s.zip };
  const location = careOf || poBox || rng.chance(VARIETY_RATES.locationDiffers) ? { street: s.street, city: s.city, state: s.state, zip: s.zip } : null;
  const adminOrg = rng.chance(VARIETY_RATES.adminOrg) ? (entity === '1' ? 'BOARD OF TRUSTEES' : rng.pick(TPAS)) : '';
  const plans: VPlan[] = [];
  const kinds: PlanKind[] = [];
  if (small) {
    const pension = rng.chance(0.7);
    kinds.push(pension ? 'pension' : 'welfare');
    if (rng.chance(VARIETY_RATES.sfSecondPlan)) kinds.push(pension ? 'welfare' : 'pension');
  } else if (entity === '1') kinds.push(rng.chance(0.55) ? 'welfare' : 'pension');
  else {
    if (rng.chance(VARIETY_RATES.welfarePlan)) kinds.push('welfare');
    if (rng.chance(VARIETY_RATES.pensionPlan) || !kinds.length) kinds.push('pension');
  }
  const big = s.base > 500;
  kinds.forEach((kind, i) => {
    const f = rng.next();
    const funding: Funding =
      entity === '1' ? 'trust' : small ? 'insured' : big && f < 0.45 ? 'self' : f < 0.45 ? 'insured' : f < 0.7 ? 'insured+general' : f < 0.82 ? 'self' : f < 0.92 ? 'general-insured' : 'trust';
    plans.push({ kind, pn: kind === 'welfare' ? 501 : 1, size: kind === 'pension' ? rng.range(1.05, 1.6) : rng.range(0.55, 0.95), funding, annuity: kind === 'pension' && rng.chance(VARIETY_RATES.pensionAnnuity), i });
  });
  return {
    ...s,
    name,
    businessCode: entity === '1' ? '525100' : businessCode(rowRng(combine(w.sponsorKey, year), j, 21), s.businessCode.slice(0, 4), year),
    entity,
    dba,
    careOf,
    mail,
    location,
    adminOrg,
    adminSignerVariant: signer(rng, s.adminSigner),
    sponsorSignerVariant: signer(rng, s.sponsorSigner),
    plans,
    month: rng.chance(VARIETY_RATES.fiscalPlanYear) ? rng.pick([4, 7, 10]) : 1,
  };
}

// ---------------------------------------------------------------------------------------------
// Filings: late, amended, final, partial newest year
// ---------------------------------------------------------------------------------------------

export interface VFiling {
  j: number;
  small: boolean;
  /** Year of the dataset file the filing is in. */
  year: number;
  /** Plan year the filing reports (earlier than `year` for a late filing). */
  planYear: number;
  lag: number;
  version: number;
  ack: string;
  sponsor: VSponsor;
  plan: VPlan;
  /** Plan number as filed (the successor's after a final filing). */
  pn: string;
  final: boolean;
  initial: boolean;
}

/** The plan year a plan files late (1 or 2 years later), else 0. */
function lateLag(j: number, plan: VPlan, planYear: number): number {
  const x = draw(j, plan.i, planYear, 1);
  return x < VARIETY_RATES.late1 ? 1 : x < VARIETY_RATES.late1 + VARIETY_RATES.late2 ? 2 : 0;
}

/** The plan year of a plan's final filing; a successor plan (number + 1) files from the next year. */
const finalYearOf = (j: number, plan: VPlan) => 2010 + Math.floor(draw(j, plan.i, 2) / VARIETY_RATES.final);

function ackOf(recvYear: number, j: number, seq: number, small: boolean): string {
  return `${recvYear}${pad(5 + (j % 5), 2)}${pad(1 + (j % 28), 2)}${pad(j % 86400, 6)}P${small ? '03' : '04'}${pad(j, 10)}${pad(seq, 3)}`;
}

export interface VarietyOptions {
  /** The newest year of the run, and the share of its plans that filed yet (1 = all). */
  newest: number;
  newestFiled: number;
}

/** The filings of sponsor j in the dataset of `year`. */
export function vFilingsOf(w: World, j: number, year: number, small: boolean, o: VarietyOptions): VFiling[] {
  const sponsor = vSponsorOf(w, j, small, year);
  const out: VFiling[] = [];
  for (const plan of sponsor.plans) {
    for (let lag = 0; lag <= 2; lag++) {
      const planYear = year - lag;
      if (lateLag(j, plan, planYear) !== lag) continue;
      // The newest year is partial: most 401(k)s file by July, health plans often on extension.
      if (lag === 0 && year === o.newest && o.newestFiled < 1) {
        const share = plan.kind === 'pension' ? Math.min(1, o.newestFiled * 1.3) : o.newestFiled * 0.75;
        if (draw(j, plan.i, year, 3) >= share) continue;
      }
      const fy = finalYearOf(j, plan);
      const successor = planYear > fy;
      const pn = pad(plan.pn + (successor ? 1 : 0), 3);
      const base = { j, small, year, planYear, lag, sponsor, plan, pn, final: planYear === fy, initial: planYear === fy + 1 || 2009 + (combine(j, 77) % 20) === planYear };
      const amended = lag ? draw(j, plan.i, planYear, 4) < VARIETY_RATES.amendAfterLate : draw(j, plan.i, planYear, 5) < VARIETY_RATES.amended;
      for (let version = 0; version <= (amended ? 1 : 0); version++) {
        out.push({ ...base, version, ack: ackOf(year + 1, j, version + 10 * plan.i + 100 * lag, small) });
      }
    }
  }
  return out;
}

const dateOf = (y: number, m: number, d: number) => `${y}-${pad(m, 2)}-${pad(d, 2)}`;

function planDates(f: VFiling): { begin: string; end: string } {
  const m = f.sponsor.month;
  if (m === 1) return { begin: dateOf(f.planYear, 1, 1), end: dateOf(f.planYear, 12, 31) };
  const endDay = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][(m + 10) % 12];
  return { begin: dateOf(f.planYear, m, 1), end: dateOf(f.planYear + 1, m - 1, endDay) };
}

function receivedOf(rng: Rng, f: VFiling, extension: boolean): string {
  const y = f.year + 1;
  if (f.lag) return dateOf(y, rng.int(1, 12), rng.int(1, 28));
  if (f.version > 0) return dateOf(y, rng.int(11, 12), rng.int(1, 28));
  return extension ? dateOf(y, rng.int(8, 10), rng.int(1, 14)) : dateOf(y, rng.int(3, 7), rng.int(1, 28));
}

const signedAt = (rng: Rng, year: number) => `${year + 1}-07-${pad(rng.int(1, 28), 2)}T${pad(rng.int(8, 18), 2)}:${pad(rng.int(0, 59), 2)}:${pad(rng.int(0, 59), 2)}-0500`;

/** Participants of a plan: active at the beginning and end of the year, and the rest. */
function counts(f: VFiling, rng: Rng): { boy: number; activeBoy: number; active: number; retired: number; separated: number; total: number; accounts: number } {
  const s = f.sponsor;
  const activeBoy = Math.max(1, Math.round(participantsIn(s, f.planYear - 1, rng) * f.plan.size * (f.plan.kind === 'pension' ? 0.8 : 1)));
  const active = f.final ? 0 : Math.max(1, Math.round(participantsIn(s, f.planYear, rng) * f.plan.size * (f.plan.kind === 'pension' ? 0.8 : 1))) + f.version * 3;
  const retired = f.final ? 0 : Math.round(active * (f.plan.kind === 'pension' ? rng.range(0.02, 0.1) : rng.range(0, 0.03)));
  const separated = f.final ? 0 : f.plan.kind === 'pension' ? Math.round(active * rng.range(0.1, 0.4)) : 0;
  const boy = Math.round(activeBoy * (f.plan.kind === 'pension' ? rng.range(1.1, 1.5) : rng.range(1, 1.04)));
  return { boy, activeBoy, active, retired, separated, total: active + retired + separated, accounts: f.plan.kind === 'pension' ? active + separated : 0 };
}

const WELFARE_CODES = ['4A', '4B', '4D', '4E', '4F', '4H', '4L', '4Q'];

/** Welfare codes of a plan: from its contracts, plus medical for self-funded plans. */
function welfareCodes(w: World, f: VFiling): string {
  const codes = new Set<string>();
  if (f.plan.funding === 'self' || f.plan.funding === 'trust') codes.add('4A');
  for (const c of contractSpecs(w, f)) for (const l of c.lines) if (l.code) codes.add(l.code);
  if (!codes.size) codes.add('4A');
  return WELFARE_CODES.filter((c) => codes.has(c)).join('');
}

function fundingBoxes(plan: VPlan): Record<string, string> {
  const b = (ins: boolean, trust: boolean, gen: boolean, p: 'FUNDING' | 'BENEFIT') => ({ [`${p}_INSURANCE_IND`]: ins ? '1' : '', [`${p}_TRUST_IND`]: trust ? '1' : '', [`${p}_GEN_ASSET_IND`]: gen ? '1' : '' });
  if (plan.kind === 'pension') return { ...b(plan.annuity, true, false, 'FUNDING'), ...b(plan.annuity, true, false, 'BENEFIT') };
  switch (plan.funding) {
    case 'insured': return { ...b(true, false, false, 'FUNDING'), ...b(true, false, false, 'BENEFIT') };
    case 'insured+general': return { ...b(true, false, true, 'FUNDING'), ...b(true, false, true, 'BENEFIT') };
    case 'self': return { ...b(false, false, true, 'FUNDING'), ...b(false, false, true, 'BENEFIT') };
    case 'trust': return { ...b(false, true, false, 'FUNDING'), ...b(true, true, false, 'BENEFIT') };
    case 'general-insured': return { ...b(false, false, true, 'FUNDING'), ...b(true, false, true, 'BENEFIT') };
  }
}

function planName(f: VFiling): string {
  const s = f.sponsor;
  const succ = f.pn !== pad(f.plan.pn, 3) ? ' II' : '';
  if (s.entity === '1') return `${s.name.replace('BOARD OF TRUSTEES ', '')} ${f.plan.kind === 'welfare' ? 'HEALTH AND WELFARE FUND' : 'PENSION FUND'}`;
  if (f.plan.kind === 'pension') return `${s.name} ${f.j % 7 === 0 ? '403(B) RETIREMENT PLAN' : '401(K) PROFIT SHARING PLAN'}${succ}`;
  return `${s.name} ${f.j % 3 === 0 ? 'EMPLOYEE BENEFIT PLAN' : 'HEALTH AND WELFARE PLAN'}${succ}`;
}

/** A full-form (F_5500) row with the variety of real filings. */
export function vFullFormRow(w: World, f: VFiling): GenRow {
  const s = f.sponsor;
  const rng = rowRng(combine(w.sponsorKey, f.planYear * 4 + f.plan.i), f.j, 31);
  const n = counts(f, rng);
  const extension = rng.chance(0.3);
  const { begin, end } = planDates(f);
  const contracts = contractSpecs(w, f).length;
  const adminSame = !s.adminOrg && rng.chance(0.6);
  const pension = f.plan.kind === 'pension';
  return {
    cp1252: rng.chance(0.5),
    cells: {
      ACK_ID: f.ack, FORM_PLAN_YEAR_BEGIN_DATE: begin, FORM_TAX_PRD: end, TYPE_PLAN_ENTITY_CD: s.entity,
      INITIAL_FILING_IND: f.initial ? '1' : '', AMENDED_IND: f.version ? '1' : '', FINAL_FILING_IND: f.final ? '1' : '',
      COLLECTIVE_BARGAIN_IND: s.entity === '1' ? '1' : '', EXT_AUTOMATIC_IND: extension ? '1' : '', F5558_APPLICATION_FILED_IND: !extension && rng.chance(0.1) ? '1' : '',
      DFVC_PROGRAM_IND: f.lag && rng.chance(0.5) ? '1' : '',
      PLAN_NAME: planName(f), SPONS_DFE_PN: f.pn, PLAN_EFF_DATE: `${1980 + (f.j % 40)}-01-01`, SPONSOR_DFE_NAME: s.name,
      SPONS_DFE_DBA_NAME: s.dba, SPONS_DFE_CARE_OF_NAME: s.careOf,
      SPONS_DFE_MAIL_US_ADDRESS1: s.mail.street, SPONS_DFE_MAIL_US_ADDRESS2: s.mail.street2, SPONS_DFE_MAIL_US_CITY: s.mail.city, SPONS_DFE_MAIL_US_STATE: s.mail.state, SPONS_DFE_MAIL_US_ZIP: s.mail.zip,
      SPONS_DFE_LOC_US_ADDRESS1: s.location?.street ?? '', SPONS_DFE_LOC_US_CITY: s.location?.city ?? '', SPONS_DFE_LOC_US_STATE: s.location?.state ?? '', SPONS_DFE_LOC_US_ZIP: s.location?.zip ?? '',
      SPONS_DFE_EIN: s.ein, SPONS_DFE_PHONE_NUM: s.phone, BUSINESS_CODE: s.businessCode,
      ADMIN_NAME: adminSame ? '' : s.adminOrg || s.adminSignerVariant.replace(/^\/S\/ /, '').replace(/,.*$/, ''),
      ADMIN_CARE_OF_NAME: s.adminOrg && rng.chance(0.2) ? `C/O ${s.adminSigner}` : '',
      ADMIN_US_ADDRESS1: adminSame ? '' : s.adminOrg ? street(rng) : s.street, ADMIN_US_CITY: adminSame ? '' : s.city, ADMIN_US_STATE: adminSame ? '' : s.state, ADMIN_US_ZIP: adminSame ? '' : s.zip,
      ADMIN_EIN: s.adminOrg ? String(400_000_000 + (hashString(s.adminOrg) % 99_999_999)) : adminSame ? '' : s.ein,
      ADMIN_PHONE_NUM: adminSame ? '' : s.phone, ADMIN_NAME_SAME_SPON_IND: adminSame ? '1' : '', ADMIN_ADDRESS_SAME_SPON_IND: adminSame ? '1' : '',
      ADMIN_SIGNED_DATE: signedAt(rng, f.year), ADMIN_SIGNED_NAME: s.adminSignerVariant,
      SPONS_SIGNED_DATE: signedAt(rng, f.year), SPONS_SIGNED_NAME: s.sponsorSignerVariant,
      TOT_PARTCP_BOY_CNT: String(n.boy), TOT_ACTIVE_PARTCP_CNT: String(n.active), TOT_ACT_PARTCP_BOY_CNT: String(n.activeBoy),
      RTD_SEP_PARTCP_RCVG_CNT: String(n.retired), RTD_SEP_PARTCP_FUT_CNT: pension ? String(n.separated) : '', SUBTL_ACT_RTD_SEP_CNT: String(n.active + n.retired + n.separated),
      BENEF_RCVG_BNFT_CNT: pension ? '0' : '', TOT_ACT_RTD_SEP_BENEF_CNT: String(n.total), PARTCP_ACCOUNT_BAL_CNT: pension ? String(n.accounts) : '',
      PARTCP_ACCOUNT_BAL_CNT_BOY: pension ? String(Math.round(n.boy * 0.95)) : '',
      CONTRIB_EMPLRS_CNT: s.entity === '1' || s.entity === '3' ? String(rng.int(3, 400)) : '',
      TYPE_PENSION_BNFT_CODE: pension ? (f.j % 7 === 0 ? '2L2M' : rng.pick(['2E2F2G2J2K3D', '2E2J2K2T3H', '2A2E2F2G2J2K2T3D3H'])) : '',
      TYPE_WELFARE_BNFT_CODE: pension ? '' : welfareCodes(w, f),
      ...fundingBoxes(f.plan),
      SCH_H_ATTACHED_IND: pension || f.plan.funding === 'trust' ? '1' : '', SCH_C_ATTACHED_IND: pension && n.total >= 100 ? '1' : '',
      SCH_MEP_ATTACHED_IND: s.entity === '3' ? '1' : '',
      SCH_A_ATTACHED_IND: contracts ? '1' : '', NUM_SCH_A_ATTACHED_CNT: String(contracts),
      FILING_STATUS: 'FILING_RECEIVED', DATE_RECEIVED: receivedOf(rng, f, extension),
      VALID_ADMIN_SIGNATURE: 'Y', VALID_SPONSOR_SIGNATURE: 'Y',
      PREPARER_FIRM_NAME: s.adminOrg && !s.adminOrg.startsWith('BOARD') && !s.adminOrg.startsWith('ADMIN') ? s.adminOrg : '',
    },
  };
}

/** A DFE filing: entity code 4 with its kind (master trust, CCT, PSA, 103-12 IE, GIA). */
export function vDfeRow(year: number, k: number): GenRow {
  const kind = DFE_KINDS[k % DFE_KINDS.length];
  const n = `${DFE_NAMES[kind]} ${k}`;
  return {
    cp1252: false,
    cells: {
      ACK_ID: `${year + 1}0601000000P05${pad(k, 10)}000`, FORM_PLAN_YEAR_BEGIN_DATE: `${year}-01-01`, FORM_TAX_PRD: `${year}-12-31`,
      TYPE_PLAN_ENTITY_CD: '4', TYPE_DFE_PLAN_ENTITY_CD: kind, PLAN_NAME: n, SPONS_DFE_PN: pad(1 + (k % 99), 3), SPONSOR_DFE_NAME: `FIRST NATIONAL TRUST CO ${k}`,
      SPONS_DFE_EIN: String(900_000_000 + k), DFE_SIGNED_NAME: `JAMES TRUSTEE ${k}`, DFE_SIGNED_DATE: `${year + 1}-06-01T10:00:00-0500`,
      DATE_RECEIVED: `${year + 1}-06-01`, FILING_STATUS: 'FILING_RECEIVED', VALID_DFE_SIGNATURE: 'Y',
    },
  };
}

/** A short-form (F_5500_SF) row with the variety of real filings. */
export function vShortFormRow(w: World, f: VFiling): GenRow {
  const s = f.sponsor;
  const rng = rowRng(combine(w.sponsorKey, f.planYear * 4 + f.plan.i), f.j, 31);
  const n = counts(f, rng);
  const extension = rng.chance(0.3);
  const pension = f.plan.kind === 'pension';
  const { begin, end } = planDates(f);
  const adminSame = !s.adminOrg && rng.chance(0.7);
  const assets = pension && !f.final ? Math.round(Math.max(1, n.active) * rng.logNormal(40_000, 0.8)) : 0;
  return {
    cp1252: rng.chance(0.5),
    cells: {
      ACK_ID: f.ack, SF_PLAN_YEAR_BEGIN_DATE: begin, SF_TAX_PRD: end, SF_PLAN_ENTITY_CD: s.entity,
      SF_INITIAL_FILING_IND: f.initial ? '1' : '', SF_AMENDED_IND: f.version ? '1' : '', SF_FINAL_FILING_IND: f.final ? '1' : '', SF_EXT_AUTOMATIC_IND: extension ? '1' : '',
      SF_DFVC_PROGRAM_IND: f.lag && rng.chance(0.5) ? '1' : '',
      SF_PLAN_NAME: `${s.name} ${pension ? '401(K) PLAN' : 'GROUP HEALTH PLAN'}${f.pn !== pad(f.plan.pn, 3) ? ' II' : ''}`, SF_PLAN_NUM: f.pn, SF_PLAN_EFF_DATE: `${1990 + (f.j % 30)}-01-01`, SF_SPONSOR_NAME: s.name,
      SF_SPONSOR_DFE_DBA_NAME: s.dba, SF_SPONS_CARE_OF_NAME: s.careOf,
      SF_SPONS_US_ADDRESS1: s.mail.street, SF_SPONS_US_ADDRESS2: s.mail.street2, SF_SPONS_US_CITY: s.mail.city, SF_SPONS_US_STATE: s.mail.state, SF_SPONS_US_ZIP: s.mail.zip,
      SF_SPONS_LOC_US_ADDRESS1: s.location?.street ?? '', SF_SPONS_LOC_US_CITY: s.location?.city ?? '', SF_SPONS_LOC_US_STATE: s.location?.state ?? '', SF_SPONS_LOC_US_ZIP: s.location?.zip ?? '',
      SF_SPONS_EIN: s.ein, SF_SPONS_PHONE_NUM: s.phone, SF_BUSINESS_CODE: s.businessCode,
      SF_ADMIN_NAME: adminSame ? '' : s.adminOrg || s.adminSigner, SF_ADMIN_EIN: s.adminOrg ? String(400_000_000 + (hashString(s.adminOrg) % 99_999_999)) : '',
      SF_ADMIN_US_ADDRESS1: adminSame ? '' : s.street, SF_ADMIN_US_CITY: adminSame ? '' : s.city, SF_ADMIN_US_STATE: adminSame ? '' : s.state, SF_ADMIN_US_ZIP: adminSame ? '' : s.zip,
      SF_ADMIN_PHONE_NUM: adminSame ? '' : s.phone, SF_ADMIN_NAME_SAME_SPON_IND: adminSame ? '1' : '', SF_ADMIN_ADDRSS_SAME_SPON_IND: adminSame ? '1' : '',
      SF_TOT_PARTCP_BOY_CNT: String(n.boy), SF_TOT_ACT_PARTCP_BOY_CNT: String(n.activeBoy), SF_TOT_ACT_PARTCP_EOY_CNT: String(n.active),
      SF_TOT_ACT_RTD_SEP_BENEF_CNT: String(n.total), SF_PARTCP_ACCOUNT_BAL_CNT: pension ? String(n.accounts) : '',
      SF_TYPE_PENSION_BNFT_CODE: pension ? rng.pick(['2E2J2K', '2E2F2G2J2K3D', '2J2K2T3H']) : '', SF_TYPE_WELFARE_BNFT_CODE: pension ? '' : rng.pick(['4A', '4A4D', '4A4B4D4E']),
      SF_NET_ASSETS_EOY_AMT: pension ? String(assets) : '', SF_NET_ASSETS_BOY_AMT: pension ? String(Math.round(assets * rng.range(0.8, 1.1))) : '',
      SF_401K_PLAN_IND: pension ? '1' : '',
      SF_ADMIN_SIGNED_DATE: signedAt(rng, f.year), SF_ADMIN_SIGNED_NAME: s.adminSignerVariant,
      SF_SPONS_SIGNED_DATE: signedAt(rng, f.year), SF_SPONS_SIGNED_NAME: s.sponsorSignerVariant,
      FILING_STATUS: 'FILING_RECEIVED', DATE_RECEIVED: receivedOf(rng, f, extension),
      VALID_ADMIN_SIGNATURE: 'Y', VALID_SPONSOR_SIGNATURE: 'Y',
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Schedule A
// ---------------------------------------------------------------------------------------------

interface Line {
  indicator: string;
  code: string;
  /** Premium per covered person and persons per participant. */
  premium: number;
  persons: number;
}

const MEDICAL: Line = { indicator: 'WLFR_BNFT_HEALTH_IND', code: '4A', premium: 7000, persons: 1.6 };
const WELFARE_LINES: readonly (readonly [Line, number])[] = [
  [{ indicator: 'WLFR_BNFT_DENTAL_IND', code: '4D', premium: 550, persons: 1.5 }, 0.45],
  [{ indicator: 'WLFR_BNFT_VISION_IND', code: '4E', premium: 110, persons: 1.5 }, 0.3],
  [{ indicator: 'WLFR_BNFT_LIFE_INSUR_IND', code: '4B', premium: 240, persons: 1 }, 0.55],
  [{ indicator: 'WLFR_BNFT_LONG_TERM_DISAB_IND', code: '4H', premium: 300, persons: 1 }, 0.4],
  [{ indicator: 'WLFR_BNFT_TEMP_DISAB_IND', code: '4F', premium: 260, persons: 1 }, 0.25],
];
const STOP_LOSS: Line = { indicator: 'WLFR_BNFT_STOP_LOSS_IND', code: '', premium: 900, persons: 1 };
const DRUG: Line = { indicator: 'WLFR_BNFT_DRUG_IND', code: '4A', premium: 1200, persons: 1.6 };
const MEDICAL_KINDS = ['WLFR_BNFT_HMO_IND', 'WLFR_BNFT_PPO_IND', 'WLFR_BNFT_INDEMNITY_IND'];

/** Group annuity carriers of 401(k)/403(b) plans, beside the welfare carriers. */
const ANNUITY_CARRIERS = ['PRINCIPAL LIFE INSURANCE COMPANY', 'VOYA RETIREMENT INSURANCE AND ANNUITY COMPANY', 'JOHN HANCOCK LIFE INSURANCE COMPANY (U.S.A.)', 'TRANSAMERICA LIFE INSURANCE COMPANY', 'MASSACHUSETTS MUTUAL LIFE INSURANCE COMPANY', 'LINCOLN NATIONAL LIFE INSURANCE COMPANY', 'NATIONWIDE LIFE INSURANCE COMPANY', 'AMERICAN UNITED LIFE INSURANCE COMPANY', 'EQUITABLE FINANCIAL LIFE INSURANCE COMPANY', 'METROPOLITAN LIFE INSURANCE COMPANY'];
/** Broker-dealers and advisers paid on group annuity contracts. */
const BROKER_DEALERS = ['LPL FINANCIAL LLC', 'CETERA ADVISOR NETWORKS LLC', 'COMMONWEALTH FINANCIAL NETWORK', 'AMERIPRISE FINANCIAL SERVICES, LLC', 'RAYMOND JAMES FINANCIAL SERVICES, INC.', 'EDWARD D. JONES & CO., L.P.', 'WELLS FARGO CLEARING SERVICES, LLC', 'MORGAN STANLEY SMITH BARNEY LLC', 'OSAIC WEALTH, INC.', 'NORTHWESTERN MUTUAL INVESTMENT SERVICES, LLC'];

/** A carrier: its index keeps one NAIC code and EIN; its name is written in variants. */
function carrierOf(rng: Rng, annuity: boolean): { name: string; naic: string; ein: string } {
  const all = annuity ? ANNUITY_CARRIERS : CARRIERS.map((c) => c.toUpperCase());
  const i = Math.floor(rng.next() * all.length);
  const base = all[i];
  const key = hashString(`${annuity ? 'a' : 'w'}${i}`);
  const v = rng.next();
  let name = base;
  if (!annuity) {
    if (v < 0.3) name = `${base} INSURANCE COMPANY`;
    else if (v < 0.45) name = `${base} INS CO`;
    else if (v < 0.55) name = `${base} LIFE INSURANCE COMPANY`;
    else if (v < 0.6) name = `${base}, INC.`;
  } else if (v < 0.25) name = base.replace('INSURANCE COMPANY', 'INS CO');
  else if (v < 0.35) name = base.replace(/ COMPANY$/, ' CO.');
  return { name, naic: pad(10_000 + (key % 89_999), 5), ein: String(100_000_000 + (key % 899_999_999)) };
}

interface ContractSpec {
  k: number;
  pension: boolean;
  lines: Line[];
  carrierKey: number;
}

/** The Schedule A contracts of a filing (pure: the F_5500 row counts them, Schedule A writes them). */
export function contractSpecs(w: World, f: VFiling): ContractSpec[] {
  const rng = rowRng(combine(w.sponsorKey, 0xa11), f.j * 4 + f.plan.i, 40);
  const specs: ContractSpec[] = [];
  if (f.plan.kind === 'pension') {
    if (f.plan.annuity) specs.push({ k: 0, pension: true, lines: [], carrierKey: 0 });
    if (f.plan.annuity && rng.chance(0.15)) specs.push({ k: 1, pension: true, lines: [], carrierKey: 1 });
    return specs;
  }
  const insuredMedical = f.plan.funding === 'self' ? false : f.plan.funding === 'trust' ? rng.chance(0.3) : rng.chance(0.9);
  if (insuredMedical) {
    const m: Line[] = [MEDICAL];
    if (rng.chance(0.3)) m.push({ ...MEDICAL, indicator: rng.pick(MEDICAL_KINDS) });
    if (rng.chance(0.15)) m.push(DRUG);
    specs.push({ k: specs.length, pension: false, lines: m, carrierKey: 10 });
  }
  if (f.plan.funding === 'self' && rng.chance(0.65)) specs.push({ k: specs.length, pension: false, lines: [STOP_LOSS], carrierKey: 11 });
  // Life, LTD and STD often on one contract with one carrier.
  const others = WELFARE_LINES.filter(([, p]) => rng.chance(p)).map(([l]) => l);
  const bundle = rng.chance(0.3);
  const group = others.filter((l) => ['4B', '4H', '4F'].includes(l.code));
  for (const l of others) {
    if (bundle && group.length > 1 && group.includes(l)) {
      if (l === group[0]) specs.push({ k: specs.length, pension: false, lines: group, carrierKey: 20 });
      continue;
    }
    specs.push({ k: specs.length, pension: false, lines: [l], carrierKey: 30 + specs.length });
  }
  if (!specs.length && f.plan.funding !== 'self') specs.push({ k: 0, pension: false, lines: [rng.chance(0.5) ? WELFARE_LINES[2][0] : MEDICAL], carrierKey: 40 });
  return specs;
}

/** The Schedule A contracts of a filing with their Part I lines. */
export function vContractsOf(w: World, f: VFiling): { contract: GenRow; brokers: GenRow[] }[] {
  const s = f.sponsor;
  const n = counts(f, rowRng(combine(w.sponsorKey, f.planYear * 4 + f.plan.i), f.j, 31));
  const active = Math.max(1, n.active || n.activeBoy);
  const rng = rowRng(combine(w.sponsorKey, f.planYear * 4 + f.plan.i + 1), f.j, 41);
  const { begin, end } = planDates(f);
  const month = 1 + (combine(f.j, 5) % 12);
  const era = (switchYear: number) => (f.planYear >= switchYear ? 1 : 0);
  const firmRng = rowRng(combine(w.firmKey, era(s.brokerSwitchYear)), f.j);
  const firm = pickFirm(w, firmRng);
  const office = firmRng.int(0, firmOf(w, firm).offices - 1);
  return contractSpecs(w, f).map((spec) => {
    const carrier = carrierOf(rowRng(combine(w.sponsorKey, 0xca + era(s.carrierSwitchYear)), f.j * 64 + spec.carrierKey), spec.pension);
    const common: Record<string, string> = {
      ACK_ID: f.ack, FORM_ID: String(spec.k + 1), SCH_A_PLAN_YEAR_BEGIN_DATE: begin, SCH_A_PLAN_YEAR_END_DATE: end,
      SCH_A_PLAN_NUM: f.pn, SCH_A_EIN: s.ein, INS_CARRIER_NAME: carrier.name, INS_CARRIER_EIN: carrier.ein,
      INS_CARRIER_NAIC_CODE: carrier.naic, INS_CONTRACT_NUM: `${spec.pension ? 'GA' : 'G'}${pad(f.j, 8)}${spec.k}`,
      INS_POLICY_FROM_DATE: `${f.planYear}-${pad(month, 2)}-01`, INS_POLICY_TO_DATE: `${f.planYear + 1}-${pad(month, 2)}-01`,
    };
    let brokers: { commission: number; fee: number }[];
    let cells: Record<string, string>;
    if (spec.pension) {
      const balance = Math.round(active * rng.logNormal(35_000, 0.7));
      const prev = Math.round(balance * rng.range(0.75, 0.95));
      const contrib = Math.round(active * rng.logNormal(6_000, 0.4));
      const paid = Math.round(prev * rng.range(0.03, 0.1));
      const charges = Math.round(balance * rng.range(0.002, 0.008));
      const interest = balance - prev - contrib + paid + charges;
      const allocated = rng.chance(0.35);
      const unalloc = rng.pick(['UNALLOC_CONTRACTS_DEP_ADM_IND', 'UNAL_CONTRAC_IMM_PART_GUAR_IND', 'UNAL_CONTRACTS_GUAR_INVEST_IND', 'UNALLOC_CONTRACTS_OTHER_IND']);
      const comm = Math.round(contrib * rng.range(0.002, 0.01));
      brokers = brokerAmounts(rng, comm, 0);
      const sep = Math.round(balance * rng.range(0.5, 0.95));
      cells = {
        ...common, INS_PRSN_COVERED_EOY_CNT: String(n.accounts || active),
        PENSION_EOY_GEN_ACCT_AMT: String(balance - sep), PENSION_EOY_SEP_ACCT_AMT: String(sep),
        ...(allocated
          ? { ALLOC_CONTRACTS_GROUP_IND: '1', PENSION_BASIS_RATES_TEXT: 'ASSET BASED FEE', PENSION_PREM_PAID_TOT_AMT: String(contrib), PENSION_CONTRACT_COST_AMT: String(charges) }
          : {
            [unalloc]: '1', UNALLOC_CONTRACTS_OTHER_TEXT: unalloc === 'UNALLOC_CONTRACTS_OTHER_IND' ? 'SEPARATE ACCOUNT GROUP ANNUITY' : '',
            PENSION_END_PREV_BAL_AMT: String(prev), PENSION_CONTRIB_DEP_AMT: String(contrib), PENSION_INT_CR_DUR_YR_AMT: String(interest),
            PENSION_TOT_ADDITIONS_AMT: String(contrib + interest), PENSION_TOT_BAL_ADDN_AMT: String(prev + contrib + interest),
            PENSION_BNFTS_DSBRSD_AMT: String(paid), PENSION_ADMIN_CHRG_AMT: String(charges), PENSION_TOT_DED_AMT: String(paid + charges), PENSION_EOY_BAL_AMT: String(balance),
          }),
      };
    } else {
      const persons = Math.round(active * spec.lines[0].persons * rng.range(0.8, 1.2));
      const premium = Math.round(spec.lines.reduce((t, l) => t + l.premium, 0) * active * rng.logNormal(1, 0.3));
      const rate = spec.lines[0] === STOP_LOSS ? rng.range(0, 0.03) : rng.range(0.02, 0.08);
      brokers = brokerAmounts(rng, Math.round(premium * rate), rng.chance(0.1) ? rng.int(500, 5000) : 0);
      const experience = spec.lines[0] !== STOP_LOSS && rng.chance(active > 500 ? 0.5 : VARIETY_RATES.experienceRated * 0.5);
      const commissions = brokers.reduce((t, b) => t + b.commission, 0);
      const fees = brokers.reduce((t, b) => t + b.fee, 0);
      const nineA = rng.chance(VARIETY_RATES.zeroNineA) ? '0' : '';
      cells = {
        ...common, INS_PRSN_COVERED_EOY_CNT: String(persons),
        ...Object.fromEntries(spec.lines.map((l) => [l.indicator, '1'])),
        ...(experience
          ? {
            WLFR_PREMIUM_RCVD_AMT: String(premium), WLFR_UNPAID_DUE_AMT: '0', WLFR_TOT_EARNED_PREM_AMT: String(Math.round(premium * rng.range(0.97, 1.02))),
            WLFR_CLAIMS_PAID_AMT: String(Math.round(premium * rng.range(0.6, 0.95))), WLFR_INCURRED_CLAIM_AMT: String(Math.round(premium * rng.range(0.6, 0.95))),
            WLFR_RET_COMMISSIONS_AMT: String(commissions), WLFR_RET_ADMIN_AMT: String(Math.round(premium * 0.08)), WLFR_RET_TOT_AMT: String(commissions + Math.round(premium * 0.08)),
          }
          : {
            WLFR_PREMIUM_RCVD_AMT: nineA, WLFR_TOT_EARNED_PREM_AMT: nineA,
            WLFR_TOT_CHARGES_PAID_AMT: String(premium), WLFR_ACQUIS_COST_AMT: rng.chance(0.8) ? String(commissions + fees) : '',
          }),
      };
    }
    const commissions = brokers.reduce((t, b) => t + b.commission, 0);
    const fees = brokers.reduce((t, b) => t + b.fee, 0);
    cells.INS_BROKER_COMM_TOT_AMT = String(commissions);
    cells.INS_BROKER_FEES_TOT_AMT = fees ? String(fees) : rng.chance(0.5) ? '0' : '';
    const lines = brokers.map((b, i) => vBrokerLine(w, f, spec, i, i === 0 ? firm : pickFirm(w, rng), i === 0 ? office : 0, b.commission, b.fee));
    return { contract: { cp1252: false, cells }, brokers: lines };
  });
}

/** Commissions and fees split over 0-3 Part I lines. */
function brokerAmounts(rng: Rng, commission: number, fee: number): { commission: number; fee: number }[] {
  const count = rng.chance(0.15) ? 0 : rng.chance(0.12) ? 2 : rng.chance(0.03) ? 3 : 1;
  return Array.from({ length: count }, (_, i) => ({ commission: Math.round(commission / count), fee: i === 0 ? fee : 0 }));
}

const NAME_TAGS = [' US LLC(NY)', ' LLC (CA)', ' INC.(MA)', ' OF TEXAS', ' US LLC'];
const LONG_TAILS = [' INSURANCE SERVICES OF NEW ENGLAND LLC', ' EMPLOYEE BENEFITS CONSULTING GROUP INC', ' RISK MANAGEMENT AND INSURANCE SERVICES'];

/** A Part I line: firms, agents, placeholders, chargebacks, truncated names, address variants. */
function vBrokerLine(w: World, f: VFiling, spec: ContractSpec, b: number, firm: number, office: number, commission: number, fee: number): GenRow {
  const rng = rowRng(combine(w.firmKey, f.planYear * 8 + f.version + f.plan.i * 3), f.j * 16 + spec.k * 4 + b, 5);
  const code = spec.pension ? (rng.chance(0.6) ? '1' : '7') : rng.chance(0.88) ? '3' : '4';
  const base = { ACK_ID: f.ack, FORM_ID: String(spec.k + 1), ROW_ORDER: String(b + 1), INS_BROKER_CODE: code };
  const r = rng.next();
  if (r < VARIETY_RATES.placeholder) {
    return { cp1252: false, cells: { ...base, INS_BROKER_NAME: rng.pick(['NONE', 'N/A', 'NOT APPLICABLE', 'NA']), INS_BROKER_COMM_PD_AMT: '0', INS_BROKER_FEES_PD_AMT: '' } };
  }
  const amount = rng.chance(VARIETY_RATES.chargeback) ? -Math.max(1, Math.round(commission * rng.range(0.05, 0.5))) : commission;
  const money = { INS_BROKER_COMM_PD_AMT: String(amount), INS_BROKER_FEES_PD_AMT: fee ? String(fee) : '', INS_BROKER_FEES_PD_TEXT: fee ? rng.pick(['CONSULTING FEE', 'ADMIN FEE', '']) : '' };
  if (spec.pension) {
    const bd = BROKER_DEALERS[firm % BROKER_DEALERS.length];
    const addr = addressVariant(rng, officeOf(w, firm, office));
    return { cp1252: false, cells: { ...base, INS_BROKER_NAME: bd.slice(0, 35), ...addr, ...money } };
  }
  if (r < VARIETY_RATES.placeholder + VARIETY_RATES.agent) {
    const first = up(rng.pick(FIRST_NAMES));
    const last = rng.chance(0.1) ? rng.pick(PARTICLES) : up(lastName(rng));
    const name = rng.chance(0.2) ? `${last}, ${first}` : rng.chance(0.3) ? `${first} ${String.fromCharCode(65 + rng.int(0, 25))} ${last}` : `${first} ${last}`;
    const addr = { INS_BROKER_US_ADDRESS1: street(rng), INS_BROKER_US_CITY: f.sponsor.city, INS_BROKER_US_STATE: f.sponsor.state, INS_BROKER_US_ZIP: f.sponsor.zip };
    return { cp1252: false, cells: { ...base, INS_BROKER_NAME: name.slice(0, 35), ...addr, ...money } };
  }
  const fr = rowRng(w.firmKey, firm, 9);
  let name = firmOf(w, firm).name;
  if (fr.chance(VARIETY_RATES.longName)) name = `${name.replace(/,? (INC\.?|LLC)$/, '')}${fr.pick(LONG_TAILS)}`;
  else if (firm < w.firms * 0.02 && rng.chance(VARIETY_RATES.nameTag * 5)) name = `${name.replace(/,? (INC\.?|LLC)$/, '')}${rng.pick(NAME_TAGS)}`;
  else if (rng.chance(VARIETY_RATES.nameTag)) name = `${name.replace(/,? (INC\.?|LLC)$/, '')}${rng.pick(NAME_TAGS)}`;
  // Cut at 35 characters as the DOL's field is, mid-word when it falls there.
  name = (name.length > 35 ? name : nameVariant(rng, name)).slice(0, 35);
  const o = officeOf(w, firm, office);
  const addr = addressVariant(rng, o);
  const a = rng.next();
  if (a < VARIETY_RATES.lockbox) {
    const box = 1000 + (combine(firm, office) % 90_000);
    addr.INS_BROKER_US_ADDRESS1 = rng.pick([`LOCKBOX ${box}`, `PO BOX ${box}`, `P.O. BOX ${box} LOCKBOX`]);
    addr.INS_BROKER_US_ADDRESS2 = '';
  } else if (a < VARIETY_RATES.lockbox + VARIETY_RATES.floor && o.suite) {
    const floor = Math.max(1, Math.floor(Number(o.suite) / 100));
    const fl = rng.pick([`FL ${floor}`, `${floor}${floor === 1 ? 'ST' : floor === 2 ? 'ND' : floor === 3 ? 'RD' : 'TH'} FLOOR`, `FLOOR ${floor}`]);
    addr.INS_BROKER_US_ADDRESS1 = addr.INS_BROKER_US_ADDRESS1.replace(/, (SUITE|STE\.?|#).*$/, '');
    addr.INS_BROKER_US_ADDRESS2 = fl;
  } else if (a < VARIETY_RATES.lockbox + VARIETY_RATES.floor + VARIETY_RATES.careOfBroker) {
    addr.INS_BROKER_US_ADDRESS2 = addr.INS_BROKER_US_ADDRESS1;
    addr.INS_BROKER_US_ADDRESS1 = `C/O ${person(rng)}`;
  }
  return { cp1252: false, cells: { ...base, INS_BROKER_NAME: name, ...addr, ...money } };
}
