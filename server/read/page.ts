/**
 * Step 4 of the list pipeline, fetch: one page of a list query, and its total. A page whose start
 * is known (the caller's cursor, or the remembered end of the previous page) is one search_after
 * query whatever its depth. Otherwise a page from offset 1,000 of a list sorted on a column is
 * found by counting (ladder.ts: one counting request, then a short from/size), at any depth;
 * other pages inside Elasticsearch's result window use from/size, and deeper ones walk forward
 * with search_after over sort values only. Order is
 * `<sort_by> <sort_dir>, id asc`, so pages never overlap or leave gaps.
 *
 * The walk is bounded: no request makes Elasticsearch walk WALK_MAX rows or more to find where a
 * page starts. A relevance order (search without sort_by) cannot be counted to, so its pages must
 * start inside the from/size window (checkDepth, before any I/O); a sorted page that counting
 * cannot place that deep is refused alike; a page past the last match is empty, known from the
 * counting. Past the bound the way on is the cursor (one search_after query a page, any depth).
 */
import { createHash } from 'node:crypto';
import type { Services } from '../context.ts';
import { invalid, type ApiError } from '../errors.ts';
import type { Doc } from '../../mappings/types.ts';
import { staleCursor, type Cursor } from './cursor.ts';
import type { Hit } from './decorate.ts';
import { ladderStart, type LadderStart } from './ladder.ts';
import type { SearchBody } from './query.ts';

/** Elasticsearch's index.max_result_window: the most one search may return. */
const MAX_RESULT_WINDOW = 10_000;
/** The most rows a request may make Elasticsearch walk to find where a page starts (one search of the result window). */
export const WALK_MAX = MAX_RESULT_WINDOW;

/** 400 `page`/`out_of_range`: pages of this list must start before row `bound` (`order` says why); the cursor goes on. */
export function tooDeep(q: { pageSize: number; bound: number; order: string }): ApiError {
  const last = Math.ceil(q.bound / q.pageSize) - 1;
  return invalid(
    { field: 'page', issue: 'out_of_range', expected: `page × page_size below ${q.bound} ${q.order}: at most page ${last} at page_size ${q.pageSize}; past it, follow meta.next_cursor` },
    `page: too deep to reach directly ${q.order}; follow meta.next_cursor from an earlier page`,
  );
}

/**
 * The bound on a page asked for by number (no cursor) in an order that cannot be counted to
 * (relevance): it must start inside the from/size window, so finding it walks less than a window.
 */
export function checkDepth(q: { page: number; pageSize: number; counted: boolean; window: number }): void {
  if (!q.counted && q.page * q.pageSize >= q.window) throw tooDeep({ pageSize: q.pageSize, bound: q.window, order: 'in relevance order (search without sort_by)' });
}

/**
 * Fingerprint of a filter combination (everything but the page) in the caller's context, for
 * remembered page ends and cursors, and (of crawl-key.ts's text, which leaves the page size,
 * shape and spelling out) for crawl detection: `context` names what else decides the
 * rows (the data namespace; the user for tags=, the organization for crm_status=), so that
 * two users' `tags=vip` never share page positions.
 */
export function fingerprint(opts: { resource: string; rowsKey: string; context: string }): string {
  return createHash('sha1').update(`${opts.context}|${opts.resource}?${opts.rowsKey}`).digest('hex').slice(0, 20);
}

/** What one page fetch needs. */
export interface PageQuery {
  /** The alias read. */
  index: string;
  body: SearchBody;
  page: number;
  pageSize: number;
  /** Fields of each hit's _source. */
  source: string[];
  /** Count exactly in the page query (up to exactCountUpTo). */
  includeCount: boolean;
  /** Where the page starts, when known: a verified cursor (its index must still be live) or a remembered end. */
  start: { cursor: Cursor; given: boolean } | null;
}

/** A fetched page: one hit more than the page size tells has_more. */
export interface Page {
  hits: Hit[];
  pageHits: Hit[];
  hasMore: boolean;
  /** The total as the page query counted it (undefined when not tracked). */
  total?: number | { value: number; relation: string };
  /** The request sent for the page (explain). */
  served: Record<string, unknown>;
  /** The counting request that found where a deep page starts (explain), when one was sent. */
  ladder?: Record<string, unknown>;
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

/** Fetches one page (a given cursor whose index the alias has left is 400 stale_cursor). */
export async function fetchPage(services: Services, q: PageQuery): Promise<Page> {
  const offset = q.page * q.pageSize;
  const want = q.pageSize + 1;
  const deep = offset + want > services.config.pageWindow;
  // Exact up to 10,000 matches in the page query itself; above, the count runs in the background.
  const trackTotal = q.includeCount ? services.config.exactCountUpTo : false;
  let served: Record<string, unknown> = {};
  const search = (after?: unknown[], start?: LadderStart | null) => {
    served = {
      query: start ? { bool: { filter: [q.body.query, start.filter] } } : q.body.query,
      sort: q.body.sort,
      size: want,
      track_total_hits: start ? false : trackTotal,
      _source: { includes: q.source },
      ...(start ? { from: start.from } : deep || q.start ? (after ? { search_after: after } : {}) : { from: offset }),
    };
    return services.esSearch.search<Doc>(q.index, served);
  };
  let res = q.start ? await search(q.start.cursor.a) : null;
  const moved = res && res.hits.hits.length > 0 && res.hits.hits[0]._index !== q.start?.cursor.g;
  if (moved && q.start?.given) throw staleCursor();
  let start: LadderStart | null = null;
  if (!res || moved) {
    // Counting finds the page's start at any depth; past the result window only when what is left to skip fits in it.
    start = await ladderStart(services, { index: q.index, body: q.body, offset, want, trackTotal });
    // Past the last match (the counting says so): empty, without a search.
    if (start && offset >= start.matches) return { hits: [], pageHits: [], hasMore: false, total: start.total, served, ladder: start.served };
    if (start && start.from + want > services.config.pageWindow) start = null;
    // Neither known nor counted to: walked, but never from WALK_MAX rows or deeper.
    if (deep && !start && offset >= WALK_MAX) throw tooDeep({ pageSize: q.pageSize, bound: WALK_MAX, order: 'where counting cannot place the page (a long run of rows sharing one sort value, or without one)' });
    const after = deep && !start ? await searchAfterFor(services, q.index, q.body, offset) : undefined;
    res = deep && !start && after === undefined && offset > 0 ? null : await search(after, start);
  }
  const hits = (res?.hits.hits ?? []) as Hit[];
  return { hits, pageHits: hits.slice(0, q.pageSize), hasMore: hits.length > q.pageSize, total: start ? start.total : res?.hits.total, served, ...(start ? { ladder: start.served } : {}) };
}

/**
 * The exact total of a list call: from the page query when under `exactCountUpTo`, else from the
 * count cache (services/read-memory.ts); null means the count is pending.
 */
export async function exactTotal(services: Services, opts: { page: Page; body: SearchBody; /** The filters in the caller's context (what decides the total besides the data load). */ countKey: string }): Promise<number | null> {
  const t = opts.page.total;
  if (t === undefined) return 0;
  if (typeof t === 'number') return t;
  if (t.relation === 'eq') return t.value;
  return services.readMemory.count(opts.page.hits[0]._index, opts.body.query, opts.countKey);
}
