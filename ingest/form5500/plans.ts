/**
 * Plans over the years (issue 36, item 3): the kept filings (one per plan and plan year) grouped
 * by sponsor and plan, each plan's latest filing chosen on its own, not the newest year of the
 * sponsor. A plan counts while its latest filing is recent (STALE_PLAN_YEARS); a final filing
 * ends it. Pure: a function of the collected columns.
 */
import { FLAG, type Collected } from './collect.ts';

/**
 * A plan counts for its sponsor while its latest filing came in a file at most this many years
 * older than the newest file of the import. Measured on the file (when the DOL received the
 * filing), not the plan year: a sponsor catching up on 2021 in 2024 is alive.
 */
export const STALE_PLAN_YEARS = 2;

/** Roles of a slot in the sponsor's picture. */
export const ROLE = {
  /** The latest filing of a current plan. */
  current: 1,
  /** The filing of the plan year before a current filing, of the same plan. */
  prior: 2,
  /** A current filing whose year before lies inside the imported years (it can show growth). */
  comparable: 4,
} as const;

export interface SponsorPlans {
  ein: number;
  /** Latest filings of the current plans that did not end (or, when every current plan ended, of those). */
  now: number[];
  /** For each of `now`, the same plan's filing of the year before (-1: none). */
  prior: number[];
  /** Current plans whose latest filing is a final one. */
  ended: number;
  /** Every plan year the sponsor filed for, ascending. */
  years: number[];
}

export interface PlanIndex {
  /** ROLE bits per slot. */
  role: Uint8Array;
  /** The newest and oldest file year read. */
  newestFileYear: number;
  oldestFileYear: number;
  /** Plans whose latest filing is older than the window, and sponsors with nothing else. */
  stalePlans: number;
  staleSponsors: number;
  sponsors: () => Generator<SponsorPlans>;
}

/** Slots ordered by sponsor, plan, plan year. */
function planOrder(c: Collected): Int32Array {
  const order = new Int32Array(c.n);
  for (let i = 0; i < c.n; i++) order[i] = i;
  return order.sort((a, b) => c.ein[a] - c.ein[b] || c.plan[a] - c.plan[b] || c.year[a] - c.year[b] || a - b);
}

export function indexPlans(c: Collected): PlanIndex {
  const order = planOrder(c);
  let newest = 0;
  let oldest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < c.n; i++) {
    newest = Math.max(newest, c.fileYear[i]);
    oldest = Math.min(oldest, c.fileYear[i]);
  }
  const role = new Uint8Array(c.n);
  let stalePlans = 0;
  let staleSponsors = 0;
  // One pass marks the roles and counts the stale.
  for (const s of walk()) {
    for (let k = 0; k < s.now.length; k++) {
      role[s.now[k]] |= ROLE.current;
      if (c.year[s.now[k]] - 1 >= oldest) role[s.now[k]] |= ROLE.comparable;
      if (s.prior[k] >= 0) role[s.prior[k]] |= ROLE.prior;
    }
  }
  function* walk(count = true): Generator<SponsorPlans> {
    for (let i = 0; i < order.length; ) {
      const ein = c.ein[order[i]];
      let j = i;
      while (j < order.length && c.ein[order[j]] === ein) j++;
      const live: [number, number][] = [];
      const ended: [number, number][] = [];
      const years = new Set<number>();
      for (let p = i; p < j; ) {
        let q = p;
        while (q < j && c.plan[order[q]] === c.plan[order[p]]) q++;
        const latest = order[q - 1];
        const before = q - 2 >= p && c.year[order[q - 2]] === c.year[latest] - 1 ? order[q - 2] : -1;
        for (let k = p; k < q; k++) years.add(c.year[order[k]]);
        if (c.fileYear[latest] < newest - STALE_PLAN_YEARS) {
          if (count) stalePlans++;
        } else (c.flags[latest] & FLAG.final ? ended : live).push([latest, before]);
        p = q;
      }
      i = j;
      const picked = live.length ? live : ended;
      if (!picked.length) {
        if (count) staleSponsors++;
        continue;
      }
      yield { ein, now: picked.map(([s]) => s), prior: picked.map(([, b]) => b), ended: ended.length, years: [...years].sort((a, b) => a - b) };
    }
  }
  return {
    role, newestFileYear: newest, oldestFileYear: oldest, stalePlans, staleSponsors,
    sponsors: () => walk(false),
  };
}
