/**
 * GET /v1/{resource}: the list endpoint as the composition of the read pipeline's steps:
 *
 *   parse (list-request.ts) → authorize (authorize.ts) → caller context + build (decorate.ts,
 *   query.ts) → fetch (page.ts) → decorate (decorate.ts) → price + debit (charge.ts) → envelope
 *
 * What is particular to the list: counts (count_only, count_pending), dry runs priced by the count,
 * page positions (cursors, remembered ends), crawl detection taken with the debit.
 */
import type { Services } from '../context.ts';
import type { AuthState } from '../access.ts';
import { aliasName, isVersionOf } from '../../core/names.ts';
import { invalid } from '../errors.ts';
import { scopeOf } from '../services/tags.ts';
import { personOf } from '../services/person.ts';
import type { CrawlStep } from '../services/crawl.ts';
import { authorizeList, tierMeta, type Grant } from './authorize.ts';
import { chargeRows, deliveryOf, estimate } from './charge.ts';
import { crawlKey } from './crawl-key.ts';
import type { Cursor } from './cursor.ts';
import { callerContext, decorate, sourceFields } from './decorate.ts';
import type { ListRequest } from './list-request.ts';
import { checkDepth, exactTotal, fetchPage, fingerprint } from './page.ts';
import { buildListQuery, rankSort, sortClause, type SearchBody } from './query.ts';

/** What an endpoint answers: the envelope's data and meta. */
export interface ReadResult {
  data: unknown;
  meta: Record<string, unknown>;
}

/** What besides the parameters decides which rows match (see fingerprint); the export's crawl step uses it too. */
export function rowContext(auth: AuthState, req: ListRequest): string {
  return [auth.dataNamespace, req.tags.length ? `u:${scopeOf(auth.key)}` : '', req.crmStatus.length ? `o:${auth.key.org}` : ''].join('|');
}

/** The count cache's key of a list question: its filters in the caller's context (services/read-memory.ts). */
export const countKeyOf = (auth: AuthState, req: ListRequest, context = rowContext(auth, req)): string => `${context}|${req.def.name}|${req.countKey}`;

/**
 * The crawl step of reading `req`'s rows from row `start` (a list page, a CSV export's page, an
 * async export): the caller's person and the fingerprint of the parsed filters, search and sort
 * (crawl-key.ts), not the spelling, so every way of reading one question draws on one count.
 */
export function crawlStep(services: Services, auth: AuthState, req: ListRequest, start: number, context = rowContext(auth, req)): CrawlStep {
  return services.crawl.step(auth.key.org, personOf(auth.key), fingerprint({ resource: req.def.name, rowsKey: crawlKey(req), context }), start);
}

/** count_only and dry_run: the count of the query, no rows. */
async function countAnswer(services: Services, auth: AuthState, req: ListRequest, q: { index: string; body: SearchBody; grant: Grant }): Promise<ReadResult> {
  const count = await services.readMemory.exactCount(q.index, countKeyOf(auth, req), q.body.query);
  const tiers = tierMeta(q.grant);
  if (req.countOnly) return { data: { total_count: count }, meta: { total_count: count, ...tiers, credits_charged: 0 } };
  const rows = Math.max(0, Math.min(req.pageSize, count - req.page * req.pageSize));
  return { data: [], meta: { ...estimate({ auth, def: req.def, tier: q.grant.projection.tier, rows, signals: req.signals }), estimated_total_matches: count, ...tiers } };
}

/** The verified cursor of the call, or null; 400 when it is not ours, of other filters, of other data, or of another page. */
async function givenCursor(services: Services, req: ListRequest, opts: { fp: string; index: string; ns: string }): Promise<Cursor | null> {
  if (req.cursor === null) return null;
  const c = await services.cursors.decode(req.cursor, opts.fp, sortClause(req.def, req).length);
  if (!isVersionOf(c.g, opts.ns, req.def.name)) throw invalid({ field: 'cursor', issue: 'invalid_cursor' }, "cursor: it was issued for other data (a test key's sandbox or another resource)");
  if (req.pageGiven && req.page !== c.p) throw invalid({ field: 'page', issue: 'conflicts_with_cursor', expected: c.p });
  return c;
}

/** Serves a parsed list call for the authenticated caller. */
export async function listRows(services: Services, auth: AuthState, req: ListRequest): Promise<ReadResult> {
  const { def } = req;
  const grant = authorizeList(auth.key, req);
  // A page asked for by number must be reachable without a long walk (a dry run validates alike; a count has no page).
  if (!req.countOnly && req.cursor === null) checkDepth({ page: req.page, pageSize: req.pageSize, counted: rankSort(def, req) !== undefined, window: services.config.pageWindow });
  const index = aliasName(auth.dataNamespace, def.name);
  // A HEAD answers as the dry run (status and headers, no rows fetched, nothing charged).
  const rowsWanted = !req.countOnly && !req.shape.dryRun && !auth.headOnly;
  const context = rowContext(auth, req);
  const fp = fingerprint({ resource: def.name, rowsKey: req.rowsKey, context });
  const given = rowsWanted ? await givenCursor(services, req, { fp, index, ns: auth.dataNamespace }) : null;
  const page = given ? given.p : req.page;
  // The page's crawl step is taken with its debit, after the search; the caller's context and
  // the remembered end of the previous page leave in one auto-pipelined Redis batch.
  const crawl = rowsWanted ? crawlStep(services, auth, req, page * req.pageSize, context) : undefined;
  const [caller, remembered] = await Promise.all([
    callerContext(services, auth, { def, rows: rowsWanted ? grant.projection : null, tags: req.tags, crmStatus: req.crmStatus }),
    rowsWanted && !given && page > 0 ? services.readMemory.pageEnd<Cursor>(fp, page - 1) : null,
  ]);
  const body = buildListQuery(req, caller);
  if (!rowsWanted) return countAnswer(services, auth, req, { index, body, grant });

  const start = given ? { cursor: given, given: true } : remembered ? { cursor: remembered, given: false } : null;
  const fetched = await fetchPage(services, { index, body, page, pageSize: req.pageSize, source: sourceFields(def, grant.projection), includeCount: req.includeCount, start });
  const { pageHits } = fetched;
  const rows = await decorate(services, auth, { def, projection: grant.projection, format: req.shape.format }, pageHits);
  const last = pageHits[pageHits.length - 1];
  const end: Cursor | null = last ? { f: fp, p: page + 1, a: last.sort as unknown[], g: last._index } : null;
  // The debit, the count-cache read and the page-end write leave in one Redis pipeline (same tick).
  const countKey = countKeyOf(auth, req, context);
  const [charge, total] = await Promise.all([
    chargeRows(services, { auth, def, tier: grant.projection.tier, rows: rows.length, signals: req.signals, crawl, delivery: deliveryOf(pageHits) }),
    !req.includeCount ? undefined : fetched.hits.length ? exactTotal(services, { page: fetched, body, countKey }) : services.readMemory.exactCount(index, countKey, body.query),
    end ? services.readMemory.remember(fp, page, end) : null,
  ]);
  return {
    data: rows,
    meta: {
      ...(total === null ? { count_pending: true } : total !== undefined ? { total_count: total } : {}),
      page,
      page_size: req.pageSize,
      returned: rows.length,
      has_more: fetched.hasMore,
      ...(fetched.hasMore && end ? { next_cursor: await services.cursors.encode(end) } : {}),
      ...tierMeta(grant),
      credits_charged: charge.credits,
      cache_hit: charge.cacheHit,
      applied_filters: req.applied,
      ...(req.explain ? { explain: { index, body: fetched.served, ...(fetched.ladder ? { ladder: fetched.ladder } : {}) } } : {}),
    },
  };
}
