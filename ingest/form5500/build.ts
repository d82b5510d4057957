/**
 * From what an import collected to the rows of the four resources, in the project's own shape
 * (the CSV fields of mappings/), ready for the load step. Pure: the same collected state and day
 * give the same rows.
 */
import type { Doc } from '../../mappings/types.ts';
import { industryPath } from '../../mappings/industries.ts';
import type { Collected, Filing } from './collect.ts';
import { buildBrokers } from './build-brokers.ts';
import { companyDoc, contactDocs, namingFiling, yearFacts } from './build-companies.ts';
import { peerThresholds, signalsOf, type YearFacts } from './signals.ts';

export interface Built {
  brokers: Doc[];
  'broker-offices': Doc[];
  companies: Doc[];
  personnel: Doc[];
  counts: { sponsors: number; firmOnlyLines: number; orphanSchedules: number };
}

/** Kept filings by sponsor EIN, then by plan year. */
function bySponsor(c: Collected): Map<string, Map<number, Filing[]>> {
  const out = new Map<string, Map<number, Filing[]>>();
  for (const f of c.plans.values()) {
    let years = out.get(f.ein);
    if (!years) out.set(f.ein, (years = new Map()));
    const list = years.get(f.year);
    if (list) list.push(f);
    else years.set(f.year, [f]);
  }
  return out;
}

const growthOf = (now: YearFacts, prior: YearFacts | null) =>
  prior?.participants && now.participants !== null ? ((now.participants - prior.participants) / prior.participants) * 100 : null;

/** Every resource's rows; `today` (YYYY-MM-DD) anchors the renewal window. */
export function buildAll(c: Collected, today: string): Built {
  const kept = [...c.plans.values()];
  const keptAcks = new Set(kept.map((f) => f.ack));
  let orphanSchedules = 0;
  for (const ack of c.contracts.keys()) if (!keptAcks.has(ack)) orphanSchedules++;
  const side = buildBrokers(c, kept);
  const sponsors = bySponsor(c);
  const latest: { ein: string; filings: Filing[]; now: YearFacts; prior: YearFacts | null; path: readonly string[] }[] = [];
  for (const [ein, years] of sponsors) {
    const year = Math.max(...years.keys());
    const filings = years.get(year) as Filing[];
    const priorFilings = years.get(year - 1);
    const now = yearFacts(c, filings, side.sponsors.get(`${ein}|${year}`));
    const prior = priorFilings ? yearFacts(c, priorFilings, side.sponsors.get(`${ein}|${year - 1}`)) : null;
    latest.push({ ein, filings, now, prior, path: industryPath(namingFiling(filings).businessCode.slice(0, 4)) });
  }
  const peers = peerThresholds(latest.map((s) => ({ path: s.path, cost: s.now.participants ? s.now.premiums / s.now.participants : null, growth: growthOf(s.now, s.prior) })));
  const companies: Doc[] = [];
  const personnel: Doc[] = [];
  for (const s of latest) {
    const signals = signalsOf({ now: s.now, prior: s.prior, growth: growthOf(s.now, s.prior), peers: peers(s.path), today });
    const doc = companyDoc(s.ein, s.filings, s.now, s.prior, signals);
    companies.push(doc);
    personnel.push(...contactDocs(s.ein, String(doc.id), s.filings));
  }
  return {
    brokers: side.firms,
    'broker-offices': side.offices,
    companies,
    personnel,
    counts: { sponsors: sponsors.size, firmOnlyLines: side.counts.firmOnlyLines, orphanSchedules },
  };
}
