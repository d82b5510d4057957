/**
 * From what an import collected to the rows of the four resources, in the project's own shape
 * (the CSV fields of mappings/), ready for the load step. Broker firms and offices are built at
 * once (a few thousand); companies and personnel are produced sponsor by sponsor as the load
 * takes them, so no resource is ever held whole. Pure: the same collected state and day give
 * the same rows.
 */
import type { Doc } from '../../mappings/types.ts';
import { industryPath } from '../../mappings/industries.ts';
import { FLAG, type Collected } from './collect.ts';
import { buildBrokers, industryOf } from './build-brokers.ts';
import { companyDoc, companyIdOf as companyId, contactDocs, yearFacts } from './build-companies.ts';
import { STALE_PLAN_YEARS, indexPlans, type SponsorPlans } from './plans.ts';
import { PeerFigures, signalsOf, type Peers } from './signals.ts';

/** A resource's rows, produced on demand (once: brokers and offices are handed over); `done` is the share of sponsors gone through. */
export interface BuiltRows {
  rows: () => Iterable<Doc>;
  /** Rows when known in advance, else null. */
  count: number | null;
  done: () => number;
}

export interface Built {
  brokers: BuiltRows;
  'broker-offices': BuiltRows;
  companies: BuiltRows;
  personnel: BuiltRows;
  counts: {
    sponsors: number; firmOnlyLines: number; orphanSchedules: number; brokers: number; offices: number; agents: number;
    /** Plans whose latest filing came in a file older than `staleSince`, and sponsors with no other plan. */
    stalePlans: number; staleSponsors: number; staleSince: number;
  };
}

/** Growth of line 5 participants of a plan over the same plan's year before, percent (null when either is unknown or 0 before). */
function growthOf(c: Collected, slot: number, before: number): number | null {
  if (slot < 0 || before < 0) return null;
  const [now, then] = [c.participants[slot], c.participants[before]];
  return now < 0 || then <= 0 ? null : ((now - then) / then) * 100;
}

/** Multiemployer and multiple-employer plans (unions' funds, PEOs, MEWAs) are not one employer's: they stay out of peer figures. */
const employerPlan = (c: Collected, slots: readonly number[]) => slots.every((s) => !(c.flags[s] & (FLAG.multiemployer | FLAG.multipleEmployer)));

/** Every resource's rows; `today` (YYYY-MM-DD) anchors the renewal window; `every1000` is called every 1,000 broker lines and rows and every 1,000 sponsors of the first pass. */
export function buildAll(c: Collected, today: string, every1000: () => void = () => {}): Built {
  const plans = indexPlans(c);
  const side = buildBrokers(c, plans.role, every1000);
  const factsOf = (s: SponsorPlans) => {
    const now = yearFacts(c, s.now, side.sponsorBrokers(s.now), s.ended > 0);
    const priors = s.prior.filter((p) => p >= 0);
    const prior = priors.length ? yearFacts(c, priors, side.sponsorBrokers(priors), false) : null;
    const largest = now.largestSlot;
    const growth = growthOf(c, largest, largest < 0 ? -1 : s.prior[s.now.indexOf(largest)]);
    const newSponsor = s.years[0] === Math.min(...s.now.map((x) => c.year[x])) && s.now.every((x) => c.flags[x] & FLAG.initial) && s.now.length === s.prior.filter((p) => p < 0).length;
    const naming = namingSlot(c, s.now);
    return { now, prior, growth, newSponsor, naming, path: industryPath(industryOf(c.strings.list[c.business[naming]])) };
  };
  const figures = new PeerFigures();
  let sponsorCount = 0;
  for (const s of plans.sponsors()) {
    const { now, growth, path } = factsOf(s);
    if (employerPlan(c, s.now)) figures.add(path, now.cost, growth);
    if (++sponsorCount % 1000 === 0) every1000();
  }
  const peers: (path: readonly string[]) => Peers = figures.thresholds();

  let companiesDone = 0;
  let personnelDone = 0;
  function* companyRows(): Generator<Doc> {
    companiesDone = 0;
    for (const s of plans.sponsors()) {
      const { now, prior, growth, newSponsor, naming, path } = factsOf(s);
      const filings = s.now.map((slot) => c.filing(slot, true));
      const signals = signalsOf({ now, prior, growth, newSponsor, peers: peers(path), today });
      companiesDone++;
      yield companyDoc(filings[0].ein, filings, filings.find((f) => f.slot === naming) ?? filings[0], now, growth, s.years, signals);
    }
  }
  const agents = side.agents;
  function* personnelRows(): Generator<Doc> {
    personnelDone = 0;
    yield* agents.docs();
    for (const s of plans.sponsors()) {
      const filings = s.now.map((slot) => c.filing(slot, true));
      const ein = filings[0].ein;
      personnelDone++;
      yield* contactDocs(ein, companyId(ein), filings);
    }
  }
  const share = (n: number) => () => (sponsorCount ? n / sponsorCount : 1);
  // Firm and office rows are handed over once, from disk.
  const counts = {
    sponsors: sponsorCount, firmOnlyLines: side.counts.firmOnlyLines, agents: side.counts.agents, orphanSchedules: c.counts.orphanSchedules, brokers: side.firms.count, offices: side.offices.count,
    stalePlans: plans.stalePlans, staleSponsors: plans.staleSponsors, staleSince: plans.newestFileYear - STALE_PLAN_YEARS,
  };
  const firmRows = () => side.firms.docs();
  const officeRows = () => side.offices.docs();
  return {
    brokers: { rows: firmRows, count: counts.brokers, done: () => 1 },
    'broker-offices': { rows: officeRows, count: counts.offices, done: () => 1 },
    companies: { rows: companyRows, count: sponsorCount, done: () => share(companiesDone)() },
    personnel: { rows: personnelRows, count: null, done: () => share(personnelDone)() },
    counts,
  };
}

/** The filing (slot) a sponsor's name, address and industry come from: the latest received of its latest filings, the higher ACK_ID on a tie. */
function namingSlot(c: Collected, slots: readonly number[]): number {
  return slots.reduce((a, b) => (c.received[b] > c.received[a] || (c.received[b] === c.received[a] && c.ackAt(b) > c.ackAt(a)) ? b : a));
}
