/**
 * Companies (one per sponsor EIN) and their contacts (signers and administrators) from the kept
 * filings, pure. A sponsor's row describes its latest imported plan year, combining all its
 * plans of that year; the year before, when imported, gives growth and the change signals.
 */
import { naturalId } from '../transform.ts';
import { companies } from '../../mappings/companies.ts';
import type { Doc } from '../../mappings/types.ts';
import { MONTHS } from '../../mappings/reference.ts';
import { BENEFITS, FLAG, STOP_LOSS_BIT, WELFARE_CODES, type Collected, type KeptFiling } from './collect.ts';
import { dmaOf, industryOf, type SponsorBrokers } from './build-brokers.ts';
import { foldText, normalizeName } from '../../mappings/normalize.ts';
import { splitPersonName, stableId } from './resolve.ts';
import type { YearFacts } from './signals.ts';

export { WELFARE_CODES };

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Self-Funded when a welfare plan is funded from general assets or a trust, or buys stop-loss; Fully Insured when insurance alone. */
function fundingOf(c: Collected, slots: readonly number[]): string | null {
  const welfare = slots.filter((s) => c.flags[s] & FLAG.welfare);
  if (welfare.some((s) => c.flags[s] & (FLAG.generalAssets | FLAG.trust)) || slots.some((s) => c.contractBenefits[s] & STOP_LOSS_BIT)) return 'Self-Funded';
  return welfare.some((s) => c.flags[s] & FLAG.insurance) ? 'Fully Insured' : null;
}

/** The facts of one sponsor in one plan year (its filings' slots, in slot order), all its plans combined. */
export function yearFacts(c: Collected, slots: readonly number[], brokers: SponsorBrokers | undefined): YearFacts {
  let biggest = -1;
  for (const s of slots) if (c.maxPersons[s] > (biggest < 0 ? -1 : c.maxPersons[biggest])) biggest = s;
  const primaryFirm = brokers ? [...brokers.byFirm].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null : null;
  const primaryOffice = brokers ? [...brokers.byOffice].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null : null;
  const carriers = new Map<string, string>();
  for (const s of slots) for (const id of c.carriersOf(s)) carriers.set(normalizeName(c.strings.list[id]), c.strings.list[id]);
  let codeBits = 0;
  let contractBits = 0;
  for (const s of slots) {
    codeBits |= c.codeBenefits[s];
    contractBits |= c.contractBenefits[s];
  }
  const benefits = new Set([...BENEFITS.filter((_, i) => codeBits & (1 << i)), ...BENEFITS.filter((_, i) => contractBits & (1 << i))]);
  const actives = slots.map((s) => c.active[s]).filter((n) => !Number.isNaN(n));
  return {
    participants: actives.length ? sum(actives) : null,
    employees: actives.length ? Math.max(...actives) : null,
    premiums: sum(slots.map((s) => c.premium[s])),
    commissions: sum(slots.map((s) => c.commissions[s])),
    carriers,
    benefits: [...benefits],
    funding: fundingOf(c, slots),
    renewalFrom: biggest < 0 ? null : c.strings.list[c.renewal[biggest]] || null,
    primaryFirm,
    primaryOffice,
    officeIds: brokers ? [...brokers.officeIds] : [],
    initial: slots.some((s) => c.flags[s] & FLAG.initial),
    late: slots.some((s) => c.flags[s] & FLAG.late),
  };
}

/** The filing a sponsor's name and address come from: the latest received of its latest year. */
export function namingFiling(filings: KeptFiling[]): KeptFiling {
  return filings.reduce((a, b) => (b.received > a.received || (b.received === a.received && b.ack > a.ack) ? b : a));
}

/** The main plan: the welfare plan with the most participants, else the plan with the most. */
function mainPlan(filings: KeptFiling[]): KeptFiling {
  const welfare = filings.filter((f) => f.welfare);
  return (welfare.length ? welfare : filings).reduce((a, b) => ((b.active ?? 0) > (a.active ?? 0) ? b : a));
}

/** A sponsor's company id (from its EIN, as the plain ingest derives it). */
export const companyIdOf = (ein: string): string => String(naturalId(companies, { ein }));

export function companyDoc(ein: string, filings: KeptFiling[], facts: YearFacts, prior: YearFacts | null, signals: string[]): Doc {
  const named = namingFiling(filings);
  const year = named.year;
  const growth = prior?.participants && facts.participants !== null ? Math.round(((facts.participants - prior.participants) / prior.participants) * 10000) / 100 : null;
  const assets401k = filings.filter((f) => f.k401 && f.netAssets !== null).map((f) => f.netAssets as number);
  const renewal = facts.renewalFrom ? MONTHS[Number(facts.renewalFrom.slice(5, 7)) - 1] ?? null : null;
  return {
    id: companyIdOf(ein), company_name: named.sponsorName, ein, company_industry: industryOf(named.businessCode),
    city: named.city || null, state: named.state || null, zip: named.zip ? named.zip.slice(0, 5) : null, dma: dmaOf(named.city, named.state),
    phone_number: named.phone || null, plan_name: mainPlan(filings).planName || null,
    form_type: filings.some((f) => f.dataset === 'F_5500') ? '5500' : '5500-SF', filing_year: year,
    total_premiums: facts.premiums || null, broker_commissions: facts.commissions || null,
    total_number_of_employees: facts.employees, participants: facts.participants,
    participant_growth: growth === null ? null : Math.min(100000, Math.max(-100, growth)),
    funding_status: facts.funding, renewal_month: renewal, benefit_types: facts.benefits, carriers: [...facts.carriers.values()],
    plan_assets_401k: assets401k.length ? sum(assets401k) : null, broker_office_ids: facts.officeIds,
    primary_broker_office_id: facts.primaryOffice, signals, last_updated_at: named.received || null,
    source_record: `form5500:${named.dataset}:${year}:${named.ack}`,
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
