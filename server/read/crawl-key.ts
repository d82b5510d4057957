/**
 * The crawl fingerprint's input: what decides a list's rows and their order, read from the parsed
 * request (never the raw query), so that spellings which change nothing share it:
 * `include_count=1` and `true`, a default `signal_match`, `states=tx,ca` and `CA,TX`,
 * `gte:5,gte:10` and `gte:10`, bounds the field's domain makes vacuous (`cf[employees]=gte:-1`,
 * `gte:-2` and `gte:0` on a count that is never negative all mean "has a value", as
 * `eb[employees]=true` does), `gt:5` and `gte:6` on a whole-number field, and the case, spacing
 * and punctuation of `search` (`ACME  Corp.` and `acme corp`). Left out: how the rows are paged, shaped or counted (page,
 * page_size, fields, mode, format, include_count, cursor, explain). Pure.
 *
 * Crawl detection counts distinct pages of one fingerprint (services/crawl.ts): a walk cannot
 * dodge it by order, and only a change of what matches or of the order starts another count.
 */
import type { CfFilter, ListRequest } from './list-request.ts';
import { narrows } from './filters.ts';
import { tightestBounds } from './query.ts';
import { foldText } from '../../mappings/normalize.ts';
import type { FieldDef } from '../../mappings/types.ts';

/** Values of a set-like filter (OR'ed, or all required): order and repeats do not matter. */
const set = (values: readonly (string | number)[]): (string | number)[] => [...new Set(values)].sort();

const INTEGRAL: ReadonlySet<FieldDef['type']> = new Set(['integer', 'long']);

/**
 * The bounds of a cf filter as the rows they admit: the tightest bounds, as whole-number closed
 * bounds on a whole-number field (`gt:5` is `gte:6`, `lt:2.5` is `lte:2`), without a bound the
 * field's domain (its `min` and `max`) makes vacuous, or 'none' when no value can pass. An empty
 * object admits every row that has a value. Pure.
 */
export function admittedBounds(f: FieldDef, ranges: CfFilter['ranges']): Record<string, number> | 'none' {
  const t = tightestBounds(ranges);
  let lower: [string, number] | null = t.gte !== undefined ? ['gte', t.gte] : t.gt !== undefined ? ['gt', t.gt] : null;
  let upper: [string, number] | null = t.lte !== undefined ? ['lte', t.lte] : t.lt !== undefined ? ['lt', t.lt] : null;
  if (INTEGRAL.has(f.type)) {
    if (lower) lower = ['gte', lower[0] === 'gt' ? Math.floor(lower[1]) + 1 : Math.ceil(lower[1])];
    if (upper) upper = ['lte', upper[0] === 'lt' ? Math.ceil(upper[1]) - 1 : Math.floor(upper[1])];
  }
  // A bound at or beyond the edge of the domain excludes nothing (a strict bound at the edge excludes the edge).
  if (lower && f.min !== undefined && (lower[1] < f.min || (lower[1] === f.min && lower[0] === 'gte'))) lower = null;
  if (upper && f.max !== undefined && (upper[1] > f.max || (upper[1] === f.max && upper[0] === 'lte'))) upper = null;
  const lo = lower?.[1] ?? f.min ?? -Infinity;
  const hi = upper?.[1] ?? f.max ?? Infinity;
  if (lo > hi || (lo === hi && (lower?.[0] === 'gt' || upper?.[0] === 'lt'))) return 'none';
  return { ...(lower ? { [lower[0]]: lower[1] } : {}), ...(upper ? { [upper[0]]: upper[1] } : {}) };
}

/** One cf[column] filter as it matches: the bounds it admits and its set of values; null when it only asks for a value (as eb does). */
function cfOf(c: CfFilter): [string, Record<string, number> | 'none' | null, (string | number)[]] | null {
  const bounds = c.ranges.length ? admittedBounds(c.field, c.ranges) : null;
  const vacuous = bounds !== null && bounds !== 'none' && !Object.keys(bounds).length;
  if (vacuous && !c.values.length) return null;
  return [c.field.name, vacuous ? null : bounds, set(c.values)];
}

/** The search as a question: case, spacing and punctuation aside (what the search clauses fold away, query.ts searchClause). */
const searchOf = (s: string | null): string | null => (s === null ? null : foldText(s) || s.trim().toLowerCase().replace(/\s+/g, ' '));

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
    search: searchOf(r.search),
    order: orderOf(r),
    // One signal matches the same rows whether any or all are required.
    signals: r.signals.length ? [set(r.signals), r.signals.length > 1 ? r.signalMatch : 'any'] : null,
    geo: geoOf({ states: r.states, dmas: r.dmas, mode: r.geoMode }),
    cf: r.cf
      .map(cfOf)
      .filter((c) => c !== null)
      .sort((a, b) => a[0].localeCompare(b[0])),
    // A numeric column's vacuous bounds ask only for a value: what eb asks.
    eb: set([...r.eb.map((f) => f.name), ...r.cf.filter((c) => cfOf(c) === null).map((c) => c.field.name)]),
    tags: set(r.tags),
    crm: set(r.crmStatus),
    side: r.side,
    own: r.own.filter(narrows).map((f) => [f.filter.param, f.values]),
    ownGeo: r.ownGeo ? geoOf(r.ownGeo) : null,
  });
}
