/**
 * Signals computed from the filings themselves (the catalogue is mappings/signals.ts). Each rule
 * is one entry of SIGNAL_RULES, a pure function of the sponsor's latest year, the year before
 * (when it was imported in the same run), its industry peers and the day of the import.
 */
import { utcDay } from '../../core/clock.ts';
import type { Filing } from './collect.ts';

/** A sponsor's facts from its plans' latest filings, or the same plans' year before (build-companies.ts `yearFacts`). */
export interface YearFacts {
  /** The slot of the largest plan (-1: none has a count). */
  largestSlot: number;
  /** Line 5 participants of the largest plan. */
  participants: number | null;
  employees: number | null;
  /** Welfare premiums, and broker commissions and fees on welfare contracts. */
  premiums: number;
  commissions: number;
  /** Welfare premium per welfare participant (else per person covered); null without welfare premium. */
  cost: number | null;
  /** Normalized carrier name → name as filed (welfare contracts). */
  carriers: Map<string, string>;
  /** The medical carrier of the renewal contract: `naic:<code>`, else `name:<normalized name>`. */
  medicalCarrier: string | null;
  benefits: string[];
  funding: string | null;
  fundingByBenefit: string[];
  renewalFrom: string | null;
  primaryFirm: string | null;
  primaryOffice: string | null;
  officeIds: string[];
  /** Every plan's latest filing is its first. */
  initial: boolean;
  late: boolean;
  /** A current plan filed its final return. */
  ended: boolean;
}

/** Thresholds of the peer signals in the sponsor's industry subsector (else its sector). */
export interface Peers {
  /** 90th percentile of premium per participant. */
  costP90: number | null;
  /** Median participant growth. */
  growthMedian: number | null;
}

export interface SignalInput {
  now: YearFacts;
  prior: YearFacts | null;
  /** The largest plan's participant growth over the same plan's year before. */
  growth: number | null;
  /** A sponsor not seen before: every plan's first filing, no earlier plan year. */
  newSponsor: boolean;
  peers: Peers;
  /** Day of the import, YYYY-MM-DD. */
  today: string;
}

const DAY = 86_400_000;
/** Renewal within this many days of the import. */
export const RENEWAL_WINDOW_DAYS = 120;
/** Participant change that counts as a headcount change, percent. */
export const HEADCOUNT_CHANGE_PCT = 20;

/**
 * Filed after the due date: the last day of the seventh month after the plan year ends, or the
 * 15th of the tenth month with an automatic or Form 5558 extension; a special (disaster)
 * extension is never late.
 */
export function lateFiler(f: Filing): boolean {
  if (!f.received || !f.planYearEnd || f.specialExtension || f.amended) return false;
  const [y, m] = f.planYearEnd.split('-').map(Number);
  const due = f.extension ? new Date(Date.UTC(y, m + 9, 15)) : new Date(Date.UTC(y, m + 7, 0));
  return f.received > utcDay(due);
}

/** Days from `today` to the next anniversary of a policy's start. */
export function daysToRenewal(policyFrom: string, today: string): number {
  const t = Date.parse(`${today}T00:00:00Z`);
  const [, m, d] = policyFrom.split('-').map(Number);
  const year = Number(today.slice(0, 4));
  let next = Date.UTC(year, m - 1, d);
  if (next < t) next = Date.UTC(year + 1, m - 1, d);
  return Math.round((next - t) / DAY);
}

/** Two medical carriers known the same way (both by NAIC code, or both by name) that differ. */
const otherCarrier = (a: string | null, b: string | null) => !!a && !!b && a.slice(0, 5) === b.slice(0, 5) && a !== b;

type Rule = (i: SignalInput, so: Set<string>) => boolean;

/** Signal name → rule. `likely_to_switch` reads the signals decided before it. */
export const SIGNAL_RULES: readonly (readonly [name: string, rule: Rule])[] = [
  ['new_filer', (i) => i.newSponsor],
  ['late_filer', (i) => i.now.late],
  ['plan_terminated', (i) => i.now.ended],
  ['broker_change', (i) => !!i.prior?.primaryFirm && !!i.now.primaryFirm && i.prior.primaryFirm !== i.now.primaryFirm],
  ['carrier_change', (i) => !!i.prior && otherCarrier(i.prior.medicalCarrier, i.now.medicalCarrier)],
  ['funding_change', (i) => !!i.prior?.funding && !!i.now.funding && i.prior.funding !== i.now.funding],
  ['headcount_change', (i) => i.growth !== null && Math.abs(i.growth) > HEADCOUNT_CHANGE_PCT],
  ['high_cost_plan', (i) => i.peers.costP90 !== null && i.now.cost !== null && i.now.cost > i.peers.costP90],
  ['below_peer_growth', (i) => i.peers.growthMedian !== null && i.growth !== null && i.growth < i.peers.growthMedian],
  ['renewal_window', (i) => !!i.now.renewalFrom && daysToRenewal(i.now.renewalFrom, i.today) <= RENEWAL_WINDOW_DAYS],
  ['likely_to_switch', (i, so) => so.has('renewal_window') && (so.has('broker_change') || so.has('carrier_change') || so.has('high_cost_plan'))],
];

export function signalsOf(input: SignalInput): string[] {
  const out = new Set<string>();
  for (const [name, rule] of SIGNAL_RULES) if (rule(input, out)) out.add(name);
  return [...out];
}

/** A percentile (0-1) of a sorted list; null when fewer than `min` values. */
export function percentile(sorted: number[], p: number, min: number): number | null {
  if (sorted.length < min) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/** Minimum peers for a threshold. */
export const MIN_PEERS = 10;

/** Peer figures per industry group label (subsector and sector), added sponsor by sponsor; `thresholds` once all are in. */
export class PeerFigures {
  private cost = new Map<string, number[]>();
  private growth = new Map<string, number[]>();
  add(path: readonly string[], cost: number | null, growth: number | null): void {
    const push = (m: Map<string, number[]>, k: string, v: number) => (m.get(k) ?? m.set(k, []).get(k))?.push(v);
    for (const level of path.slice(0, 2)) {
      if (cost !== null) push(this.cost, level, cost);
      if (growth !== null) push(this.growth, level, growth);
    }
  }
  /** Thresholds of a sponsor's industry path: its subsector's, else its sector's. */
  thresholds(): (path: readonly string[]) => Peers {
    const [cost, growth] = [this.cost, this.growth];
    for (const m of [cost, growth]) for (const v of m.values()) v.sort((a, b) => a - b);
    const at = (m: Map<string, number[]>, path: readonly string[], p: number) => {
      for (const level of [path[1], path[0]]) {
        const v = level ? percentile(m.get(level) ?? [], p, MIN_PEERS) : null;
        if (v !== null) return v;
      }
      return null;
    };
    return (path) => ({ costP90: at(cost, path, 0.9), growthMedian: at(growth, path, 0.5) });
  }
}

/** Peer thresholds per industry group label (subsector and sector paths), from every sponsor's latest-year figures. */
export function peerThresholds(rows: { path: readonly string[]; cost: number | null; growth: number | null }[]): (path: readonly string[]) => Peers {
  const peers = new PeerFigures();
  for (const r of rows) peers.add(r.path, r.cost, r.growth);
  return peers.thresholds();
}
