/**
 * GET /v1/{resource}/export.csv: the rows of a list call as CSV, up to EXPORT_SYNC_MAX rows,
 * composed from the list pipeline (parse, authorize, caller context, query builder, decorate,
 * price + debit) with what is its own: the row count chosen by `page_size` (or `limit`), pages
 * of that size (`page` N starts at row N × size, bounded like list pages), the exact count held
 * before the first byte, and a point-in-time walk as CSV lines with flat memory. `format` may
 * only say flat (a CSV is always flat); `count_only` and `include_count` are refused, a CSV
 * having no meta to carry a count. The walk moves no money: its callers settle (server/routes/export.ts keeps the rows
 * the connection took, the async export the rows written to its file).
 */
import type { Services } from '../context.ts';
import type { AuthState } from '../access.ts';
import type { estypes } from '@elastic/elasticsearch';
import type { Doc, EntityDef } from '../../mappings/types.ts';
import type { ErrorDetail } from '../errors.ts';
import type { KeyRecord } from '../services/keys.ts';
import { authorizeList, type Grant } from './authorize.ts';
import { indexFor } from './fetch.ts';
import { countKeyOf } from './list.ts';
import { buildListQuery } from './query.ts';
import type { Charge } from './charge.ts';
import { callerContext, decorate, sourceFields, type Hit } from './decorate.ts';
import { PAGE_SIZE_TEST_KEYS, listParams, parseListRequest, type ListRequest } from './list-request.ts';
import { flatColumns } from './projection.ts';
import type { SearchBody } from './query.ts';
import { integerParam, one, throwProblems, type RawQuery } from './request.ts';
import { rankSort } from './query.ts';
import { WALK_MAX, checkDepth, tooDeep } from './page.ts';

/** Most rows of a synchronous export. */
export const EXPORT_SYNC_MAX = 2_000;
/** Rows per search of the walk. */
const WALK_BATCH = 1_000;

/** List parameters no export takes (a file is not paged by cursor, and carries no explain). */
const NOT_EXPORT = new Set(['page', 'cursor', 'explain']);

/**
 * Every parameter an export of the entity accepts: the list's filters, sort and shape, and `limit`
 * (alias of page_size). count_only and include_count are read to be refused with their reason.
 * The asynchronous export (POST /v1/exports) takes these; the synchronous one takes `page` as well.
 */
export const exportParams = (def: EntityDef): string[] => [...listParams(def).filter((p) => !NOT_EXPORT.has(p)), 'limit'];

/** Parameters of GET /v1/{resource}/export.csv: exportParams and `page` (pages of the export's size). */
export const syncExportParams = (def: EntityDef): string[] => [...exportParams(def), 'page'];

/** Why a CSV export refuses the count parameters (400 not_supported). */
const NO_META = 'a CSV export has no meta to carry a count: its X-Total-Count header gives the total, and the list with count_only=true the count alone';

/** An export as read: the list request, and the row count asked for (null: as many as allowed). */
export interface ExportRequest {
  list: ListRequest;
  rows: number | null;
}

/** Parse step of an export: the list's checks, plus the row count and the dry_run refusal. */
export function parseExportRequest(def: EntityDef, q: RawQuery): ExportRequest {
  const problems: ErrorDetail[] = [];
  const { page_size: pageSize, limit, ...rest } = q;
  if (pageSize !== undefined && limit !== undefined) problems.push({ field: 'limit', issue: 'conflicting_values', expected: 'page_size or its alias limit, not both' });
  const name = limit !== undefined ? 'limit' : 'page_size';
  const rows = pageSize ?? limit;
  const n = integerParam(name, rows, { min: 1, max: Number.MAX_SAFE_INTEGER, fallback: 0 }, problems);
  if (rows !== undefined && n > EXPORT_SYNC_MAX) {
    problems.push({ field: name, issue: 'out_of_range', expected: `at most ${EXPORT_SYNC_MAX} rows in a synchronous export; page through the list (cursor) for more` });
  }
  for (const name of ['count_only', 'include_count']) if (q[name] !== undefined) problems.push({ field: name, issue: 'not_supported', expected: NO_META });
  // A CSV is always flat: format=flat says so (a no-op); json asks for what a CSV cannot be.
  if (one(q, 'format') === 'json') problems.push({ field: 'format', issue: 'not_supported', expected: 'flat (a CSV is always flat; omit format or send format=flat)' });
  if (one(q, 'dry_run') === 'true' || one(q, 'dry_run') === '1') problems.push({ field: 'dry_run', issue: 'invalid_value', expected: 'a CSV export cannot be a dry run: send dry_run=true to the list endpoint for the estimate' });
  throwProblems(problems);
  const { count_only: _c, include_count: _i, ...listed } = rest;
  return { list: parseListRequest(def, listed), rows: rows === undefined ? null : n };
}

/** The first row of an export's page: page × the export's page size. */
export const exportOffset = (req: ListRequest): number => req.page * req.pageSize;

/**
 * The depth bound of an export's page, before any I/O: in relevance order it must start inside the
 * from/size window (BINTEL_PAGE_WINDOW), as a list page; in a sorted order before WALK_MAX rows,
 * since the walk skips the rows before it (past either, the list's cursor goes on).
 */
export function checkExportDepth(req: ListRequest, window: number): void {
  checkDepth({ page: req.page, pageSize: req.pageSize, counted: rankSort(req.def, req) !== undefined, window });
  if (exportOffset(req) >= WALK_MAX) throw tooDeep({ pageSize: req.pageSize, bound: WALK_MAX, order: 'in an export (its walk skips the rows before the page)' });
}

/** The list request of an export, sized for the key: the rows asked for, else as many as the key may take. */
export function sizedExport(req: ExportRequest, key: KeyRecord): ListRequest {
  return { ...req.list, pageSize: req.rows ?? (key.key_type === 'test' ? PAGE_SIZE_TEST_KEYS : EXPORT_SYNC_MAX) };
}

const FORMULA = /^[=+\-@\t\r]/;
/** A plain number (a negative growth figure): a spreadsheet reads it as a number, never as a formula. */
const NUMBER = /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

/**
 * One CSV cell: a value a spreadsheet would run as a formula (leading `=`, `+`, `-`, `@`, tab,
 * carriage return; OWASP's CSV injection guidance) is prefixed with a single quote (a plain number
 * such as -4.23 stays a number), then quoted
 * as RFC 4180 asks when it holds a comma, quote, line break or edge space.
 */
export function csvCell(value: string): string {
  const safe = FORMULA.test(value) && !NUMBER.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One CSV line (CRLF, as spreadsheets expect). */
export const csvLine = (cells: readonly string[]): string => `${cells.map(csvCell).join(',')}\r\n`;

/** An export ready to charge: what the key may see, the query, and the exact rows the file will hold. */
export interface ExportPlan {
  grant: Grant;
  index: string;
  body: SearchBody;
  /** Rows matching the query. */
  count: number;
  /** Rows the file will hold: min(asked, count). */
  rows: number;
}

/** Authorize → caller context → build → exact count, for the synchronous and the async export alike; the file holds the rows of its page. */
export async function planExport(services: Services, auth: AuthState, req: ListRequest): Promise<ExportPlan> {
  const { def } = req;
  const grant = authorizeList(auth.key, req);
  const index = indexFor(auth, def);
  // The caller's context and the count cache are read in one Redis batch; Elasticsearch counts on a miss only.
  const built = callerContext(services, auth, { def, rows: grant.projection, tags: req.tags, crmStatus: req.crmStatus }).then((caller) => buildListQuery(req, caller));
  const [body, count] = await Promise.all([built, services.readMemory.exactCount(index, countKeyOf(auth, req), built.then((b) => b.query))]);
  return { grant, index, body, count, rows: Math.max(0, Math.min(req.pageSize, count - exportOffset(req))) };
}

/** What the walk of one export needs. */
export interface ExportWalk {
  req: ListRequest;
  grant: Grant;
  index: string;
  body: SearchBody;
  /** Rows charged (the exact count before the walk): the walk stops there. */
  rows: number;
  /** Rows before the first one written (the page's start), skipped in the same point in time. */
  offset?: number;
  charge: Charge;
  /** Called after each batch with the rows handed over so far (async exports report progress with it). */
  onRows?: (sent: number) => void | Promise<void>;
}

/** The first line of an export's file: a UTF-8 byte order mark (so spreadsheets read accents right) and the header. */
export const csvHead = (grant: Grant): string => `\ufeff${csvLine(flatColumns(grant.projection))}`;

/**
 * The rows of an export as CSV lines, a batch (one search) at a time, walked with a point in time
 * and search_after; the point in time is closed when the walk ends, finished or abandoned.
 */
export async function* exportLines(services: Services, auth: AuthState, w: ExportWalk): AsyncGenerator<string[]> {
  const { def } = w.req;
  const columns = flatColumns(w.grant.projection);
  const shape = { def, projection: w.grant.projection, format: 'flat' as const };
  let sent = 0;
  let pit: string | undefined;
  try {
    if (!w.rows) return;
    let pitId = (await services.es.openPointInTime({ index: w.index, keep_alive: '1m' })).id;
    pit = pitId;
    const batch = (from: number, after: unknown[] | undefined): Promise<estypes.SearchResponse<Doc>> => {
      const p = services.es.search<Doc>({
        pit: { id: pitId, keep_alive: '1m' },
        query: w.body.query,
        sort: w.body.sort as never,
        size: Math.min(WALK_BATCH, w.rows - from),
        _source: { includes: sourceFields(def, w.grant.projection) },
        track_total_hits: false,
        ...(after ? { search_after: after as never } : {}),
      });
      // Awaited below, unless the walk ends first (the client went away): never an unhandled rejection.
      p.catch(() => {});
      return p;
    };
    // A later page: the rows before it are walked over (sort values only) in the same point in time.
    const skipped = w.offset ? await skipRows(services, { pitId, body: w.body, offset: w.offset }) : { after: undefined, pitId };
    if (!skipped) return;
    pitId = skipped.pitId;
    pit = pitId;
    let next: Promise<estypes.SearchResponse<Doc>> | undefined = batch(0, skipped.after);
    while (next) {
      const res: estypes.SearchResponse<Doc> = await next;
      pitId = res.pit_id ?? pitId;
      pit = pitId;
      const hits = res.hits.hits as Hit[];
      if (!hits.length) break;
      // The next batch is asked for before this one is shaped and written: Elasticsearch finds it
      // while this process formats and writes (the walk's two halves overlap; one batch ahead).
      const fetched = sent + hits.length;
      next = fetched < w.rows && hits.length === Math.min(WALK_BATCH, w.rows - sent) ? batch(fetched, hits[hits.length - 1].sort) : undefined;
      const rows = await decorate(services, auth, shape, hits);
      yield rows.map((r) => csvLine(columns.map((c) => String(r[c] ?? ''))));
      sent = fetched;
      await w.onRows?.(sent);
    }
  } finally {
    if (pit) await services.es.closePointInTime({ id: pit }).catch(() => {});
  }
}

/** The sort values of the row just before `offset` in a point in time (null: fewer rows than that). */
async function skipRows(services: Services, q: { pitId: string; body: SearchBody; offset: number }): Promise<{ after: unknown[]; pitId: string } | null> {
  let after: unknown[] | undefined;
  let { pitId } = q;
  for (let left = q.offset; left > 0; ) {
    const size = Math.min(left, WALK_MAX);
    const res = await services.es.search<Doc>({ pit: { id: pitId, keep_alive: '1m' }, query: q.body.query, sort: q.body.sort as never, size, _source: false, track_total_hits: false, ...(after ? { search_after: after as never } : {}) });
    pitId = res.pit_id ?? pitId;
    const hits = res.hits.hits;
    if (hits.length < size) return null;
    after = hits[hits.length - 1].sort as unknown[];
    left -= hits.length;
  }
  return after ? { after, pitId } : null;
}

/** The CSV text of an export: the head, then the lines of each batch of the walk joined (a file's writer takes them as they come). */
export async function* exportCsv(services: Services, auth: AuthState, w: ExportWalk): AsyncGenerator<string> {
  yield csvHead(w.grant);
  for await (const lines of exportLines(services, auth, w)) yield lines.join('');
}
