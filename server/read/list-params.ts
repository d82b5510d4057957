/**
 * The common list parameters of the spec, parsed and checked without I/O: from the query
 * string, the entity definition and the calling key to a typed ListParams, or a 400/403
 * naming the parameter. The query builder (query.ts) consumes the result.
 */
import type { EntityDef, FieldDef } from '../../mappings/types.ts';
import { DMAS, parseDmas, STATE_CODES } from '../../mappings/reference.ts';
import { SIGNAL_NAMES } from '../../mappings/signals.ts';
import { ApiError, forbidden, invalid, type ErrorDetail } from '../errors.ts';
import type { KeyRecord } from '../services/keys.ts';
import { assertFieldsAllowed, assertSortAllowed, keyTier } from '../services/tiers.ts';
import { FORMATS, project, type Format, type Projection } from './projection.ts';
import { leadTypeProblem, MAX_SEARCH_CHARS, matchOutOfBounds, one, tooLong } from './params.ts';
import { CRM_STATUSES, type CrmStatus } from '../services/crm.ts';
import { filterParams } from './filters.ts';

export const PAGE_SIZE_DEFAULT = 25;
export const PAGE_SIZE_MAX = 500;
export const PAGE_SIZE_UNFILTERED = 25;
export const PAGE_SIZE_TEST_KEYS = 100;

export type CfOp = 'gte' | 'gt' | 'lte' | 'lt';

export interface CfFilter {
  field: FieldDef;
  /** Numeric and percent columns: every bound must hold. */
  ranges: { op: CfOp; value: number }[];
  /** Plain values: a row matches any of them (numbers equal, strings as the kind says). */
  values: (string | number)[];
}

export interface ListParams {
  page: number;
  pageSize: number;
  sortBy: string;
  sortDir: 'asc' | 'desc';
  /** true when sort_by was given (a search without it sorts by relevance). */
  sortExplicit: boolean;
  projection: Projection;
  format: Format;
  countOnly: boolean;
  includeCount: boolean;
  dryRun: boolean;
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
  leadType: string | null;
  /** Parameters that narrow the result (page_size above 25 needs one). */
  businessFilters: string[];
}

type Query = Record<string, string | string[]>;

/** Parameters every list endpoint accepts (cf[...] and eb[...] are matched by prefix). */
export const COMMON_LIST_PARAMS = [
  'page', 'page_size', 'sort_by', 'sort_dir', 'mode', 'fields', 'format', 'count_only', 'include_count', 'dry_run',
  'search', 'signals', 'signal_match', 'states', 'dmas', 'geo_mode', 'tags', 'crm_status', 'cf[', 'eb[', 'cursor', 'explain',
] as const;

const NOT_BUSINESS = new Set(['page', 'page_size', 'sort_by', 'sort_dir', 'mode', 'fields', 'format', 'count_only', 'include_count', 'dry_run', 'signal_match', 'geo_mode', 'cursor', 'lead_type', 'explain']);

function integer(q: Query, name: string, def: number, min: number, max: number, details: ErrorDetail[]): number {
  const raw = one(q, name);
  if (raw === undefined) return def;
  if (!/^\d+$/.test(raw)) {
    details.push({ field: name, issue: 'invalid_integer', expected: `a whole number from ${min} to ${max}` });
    return def;
  }
  const n = Number(raw);
  if (n < min || n > max) details.push({ field: name, issue: 'out_of_range', expected: `${min} to ${max}` });
  return n;
}

function bool(q: Query, name: string, def: boolean, details: ErrorDetail[]): boolean {
  const raw = one(q, name);
  if (raw === undefined) return def;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  details.push({ field: name, issue: 'invalid_boolean', expected: ['true', 'false'] });
  return def;
}

function choice<T extends string>(q: Query, name: string, allowed: readonly T[], def: T, details: ErrorDetail[]): T {
  const raw = one(q, name);
  if (raw === undefined) return def;
  if (!(allowed as readonly string[]).includes(raw)) details.push({ field: name, issue: 'invalid_value', expected: allowed });
  return raw as T;
}

/** Comma-separated values, trimmed, blanks dropped; an explicitly empty value is missing_value. */
function list(q: Query, name: string, details: ErrorDetail[]): string[] {
  const raw = one(q, name);
  if (raw === undefined) return [];
  const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (!items.length) details.push({ field: name, issue: 'missing_value' });
  return items;
}

const CF_OP = /^(gte|gt|lte|lt):(.*)$/;
/** What each numeric field type can hold in Elasticsearch (a bound outside is refused there: a 400 here). */
const NUMERIC_RANGE: Partial<Record<FieldDef['type'], [number, number]>> = {
  integer: [-(2 ** 31), 2 ** 31 - 1],
  long: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  double: [-Number.MAX_VALUE, Number.MAX_VALUE],
};
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/** cf[column]: the kind of the column decides how its values are read. */
function cfFilter(def: EntityDef, column: string, raw: string, details: ErrorDetail[]): CfFilter | null {
  const field = `cf[${column}]`;
  const f = def.fields.find((x) => x.name === column && x.cf);
  if (!f) {
    details.push({ field, issue: 'unknown_column', expected: def.fields.filter((x) => x.cf).map((x) => x.name) });
    return null;
  }
  const parts = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (!parts.length) {
    details.push({ field, issue: 'missing_value' });
    return null;
  }
  if (f.cf === 'string' && matchOutOfBounds(field, parts, details)) return null;
  const out: CfFilter = { field: f, ranges: [], values: [] };
  for (const p of parts) {
    const m = CF_OP.exec(p);
    if (f.cf === 'numeric' || f.cf === 'percent') {
      const text = m ? m[2].trim() : p;
      if (!NUMBER.test(text)) {
        details.push({ field, issue: 'invalid_number', expected: f.cf === 'percent' ? 'a percent value, e.g. gte:1 for at least 1%' : 'a number, optionally gte:, gt:, lte: or lt:' });
        return null;
      }
      const n = Number(text);
      const range = NUMERIC_RANGE[f.type];
      if (range && (n < range[0] || n > range[1])) {
        details.push({ field, issue: 'out_of_range', expected: `a number from ${range[0]} to ${range[1]}` });
        return null;
      }
      if (m) out.ranges.push({ op: m[1] as CfOp, value: n });
      else out.values.push(n);
    } else {
      if (m) {
        details.push({ field, issue: 'operator_not_supported', expected: 'gte/gt/lte/lt apply to numeric columns only' });
        return null;
      }
      out.values.push(p);
    }
  }
  return out;
}

/**
 * Parses the common list parameters. `extraBusiness` names the resource-specific filters
 * present (they count as business filters for the page_size rule).
 */
export function parseListParams(def: EntityDef, key: KeyRecord, q: Query, extraBusiness: string[] = []): ListParams {
  const details: ErrorDetail[] = [];
  const page = integer(q, 'page', 0, 0, 1_000_000, details);
  const pageSize = integer(q, 'page_size', PAGE_SIZE_DEFAULT, 1, PAGE_SIZE_MAX, details);
  const sortable = def.fields.filter((f) => f.sortable).map((f) => f.name);
  const sortBy = one(q, 'sort_by') ?? def.defaultSort;
  if (!sortable.includes(sortBy)) details.push({ field: 'sort_by', issue: 'invalid_value', expected: sortable });
  const sortDir = choice(q, 'sort_dir', ['asc', 'desc'] as const, 'asc', details);
  const format = choice(q, 'format', FORMATS, 'json', details);
  const countOnly = bool(q, 'count_only', false, details);
  const includeCount = bool(q, 'include_count', true, details);
  const dryRun = bool(q, 'dry_run', false, details);
  const searchRaw = one(q, 'search');
  if (searchRaw !== undefined && !searchRaw.trim()) details.push({ field: 'search', issue: 'missing_value' });
  if (searchRaw !== undefined) tooLong('search', [searchRaw.trim()], MAX_SEARCH_CHARS, details);
  const signals = [...new Set(list(q, 'signals', details))];
  const badSignals = signals.filter((s) => !SIGNAL_NAMES.includes(s));
  if (badSignals.length) details.push({ field: 'signals', issue: 'invalid_value', expected: SIGNAL_NAMES });
  const signalMatch = choice(q, 'signal_match', ['any', 'all'] as const, 'any', details);
  const states = list(q, 'states', details).map((s) => s.toUpperCase());
  if (states.some((s) => !STATE_CODES.includes(s))) details.push({ field: 'states', issue: 'invalid_state', expected: STATE_CODES });
  const dmasRaw = one(q, 'dmas');
  const { dmas, unknown: unknownDmas } = parseDmas(dmasRaw ?? '');
  if (dmasRaw !== undefined && !dmas.length && !unknownDmas.length) details.push({ field: 'dmas', issue: 'missing_value' });
  if (unknownDmas.length) details.push({ field: 'dmas', issue: 'invalid_value', expected: DMAS });
  const geoMode = choice(q, 'geo_mode', ['state', 'dma'] as const, 'state', details);
  const tags = list(q, 'tags', details);
  const crmStatus = list(q, 'crm_status', details).map((s) => s.toLowerCase()) as CrmStatus[];
  if (crmStatus.some((s) => !CRM_STATUSES.includes(s))) details.push({ field: 'crm_status', issue: 'invalid_value', expected: CRM_STATUSES });
  let leadType: string | null = null;
  if (def.name === 'personnel') {
    const lt = one(q, 'lead_type');
    const problem = leadTypeProblem(lt);
    if (problem) details.push(problem);
    else leadType = lt as string;
  }
  const cf: CfFilter[] = [];
  const eb: FieldDef[] = [];
  for (const [name, v] of Object.entries(q)) {
    const cfm = /^cf\[(.*)\]$/.exec(name);
    if (cfm) {
      const col = cfm[1];
      if (col === 'email' || col === 'linkedin') {
        details.push({ field: name, issue: 'unknown_column', expected: col === 'email' ? 'cf[email_address]' : 'cf[person_linkedin_url]' });
        continue;
      }
      const f = cfFilter(def, col, Array.isArray(v) ? v.join(',') : v, details);
      if (f) cf.push(f);
      continue;
    }
    const ebm = /^eb\[(.*)\]$/.exec(name);
    if (!cfm && !ebm && /^(cf|eb)\[/.test(name)) {
      // `cf[company_name=x` (no closing bracket) must not pass as a filter that filters nothing.
      details.push({ field: name, issue: 'unknown_field', expected: `${name.slice(0, 2)}[column]` });
      continue;
    }
    if (ebm) {
      const f = def.fields.find((x) => x.name === ebm[1] && x.blank);
      if (!f) details.push({ field: name, issue: 'unknown_column', expected: def.fields.filter((x) => x.blank).map((x) => x.name) });
      else if (one(q, name) !== 'true') details.push({ field: name, issue: 'invalid_value', expected: ['true'] });
      else eb.push(f);
    }
  }
  if (details.length) throw invalid(details);

  // Tier rules (403) after the 400s: an advanced sort, filter column or field with a basic key.
  assertSortAllowed(key, def, sortBy);
  assertFieldsAllowed(key, def, cf.map((c) => c.field.name), (n) => `cf[${n}]`);
  assertFieldsAllowed(key, def, eb.map((f) => f.name), (n) => `eb[${n}]`);
  const projection = project(def, key, { mode: one(q, 'mode'), fields: one(q, 'fields') });
  if (signals.length && def.name === 'personnel' && keyTier(key, def) !== 'advanced') {
    throw forbidden('signals on personnel is an advanced-tier filter; this key is basic', 'signals', 'advanced_filter');
  }

  // Resource filters count as they were read (`extraBusiness`: filing_year=latest, the default, narrows nothing).
  const own = new Set(filterParams(def));
  const businessFilters = [...Object.keys(q).filter((k) => !NOT_BUSINESS.has(k) && !own.has(k)), ...extraBusiness];
  if (pageSize > PAGE_SIZE_UNFILTERED && !businessFilters.length) {
    throw new ApiError('FILTER_REQUIRED', `page_size above ${PAGE_SIZE_UNFILTERED} needs at least one business filter (search, states, cf[...], ...)`, [{ field: 'page_size', issue: 'filter_required' }]);
  }
  if (key.key_type === 'test' && pageSize > PAGE_SIZE_TEST_KEYS) {
    throw invalid({ field: 'page_size', issue: 'out_of_range', expected: `1 to ${PAGE_SIZE_TEST_KEYS} for test keys` });
  }
  return {
    page,
    pageSize,
    sortBy,
    sortDir,
    sortExplicit: one(q, 'sort_by') !== undefined,
    projection,
    format,
    countOnly,
    includeCount,
    dryRun,
    search: searchRaw?.trim() || null,
    signals,
    signalMatch,
    states,
    dmas,
    geoMode,
    cf,
    eb,
    tags,
    crmStatus: [...new Set(crmStatus)],
    leadType,
    businessFilters,
  };
}
