/**
 * Companies (one per sponsor EIN) and their contacts (signers and administrators) from the kept
 * filings, pure. A sponsor's row describes its latest imported plan year, combining all its
 * plans of that year; the year before, when imported, gives growth and the change signals.
 */
import { naturalId } from '../transform.ts';
import { companies } from '../../mappings/companies.ts';
import type { Doc } from '../../mappings/types.ts';
import { MONTHS } from '../../mappings/reference.ts';
import type { Collected, Contract, Filing } from './collect.ts';
import { dmaOf, industryOf, type SponsorBrokers } from './build-brokers.ts';
import { foldText, normalizeName } from '../../mappings/normalize.ts';
import { splitPersonName, stableId } from './resolve.ts';
import { lateFiler, type YearFacts } from './signals.ts';

/** Form 5500 welfare characteristic codes → the project's benefit types. */
export const WELFARE_CODES: Readonly<Record<string, string>> = {
  '4A': 'Medical', '4B': 'Life', '4D': 'Dental', '4E': 'Vision', '4F': 'Short-Term Disability', '4H': 'Long-Term Disability',
};
/** Pension code 2J: a 401(k) feature. */
const CODE_401K = '2J';

const codes = (s: string): string[] => s.match(/[0-9][A-Z]/g) ?? [];
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Self-Funded when a welfare plan is funded from general assets or a trust, or buys stop-loss; Fully Insured when insurance alone. */
function fundingOf(filings: Filing[], contracts: Contract[]): string | null {
  const welfare = filings.filter((f) => f.welfareCodes);
  if (welfare.some((f) => f.funding.generalAssets || f.funding.trust) || contracts.some((k) => k.benefits.includes('Stop-Loss'))) return 'Self-Funded';
  return welfare.some((f) => f.funding.insurance) ? 'Fully Insured' : null;
}

/** The facts of one sponsor in one plan year, all its plans combined. */
export function yearFacts(c: Collected, filings: Filing[], brokers: SponsorBrokers | undefined): YearFacts {
  const contracts = filings.flatMap((f) => c.contracts.get(f.ack) ?? []);
  const biggest = [...contracts].sort((a, b) => b.persons - a.persons)[0];
  const primaryFirm = brokers ? [...brokers.byFirm].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null : null;
  const primaryOffice = brokers ? [...brokers.byOffice].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null : null;
  const carriers = new Map<string, string>();
  for (const k of contracts) if (k.carrier) carriers.set(normalizeName(k.carrier), k.carrier);
  const benefits = new Set<string>();
  for (const f of filings) for (const code of codes(f.welfareCodes)) if (WELFARE_CODES[code]) benefits.add(WELFARE_CODES[code]);
  for (const k of contracts) for (const b of k.benefits) benefits.add(b);
  const actives = filings.map((f) => f.active).filter((n): n is number => n !== null);
  return {
    participants: actives.length ? sum(actives) : null,
    employees: actives.length ? Math.max(...actives) : null,
    premiums: sum(contracts.map((k) => k.premium)),
    commissions: sum(contracts.map((k) => k.commissions)),
    carriers,
    benefits: [...benefits],
    funding: fundingOf(filings, contracts),
    renewalFrom: biggest?.policyFrom || null,
    primaryFirm,
    primaryOffice,
    officeIds: brokers ? [...brokers.officeIds] : [],
    initial: filings.some((f) => f.initial),
    late: filings.some(lateFiler),
  };
}

/** The filing a sponsor's name and address come from: the latest received of its latest year. */
export function namingFiling(filings: Filing[]): Filing {
  return filings.reduce((a, b) => (b.received > a.received || (b.received === a.received && b.ack > a.ack) ? b : a));
}

/** The main plan: the welfare plan with the most participants, else the plan with the most. */
function mainPlan(filings: Filing[]): Filing {
  const welfare = filings.filter((f) => f.welfareCodes);
  return (welfare.length ? welfare : filings).reduce((a, b) => ((b.active ?? 0) > (a.active ?? 0) ? b : a));
}

export function companyDoc(ein: string, filings: Filing[], facts: YearFacts, prior: YearFacts | null, signals: string[]): Doc {
  const named = namingFiling(filings);
  const year = named.year;
  const growth = prior?.participants && facts.participants !== null ? Math.round(((facts.participants - prior.participants) / prior.participants) * 10000) / 100 : null;
  const assets401k = filings.filter((f) => codes(f.pensionCodes).includes(CODE_401K) && f.netAssets !== null).map((f) => f.netAssets as number);
  const renewal = facts.renewalFrom ? MONTHS[Number(facts.renewalFrom.slice(5, 7)) - 1] ?? null : null;
  return {
    id: naturalId(companies, { ein }), company_name: named.sponsorName, ein, company_industry: industryOf(named.businessCode),
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
function namesOf(f: Filing): [name: string, role: string, phone: string][] {
  return [
    ...f.adminSigners.map((n) => [n, 'Plan Administrator', f.adminPhone || f.phone] as [string, string, string]),
    ...(f.adminName ? [[f.adminName, 'Plan Administrator', f.adminPhone || f.phone] as [string, string, string]] : []),
    ...f.sponsorSigners.map((n) => [n, 'Sponsor', f.phone] as [string, string, string]),
  ];
}

/** One contact per distinct person name on the sponsor's latest filings; organisations are left out. */
export function contactDocs(ein: string, companyId: string, filings: Filing[]): Doc[] {
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
