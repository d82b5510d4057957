/**
 * The crawl fingerprint's input: what decides a list's rows and their order, read from the parsed
 * request (never the raw query), so that spellings which change nothing share it:
 * `include_count=1` and `true`, a default `signal_match`, `states=tx,ca` and `CA,TX`,
 * `gte:5,gte:10` and `gte:10`. Left out: how the rows are paged, shaped or counted (page,
 * page_size, fields, mode, format, include_count, cursor, explain). Pure.
 *
 * Crawl detection counts distinct pages of one fingerprint (services/crawl.ts): a walk cannot
 * dodge it by order, and only a change of what matches or of the order starts another count.
 */
import type { CfFilter, ListRequest } from './list-request.ts';
import { narrows } from './filters.ts';
import { tightestBounds } from './query.ts';

/** Values of a set-like filter (OR'ed, or all required): order and repeats do not matter. */
const set = (values: readonly (string | number)[]): (string | number)[] => [...new Set(values)].sort();

/** One cf[column] filter as it matches: its tightest bounds and its set of values. */
const cfOf = (c: CfFilter) => [c.field.name, c.ranges.length ? tightestBounds(c.ranges) : null, set(c.values)];

/** Which geography applies (with both states and dmas, the mode chooses: query.ts geoFilters). */
function geoOf(g: { states: string[]; dmas: string[]; mode: 'state' | 'dma' }): [string, (string | number)[]] | null {
  if (g.dmas.length && (!g.states.length || g.mode === 'dma')) return ['dma', set(g.dmas)];
  return g.states.length ? ['state', set(g.states)] : null;
}

/** The order of the rows: relevance for a search without sort_by, else the column and direction. */
const orderOf = (r: ListRequest) => (r.search && !r.sortExplicit ? ['_score'] : [r.sortBy, r.sortDir]);

/** Canonical text of the parsed filters, search and sort of a list call. */
export function crawlKey(r: ListRequest): string {
  return JSON.stringify({
    search: r.search,
    order: orderOf(r),
    // One signal matches the same rows whether any or all are required.
    signals: r.signals.length ? [set(r.signals), r.signals.length > 1 ? r.signalMatch : 'any'] : null,
    geo: geoOf({ states: r.states, dmas: r.dmas, mode: r.geoMode }),
    cf: r.cf.map(cfOf).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    eb: set(r.eb.map((f) => f.name)),
    tags: set(r.tags),
    crm: set(r.crmStatus),
    side: r.side,
    own: r.own.filter(narrows).map((f) => [f.filter.param, f.values]),
    ownGeo: r.ownGeo ? geoOf(r.ownGeo) : null,
  });
}
