/**
 * Companies (one per sponsor EIN) and their contacts (signers and administrators) from the kept
 * filings, pure. A sponsor's row describes its latest imported plan year, combining all its
 * plans of that year; the year before, when imported, gives growth and the change signals.
 */
import { naturalId } from '../transform.ts';
import { companies } from '../../mappings/companies.ts';
import type { Doc } from '../../mappings/types.ts';
import { MONTHS } from '../../mappings/reference.ts';
import { BENEFITS, FLAG, STOP_LOSS_BIT, WELFARE_CODES, clampGrowth, type Collected, type KeptFiling } from './collect.ts';
import { dmaOf, industryOf, type SponsorBrokers } from './build-brokers.ts';
import { foldText, normalizeName } from '../../mappings/normalize.ts';
import { splitPersonName, stableId } from './resolve.ts';
import type { YearFacts } from './signals.ts';

export { WELFARE_CODES };

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const MEDICAL = 'Medical';
const STATUS = { insured: 'Fully Insured', self: 'Self-Funded' } as const;

/**
 * How a welfare plan provides each of its benefits (issue 36, item 6). Line 9b, the benefit
 * arrangement, says how benefits are provided; line 9a only how they are funded (an insured
 * plan often pays its premiums from general assets and ticks both). A stop-loss contract is
 * the strongest evidence that medical benefits are self-funded; a Schedule A contract covering
 * a benefit makes it insured; otherwise 9b decides (a trust or general assets without
 * insurance: self-funded), and when 9b is blank (years before it, short forms), 9a.
 */
export function planFunding(c: Collected, s: number): Map<string, string> {
  const out = new Map<string, string>();
  const flags = c.flags[s];
  if (!(flags & (FLAG.welfare | FLAG.welfareContract))) return out;
  const stopLoss = (c.contractBenefits[s] & STOP_LOSS_BIT) !== 0;
  const insured = c.contractBenefits[s] & ~STOP_LOSS_BIT;
  const selfArrangement = (flags & (FLAG.benefitTrust | FLAG.benefitGeneralAssets)) !== 0;
  const insuredArrangement = (flags & FLAG.benefitInsurance) !== 0;
  const selfFunding = (flags & (FLAG.trust | FLAG.generalAssets)) !== 0 && !(flags & FLAG.insurance);
  const insuredFunding = (flags & FLAG.insurance) !== 0;
  const bits = (c.codeBenefits[s] | insured) & ~STOP_LOSS_BIT;
  BENEFITS.forEach((benefit, i) => {
    const bit = 1 << i;
    if (!(bits & bit)) return;
    let status: string | null = null;
    if (benefit === MEDICAL && stopLoss) status = STATUS.self;
    else if (insured & bit) status = STATUS.insured;
    else if (selfArrangement) status = STATUS.self;
    else if (insuredArrangement) status = STATUS.insured;
    else if (selfFunding) status = STATUS.self;
    else if (insuredFunding) status = STATUS.insured;
    if (status) out.set(benefit, status);
  });
  // A plan with stop-loss and no benefit named is a self-funded medical plan in practice.
  if (stopLoss && !out.size) out.set(MEDICAL, STATUS.self);
  if (!out.size && (selfArrangement || insuredArrangement)) out.set('', selfArrangement && !insuredArrangement ? STATUS.self : STATUS.insured);
  return out;
}

/** A sponsor's funding status: its medical benefits' (self-funded in any plan wins), else any benefit's; and the detail per benefit. */
function fundingOf(c: Collected, slots: readonly number[]): { status: string | null; byBenefit: string[] } {
  const by = new Map<string, string>();
  for (const s of slots) for (const [b, status] of planFunding(c, s)) if (by.get(b) !== STATUS.self) by.set(b, status);
  const medical = by.get(MEDICAL);
  const any = [...by.values()];
  const status = medical ?? (any.includes(STATUS.self) ? STATUS.self : any.length ? STATUS.insured : null);
  return { status, byBenefit: [...by].filter(([b]) => b).map(([b, st]) => `${b}: ${st}`) };
}

/** The largest of the slots by line 5 participants (else by active participants), welfare plans first on a tie; -1 when none has a count. */
function largestPlan(c: Collected, slots: readonly number[]): number {
  let best = -1;
  const size = (s: number) => (c.participants[s] >= 0 ? c.participants[s] : c.active[s]);
  for (const s of slots) {
    if (size(s) < 0) continue;
    if (best < 0 || size(s) > size(best) || (size(s) === size(best) && c.flags[s] & FLAG.welfare && !(c.flags[best] & FLAG.welfare))) best = s;
  }
  return best;
}

/** The one entry with the largest value; null on a tie for the largest (no single broker of record). */
function single(m: Map<string, number>): string | null {
  let best: string | null = null;
  let value = Number.NEGATIVE_INFINITY;
  let tie = false;
  for (const [k, v] of m) {
    if (v > value) [best, value, tie] = [k, v, false];
    else if (v === value) tie = true;
  }
  return tie || value <= 0 ? null : best;
}

/**
 * The facts of one sponsor's plans (the latest filing of each current plan, or the same plans'
 * year before): welfare figures from welfare contracts only; participants and employees of the
 * largest plan, never a sum over plans (a 60-person health plan and the same 60 people's
 * 401(k) are 60 people).
 */
export function yearFacts(c: Collected, slots: readonly number[], brokers: SponsorBrokers | undefined, ended: boolean): YearFacts {
  const largest = largestPlan(c, slots);
  const carriers = new Map<string, string>();
  for (const s of slots) for (const id of c.carriersOf(s)) carriers.set(normalizeName(c.strings.list[id]), c.strings.list[id]);
  let codeBits = 0;
  let contractBits = 0;
  let renewal = -1;
  for (const s of slots) {
    codeBits |= c.codeBenefits[s];
    contractBits |= c.contractBenefits[s];
    if (c.renewal[s] >= 0 && (renewal < 0 || c.renewalRank[s] > c.renewalRank[renewal])) renewal = s;
  }
  const benefits = new Set([...BENEFITS.filter((_, i) => codeBits & (1 << i)), ...BENEFITS.filter((_, i) => contractBits & (1 << i))]);
  const actives = slots.map((s) => c.active[s]).filter((n) => n >= 0);
  const premiums = sum(slots.map((s) => c.premium[s]));
  const welfare = slots.filter((s) => c.flags[s] & (FLAG.welfare | FLAG.welfareContract));
  const welfareLargest = largestPlan(c, welfare);
  const covered = Math.max(-1, ...welfare.map((s) => c.maxPersons[s]));
  const base = welfareLargest >= 0 && c.participants[welfareLargest] > 0 ? c.participants[welfareLargest] : covered;
  const funding = fundingOf(c, slots);
  const medical = renewal >= 0 ? (c.medicalNaic[renewal] >= 0 ? `naic:${c.strings.list[c.medicalNaic[renewal]]}` : c.medicalCarrier[renewal] >= 0 ? `name:${normalizeName(c.strings.list[c.medicalCarrier[renewal]])}` : null) : null;
  return {
    largestSlot: largest,
    participants: largest < 0 || c.participants[largest] < 0 ? null : c.participants[largest],
    employees: actives.length ? Math.max(...actives) : null,
    premiums,
    commissions: sum(slots.map((s) => c.commissions[s])),
    cost: premiums > 0 && base > 0 ? premiums / base : null,
    carriers,
    medicalCarrier: medical,
    benefits: [...benefits],
    funding: funding.status,
    fundingByBenefit: funding.byBenefit,
    renewalFrom: renewal < 0 ? null : c.strings.list[c.renewal[renewal]] || null,
    primaryFirm: brokers ? single(brokers.byFirm) : null,
    primaryOffice: brokers ? single(brokers.byOffice) : null,
    officeIds: brokers ? [...brokers.officeIds] : [],
    initial: slots.every((s) => c.flags[s] & FLAG.initial),
    late: slots.some((s) => c.flags[s] & FLAG.late),
    ended,
  };
}

/** The main plan: the welfare plan with the most participants, else the plan with the most. */
function mainPlan(filings: KeptFiling[]): KeptFiling {
  const welfare = filings.filter((f) => f.welfare);
  const size = (f: KeptFiling) => f.participants ?? f.active ?? 0;
  return (welfare.length ? welfare : filings).reduce((a, b) => (size(b) > size(a) ? b : a));
}

/** A sponsor's company id (from its EIN, as the plain ingest derives it). */
export const companyIdOf = (ein: string): string => String(naturalId(companies, { ein }));

/** Line A's plan entity: multiemployer (1), multiple-employer (3: PEOs, MEWAs), else single-employer. */
const ENTITY: Readonly<Record<string, string>> = { '1': 'multiemployer', '3': 'multiple-employer' };

/** Money figures the mapping bounds: a negative total (chargebacks larger than commissions) is unknown, not an error. */
const money = (n: number) => (n > 0 ? Math.round(n) : null);

/** `form5500:<dataset>:<plan year>:<ACK_ID>:<file>`, one per filing a row was built from. */
export const provenance = (f: KeptFiling) => `form5500:${f.dataset}:${f.year}:${f.ack}${f.file ? `:${f.file}` : ''}`;

/** A sponsor's company row from its latest filings; `named` is the one its name and address come from (build.ts namingSlot). */
export function companyDoc(ein: string, filings: KeptFiling[], named: KeptFiling, facts: YearFacts, growth: number | null, years: readonly number[], signals: string[]): Doc {
  const year = Math.max(...filings.map((f) => f.year));
  const assets401k = filings.filter((f) => f.k401 && f.netAssets !== null && f.netAssets >= 0).map((f) => f.netAssets as number);
  const renewal = facts.renewalFrom ? MONTHS[Number(facts.renewalFrom.slice(5, 7)) - 1] ?? null : null;
  const entity = filings.map((f) => ENTITY[f.entityCode]).find(Boolean) ?? 'single-employer';
  return {
    id: companyIdOf(ein), company_name: named.sponsorName, dba_name: filings.map((f) => f.dbaName).find(Boolean) || null, ein,
    company_industry: industryOf(named.businessCode), city: named.city || null, state: named.state || null, zip: named.zip ? named.zip.slice(0, 5) : null,
    dma: dmaOf(named.city, named.state), phone_number: named.phone || null, plan_name: mainPlan(filings).planName || null,
    form_type: filings.some((f) => f.dataset === 'F_5500') ? '5500' : '5500-SF', filing_year: year,
    filing_years: years.map(String), first_filing_year: years[0] ?? year, plan_entity: entity,
    total_premiums: money(facts.premiums), broker_commissions: money(facts.commissions),
    total_number_of_employees: facts.employees, participants: facts.participants,
    participant_growth: clampGrowth(growth),
    funding_status: facts.funding, funding_by_benefit: facts.fundingByBenefit, renewal_month: renewal, benefit_types: facts.benefits, carriers: [...facts.carriers.values()],
    plan_assets_401k: assets401k.length ? sum(assets401k) : null, broker_office_ids: facts.officeIds,
    primary_broker_office_id: facts.primaryOffice, signals, last_updated_at: named.received || null,
    source_record: `form5500:${named.dataset}:${named.year}:${named.ack}`, source_filings: filings.map(provenance),
  };
}

/** Roles of the names on a filing, in order of precedence (a name keeps its first role). */
function namesOf(f: KeptFiling): [name: string, role: string, phone: string][] {
  return [
    ...f.adminSigners.map((n) => [n, 'Plan Administrator', f.adminPhone || f.phone] as [string, string, string]),
    ...(f.adminName ? [[f.adminName, 'Plan Administrator', f.adminPhone || f.phone] as [string, string, string]] : []),
    ...f.sponsorSigners.map((n) => [n, 'Sponsor', f.phone] as [string, string, string]),
  ];
}

/** One contact per distinct person name on the sponsor's latest filings; organisations are left out. */
export function contactDocs(ein: string, companyId: string, filings: KeptFiling[]): Doc[] {
  const out = new Map<string, Doc>();
  for (const f of [...filings].sort((a, b) => (a.received < b.received ? 1 : -1))) {
    for (const [raw, role, phone] of namesOf(f)) {
      const name = splitPersonName(raw);
      if (!name) continue;
      const key = foldText(name.full);
      if (out.has(key)) continue;
      out.set(key, {
        id: stableId('contact', `${ein}|${key}`), first_name: name.first, last_name: name.last, full_name: name.full, lead_type: 'company',
        company_id: companyId, form5500_role: role, phone_number: phone || null, last_updated_at: f.received || null,
        source_record: `form5500:${f.dataset}:${f.year}:${f.ack}`,
      });
    }
  }
  return [...out.values()];
}
