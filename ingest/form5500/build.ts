/**
 * From what an import collected to the rows of the four resources, in the project's own shape
 * (the CSV fields of mappings/), ready for the load step. Broker firms and offices are built at
 * once (a few thousand); companies and personnel are produced sponsor by sponsor as the load
 * takes them, so no resource is ever held whole. Pure: the same collected state and day give
 * the same rows.
 */
import type { Doc } from '../../mappings/types.ts';
import { industryPath } from '../../mappings/industries.ts';
import type { Collected } from './collect.ts';
import { buildBrokers } from './build-brokers.ts';
import { companyDoc, companyIdOf as companyId, contactDocs, yearFacts } from './build-companies.ts';
import { PeerFigures, signalsOf, type Peers, type YearFacts } from './signals.ts';

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
  counts: { sponsors: number; firmOnlyLines: number; orphanSchedules: number; brokers: number; offices: number };
}

const growthOf = (now: YearFacts, prior: YearFacts | null) =>
  prior?.participants && now.participants !== null ? ((now.participants - prior.participants) / prior.participants) * 100 : null;

/** Kept slots in sponsor (EIN) order, slot order within a sponsor. */
function bySponsorOrder(c: Collected): Int32Array {
  const order = new Int32Array(c.n);
  for (let i = 0; i < c.n; i++) order[i] = i;
  if (c.n < 1 << 23) {
    const keys = new Float64Array(c.n);
    for (let i = 0; i < c.n; i++) keys[i] = c.ein[i] * (1 << 23) + i;
    keys.sort();
    for (let i = 0; i < c.n; i++) order[i] = keys[i] % (1 << 23);
  } else order.sort((a, b) => c.ein[a] - c.ein[b] || a - b);
  return order;
}

interface Sponsor {
  ein: number;
  /** Slots of the latest plan year and of the year before. */
  latest: number[];
  prior: number[] | null;
}

/** Every resource's rows; `today` (YYYY-MM-DD) anchors the renewal window; `every1000` is called every 1,000 sponsors of the first pass. */
export function buildAll(c: Collected, today: string, every1000: () => void = () => {}): Built {
  const side = buildBrokers(c);
  const order = bySponsorOrder(c);
  function* sponsors(): Generator<Sponsor> {
    for (let i = 0; i < order.length; ) {
      const ein = c.ein[order[i]];
      let j = i;
      let year = 0;
      for (; j < order.length && c.ein[order[j]] === ein; j++) year = Math.max(year, c.year[order[j]]);
      const latest: number[] = [];
      const prior: number[] = [];
      for (let k = i; k < j; k++) {
        const s = order[k];
        if (c.year[s] === year) latest.push(s);
        else if (c.year[s] === year - 1) prior.push(s);
      }
      yield { ein, latest, prior: prior.length ? prior : null };
      i = j;
    }
  }
  const factsOf = (s: Sponsor) => {
    const now = yearFacts(c, s.latest, side.sponsorBrokers(s.latest));
    const prior = s.prior ? yearFacts(c, s.prior, side.sponsorBrokers(s.prior)) : null;
    return { now, prior, path: industryPath(c.strings.list[c.business[namingSlot(c, s.latest)]].slice(0, 4)) };
  };
  const figures = new PeerFigures();
  let sponsorCount = 0;
  for (const s of sponsors()) {
    const { now, prior, path } = factsOf(s);
    figures.add(path, now.participants ? now.premiums / now.participants : null, growthOf(now, prior));
    if (++sponsorCount % 1000 === 0) every1000();
  }
  const peers: (path: readonly string[]) => Peers = figures.thresholds();

  let companiesDone = 0;
  let personnelDone = 0;
  function* companyRows(): Generator<Doc> {
    companiesDone = 0;
    for (const s of sponsors()) {
      const { now, prior, path } = factsOf(s);
      const filings = s.latest.map((slot) => c.filing(slot, true));
      const signals = signalsOf({ now, prior, growth: growthOf(now, prior), peers: peers(path), today });
      companiesDone++;
      yield companyDoc(filings[0].ein, filings, now, prior, signals);
    }
  }
  function* personnelRows(): Generator<Doc> {
    personnelDone = 0;
    for (const s of sponsors()) {
      const filings = s.latest.map((slot) => c.filing(slot, true));
      const ein = filings[0].ein;
      personnelDone++;
      yield* contactDocs(ein, companyId(ein), filings);
    }
  }
  const share = (n: number) => () => (sponsorCount ? n / sponsorCount : 1);
  // Firm and office rows are handed over once (then only the load holds them).
  let firms: Doc[] = side.firms;
  let offices: Doc[] = side.offices;
  const counts = { sponsors: sponsorCount, firmOnlyLines: side.counts.firmOnlyLines, orphanSchedules: c.counts.orphanSchedules, brokers: firms.length, offices: offices.length };
  side.firms = [];
  side.offices = [];
  const firmRows = (): Doc[] => {
    const out = firms;
    firms = [];
    return out;
  };
  const officeRows = (): Doc[] => {
    const out = offices;
    offices = [];
    return out;
  };
  return {
    brokers: { rows: firmRows, count: counts.brokers, done: () => 1 },
    'broker-offices': { rows: officeRows, count: counts.offices, done: () => 1 },
    companies: { rows: companyRows, count: sponsorCount, done: () => share(companiesDone)() },
    personnel: { rows: personnelRows, count: null, done: () => share(personnelDone)() },
    counts,
  };
}

/** The slot the sponsor's name comes from: the latest received of its latest year (namingFiling's rule, on the columns). */
function namingSlot(c: Collected, slots: readonly number[]): number {
  return slots.reduce((a, b) => (c.received[b] > c.received[a] || (c.received[b] === c.received[a] && c.ackAt(b) > c.ackAt(a)) ? b : a));
}
