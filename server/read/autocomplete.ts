/**
 * GET /v1/{resource}/autocomplete, the pure steps: parse (query or its alias search, column from
 * the entity's allowlist, limit, the side when the entity has one), the request builder, and the
 * items made of what Elasticsearch answered. No I/O.
 *
 * Name columns read the completion companion built at ingest (mappings/es-mapping.ts
 * `companion.suggest`): one request holds two suggesters over it, exact prefixes and one-typo
 * prefixes (the first 4 characters exact), and a third when the text begins with "The" (names
 * that begin with it, first); exact ones come before one-typo ones, each in completion-weight
 * order (names starting with the text, then names with a later word starting with it, each
 * by popularity). A domain column (website) is a `prefix` query on the normalized-domain
 * keyword, by popularity. Both are bounded by `limit` (completion is a top-N walk of a
 * prefix automaton; the prefix query collects into a top-N sort), so the work does not grow with
 * the index the way an unbounded scan would.
 */
import { SIDE_CONTEXT, SUGGEST_ARTICLE, SUGGEST_MAX_INPUT, companion, docValueField, droppedArticle, suggestForm } from '../../mappings/es-mapping.ts';
import { domainPrefix, foldText, normalizeQueryName } from '../../mappings/normalize.ts';
import type { AutocompleteColumnDef, Doc, EntityDef } from '../../mappings/types.ts';
import type { ErrorDetail } from '../errors.ts';
import { MAX_SEARCH_CHARS, integerParam, one, readSide, sideParams, throwProblems, tooLong, type RawQuery } from './request.ts';

type Clause = Record<string, unknown>;

/** Suggestions per call: default and bounds of `limit`. */
export const AUTOCOMPLETE_LIMIT = { fallback: 10, min: 1, max: 50 } as const;
/** Shortest text suggested for, after trimming. */
export const AUTOCOMPLETE_MIN_CHARS = 2;
/** Typos are forgiven from this character on (the ones before it must be typed right), one per text. */
export const TYPO_FROM_CHAR = 5;

/** The suggesters of a name column, in the order their suggestions are listed. */
export const SUGGESTERS = ['article', 'exact', 'typo'] as const;

/** The parameters of the endpoint for an entity. */
export const autocompleteParams = (def: EntityDef): string[] => ['query', 'search', 'column', 'limit', ...sideParams(def)];

export interface AutocompleteRequest {
  def: EntityDef;
  /** The text as typed: leading spaces dropped, trailing ones as one space. */
  text: string;
  column: string;
  limit: number;
  /** The side asked for (personnel lead_type), or null: both sides. */
  side: string | null;
}

/** An autocomplete item (spec "Autocomplete item"), exactly these members. */
export interface AutocompleteItem {
  id: string;
  label: string;
  resource: string;
  value: string;
}

/** The entity's column allowlist, default first. */
export function autocompleteColumns(def: EntityDef): string[] {
  const names = Object.keys(def.autocomplete.columns);
  return [def.defaultAutocomplete, ...names.filter((n) => n !== def.defaultAutocomplete)];
}

/** Parse step: every parameter checked, one 400 naming each problem. */
export function parseAutocomplete(def: EntityDef, q: RawQuery): AutocompleteRequest {
  const problems: ErrorDetail[] = [];
  const [query, search] = [one(q, 'query'), one(q, 'search')];
  if (query !== undefined && search !== undefined && query !== search) problems.push({ field: 'search', issue: 'conflicting_values', expected: 'query or its alias search, not both' });
  const given = query ?? search;
  const name = query !== undefined ? 'query' : 'search';
  // Leading spaces are dropped; trailing ones kept as one (the next word is being typed).
  const text = (given ?? '').trimStart().replace(/\s+$/, ' ');
  if (given === undefined) problems.push({ field: 'query', issue: 'missing_required', expected: `at least ${AUTOCOMPLETE_MIN_CHARS} characters (query or its alias search)` });
  else if ([...text.trim()].length < AUTOCOMPLETE_MIN_CHARS) problems.push({ field: name, issue: 'too_short', expected: `at least ${AUTOCOMPLETE_MIN_CHARS} characters` });
  else tooLong(name, [text], MAX_SEARCH_CHARS, problems);
  const columns = autocompleteColumns(def);
  const column = one(q, 'column') ?? def.defaultAutocomplete;
  if (!columns.includes(column)) problems.push({ field: 'column', issue: 'invalid_value', expected: columns });
  const limit = integerParam('limit', q.limit, AUTOCOMPLETE_LIMIT, problems);
  // The side is optional here (the spec requires it on list, detail, batch and export only):
  // without it both sides are suggested; with it, only that side.
  const sideGiven = def.side ? one(q, def.side.param) : undefined;
  const side = sideGiven === undefined ? null : readSide(def, sideGiven, problems);
  throwProblems(problems);
  return { def, text, column, limit, side };
}

/** The column's definition (the parse step checked it is on the allowlist). */
const columnOf = (req: AutocompleteRequest): AutocompleteColumnDef => req.def.autocomplete.columns[req.column];

/** What the typed text is matched as: the normalized name prefix, or the domain prefix; '' matches nothing. */
export function autocompletePrefix(req: AutocompleteRequest): string {
  if (columnOf(req).domain) return domainPrefix(req.text);
  const norm = suggestForm(normalizeQueryName(req.text) || foldText(req.text));
  if (!norm) return '';
  // A trailing space is part of what was typed ("acme " is "acme" then another word), unless
  // normalizing dropped the last word typed (a legal suffix: "acme inc " is any Acme).
  const last = foldText(req.text).split(' ').pop() ?? '';
  const nextWord = /\s$/.test(req.text) && norm.endsWith(last);
  return (nextWord ? `${norm} ` : norm).slice(0, SUGGEST_MAX_INPUT);
}

/**
 * The prefix with the article typed ("the d" for "The D"), when normalizing dropped a leading
 * "The" from what was typed: names that begin with "The" are suggested first for it; else null.
 */
export function articlePrefix(req: AutocompleteRequest, prefix: string): string | null {
  if (columnOf(req).domain || !droppedArticle(foldText(req.text), prefix)) return null;
  return (SUGGEST_ARTICLE + prefix).slice(0, SUGGEST_MAX_INPUT);
}

/** Fields read from each suggested row. */
const sourceOf = (req: AutocompleteRequest): string[] => ['id', req.column, ...columnOf(req).reads];

/**
 * How the suggested rows' fields are read: from doc values when every field has them (no
 * `_source` loaded and parsed: at 1M rows that was most of a suggestion's cost), else `_source`.
 */
function readsOf(req: AutocompleteRequest): Clause {
  const fields = sourceOf(req);
  const dv = fields.map((f) => docValueField(req.def, f));
  return dv.every((x): x is string => x !== null) ? { _source: false, docvalue_fields: dv } : { _source: fields };
}

/** Build step: the search body (null when the text leaves nothing to match). */
export function buildAutocomplete(req: AutocompleteRequest): Clause | null {
  const prefix = autocompletePrefix(req);
  if (!prefix) return null;
  const col = columnOf(req);
  if (col.domain) {
    const filter: Clause[] = [{ prefix: { [col.domain]: prefix } }];
    if (req.def.side && req.side) filter.push({ term: { [req.def.side.field]: req.side } });
    return {
      query: { bool: { filter } },
      sort: [...req.def.autocomplete.popularity.map((f) => ({ [f]: { order: 'desc', missing: '_last' } })), { id: 'asc' }],
      size: req.limit,
      ...readsOf(req),
      track_total_hits: false,
    };
  }
  const completion: Clause = {
    field: companion.suggest(req.column),
    size: req.limit,
    skip_duplicates: col.distinct === true,
    ...(req.def.side ? { contexts: { [SIDE_CONTEXT]: req.side ? [req.side] : [...req.def.side.values] } } : {}),
  };
  const article = articlePrefix(req, prefix);
  const suggest: Clause = { ...(article ? { article: { prefix: article, completion } } : {}), exact: { prefix, completion } };
  if (prefix.trim().length >= TYPO_FROM_CHAR) {
    suggest.typo = { prefix, completion: { ...completion, fuzzy: { fuzziness: 1, prefix_length: TYPO_FROM_CHAR - 1, transpositions: true } } };
  }
  return { suggest, ...readsOf(req), size: 0, track_total_hits: false };
}

/** A row suggested: its id and stored fields. */
export interface Suggested {
  id: string;
  source: Doc;
}

/**
 * Items of the rows suggested, in order: rows once each; on a distinct column, one item per
 * value (id ''); rows without the column's value left out.
 */
export function autocompleteItems(req: AutocompleteRequest, rows: readonly Suggested[]): AutocompleteItem[] {
  const col = columnOf(req);
  const seen = new Set<string>();
  const out: AutocompleteItem[] = [];
  for (const r of rows) {
    const value = r.source[req.column];
    if (typeof value !== 'string' || !value) continue;
    const key = col.distinct ? foldText(value) : r.id;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ id: col.distinct ? '' : r.id, label: col.label(r.source), resource: req.def.name, value });
    if (out.length === req.limit) break;
  }
  return out;
}
