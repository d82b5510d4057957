/**
 * Step 1 of the list pipeline: the query string of GET /v1/{resource} to one typed, checked
 * ListRequest, or a single 400 naming every problem. Pure: nothing here touches Elasticsearch or
 * Redis, and no later step reads the raw query again (the fingerprint inputs and the echo of the
 * applied filters are computed here, from what was read).
 */
import type { EntityDef, FieldDef } from '../../mappings/types.ts';
import { DMAS, STATE_CODES } from '../../mappings/reference.ts';
import { SIGNAL_NAMES } from '../../mappings/signals.ts';
import type { ErrorDetail } from '../errors.ts';
import { CRM_STATUSES, type CrmStatus } from '../services/crm.ts';
import { checkFieldNames } from './projection.ts';
import { dmaItems, filterParams, narrows, readOwnFilters, readOwnGeo, type OwnFilter, type OwnGeo } from './filters.ts';
import {
  MAX_SEARCH_CHARS, SHAPE_PARAMS, booleanParam, commaItems, choiceParam, listParam, pageParams, matchOutOfBounds, one, readShape, readSide, sideParams,
  throwProblems, tooLong, type RawQuery, type ShapeRequest,
} from './request.ts';

/** Most rows a page may have without a business filter. */
export const PAGE_SIZE_UNFILTERED = 25;
/** Most rows a page of a test key may have. */
export const PAGE_SIZE_TEST_KEYS = 100;

export type CfOp = 'gte' | 'gt' | 'lte' | 'lt';

export interface CfFilter {
  field: FieldDef;
  /** Numeric and percent columns: every bound must hold. */
  ranges: { op: CfOp; value: number }[];
  /** Plain values: a row matches any of them (numbers equal, strings as the kind says). */
  values: (string | number)[];
}

/** A list call as read: every parameter typed and checked. */
export interface ListRequest {
  def: EntityDef;
  page: number;
  pageSize: number;
  sortBy: string;
  sortDir: 'asc' | 'desc';
  /** true when sort_by was given (a search without it sorts by relevance). */
  sortExplicit: boolean;
  shape: ShapeRequest;
  countOnly: boolean;
  includeCount: boolean;
  /** The Elasticsearch request is echoed in meta (internal keys only). */
  explain: boolean;
  /** The `cursor` parameter, still to be verified (its signature needs the namespace's secret). */
  cursor: string | null;
  /** `page` was given (with a cursor it must agree with the cursor's page). */
  pageGiven: boolean;
  search: string | null;
  signals: string[];
  signalMatch: 'any' | 'all';
  states: string[];
  dmas: string[];
  geoMode: 'state' | 'dma';
  cf: CfFilter[];
  eb: FieldDef[];
  tags: string[];
  /** crm_status values (OR'ed); the caller's CRM context decides what they match. */
  crmStatus: CrmStatus[];
  /** The side the call reads (personnel: lead_type), null for entities without sides. */
  side: string | null;
  /** The resource's own filters and geography. */
  own: OwnFilter[];
  ownGeo: OwnGeo | null;
  /** Parameters that narrow the result (page_size above 25 needs one). */
  businessFilters: string[];
  /** Canonical text of every parameter deciding the rows and their order (all but page, cursor, explain). */
  rowsKey: string;
  /** Canonical text of the parameters deciding the total (the filters). */
  countKey: string;
  /** Echo of the filters applied, as they were read (meta.applied_filters). */
  applied: Record<string, unknown>;
}

/** Parameters every list endpoint accepts (cf[...] and eb[...] are matched by prefix). */
export const COMMON_LIST_PARAMS = [
  'page', 'page_size', 'sort_by', 'sort_dir', ...SHAPE_PARAMS, 'count_only', 'include_count', 'dry_run',
  'search', 'signals', 'signal_match', 'states', 'dmas', 'geo_mode', 'tags', 'crm_status', 'cf[', 'eb[', 'cursor', 'explain',
] as const;

/** Every parameter the list of an entity accepts. */
export const listParams = (def: EntityDef): string[] => [...COMMON_LIST_PARAMS, ...filterParams(def), ...sideParams(def)];

/** Parameters that shape, page or count rather than narrow. */
const NOT_BUSINESS = new Set(['page', 'page_size', 'sort_by', 'sort_dir', ...SHAPE_PARAMS, 'count_only', 'include_count', 'dry_run', 'signal_match', 'geo_mode', 'cursor', 'explain']);
/** Parameters that do not decide the rows (fingerprint) ... */
const NOT_ROWS = new Set(['page', 'cursor', 'explain']);
/** ... or the total (count cache). */
const NOT_COUNT = new Set(['page', 'page_size', 'sort_by', 'sort_dir', ...SHAPE_PARAMS, 'cursor', 'explain', 'include_count']);
/** Parameters not echoed in applied_filters. */
const NOT_APPLIED = new Set(['page', 'page_size', ...SHAPE_PARAMS, 'count_only', 'include_count', 'dry_run', 'cursor', 'explain']);

const canonical = (q: RawQuery, skip: ReadonlySet<string>): string =>
  Object.keys(q)
    .filter((k) => !skip.has(k))
    .sort()
    .map((k) => `${k}=${JSON.stringify(q[k])}`)
    .join('&');

const CF_OP = /^(gte|gt|lte|lt):(.*)$/;
/** What each numeric field type can hold in Elasticsearch (a bound outside is refused there: a 400 here). */
const NUMERIC_RANGE: Partial<Record<FieldDef['type'], [number, number]>> = {
  integer: [-(2 ** 31), 2 ** 31 - 1],
  long: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  double: [-Number.MAX_VALUE, Number.MAX_VALUE],
};
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/** One numeric cf part (`gte:10` or `10`) into `out`; false after recording a problem. */
function numericPart(out: CfFilter, part: string, problems: ErrorDetail[]): boolean {
  const f = out.field;
  const field = `cf[${f.name}]`;
  const m = CF_OP.exec(part);
  const text = m ? m[2].trim() : part;
  if (!NUMBER.test(text)) {
    problems.push({ field, issue: 'invalid_number', expected: f.cf === 'percent' ? 'a percent value, e.g. gte:1 for at least 1%' : 'a number, optionally gte:, gt:, lte: or lt:' });
    return false;
  }
  const n = Number(text);
  const range = NUMERIC_RANGE[f.type];
  if (range && (n < range[0] || n > range[1])) {
    problems.push({ field, issue: 'out_of_range', expected: `a number from ${range[0]} to ${range[1]}` });
    return false;
  }
  if (m) out.ranges.push({ op: m[1] as CfOp, value: n });
  else out.values.push(n);
  return true;
}

/** cf[column]: the kind of the column decides how its values are read. */
function cfFilter(def: EntityDef, column: string, raw: string, problems: ErrorDetail[]): CfFilter | null {
  const field = `cf[${column}]`;
  const f = def.fields.find((x) => x.name === column && x.cf);
  if (!f) {
    problems.push({ field, issue: 'unknown_column', expected: def.fields.filter((x) => x.cf).map((x) => x.name) });
    return null;
  }
  const parts = commaItems(field, raw, problems, f.enum !== undefined);
  if (!parts.length) {
    problems.push({ field, issue: 'missing_value' });
    return null;
  }
  if (f.cf === 'string' && matchOutOfBounds(field, parts, problems)) return null;
  const out: CfFilter = { field: f, ranges: [], values: [] };
  for (const p of parts) {
    if (f.cf === 'numeric' || f.cf === 'percent') {
      if (!numericPart(out, p, problems)) return null;
    } else if (CF_OP.test(p)) {
      problems.push({ field, issue: 'operator_not_supported', expected: 'gte/gt/lte/lt apply to numeric columns only' });
      return null;
    } else out.values.push(p);
  }
  return out;
}

/** The cf[...] and eb[...] parameters. */
function columnFilters(def: EntityDef, q: RawQuery, problems: ErrorDetail[]): { cf: CfFilter[]; eb: FieldDef[] } {
  const cf: CfFilter[] = [];
  const eb: FieldDef[] = [];
  for (const [name, v] of Object.entries(q)) {
    const cfm = /^cf\[(.*)\]$/.exec(name);
    const ebm = /^eb\[(.*)\]$/.exec(name);
    if (cfm) {
      const col = cfm[1];
      if (col === 'email' || col === 'linkedin') {
        problems.push({ field: name, issue: 'unknown_column', expected: col === 'email' ? 'cf[email_address]' : 'cf[person_linkedin_url]' });
        continue;
      }
      const f = cfFilter(def, col, Array.isArray(v) ? v.join(',') : v, problems);
      if (f) cf.push(f);
    } else if (ebm) {
      const f = def.fields.find((x) => x.name === ebm[1] && x.blank);
      if (!f) problems.push({ field: name, issue: 'unknown_column', expected: def.fields.filter((x) => x.blank).map((x) => x.name) });
      else if (one(q, name) !== 'true') problems.push({ field: name, issue: 'invalid_value', expected: ['true'] });
      else eb.push(f);
    } else if (/^(cf|eb)\[/.test(name)) {
      // `cf[company_name=x` (no closing bracket) must not pass as a filter that filters nothing.
      problems.push({ field: name, issue: 'unknown_field', expected: `${name.slice(0, 2)}[column]` });
    }
  }
  return { cf, eb };
}

/** states, dmas and geo_mode. */
function geography(q: RawQuery, problems: ErrorDetail[]): Pick<ListRequest, 'states' | 'dmas' | 'geoMode'> {
  const states = listParam(q, 'states', problems).map((s) => s.toUpperCase());
  if (states.some((s) => !STATE_CODES.includes(s))) problems.push({ field: 'states', issue: 'invalid_state', expected: STATE_CODES });
  const raw = one(q, 'dmas');
  const { dmas, unknown } = dmaItems('dmas', raw ?? '', problems);
  if (raw !== undefined && !dmas.length && !unknown.length) problems.push({ field: 'dmas', issue: 'missing_value' });
  if (unknown.length) problems.push({ field: 'dmas', issue: 'invalid_value', expected: DMAS });
  return { states, dmas, geoMode: choiceParam(q, 'geo_mode', { allowed: ['state', 'dma'] as const, fallback: 'state' }, problems) };
}

/**
 * Echo of the filters applied (everything but paging, projection and format), as they were read:
 * states upper-cased, signals without repeats, signal_match only when all, and of states and dmas
 * only the one geo_mode chose.
 */
function appliedFilters(q: RawQuery, r: Pick<ListRequest, 'states' | 'signals' | 'dmas' | 'geoMode'>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(q)) if (!NOT_APPLIED.has(k) && !(k === 'signal_match' && v !== 'all')) out[k] = v;
  if (r.states.length) out.states = r.states.join(',');
  if (r.signals.length) out.signals = r.signals.join(',');
  if (r.states.length && r.dmas.length) {
    delete out[r.geoMode === 'dma' ? 'states' : 'dmas'];
    if (r.geoMode !== 'dma') delete out.geo_mode;
  }
  return out;
}

/** Parses a list call's query (already restricted to listParams(def) by readQuery); one 400 naming every problem. */
export function parseListRequest(def: EntityDef, q: RawQuery): ListRequest {
  const problems: ErrorDetail[] = [];
  const own = readOwnFilters(def, q, problems);
  const ownGeo = readOwnGeo(def, q, problems);
  const { page, pageSize } = pageParams(q, problems);
  const sortable = def.fields.filter((f) => f.sortable).map((f) => f.name);
  const sortBy = one(q, 'sort_by') ?? def.defaultSort;
  if (!sortable.includes(sortBy)) problems.push({ field: 'sort_by', issue: 'invalid_value', expected: sortable });
  const sortDir = choiceParam(q, 'sort_dir', { allowed: ['asc', 'desc'] as const, fallback: 'asc' }, problems);
  const shape = readShape(q, problems);
  if (shape.fields) checkFieldNames(def, shape.fields, problems);
  const countOnly = booleanParam(q, 'count_only', false, problems);
  const includeCount = booleanParam(q, 'include_count', true, problems);
  const explainRaw = one(q, 'explain');
  if (explainRaw !== undefined && explainRaw !== 'true' && explainRaw !== 'false') problems.push({ field: 'explain', issue: 'invalid_boolean', expected: ['true', 'false'] });
  const searchRaw = one(q, 'search');
  if (searchRaw !== undefined && !searchRaw.trim()) problems.push({ field: 'search', issue: 'missing_value' });
  if (searchRaw !== undefined) tooLong('search', [searchRaw.trim()], MAX_SEARCH_CHARS, problems);
  const signals = [...new Set(listParam(q, 'signals', problems))];
  if (signals.some((s) => !SIGNAL_NAMES.includes(s))) problems.push({ field: 'signals', issue: 'invalid_value', expected: SIGNAL_NAMES });
  const signalMatch = choiceParam(q, 'signal_match', { allowed: ['any', 'all'] as const, fallback: 'any' }, problems);
  const geo = geography(q, problems);
  const tags = listParam(q, 'tags', problems);
  const crmStatus = listParam(q, 'crm_status', problems).map((s) => s.toLowerCase()) as CrmStatus[];
  if (crmStatus.some((s) => !CRM_STATUSES.includes(s))) problems.push({ field: 'crm_status', issue: 'invalid_value', expected: CRM_STATUSES });
  const side = readSide(def, def.side ? one(q, def.side.param) : undefined, problems);
  const { cf, eb } = columnFilters(def, q, problems);
  throwProblems(problems);

  // Resource filters count as they were read (filing_year=latest, the default, narrows nothing).
  const ownParams = new Set([...filterParams(def), ...sideParams(def)]);
  const businessFilters = [
    ...Object.keys(q).filter((k) => !NOT_BUSINESS.has(k) && !ownParams.has(k)),
    ...own.filter(narrows).map((f) => f.filter.param),
    ...(ownGeo && def.ownGeo ? [def.ownGeo.states] : []),
  ];
  const read = { signals, ...geo };
  return {
    def,
    page,
    pageSize,
    sortBy,
    sortDir,
    sortExplicit: one(q, 'sort_by') !== undefined,
    shape,
    countOnly,
    includeCount,
    explain: explainRaw === 'true',
    cursor: one(q, 'cursor') ?? null,
    pageGiven: q.page !== undefined,
    search: searchRaw?.trim() || null,
    signals,
    signalMatch,
    ...geo,
    cf,
    eb,
    tags,
    crmStatus: [...new Set(crmStatus)],
    side,
    own,
    ownGeo,
    businessFilters,
    rowsKey: canonical(q, NOT_ROWS),
    countKey: canonical(q, NOT_COUNT),
    applied: appliedFilters(q, read),
  };
}
