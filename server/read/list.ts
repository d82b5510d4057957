/**
 * A list call end to end: parse → tier checks → tag ids → query → page → shape → charge.
 * Pages inside Elasticsearch's result window use from/size; deeper pages walk forward with
 * search_after over sort values only, so any page is reachable and ordered by
 * `<sort_by> <sort_dir>, id asc` with no duplicates or gaps.
 */
import { createHash } from 'node:crypto';
import type { Services } from '../context.ts';
import type { AuthState } from '../middleware/auth.ts';
import type { Doc, EntityDef } from '../../mappings/types.ts';
import { rowPrice, toCredits } from '../pricing.ts';
import { keyTier } from '../services/tiers.ts';
import { normalizeTag, scopeOf } from '../services/tags.ts';
import { chargeRows } from './charge.ts';
import { parseListParams, type ListParams } from './list-params.ts';
import { buildListQuery, crmStatusOfHit, sortClause, type SearchBody } from './query.ts';
import { noCrmContext } from './crm.ts';
import { resourceFilters } from './filters.ts';
import { staleCursor, type Cursor } from './cursor.ts';
import { forbidden, invalid } from '../errors.ts';
import { flattenRow, shapeRow } from './projection.ts';
import { aliasName } from '../../core/names.ts';

/** Elasticsearch's index.max_result_window: the most one search may return. */
const MAX_RESULT_WINDOW = 10_000;

export interface ListResult {
  data: unknown;
  meta: Record<string, unknown>;
}

type Query = Record<string, string | string[]>;

/**
 * Fingerprint of a filter combination (everything but the page) in the caller's context, for
 * crawl detection, remembered page ends and cursors: `context` names what else decides the
 * rows (the data namespace; the user for tags=, the organization for crm_status=), so that
 * two users' `tags=vip` never share page positions.
 */
function fingerprint(def: EntityDef, q: Query, context: string): string {
  const parts = Object.keys(q)
    .filter((k) => k !== 'page' && k !== 'cursor' && k !== 'explain')
    .sort()
    .map((k) => `${k}=${JSON.stringify(q[k])}`);
  return createHash('sha1').update(`${context}|${def.name}?${parts.join('&')}`).digest('hex').slice(0, 20);
}

/** What besides the parameters decides which rows match (see fingerprint). */
function rowContext(auth: AuthState, p: ListParams): string {
  return [auth.dataNamespace, p.tags.length ? `u:${scopeOf(auth.key)}` : '', p.crmStatus.length ? `o:${auth.key.org}` : ''].join('|');
}

/** The sort values just before `offset`, walked with search_after over sort values only. */
async function searchAfterFor(services: Services, index: string, body: SearchBody, offset: number): Promise<unknown[] | undefined> {
  let after: unknown[] | undefined;
  let remaining = offset;
  while (remaining > 0) {
    const size = Math.min(remaining, MAX_RESULT_WINDOW);
    const res = await services.esSearch.search(index, { query: body.query, sort: body.sort, size, _source: false, track_total_hits: false, ...(after ? { search_after: after } : {}) });
    const hits = res.hits.hits;
    if (!hits.length) return undefined;
    after = hits[hits.length - 1].sort as unknown[];
    remaining -= hits.length;
    if (hits.length < size) return after;
  }
  return after;
}

export async function listRows(services: Services, auth: AuthState, def: EntityDef, q: Query): Promise<ListResult> {
  const own = resourceFilters(def, auth.key, q);
  const p: ListParams = parseListParams(def, auth.key, q, own.present);
  const index = aliasName(auth.dataNamespace, def.name);
  const rowsWanted = !p.countOnly && !p.dryRun;
  const explain = q.explain === 'true';
  if (q.explain !== undefined && !['true', 'false'].includes(String(q.explain))) throw invalid({ field: 'explain', issue: 'invalid_boolean', expected: ['true', 'false'] });
  if (explain && !auth.key.internal) throw forbidden('explain is for internal tokens only', 'explain', 'internal_only');
  const context = rowContext(auth, p);
  const fp = fingerprint(def, q, context);
  const given = rowsWanted && typeof q.cursor === 'string' ? await services.cursors.decode(q.cursor, fp, sortClause(def, p).length) : null;
  if (given && !given.g.startsWith(`${index}-`)) throw invalid({ field: 'cursor', issue: 'invalid_cursor' }, 'cursor: it was issued for other data (a test key\'s sandbox or another resource)');
  if (given && q.page !== undefined && Number(q.page) !== given.p) throw invalid({ field: 'page', issue: 'conflicts_with_cursor', expected: given.p });
  const page = given ? given.p : p.page;
  // What the query needs from Redis, in one auto-pipelined batch: tag ids, the org's CRM
  // context (personnel rows carry crm_status), and the remembered end of the previous page
  // (then this page is one search_after query, whatever its depth). The page's crawl step is
  // taken with its debit, after the search.
  const crawl = rowsWanted ? services.crawl.step(auth.key.org, auth.key.id, fp, page) : undefined;
  const [taggedIds, crm, remembered] = await Promise.all([
    p.tags.length ? services.tags.entityIdsWithAllTags(scopeOf(auth.key), def.name, p.tags.map((t) => normalizeTag(t, 'tags'))) : null,
    p.crmStatus.length || (rowsWanted && def.name === 'personnel') ? services.crm.context(auth.key.org) : null,
    rowsWanted && !given && page > 0 ? rememberedEnd(services, fp, page - 1) : null,
  ]);
  if (p.crmStatus.length && !crm) throw noCrmContext();
  const body = buildListQuery(def, p, { taggedIds, crm, crmMarks: rowsWanted && def.name === 'personnel' }, own.clauses);
  const tiers = { response_tier: p.projection.tier, key_tier: keyTier(auth.key, def) };

  if (p.countOnly || p.dryRun) {
    const { count } = await services.es.count({ index, query: body.query });
    if (p.countOnly) return { data: { total_count: count }, meta: { total_count: count, ...tiers, credits_charged: 0 } };
    const rows = Math.max(0, Math.min(p.pageSize, count - p.page * p.pageSize));
    const price = rowPrice(def.name, p.projection.tier, p.signals);
    const [base, signal] = auth.sandbox ? [0, 0] : [rows * price.base, rows * price.signals];
    return {
      data: [],
      meta: { dry_run: true, estimated_rows: rows, estimated_total_matches: count, base_credits: toCredits(base), signal_credits: toCredits(signal), estimated_credits: toCredits(base + signal), ...tiers, credits_charged: 0, phase: 'internal-phase-1' },
    };
  }

  const offset = page * p.pageSize;
  // One row more than the page tells has_more whenever the total is not known exactly.
  const want = p.pageSize + 1;
  const deep = offset + want > services.config.pageWindow;
  // Where the page starts: the caller's cursor, the remembered end of the previous page, or
  // (no start) from/size inside the window and a sort-values walk beyond it.
  const start = given ?? remembered;
  let served: Record<string, unknown> = {};
  const search = (after?: unknown[]) => {
    served = {
      query: body.query,
      sort: body.sort,
      size: want,
      // Exact up to 10,000 matches in the page query itself; above, the count runs in the background.
      track_total_hits: p.includeCount ? services.config.exactCountUpTo : false,
      _source: { includes: p.projection.fields.map((f) => f.name).concat(['filing_year', 'lead_type']) },
      ...(deep || start ? (after ? { search_after: after } : {}) : { from: offset }),
    };
    return services.esSearch.search<Doc>(index, served);
  };
  let res = start ? await search(start.a) : null;
  const moved = res && res.hits.hits.length > 0 && res.hits.hits[0]._index !== start?.g;
  if (moved && given) throw staleCursor();
  if (!res || moved) {
    const after = deep ? await searchAfterFor(services, index, body, offset) : undefined;
    res = deep && after === undefined && offset > 0 ? null : await search(after);
  }
  const hits = res?.hits.hits ?? [];
  const pageHits = hits.slice(0, p.pageSize);
  const now = new Date().toISOString();
  const tagsOf = p.projection.tags ? await services.tags.namesOfMany(scopeOf(auth.key), def.name, pageHits.map((h) => String(h._id))) : null;
  const rows = pageHits.map((h) => {
    const doc = h._source ?? {};
    const extra = def.name === 'personnel' ? { crm_status: crmStatusOfHit(h.matched_queries), ...(tagsOf ? { tags: tagsOf.get(String(h._id)) ?? [] } : {}) } : undefined;
    const row = shapeRow(doc, p.projection.fields, { source: def.leadSource(doc), retrievedAt: now, extra });
    return p.format === 'flat' ? flattenRow(row) : row;
  });
  const hasMore = hits.length > p.pageSize;
  const last = pageHits[pageHits.length - 1];
  const end = last ? { f: fp, p: page + 1, a: last.sort as unknown[], g: last._index } : null;
  // The debit, the count-cache read and the page-end write leave in one Redis pipeline (same tick).
  const [charge, total] = await Promise.all([
    chargeRows(services, auth, def.name, p.projection.tier, rows.length, p.signals, crawl, { generation: pageHits[0]?._index ?? '', ids: pageHits.map((h) => String(h._id)) }),
    // An empty page (past the end) names no concrete index to key the count cache by: count now.
    !p.includeCount ? undefined : res && hits.length ? exactCount(services, def, q, body, res, hits[0]._index, context) : services.es.count({ index, query: body.query }).then((c) => c.count),
    end ? remember(services, fp, page, end) : null,
  ]);
  return {
    data: rows,
    meta: {
      ...(total === null ? { count_pending: true } : total !== undefined ? { total_count: total } : {}),
      page,
      page_size: p.pageSize,
      returned: rows.length,
      has_more: hasMore,
      ...(hasMore && end ? { next_cursor: await services.cursors.encode(end) } : {}),
      ...tiers,
      credits_charged: charge.credits,
      cache_hit: charge.cacheHit,
      applied_filters: appliedFilters(q, p),
      ...(explain ? { explain: { index, body: served } } : {}),
    },
  };
}

/**
 * The exact total of a list call: from the page query when under `exactCountUpTo`, else from the
 * Redis count cache (keyed by the filters and the concrete index, so an alias move
 * invalidates it); on a miss the count starts in the background and null means pending.
 */
async function exactCount(services: Services, def: EntityDef, q: Query, body: SearchBody, res: { hits: { total?: number | { value: number; relation: string } } }, generation: string, context: string): Promise<number | null> {
  const t = res.hits.total;
  if (t === undefined) return 0;
  if (typeof t === 'number') return t;
  if (t.relation === 'eq') return t.value;
  const filters = Object.keys(q)
    .filter((k) => !['page', 'page_size', 'sort_by', 'sort_dir', 'mode', 'fields', 'format', 'cursor', 'explain', 'include_count'].includes(k))
    .sort()
    .map((k) => `${k}=${JSON.stringify(q[k])}`);
  const key = services.rk.count(createHash('sha1').update(`${context}|${def.name}|${generation}|${filters.join('&')}`).digest('hex').slice(0, 24));
  const cached = await services.redis.get(key);
  if (cached !== null && cached !== 'pending') return Number(cached);
  if (cached === null && (await services.redis.set(key, 'pending', 'EX', 60, 'NX')) === 'OK') {
    services.es
      .count({ index: generation, query: body.query })
      .then((c) => services.redis.set(key, String(c.count), 'EX', 3600))
      .catch((err: Error) => {
        services.log.warn({ err: err.message }, 'background count failed');
        return services.redis.del(key);
      });
  }
  return null;
}

/** Remembered end of a served page (15 minutes): page N+1 then starts with one search_after query. */
async function rememberedEnd(services: Services, fp: string, page: number): Promise<Cursor | null> {
  const json = await services.redis.get(services.rk.cursor(fp, page));
  return json ? (JSON.parse(json) as Cursor) : null;
}

/** Remembers where a served page ended; a failure only costs the next page its shortcut. */
async function remember(services: Services, fp: string, page: number, end: Cursor): Promise<void> {
  await services.redis.set(services.rk.cursor(fp, page), JSON.stringify(end), 'EX', 900).catch((err: Error) => services.log.warn({ err: err.message }, 'could not remember a page cursor'));
}

/**
 * Echo of the filters applied (everything but paging, projection and format), as they were read:
 * states upper-cased, signals without repeats, signal_match only when all, and of states and dmas
 * only the one geo_mode chose.
 */
function appliedFilters(q: Query, p: ListParams): Record<string, unknown> {
  const skip = new Set(['page', 'page_size', 'mode', 'fields', 'format', 'count_only', 'include_count', 'dry_run', 'cursor', 'explain']);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(q)) if (!skip.has(k) && !(k === 'signal_match' && v !== 'all')) out[k] = v;
  if (p.states.length) out.states = p.states.join(',');
  if (p.signals.length) out.signals = p.signals.join(',');
  if (p.states.length && p.dmas.length) {
    delete out[p.geoMode === 'dma' ? 'states' : 'dmas'];
    if (p.geoMode !== 'dma') delete out.geo_mode;
  }
  return out;
}
