/**
 * A page asked for directly, deep in a sorted list, without walking to it. Page 200 of 25 rows is
 * a from/size query at offset 5,000: Elasticsearch keeps the best 5,025 of every match in a
 * priority queue (91 ms at 1M companies with a one-state filter, against 7 for page 0). Counting
 * is much cheaper than ranking, so a deep page is found by counting:
 *
 * 1. The ladder: about a thousand values of the sort's rank field (a numeric field that never
 *    decreases along the sort key: mappings/es-mapping.ts sortRank, or the numeric sort field
 *    itself), its percentiles over the whole index, read once per index and field and kept for a
 *    few minutes.
 * 2. One request counts the list's matches between consecutive rungs (a range aggregation; the
 *    total of the list comes with it, and the matches without a sort value), which tells the rung
 *    before which fewer than `offset` matches sort, or that the page lies past the last match.
 * 3. The page query adds "rank at or past that rung" to the filter and starts at the offset less
 *    the matches before it: a from/size of a few rows instead of thousands.
 *
 * Correct whatever the ladder holds: every match whose rank is below the rung sorts before every
 * match whose rank is not (the rank never decreases along the key, and rows whose keys tie have
 * equal ranks, so `id` as the tiebreak never crosses the rung), and the count of the former is
 * exact. The ladder only decides how few rows the page query skips. Rows without a sort value
 * sort last (by id); they are added back when the page reaches them.
 */
import type { Services } from '../context.ts';
import type { RankSort, SearchBody } from './query.ts';

type Clause = Record<string, unknown>;

/** Offsets from which a page is found by counting (below, from/size is as cheap). */
export const LADDER_FROM = 1_000;
/** Rungs: percentiles of the rank field, every 0.1%. */
const PERCENTS = Array.from({ length: 999 }, (_, i) => Math.round((i + 1) * 10) / 100);
/** How long a ladder is kept per index and field (any ladder stays correct; an old one only ranks less well). */
const LADDER_TTL_MS = 10 * 60_000;

const ladders = new Map<string, { at: number; rungs: Promise<number[]> }>();

/** The rungs of `rank` over `index` (ascending, distinct), read once per LADDER_TTL_MS. */
function rungsOf(services: Services, index: string, rank: RankSort): Promise<number[]> {
  const key = `${index}|${rank.field}`;
  const kept = ladders.get(key);
  if (kept && Date.now() - kept.at < LADDER_TTL_MS) return kept.rungs;
  const rungs = services.esSearch
    .search(index, { size: 0, track_total_hits: false, aggs: { q: { percentiles: { field: rank.field, percents: PERCENTS, keyed: false, tdigest: { compression: 1000 } } } } })
    .then((res) => {
      const values = ((res.aggregations?.q as { values?: { value: number | null }[] } | undefined)?.values ?? []).map((v) => v.value);
      const finite = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)).map((v) => (rank.integral ? Math.round(v) : v));
      return [...new Set(finite)].sort((a, b) => a - b);
    });
  // A failed read is not kept: the next deep page asks again (and falls back to from/size now).
  rungs.catch(() => ladders.delete(key));
  ladders.set(key, { at: Date.now(), rungs });
  if (ladders.size > 256) ladders.delete(ladders.keys().next().value as string);
  return rungs;
}

/** Where a deep page starts: the filter that drops the matches sorting before it, and the rows to skip after that. */
export interface LadderStart {
  filter: Clause;
  from: number;
  /** The list's total as the counting request tracked it (when it was asked to). */
  total?: number | { value: number; relation: string };
  /** Every match of the list, counted exactly (ranked and without a sort value): a page from here on is empty. */
  matches: number;
  /** The counting request (explain). */
  served: Record<string, unknown>;
}

/**
 * The start of the page at `offset` (`want` rows) of a list sorted on `body.rank`, or null when
 * counting does not help (no ladder, or the page is in the first rung's span).
 */
export async function ladderStart(services: Services, q: { index: string; body: SearchBody; offset: number; want: number; trackTotal: number | false }): Promise<LadderStart | null> {
  const rank = q.body.rank;
  if (!rank || q.offset < LADDER_FROM) return null;
  const rungs = await rungsOf(services, q.index, rank).catch(() => [] as number[]);
  if (rungs.length < 2) return null;
  const ranges = [{ to: rungs[0] }, ...rungs.slice(1).map((r, i) => ({ from: rungs[i], to: r })), { from: rungs[rungs.length - 1] }];
  const served = { size: 0, query: q.body.query, track_total_hits: q.trackTotal, aggs: { l: { range: { field: rank.field, ranges, keyed: false } }, m: { missing: { field: rank.field } } } };
  const res = await services.esSearch.search(q.index, served);
  const counts = ((res.aggregations?.l as { buckets?: { doc_count: number }[] } | undefined)?.buckets ?? []).map((b) => b.doc_count);
  const blank = (res.aggregations?.m as { doc_count?: number } | undefined)?.doc_count;
  if (counts.length !== ranges.length || blank === undefined) return null;
  const ranked = counts.reduce((a, b) => a + b, 0);
  const matches = ranked + blank;
  // Walk the buckets in the list's order to the one holding the offset.
  const order = rank.order === 'asc' ? counts.map((_, i) => i) : counts.map((_, i) => counts.length - 1 - i);
  let before = 0;
  let bucket = -1;
  for (const i of order) {
    if (before + counts[i] > q.offset) {
      bucket = i;
      break;
    }
    before += counts[i];
  }
  const missing = { bool: { must_not: [{ exists: { field: rank.field } }] } };
  // Past every ranked match: the page is among the rows without a sort value (sorted last, by id).
  if (bucket < 0) return { filter: missing, from: q.offset - ranked, total: res.hits.total, matches, served };
  if (before === 0) return null;
  const bound = rank.order === 'asc' ? { gte: ranges[bucket].from } : { lt: ranges[bucket].to };
  const range = { range: { [rank.field]: bound } };
  // The page runs past the ranked rows into those without a sort value (sorted last): keep them.
  const filter = q.offset + q.want > ranked ? { bool: { should: [range, missing], minimum_should_match: 1 } } : range;
  return { filter, from: q.offset - before, total: res.hits.total, matches, served };
}
