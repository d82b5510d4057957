/**
 * Step 1 of the read pipeline, the parts every read endpoint shares: the query string read
 * once (unknown and repeated parameters refused), and the parameters common to several
 * endpoints (paging numbers, the required side, mode/fields/format/dry_run). Pure: problems
 * are collected, and the endpoint's parse step throws them together as one 400.
 */
import type { Context } from 'koa';
import { RECORD_ID_RE, type EntityDef } from '../../mappings/types.ts';
import { invalid, type ErrorDetail } from '../errors.ts';

/** The query string as read: one string per parameter, an array for a repeatable one. */
export type RawQuery = Record<string, string | string[]>;

/** A record id: what a path segment or a batch body may name (the ids ingest accepts). */
export const ID_RE = RECORD_ID_RE;

export const MODES = ['light', 'basic', 'full'] as const;
export type Mode = (typeof MODES)[number];
export const FORMATS = ['json', 'flat'] as const;
export type Format = (typeof FORMATS)[number];

/**
 * Longest text matched as a substring (cf[string columns], name/office filters). A contains-match
 * builds an automaton that grows with the text; past a few thousand characters Elasticsearch
 * refuses to build it, and no company, broker or person name comes near this length.
 */
export const MAX_MATCH_CHARS = 200;
/** Longest free-text search. */
export const MAX_SEARCH_CHARS = 500;
/** Most comma-separated values of one contains-match (each is a wildcard query Elasticsearch runs over the terms). */
export const MAX_MATCH_VALUES = 50;

/** The query as single strings; repeated parameters are refused unless listed in `repeatable`. */
export function readQuery(ctx: Context, allowed: readonly string[], repeatable: readonly string[] = []): RawQuery {
  const out: RawQuery = {};
  const problems: ErrorDetail[] = [];
  for (const [k, v] of Object.entries(ctx.query)) {
    if (v === undefined) continue;
    if (!isAllowedParam(allowed, k)) {
      problems.push({ field: k, issue: 'unknown_field' });
      continue;
    }
    if (Array.isArray(v) && !repeatable.includes(k)) {
      problems.push({ field: k, issue: 'repeated_parameter' });
      continue;
    }
    out[k] = v;
  }
  if (problems.length) throw invalid(problems, problems.length === 1 ? `${problems[0].field}: ${problems[0].issue.replace(/_/g, ' ')}` : undefined);
  return out;
}

/** True when `name` is on an allowlist (entries ending in `[` allow `cf[...]`-style families). */
export const isAllowedParam = (allowed: readonly string[], name: string): boolean => allowed.includes(name) || allowed.some((a) => a.endsWith('[') && name.startsWith(a));

/**
 * List parameters given as a JSON object (POST bodies: async exports, lookalike filters) as the
 * query string would carry them: strings as they are, numbers and booleans as their text, an
 * array of those as repeated values for a repeatable parameter and comma-joined otherwise.
 * Problems are named `<prefix><name>` (the field as the caller wrote it).
 */
export function queryOfObject(obj: Record<string, unknown>, opts: { allowed: readonly string[]; repeatable?: readonly string[]; prefix?: string }, problems: ErrorDetail[]): RawQuery {
  const out: RawQuery = {};
  const prefix = opts.prefix ?? '';
  const scalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';
  for (const [k, v] of Object.entries(obj)) {
    if (!isAllowedParam(opts.allowed, k)) problems.push({ field: `${prefix}${k}`, issue: 'unknown_field' });
    else if (scalar(v)) out[k] = String(v);
    else if (Array.isArray(v) && v.length > 0 && v.every(scalar)) out[k] = opts.repeatable?.includes(k) ? v.map(String) : v.map(String).join(',');
    else problems.push({ field: `${prefix}${k}`, issue: 'invalid_type', expected: 'a string, number or boolean (or an array of them), as in the query string of the list' });
  }
  return out;
}

/** A single string parameter (after readQuery). */
export const one = (q: RawQuery, name: string): string | undefined => {
  const v = q[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Throws the collected problems as one 400 naming every field. */
export function throwProblems(problems: readonly ErrorDetail[]): void {
  if (problems.length) throw invalid([...problems]);
}

/** A whole number parameter within [min, max] (`fallback` when absent); `page` and `page_size` everywhere. */
export function integerParam(name: string, given: string | string[] | undefined, range: { min: number; max: number; fallback: number }, problems: ErrorDetail[]): number {
  const raw = Array.isArray(given) ? given[0] : given;
  if (raw === undefined) return range.fallback;
  if (!/^\d+$/.test(raw)) {
    problems.push({ field: name, issue: 'invalid_integer', expected: `a whole number from ${range.min} to ${range.max}` });
    return range.fallback;
  }
  const n = Number(raw);
  if (n < range.min || n > range.max) problems.push({ field: name, issue: 'out_of_range', expected: `${range.min} to ${range.max}` });
  return n;
}

/** Paging of every paged endpoint (lists, tags): page from 0, page_size 1-500, default 25. */
export const PAGE_MAX = 1_000_000;
/** Longest domain or name a lookup takes, in characters. */
export const LOOKUP_TEXT_MAX = 2_000;
export const PAGE_SIZE_DEFAULT = 25;
export const PAGE_SIZE_MAX = 500;

/** `page` and `page_size`. */
export function pageParams(q: { page?: string | string[]; page_size?: string | string[] }, problems: ErrorDetail[]): { page: number; pageSize: number } {
  return {
    page: integerParam('page', q.page, { min: 0, max: PAGE_MAX, fallback: 0 }, problems),
    pageSize: integerParam('page_size', q.page_size, { min: 1, max: PAGE_SIZE_MAX, fallback: PAGE_SIZE_DEFAULT }, problems),
  };
}

/** The meta of one page of a list: `returned` rows of `total`, from page `page` of `pageSize`. */
export const listMeta = (page: number, pageSize: number, returned: number, total: number) => ({ total_count: total, page, page_size: pageSize, returned, has_more: page * pageSize + returned < total });

/** true/1 or false/0 (`fallback` when absent). */
export function booleanParam(q: RawQuery, name: string, fallback: boolean, problems: ErrorDetail[]): boolean {
  const raw = one(q, name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  problems.push({ field: name, issue: 'invalid_boolean', expected: ['true', 'false'] });
  return fallback;
}

/** One of `allowed` (`fallback` when absent). */
export function choiceParam<T extends string>(q: RawQuery, name: string, choice: { allowed: readonly T[]; fallback: T }, problems: ErrorDetail[]): T {
  const { allowed, fallback } = choice;
  const raw = one(q, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) problems.push({ field: name, issue: 'invalid_value', expected: allowed });
  return raw as T;
}

/**
 * The items of a comma-separated value, trimmed: `[]` for an empty value (the caller's
 * missing_value); an empty item (`TX,,CA`, a trailing comma) is `empty_item`. Items of an
 * enumerated parameter (`exact`: state codes, signals, field names, listed values) are taken as
 * listed: one with spaces around it (`signals= new_filer `) is `invalid_format`. Each problem is
 * recorded once and the non-empty items still returned, so one 400 names every problem.
 */
export function commaItems(field: string, raw: string, problems: ErrorDetail[], exact = false): string[] {
  const items = raw.split(',');
  // Nothing but commas and spaces: no value at all (the caller's missing_value).
  if (items.every((s) => !s.trim())) return [];
  if (items.some((s) => !s.trim())) problems.push({ field, issue: 'empty_item', expected: 'comma-separated values, none empty' });
  else if (exact && items.some((s) => s !== s.trim())) problems.push({ field, issue: 'invalid_format', expected: 'comma-separated listed values without spaces around them' });
  return items.map((s) => s.trim()).filter(Boolean);
}

/** Comma-separated listed values (commaItems, exact); an explicitly empty value is missing_value. */
export function listParam(q: RawQuery, name: string, problems: ErrorDetail[]): string[] {
  const raw = one(q, name);
  if (raw === undefined) return [];
  const items = commaItems(name, raw, problems, true);
  if (!items.length) problems.push({ field: name, issue: 'missing_value' });
  return items;
}

/** Bounds of a contains-match: at most MAX_MATCH_VALUES values of MAX_MATCH_CHARS; true when out of bounds (problem recorded). */
export function matchOutOfBounds(field: string, values: readonly string[], problems: ErrorDetail[]): boolean {
  if (values.length > MAX_MATCH_VALUES) {
    problems.push({ field, issue: 'too_many_values', expected: `at most ${MAX_MATCH_VALUES} comma-separated values` });
    return true;
  }
  return tooLong(field, values, MAX_MATCH_CHARS, problems);
}

/** Records a `too_long` problem for the first value over `max` characters; true when one was found. */
export function tooLong(field: string, values: readonly string[], max: number, problems: ErrorDetail[]): boolean {
  // Characters as people count them (code points), not UTF-16 units: an emoji is one.
  if (!values.some((v) => v.length > max && [...v].length > max)) return false;
  problems.push({ field, issue: 'too_long', expected: `at most ${max} characters` });
  return true;
}

/** The query parameter naming the entity's side (personnel: lead_type), if it has one. */
export const sideParams = (def: EntityDef): string[] => (def.side ? [def.side.param] : []);

/**
 * The side a read names (personnel: lead_type, required, company or broker); null for an
 * entity without sides. `value` is the parameter as given (query or body).
 */
export function readSide(def: EntityDef, value: string | undefined, problems: ErrorDetail[]): string | null {
  if (!def.side) return null;
  const { param, values } = def.side;
  if (value === undefined || value === '') problems.push({ field: param, issue: 'missing_required', expected: values });
  else if (!values.includes(value)) problems.push({ field: param, issue: 'invalid_value', expected: values });
  else return value;
  return null;
}

/** How the rows of a read are shaped, as asked: `mode`, `fields`, `format`, and whether it is a dry run. */
export interface ShapeRequest {
  mode: Mode;
  /** Field names asked for with `fields` (null: the mode decides). */
  fields: string[] | null;
  format: Format;
  dryRun: boolean;
}

/** Parameters of ShapeRequest, for the endpoints' allowlists. */
export const SHAPE_PARAMS = ['mode', 'fields', 'format'] as const;

/** Reads mode, fields, format and dry_run (which fields exist is checked by the projection). */
export function readShape(q: RawQuery, problems: ErrorDetail[]): ShapeRequest {
  const mode = choiceParam(q, 'mode', { allowed: MODES, fallback: 'basic' }, problems);
  const format = choiceParam(q, 'format', { allowed: FORMATS, fallback: 'json' }, problems);
  const dryRun = booleanParam(q, 'dry_run', false, problems);
  const raw = one(q, 'fields');
  let fields: string[] | null = null;
  if (raw !== undefined) {
    fields = commaItems('fields', raw, problems, true);
    if (!fields.length) problems.push({ field: 'fields', issue: 'missing_value', expected: 'comma-separated field names' });
  }
  return { mode, fields, format, dryRun };
}
