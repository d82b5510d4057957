/**
 * Resource-specific filters (mappings/filters.ts) to query clauses: values are read and
 * matched by the filter's kind, through a dispatch table. Pure; errors name the parameter.
 */
import { FILTERS, type FilterDef, type FilterKind } from '../../mappings/filters.ts';
import { expandIndustry } from '../../mappings/industries.ts';
import { normalizeDomain, normalizeEin } from '../../mappings/normalize.ts';
import { DMAS, parseDmas, STATE_CODES } from '../../mappings/reference.ts';
import type { EntityDef } from '../../mappings/types.ts';
import { ApiError, invalid, type ErrorDetail } from '../errors.ts';
import { leadTypeProblem, matchOutOfBounds } from './params.ts';
import { containsWildcard } from './query.ts';
import type { KeyRecord } from '../services/keys.ts';
import { advancedAmong } from '../services/tiers.ts';

type Clause = Record<string, unknown>;
type Query = Record<string, string | string[]>;

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
const anyOf = (should: Clause[]): Clause => (should.length === 1 ? should[0] : { bool: { should, minimum_should_match: 1 } });
const substring = (fields: readonly string[], v: string): Clause => anyOf(fields.map((f) => containsWildcard(f, v)));

/** Values of a parameter: repeated, whole, or comma-split; trimmed, blanks dropped. */
function valuesOf(def: FilterDef, raw: string | string[]): string[] {
  const list = Array.isArray(raw) ? raw : [raw];
  // A repeated parameter with one empty occurrence is as empty as a single one (missing_value).
  if (list.length > 1 && list.some((v) => !v.trim())) return [];
  if (def.kind === 'industries') return list.flatMap((v) => industryLabels(v));
  const parts = def.repeatable || def.whole ? list : list.flatMap((v) => v.split(','));
  return parts.map((s) => s.trim()).filter(Boolean);
}

/**
 * Comma-separated industry labels, where a label may itself hold commas ("Architectural,
 * Engineering, and Related Services"): the longest run of parts that names a label is one value.
 */
function industryLabels(raw: string): string[] {
  const parts = raw.split(',');
  const out: string[] = [];
  for (let i = 0; i < parts.length; ) {
    let end = i + 1;
    for (let j = parts.length; j > i + 1; j--) {
      if (expandIndustry(parts.slice(i, j).join(',').trim()) !== null) {
        end = j;
        break;
      }
    }
    const label = parts.slice(i, end).join(',').trim();
    if (label) out.push(label);
    i = end;
  }
  return out;
}

const BOOL: Record<string, boolean> = { true: true, '1': true, false: false, '0': false };

type Build = (def: FilterDef, values: string[], problems: ErrorDetail[]) => Clause | null;

/** Values normalized (domain, EIN) and matched exactly; one that does not normalize is a 400 naming the format. */
const normalizedTerms =
  (normalize: (v: string) => string, expected: string): Build =>
  (def, values, problems) => {
    const normalized = values.map(normalize);
    if (normalized.some((x) => !x)) {
      problems.push({ field: def.param, issue: 'invalid_format', expected });
      return null;
    }
    return { terms: { [def.fields[0]]: normalized } };
  };

const KINDS: Record<FilterKind, Build> = {
  terms: (def, values, problems) => {
    const bad = def.values ? values.filter((v) => !def.values!.includes(v)) : [];
    if (bad.length) {
      problems.push({ field: def.param, issue: 'invalid_value', expected: def.values });
      return null;
    }
    return { terms: { [def.fields[0]]: values } };
  },
  bool: (def, values, problems) => {
    const b = BOOL[values[0]];
    if (values.length !== 1 || b === undefined) {
      problems.push({ field: def.param, issue: 'invalid_boolean', expected: ['true', 'false'] });
      return null;
    }
    return { term: { [def.fields[0]]: b } };
  },
  has: (def, values, problems) => {
    const b = BOOL[values[0]];
    if (values.length !== 1 || b === undefined) {
      problems.push({ field: def.param, issue: 'invalid_boolean', expected: ['true', 'false'] });
      return null;
    }
    const exists = { exists: { field: def.fields[0] } };
    return b ? exists : { bool: { must_not: [exists] } };
  },
  substring: (def, values) => anyOf(values.map((v) => substring(def.fields, v))),
  industries: (def, values, problems) => {
    const expanded = values.map((v) => expandIndustry(v));
    if (expanded.some((x) => x === null)) {
      problems.push({ field: def.param, issue: 'invalid_value', expected: 'NAICS industry labels (see the industries filter options)' });
      return null;
    }
    return { terms: { [def.fields[0]]: [...new Set(expanded as string[])] } };
  },
  domain: normalizedTerms(normalizeDomain, 'a domain such as acme.com'),
  ein: normalizedTerms(normalizeEin, '9 digits, with or without the dash (12-3456789)'),
  id_or_name: (def, values) => anyOf(values.map((v) => (ID_RE.test(v) ? anyOf([{ term: { [def.fields[0]]: v } }, substring([def.fields[1]], v)]) : substring([def.fields[1]], v)))),
  year_or_latest: (def, values, problems) => {
    if (values.length !== 1 || !(values[0] === 'latest' || /^(19|20)\d{2}$/.test(values[0]))) {
      problems.push({ field: def.param, issue: 'invalid_value', expected: def.values ?? 'a year such as 2024, or latest' });
      return null;
    }
    if (def.values && !def.values.includes(values[0])) {
      problems.push({ field: def.param, issue: 'year_not_available', expected: def.values });
      return null;
    }
    // Every document holds its sponsor's latest filing, so `latest` adds no condition.
    return values[0] === 'latest' ? null : { term: { [def.fields[0]]: Number(values[0]) } };
  },
  text: (def, values) => ({ match: { [def.fields[0]]: { query: values.join(' '), operator: 'and' } } }),
};

/** Personnel's own location: person_states / person_dmas, person_geo_mode choosing when both are given. */
function personGeo(q: Query, problems: ErrorDetail[]): Clause | null {
  const one = (k: string) => (Array.isArray(q[k]) ? (q[k] as string[])[0] : (q[k] as string | undefined));
  const states = (one('person_states') ?? '').split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);
  const { dmas, unknown: unknownDmas } = parseDmas(one('person_dmas') ?? '');
  const mode = one('person_geo_mode') ?? 'state';
  if (q.person_states !== undefined && !states.length) problems.push({ field: 'person_states', issue: 'missing_value' });
  if (q.person_dmas !== undefined && !dmas.length && !unknownDmas.length) problems.push({ field: 'person_dmas', issue: 'missing_value' });
  if (!['state', 'dma'].includes(mode)) problems.push({ field: 'person_geo_mode', issue: 'invalid_value', expected: ['state', 'dma'] });
  if (states.some((s) => !STATE_CODES.includes(s))) problems.push({ field: 'person_states', issue: 'invalid_state', expected: STATE_CODES });
  if (unknownDmas.length) problems.push({ field: 'person_dmas', issue: 'invalid_value', expected: DMAS });
  if (dmas.length && (!states.length || mode === 'dma')) return { terms: { person_dma: dmas } };
  return states.length ? { terms: { person_state: states } } : null;
}

/** Parameter names of a resource's own filters (for the unknown-parameter check). */
export function filterParams(def: EntityDef): string[] {
  const own = FILTERS[def.name].map((x) => x.param);
  return def.name === 'personnel' ? [...own, 'person_states', 'person_dmas', 'person_geo_mode'] : own;
}

export const repeatableParams = (def: EntityDef) => FILTERS[def.name].filter((x) => x.repeatable).map((x) => x.param);

/** The clauses of the resource filters present in the query, and their names. */
export function resourceFilters(def: EntityDef, key: KeyRecord, q: Query): { clauses: Clause[]; present: string[] } {
  const problems: ErrorDetail[] = [];
  const clauses: Clause[] = [];
  const present: string[] = [];
  for (const fd of FILTERS[def.name]) {
    const raw = q[fd.param];
    if (raw === undefined) continue;
    const values = valuesOf(fd, raw);
    if (!values.length) {
      problems.push({ field: fd.param, issue: 'missing_value' });
      continue;
    }
    if ((fd.kind === 'substring' || fd.kind === 'id_or_name' || fd.kind === 'text') && matchOutOfBounds(fd.param, values, problems)) continue;
    const clause = KINDS[fd.kind](fd, values, problems);
    if (clause) clauses.push(clause);
    if (!(fd.kind === 'year_or_latest' && values[0] === 'latest')) present.push(fd.param);
  }
  if (def.name === 'personnel') {
    const g = personGeo(q, problems);
    if (g) {
      clauses.push(g);
      present.push('person_geo');
    }
  }
  if (problems.length) throw invalid(problems);
  // Filters on advanced-tier fields (has_phone) need an advanced key.
  // filing_year=latest is the default and adds no condition: any key may say it.
  const advanced = FILTERS[def.name].filter(
    (x) => q[x.param] !== undefined && !(x.kind === 'year_or_latest' && valuesOf(x, q[x.param])[0] === 'latest') && advancedAmong(key, def, x.fields.map((f) => f.split('.')[0])).length > 0,
  );
  if (advanced.length) {
    throw new ApiError('FORBIDDEN', `${advanced.map((x) => x.param).join(', ')}: ${advanced.length > 1 ? 'filters' : 'a filter'} on advanced-tier fields; this key is basic`, advanced.map((x) => ({ field: x.param, issue: 'advanced_filter' })));
  }
  return { clauses, present };
}
