/**
 * Data-derived filter options (carriers, DMAs): the values of one field in the caller's data,
 * with the number of rows holding each, from a terms aggregation. The answer is cached in Redis
 * under the concrete index the alias points at (core/names.ts `filterOptions`), so a load or
 * reindex, which moves the alias, is read fresh at once; the TTL only bounds what old indices
 * leave behind.
 */
import { aliasName } from '../../core/names.ts';
import type { Services } from '../context.ts';
import type { DataSource } from './filter-options.ts';

/** Most values one data-derived option lists (the most frequent first). */
export const MAX_DATA_OPTIONS = 1000;
/** Seconds a cached answer lives (an alias move makes it unreachable sooner). */
export const OPTIONS_CACHE_TTL_S = 24 * 3600;

/** One data-derived option: a value and the number of rows that hold it. */
export interface CountedValue {
  value: string;
  count: number;
}

/** Data-derived options as served: values, whether more exist than were listed, and whether Redis answered. */
export interface DataOptions {
  values: CountedValue[];
  truncated: boolean;
  cached: boolean;
}

interface TermsAgg {
  buckets: { key: string; doc_count: number }[];
  sum_other_doc_count?: number;
}

/** The concrete index (or indices, comma-joined) behind an alias; a missing alias is 503 "not loaded yet". */
async function concreteIndex(services: Services, alias: string): Promise<string> {
  const res = await services.es.indices.getAlias({ index: alias });
  return Object.keys(res).sort().join(',');
}

/** One terms aggregation on the concrete index: values by count (then value), unknown ones dropped. */
async function aggregate(services: Services, opts: { index: string; source: DataSource }): Promise<Omit<DataOptions, 'cached'>> {
  const { field, known } = opts.source;
  const res = await services.es.search({
    index: opts.index,
    size: 0,
    track_total_hits: false,
    aggs: { options: { terms: { field, size: MAX_DATA_OPTIONS, order: [{ _count: 'desc' }, { _key: 'asc' }] } } },
  });
  const agg = res.aggregations?.options as TermsAgg | undefined;
  const buckets = agg?.buckets ?? [];
  const values = buckets.filter((b) => !known || known.includes(b.key)).map((b) => ({ value: b.key, count: b.doc_count }));
  return { values, truncated: (agg?.sum_other_doc_count ?? 0) > 0 };
}

/** The options of a data source in a data namespace (the sandbox for test keys), from the cache (services/read-memory.ts) when there. */
export async function dataOptions(services: Services, opts: { namespace: string; source: DataSource }): Promise<DataOptions> {
  const index = await concreteIndex(services, aliasName(opts.namespace, opts.source.entity));
  const hit = await services.readMemory.options<Omit<DataOptions, 'cached'>>(index, opts.source.field);
  if (hit) return { ...hit, cached: true };
  const fresh = await aggregate(services, { index, source: opts.source });
  await services.readMemory.rememberOptions(index, opts.source.field, fresh, OPTIONS_CACHE_TTL_S);
  return { ...fresh, cached: false };
}
