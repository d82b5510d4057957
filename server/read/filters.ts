/**
 * Resource-specific filters (each entity's `filters` rows, mappings/filters.ts) and the entity's
 * own geography: read and checked in the parse step (`readOwnFilters`), turned into query clauses
 * by the builder (`ownFilterClauses`), both through one dispatch table by kind. Pure; problems
 * name the parameter.
 */
import type { FilterDef, FilterKind } from '../../mappings/filters.ts';
import { expandIndustry } from '../../mappings/industries.ts';
import { normalizeDomain, normalizeEin } from '../../mappings/normalize.ts';
import { DMAS, parseDmas, STATE_CODES } from '../../mappings/reference.ts';
import type { EntityDef } from '../../mappings/types.ts';
import type { ErrorDetail } from '../errors.ts';
import { ID_RE, commaItems, matchOutOfBounds, one, type RawQuery } from './request.ts';

type Clause = Record<string, unknown>;

/** A resource filter as read: its row and its values, normalized (domains, EINs, industry labels expanded, booleans as 'true'/'false'). */
export interface OwnFilter {
  filter: FilterDef;
  values: string[];
}

/** The entity's own geography as read (personnel: person_states / person_dmas / person_geo_mode). */
export interface OwnGeo {
  states: string[];
  dmas: string[];
  mode: 'state' | 'dma';
}

export const escapeWildcard = (s: string) => s.replace(/[\\*?]/g, (c) => `\\${c}`);

/** A literal substring of a keyword field, ASCII case-insensitive (the cf string and substring filters). */
export const containsWildcard = (field: string, v: string, caseInsensitive = true): Clause => ({ wildcard: { [field]: { value: `*${escapeWildcard(v)}*`, ...(caseInsensitive ? { case_insensitive: true } : {}) } } });

const anyOf = (should: Clause[]): Clause => (should.length === 1 ? should[0] : { bool: { should, minimum_should_match: 1 } });
const substring = (fields: readonly string[], v: string): Clause => anyOf(fields.map((f) => containsWildcard(f, v)));

/** Values of a parameter: repeated, whole, or comma-split (commaItems: no empty or padded item). */
function valuesOf(def: FilterDef, raw: string | string[], problems: ErrorDetail[]): string[] {
  const list = Array.isArray(raw) ? raw : [raw];
  // A repeated parameter with one empty occurrence is as empty as a single one (missing_value).
  if (list.length > 1 && list.some((v) => !v.trim())) return [];
  if (def.kind === 'industries') return list.flatMap((v) => industryLabels(def.param, v, problems));
  if (def.repeatable || def.whole) return list.map((s) => s.trim()).filter(Boolean);
  return list.flatMap((v) => commaItems(def.param, v, problems, def.values !== undefined));
}

/**
 * Comma-separated industry labels, where a label may itself hold commas ("Architectural,
 * Engineering, and Related Services"): the longest run of parts that names a label is one value.
 */
function industryLabels(field: string, raw: string, problems: ErrorDetail[]): string[] {
  const parts = raw.split(',');
  if (parts.every((s) => !s.trim())) return [];
  if (parts.some((s) => !s.trim())) problems.push({ field, issue: 'empty_item', expected: 'comma-separated labels, none empty' });
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

const BOOL: Record<string, 'true' | 'false'> = { true: 'true', '1': 'true', false: 'false', '0': 'false' };

/**
 * How one kind of filter is read (values checked and normalized, null after recording a problem)
 * and matched (a clause, or null when the value adds no condition).
 */
interface Kind {
  read: (def: FilterDef, values: string[], problems: ErrorDetail[]) => string[] | null;
  build: (def: FilterDef, values: readonly string[]) => Clause | null;
}

const asIs = (_def: FilterDef, values: string[]) => values;
const boundedMatch = (def: FilterDef, values: string[], problems: ErrorDetail[]) => (matchOutOfBounds(def.param, values, problems) ? null : values);
const terms = (def: FilterDef, values: readonly string[]): Clause => ({ terms: { [def.fields[0]]: values } });

function readBoolean(def: FilterDef, values: string[], problems: ErrorDetail[]): string[] | null {
  const b = BOOL[values[0]];
  if (values.length === 1 && b !== undefined) return [b];
  problems.push({ field: def.param, issue: 'invalid_boolean', expected: ['true', 'false'] });
  return null;
}

/** Values normalized (domain, EIN) and matched exactly; one that does not normalize is a 400 naming the format. */
const normalized =
  (normalize: (v: string) => string, expected: string): Kind['read'] =>
  (def, values, problems) => {
    const out = values.map(normalize);
    if (out.every(Boolean)) return out;
    problems.push({ field: def.param, issue: 'invalid_format', expected });
    return null;
  };

const KINDS: Record<FilterKind, Kind> = {
  terms: {
    read: (def, values, problems) => {
      if (!def.values || values.every((v) => def.values!.includes(v))) return values;
      problems.push({ field: def.param, issue: 'invalid_value', expected: def.values });
      return null;
    },
    build: terms,
  },
  bool: { read: readBoolean, build: (def, [b]) => ({ term: { [def.fields[0]]: b === 'true' } }) },
  has: {
    read: readBoolean,
    build: (def, [b]) => {
      const exists = { exists: { field: def.fields[0] } };
      return b === 'true' ? exists : { bool: { must_not: [exists] } };
    },
  },
  substring: { read: boundedMatch, build: (def, values) => anyOf(values.map((v) => substring(def.fields, v))) },
  industries: {
    read: (def, values, problems) => {
      const expanded = values.map((v) => expandIndustry(v));
      if (expanded.every((x) => x !== null)) return [...new Set(expanded as string[])];
      problems.push({ field: def.param, issue: 'invalid_value', expected: 'NAICS industry labels (see the industries filter options)' });
      return null;
    },
    build: terms,
  },
  domain: { read: normalized(normalizeDomain, 'a domain such as acme.com'), build: terms },
  ein: { read: normalized(normalizeEin, '9 digits, with or without the dash (12-3456789)'), build: terms },
  id_or_name: {
    read: boundedMatch,
    build: (def, values) => anyOf(values.map((v) => (ID_RE.test(v) ? anyOf([{ term: { [def.fields[0]]: v } }, substring([def.fields[1]], v)]) : substring([def.fields[1]], v)))),
  },
  year_or_latest: {
    read: (def, values, problems) => {
      if (values.length !== 1 || !(values[0] === 'latest' || /^(19|20)\d{2}$/.test(values[0]))) {
        problems.push({ field: def.param, issue: 'invalid_value', expected: def.values ?? 'a year such as 2024, or latest' });
        return null;
      }
      if (def.values && !def.values.includes(values[0])) {
        problems.push({ field: def.param, issue: 'year_not_available', expected: def.values });
        return null;
      }
      return values;
    },
    // Every document holds its sponsor's latest filing, so `latest` adds no condition.
    build: (def, [v]) => (v === 'latest' ? null : { term: { [def.fields[0]]: Number(v) } }),
  },
  text: { read: boundedMatch, build: (def, values) => ({ match: { [def.fields[0]]: { query: values.join(' '), operator: 'and' } } }) },
};

/** True when a filter as read adds a condition (filing_year=latest, the default, narrows nothing). */
export const narrows = (f: OwnFilter): boolean => !(f.filter.kind === 'year_or_latest' && f.values[0] === 'latest');

/** Parameter names of a resource's own filters and own geography (for the unknown-parameter check). */
export function filterParams(def: EntityDef): string[] {
  const own = def.filters.map((x) => x.param);
  return def.ownGeo ? [...own, def.ownGeo.states, def.ownGeo.dmas, def.ownGeo.mode] : own;
}

/** Parameters that may be repeated (values OR'ed). */
export const repeatableParams = (def: EntityDef): string[] => def.filters.filter((x) => x.repeatable).map((x) => x.param);

/** Reads the resource filters present in the query (problems recorded, nothing thrown). */
export function readOwnFilters(def: EntityDef, q: RawQuery, problems: ErrorDetail[]): OwnFilter[] {
  const out: OwnFilter[] = [];
  for (const fd of def.filters) {
    const raw = q[fd.param];
    if (raw === undefined) continue;
    const values = valuesOf(fd, raw, problems);
    if (!values.length) {
      problems.push({ field: fd.param, issue: 'missing_value' });
      continue;
    }
    const read = KINDS[fd.kind].read(fd, values, problems);
    if (read) out.push({ filter: fd, values: read });
  }
  return out;
}

/** DMA names, comma-separated (a name may hold ", ": the longest known run is one name); an empty item is empty_item. */
export function dmaItems(field: string, raw: string, problems: ErrorDetail[]): { dmas: string[]; unknown: string[] } {
  if (raw.trim() && raw.split(',').some((s) => !s.trim())) problems.push({ field, issue: 'empty_item', expected: 'comma-separated DMA names, none empty' });
  return parseDmas(raw);
}

/** The entity's own location filters (null when it has none or none was given). */
export function readOwnGeo(def: EntityDef, q: RawQuery, problems: ErrorDetail[]): OwnGeo | null {
  const g = def.ownGeo;
  if (!g) return null;
  const states = commaItems(g.states, one(q, g.states) ?? '', problems, true).map((s) => s.toUpperCase());
  const { dmas, unknown: unknownDmas } = dmaItems(g.dmas, one(q, g.dmas) ?? '', problems);
  const mode = one(q, g.mode) ?? 'state';
  if (q[g.states] !== undefined && !states.length) problems.push({ field: g.states, issue: 'missing_value' });
  if (q[g.dmas] !== undefined && !dmas.length && !unknownDmas.length) problems.push({ field: g.dmas, issue: 'missing_value' });
  if (mode !== 'state' && mode !== 'dma') problems.push({ field: g.mode, issue: 'invalid_value', expected: ['state', 'dma'] });
  if (states.some((s) => !STATE_CODES.includes(s))) problems.push({ field: g.states, issue: 'invalid_state', expected: STATE_CODES });
  if (unknownDmas.length) problems.push({ field: g.dmas, issue: 'invalid_value', expected: DMAS });
  return states.length || dmas.length ? { states, dmas, mode: mode as OwnGeo['mode'] } : null;
}

/** The clauses of the resource filters and own geography (the builder's fragment). */
export function ownFilterClauses(def: EntityDef, own: readonly OwnFilter[], geo: OwnGeo | null): Clause[] {
  const out: Clause[] = [];
  for (const f of own) {
    const c = KINDS[f.filter.kind].build(f.filter, f.values);
    if (c) out.push(c);
  }
  if (geo && def.ownGeo) {
    const { state, dma } = def.ownGeo.fields;
    if (geo.dmas.length && (!geo.states.length || geo.mode === 'dma')) out.push({ terms: { [dma]: geo.dmas } });
    else if (geo.states.length) out.push({ terms: { [state]: geo.states } });
  }
  return out;
}
