/**
 * Query-string reading for the read API: every parameter named, single-valued unless said
 * otherwise; unknown parameters are a 400 naming them (a typo never silently widens a query).
 */
import type { Context } from 'koa';
import { invalid, type ErrorDetail } from '../errors.ts';
import { LEAD_TYPES } from '../../mappings/reference.ts';

/** The query as single strings; repeated parameters are refused unless listed in `repeatable`. */
export function readQuery(ctx: Context, allowed: readonly string[], repeatable: readonly string[] = []): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const problems: ErrorDetail[] = [];
  for (const [k, v] of Object.entries(ctx.query)) {
    if (v === undefined) continue;
    const known = allowed.includes(k) || allowed.some((a) => a.endsWith('[') && k.startsWith(a));
    if (!known) {
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

/** A single string parameter (after readQuery). */
export const one = (q: Record<string, string | string[]>, name: string): string | undefined => {
  const v = q[name];
  return Array.isArray(v) ? v[0] : v;
};

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

/** The problem with a personnel lead_type value (required, company or broker), or null. */
export function leadTypeProblem(v: string | undefined): ErrorDetail | null {
  if (v === undefined || v === '') return { field: 'lead_type', issue: 'missing_required', expected: LEAD_TYPES };
  if (!(LEAD_TYPES as readonly string[]).includes(v)) return { field: 'lead_type', issue: 'invalid_value', expected: LEAD_TYPES };
  return null;
}
