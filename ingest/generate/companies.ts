/**
 * Companies (plan sponsors). The core (industry, name, domain, city, size) is recomputed
 * by personnel rows; the rest of the row follows public Form 5500 patterns: a median
 * plan of about 16 participants with a heavy right tail, three quarters filing 5500-SF,
 * small plans fully insured and large ones often self-funded, January renewals.
 */
import { INDUSTRIES } from '../../mappings/industries.ts';
import { MONTHS } from '../../mappings/reference.ts';
import { benefitLines, carriersFor } from './carriers.ts';
import type { Ctx } from './context.ts';
import { dec2, int, keywords, type Row } from './format.ts';
import { officeId } from './offices.ts';
import { CITY_DMA, CITY_PICK, cityDma, cityName, cityState, phoneOf, zipOf } from './geo.ts';
import { companyName, domainOf, linkedinSlug } from './orgnames.ts';
import { fmix32, type Rng, rowRng, uuid, Weighted } from './prng.ts';
import { pickSignals, signalList } from './signals.ts';
import { INDUSTRY_PICK } from './words.ts';

export interface CompanyCore {
  /** Index into INDUSTRIES. */
  readonly industry: number;
  readonly name: string;
  /** The name without its legal suffix. */
  readonly base: string;
  readonly domain: string;
  /** Index into CITIES. */
  readonly city: number;
  readonly participants: number;
}

export function companyId(ctx: Ctx, j: number): string {
  return uuid(ctx.keys.companies ^ 0x3f, j);
}

/** Industries whose sponsors are much larger than the median (hospitals, schools, rail, ...). */
const SIZE_FACTOR: Record<string, number> = {
  '622': 25, '611': 4, '551': 4, '921': 8, '481': 6, '482': 10, '221': 5, '522': 2, '524': 1.5, '623': 3, '336': 2, '334': 2,
};

export function companyCore(ctx: Ctx, j: number): CompanyCore {
  const rng = rowRng(ctx.keys.companies, j, 0);
  const industry = INDUSTRY_PICK.pick(rng);
  const code = INDUSTRIES[industry].code;
  const city = CITY_PICK.pick(rng);
  // A given name (the tour's examples) replaces the generated one; the draw is made anyway so
  // every other value of the row, and of the rows after it, is what the seed makes.
  const drawn = companyName(rng, code, city);
  const { name, base } = ctx.named[j] ?? drawn;
  const domain = domainOf(rng, base, code);
  // 13.5 with the industry factors puts the overall median at about 16 participants.
  const median = 13.5 * (SIZE_FACTOR[code.slice(0, 3)] ?? 1);
  const participants = Math.min(250_000, Math.max(1, Math.round(rng.logNormal(median, 1.7))));
  return { industry, name, base, domain, city, participants };
}

/** Valid IRS EIN prefixes (campus and internet codes). */
const EIN_PREFIXES: readonly number[] = [
  ...range(1, 6), ...range(10, 16), ...range(20, 27), ...range(30, 39), ...range(40, 48), ...range(50, 68), ...range(71, 77),
  ...range(80, 88), ...range(90, 95), 98, 99,
];
function range(lo: number, hi: number): number[] {
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
}
const EIN_SPACE = EIN_PREFIXES.length * 10_000_000;

/**
 * A 9-digit EIN, unique per company index: a keyed permutation of the 2^32 integers,
 * cycle-walked until it lands in the EIN space, is a permutation of that space.
 */
export function einOf(ctx: Ctx, j: number): string {
  let x = j % EIN_SPACE;
  do x = fmix32((x ^ ctx.einOffset) >>> 0);
  while (x >= EIN_SPACE);
  const prefix = EIN_PREFIXES[Math.floor(x / 10_000_000)];
  return String(prefix).padStart(2, '0') + String(x % 10_000_000).padStart(7, '0');
}

const FILING_YEAR = new Weighted<number>([[2024, 72], [2023, 20], [2022, 8]]);
/** Renewal months: January dominates, then mid-year and quarter starts. */
const RENEWAL_WEIGHTS: Record<string, number> = { January: 45, July: 10, April: 8, October: 8, December: 5, June: 4, September: 4, November: 4 };
const RENEWAL = new Weighted<string>(MONTHS.map((m) => [m, RENEWAL_WEIGHTS[m] ?? 3] as const));
const OFFICE_COUNT_SMALL = new Weighted<number>([[0, 12], [1, 60], [2, 18], [3, 7], [4, 3]]);
const OFFICE_COUNT_LARGE = new Weighted<number>([[0, 3], [1, 37], [2, 30], [3, 19], [4, 11]]);
const PLAN_NAMES = new Weighted<string>([
  [' Health and Welfare Plan', 40], [' Employee Benefit Plan', 20], [' Group Health Plan', 15], [' Welfare Benefit Plan', 10],
  [' Cafeteria Plan', 5], [' Flexible Benefits Plan', 5], [' Health Plan', 5],
]);
const ADMIN_MAILBOXES = ['benefits', 'hr', 'admin', 'office', 'info', 'payroll', 'humanresources', 'hradmin', 'accounting'];
const COMPANY_SIGNALS = signalList([
  'late_filer', 'carrier_change', 'funding_change', 'high_cost_plan', 'likely_to_switch', 'renewal_window',
]);

/** Probability a plan of this size is self-funded. */
function selfFundedShare(p: number): number {
  return p < 50 ? 0.03 : p < 100 ? 0.06 : p < 200 ? 0.12 : p < 500 ? 0.25 : p < 1000 ? 0.5 : p < 5000 ? 0.7 : 0.85;
}

/** Offices serving a company: mostly offices in its own market. */
function brokerOfficesOf(ctx: Ctx, rng: Rng, city: number, large: boolean): number[] {
  const O = ctx.counts.brokerOffices;
  if (!O) return [];
  const L = ctx.layout;
  const k = (large ? OFFICE_COUNT_LARGE : OFFICE_COUNT_SMALL).pick(rng);
  const d = CITY_DMA[city];
  const start = L.dmaStart[d];
  const local = L.dmaStart[d + 1] - start;
  const out: number[] = [];
  for (let t = 0; t < k; t++) {
    for (let attempt = 0; attempt < 3; attempt++) {
      const o = local && rng.chance(0.75) ? L.dmaOffices[start + rng.int(0, local - 1)] : rng.int(0, O - 1);
      if (!out.includes(o)) {
        out.push(o);
        break;
      }
    }
  }
  return out;
}

export function companyRow(ctx: Ctx, j: number): Row {
  const core = companyCore(ctx, j);
  const rng = rowRng(ctx.keys.companies, j, 1);
  const p = core.participants;
  const large = p >= 500;

  const formType = p < 100 ? (rng.chance(0.86) ? '5500-SF' : '5500') : p < 121 && rng.chance(0.25) ? '5500-SF' : '5500';
  const employees = rng.chance(0.92) ? Math.ceil(p / rng.range(0.6, 0.95)) : Math.max(1, Math.round(p * rng.range(0.8, 1)));
  const selfFunded = rng.chance(selfFundedShare(p));
  const premiums = selfFunded ? p * rng.range(450, 1400) : p * rng.range(6000, 9000);
  // Growth from a prior-year headcount (whole participants, so small plans often show 0%).
  const prior = Math.max(1, Math.round(p * Math.exp(-(0.025 + 0.1 * rng.normal()))));
  const growth = rng.chance(0.9) ? Math.max(-75, ((p - prior) / prior) * 100) : null;
  // Schedule A (insurance lines, carriers, premiums) is missing for a few filers.
  const scheduleA = rng.chance(0.95);
  const lines = benefitLines(rng, selfFunded, large);
  const carriers = carriersFor(rng, lines, cityState(core.city));
  const has401k = rng.chance(p < 10 ? 0.3 : p < 100 ? 0.45 : 0.7);
  const assets = has401k ? Math.max(1000, p * rng.logNormal(38_000, 0.9)) : 0;
  const offices = brokerOfficesOf(ctx, rng, core.city, large);
  const officeIds = offices.map((o) => officeId(ctx, o));

  // About a fifth of sponsors carry signals, only those their data supports.
  const signals = rng.chance(0.2)
    ? pickSignals(rng, 1, [
        ...COMPANY_SIGNALS,
        ...(growth === null ? ['new_filer'] : []),
        ...(growth !== null && Math.abs(growth) > 20 ? ['headcount_change'] : []),
        ...(growth !== null && growth < 0 ? ['below_peer_growth'] : []),
        ...(offices.length ? ['broker_change'] : []),
      ])
    : [];

  return {
    id: companyId(ctx, j),
    company_name: core.name,
    ein: rng.chance(0.97) ? einOf(ctx, j) : '',
    website: rng.chance(0.85) ? (rng.chance(0.8) ? `https://www.${core.domain}` : `https://${core.domain}`) : '',
    company_industry: rng.chance(0.96) ? INDUSTRIES[core.industry].label : '',
    company_linkedin: rng.chance(0.8) ? `https://www.linkedin.com/company/${linkedinSlug(core.base)}` : '',
    city: cityName(core.city),
    state: cityState(core.city),
    zip: rng.chance(0.97) ? zipOf(rng, core.city) : '',
    dma: cityDma(core.city),
    phone_number: rng.chance(0.85) ? phoneOf(rng, core.city) : '',
    admin_email: rng.chance(0.78) ? `${rng.pick(ADMIN_MAILBOXES)}@${core.domain}` : '',
    plan_name: rng.chance(0.96) ? core.name + PLAN_NAMES.pick(rng) : '',
    form_type: formType,
    filing_year: String(FILING_YEAR.pick(rng)),
    total_premiums: scheduleA && rng.chance(0.96) ? int(premiums) : '',
    total_number_of_employees: rng.chance(0.96) ? String(employees) : '',
    participants: String(p),
    participant_growth: growth === null ? '' : dec2(growth),
    funding_status: rng.chance(0.97) ? (selfFunded ? 'Self-Funded' : 'Fully Insured') : '',
    renewal_month: rng.chance(0.96) ? RENEWAL.pick(rng) : '',
    benefit_types: scheduleA ? keywords(lines) : '',
    carriers: scheduleA && rng.chance(0.98) ? keywords(carriers) : '',
    plan_assets_401k: has401k ? int(assets) : '',
    broker_office_ids: keywords(officeIds),
    primary_broker_office_id: officeIds[0] ?? '',
    signals: keywords(signals),
    last_updated_at: ctx.days.ago(rng.int(0, ctx.days.span - 1)),
  };
}
