/**
 * The list query builder: a pure function from (entity definition, parsed parameters, caller
 * context) to an Elasticsearch search body. Small fragment builders (filters, search, sort)
 * each return part of the body; filters go to bool.filter (cached, unscored) and only
 * `search` scores.
 */
import { companion, isSearchable } from '../../mappings/es-mapping.ts';
import { foldText, normalizeDomain, normalizeQueryName } from '../../mappings/normalize.ts';
import type { EntityDef, FieldDef } from '../../mappings/types.ts';
import type { CfFilter, ListRequest } from './list-request.ts';
import { CRMS, crmDocId, type Crm, type CrmContext, type CrmStatus } from '../services/crm.ts';
import { containsWildcard, ownFilterClauses } from './filters.ts';

type Clause = Record<string, unknown>;

/** What the query needs to know about the caller (read from Redis by the decorate step's callerContext). */
export interface QueryContext {
  /** Ids allowed by `tags=` (resolved from Redis by the caller); null when no tag filter. */
  taggedIds: string[] | null;
  /** The caller's CRM context (null when the org has none). */
  crm?: CrmContext | null;
  /** Mark each hit with the CRMs it is in (`matched_queries` crm:<name>), for the crm_status member. */
  crmMarks?: boolean;
}

export interface SearchBody {
  query: Clause;
  sort: Clause[];
  track_total_hits: boolean;
  /** The numeric field ordered like the first sort key, when there is one (a deep page is then found by counting: ladder.ts). */
  rank?: RankSort;
}

/** A numeric field that never decreases along the list's first sort key (the key itself when numeric). */
export interface RankSort {
  field: string;
  order: 'asc' | 'desc';
  /** Whole numbers only (long and integer fields, name ranks): rungs are rounded. */
  integral: boolean;
}

/** The keyword a field is matched on: names keep their raw value in the `.raw` subfield. */
const keywordOf = (f: FieldDef) => (f.type === 'name' ? `${f.name}.raw` : f.name);

/** The field a column sorts on: names sort on their folded companion. */
export const sortFieldOf = (f: FieldDef) => (f.type === 'name' ? companion.sort(f.name) : f.name);


/** cf by kind: a dispatch table, not an if-chain. */
const CF: Record<NonNullable<FieldDef['cf']>, (c: CfFilter) => Clause[]> = {
  numeric: numericCf,
  percent: numericCf,
  exact: (c) => [{ terms: { [keywordOf(c.field)]: c.values } }],
  string: (c) => [
    {
      bool: {
        should: c.values.map((v) => containsClause(c.field, String(v))),
        minimum_should_match: 1,
      },
    },
  ],
};

/**
 * A case-insensitive substring match. On a name it runs on the folded companion with the text
 * folded alike, so case (beyond ASCII: "åberg" finds "Åberg"), accents and punctuation do not
 * matter; elsewhere Elasticsearch's case_insensitive wildcard (ASCII case only) on the keyword.
 */
function containsClause(f: FieldDef, v: string): Clause {
  const folded = f.type === 'name' ? foldText(v) : '';
  if (folded) return containsWildcard(sortFieldOf(f), folded, false);
  return containsWildcard(keywordOf(f), v);
}

function numericCf(c: CfFilter): Clause[] {
  const out: Clause[] = [];
  if (c.ranges.length) out.push({ range: { [c.field.name]: tightestBounds(c.ranges) } });
  if (c.values.length) out.push({ terms: { [c.field.name]: c.values } });
  return out;
}

/**
 * Every bound given must hold, so each side keeps its tightest: the highest lower bound and the
 * lowest upper bound, the strict operator winning a tie (`gte:10,gt:10` is `gt:10`).
 */
export function tightestBounds(ranges: CfFilter['ranges']): Record<string, number> {
  let lower: { op: string; value: number } | null = null;
  let upper: { op: string; value: number } | null = null;
  for (const r of ranges) {
    if (r.op === 'gt' || r.op === 'gte') {
      if (!lower || r.value > lower.value || (r.value === lower.value && r.op === 'gt')) lower = r;
    } else if (!upper || r.value < upper.value || (r.value === upper.value && r.op === 'lt')) upper = r;
  }
  return { ...(lower ? { [lower.op]: lower.value } : {}), ...(upper ? { [upper.op]: upper.value } : {}) };
}

/** Geography: states or dmas; with both, geo_mode chooses. */
function geoFilters(def: EntityDef, p: ListRequest): Clause[] {
  const useDma = p.dmas.length > 0 && (p.states.length === 0 || p.geoMode === 'dma');
  if (useDma) return [{ terms: { [def.geo.dma]: p.dmas } }];
  return p.states.length ? [{ terms: { [def.geo.state]: p.states } }] : [];
}

function signalFilters(p: ListRequest): Clause[] {
  if (!p.signals.length) return [];
  if (p.signalMatch === 'all') return p.signals.map((s) => ({ term: { signals: s } }));
  return [{ terms: { signals: p.signals } }];
}

const MATCH_NONE: Clause = { bool: { must_not: [{ match_all: {} }] } };

/** A row is in a CRM when its EIN or its domain is on that CRM's list (terms lookups, read inside Elasticsearch). */
export function inCrm(def: EntityDef, crm: CrmContext, name: Crm): Clause {
  const lookup = (field: string, path: 'eins' | 'domains') => ({ terms: { [field]: { index: crm.index, id: crmDocId(crm.org, name), path } } });
  const should = [lookup(def.crm.domain, 'domains'), ...(def.crm.ein ? [lookup(def.crm.ein, 'eins')] : [])];
  return { bool: { should, minimum_should_match: 1 } };
}

/** crm_status: values OR'ed; a CRM the org has not loaded contains nothing. */
export function crmFilter(def: EntityDef, statuses: readonly CrmStatus[], crm: CrmContext | null | undefined): Clause[] {
  if (!statuses.length || !crm) return [];
  const listed = (n: Crm) => (crm.crms.includes(n) ? inCrm(def, crm, n) : null);
  const [hubspot, salesforce] = [listed('hubspot'), listed('salesforce')];
  const loaded = [hubspot, salesforce].filter((c): c is Clause => c !== null);
  const byStatus: Record<CrmStatus, Clause> = {
    in_hubspot: hubspot ?? MATCH_NONE,
    in_salesforce: salesforce ?? MATCH_NONE,
    in_both: hubspot && salesforce ? { bool: { filter: [hubspot, salesforce] } } : MATCH_NONE,
    not_in_crm: { bool: { must_not: loaded } },
  };
  const clauses = statuses.map((s) => byStatus[s]);
  return [clauses.length === 1 ? clauses[0] : { bool: { should: clauses, minimum_should_match: 1 } }];
}

/** Optional, unscored clauses naming the CRMs a hit is in (read back from `matched_queries`). */
export function crmMarks(def: EntityDef, crm: CrmContext): Clause[] {
  return crm.crms.map((n) => ({ constant_score: { filter: { bool: { ...(inCrm(def, crm, n).bool as Clause), _name: `crm:${n}` } }, boost: 0 } }));
}

/** The crm_status of a hit: the CRMs its named clauses matched, in a fixed order. */
export function crmStatusOfHit(matched: unknown): string[] {
  const names = Array.isArray(matched) ? (matched as string[]) : [];
  return CRMS.filter((n) => names.includes(`crm:${n}`));
}

/** The side a read names (personnel: lead_type), as a filter. */
export function sideFilter(def: EntityDef, side: string | null): Clause[] {
  return def.side && side ? [{ term: { [def.side.field]: side } }] : [];
}

/** The marks clause of a query whose hits carry crm_status, or nothing. */
const marksOf = (def: EntityDef, ctx: QueryContext): Clause => {
  const marks = ctx.crmMarks && ctx.crm ? crmMarks(def, ctx.crm) : [];
  // Marks are optional: minimum_should_match 0 even when there is no other clause.
  return marks.length ? { should: marks, minimum_should_match: 0 } : {};
};

/** Every filter clause of the common parameters. */
export function commonFilters(def: EntityDef, p: ListRequest, ctx: QueryContext): Clause[] {
  const out: Clause[] = [...geoFilters(def, p), ...signalFilters(p)];
  for (const c of p.cf) out.push(...CF[c.field.cf as NonNullable<FieldDef['cf']>](c));
  for (const f of p.eb) out.push({ exists: { field: f.type === 'name' ? f.name : f.name } });
  out.push(...sideFilter(def, p.side));
  if (ctx.taggedIds) out.push({ ids: { values: ctx.taggedIds } });
  out.push(...crmFilter(def, p.crmStatus, ctx.crm));
  return out;
}

/**
 * Typo-tolerant search over the entity's searchable names: an exact normalized match ranks
 * first, then the compact form (missing spaces), then prefix and fuzzy word matches
 * (fuzziness AUTO, prefix_length 1). Accents, punctuation and legal suffixes are folded
 * by the same code as at ingest.
 */
export function searchClause(def: EntityDef, text: string): Clause {
  const folded = foldText(text);
  const norm = normalizeQueryName(text) || folded;
  const compacts = [...new Set([norm.replace(/ /g, ''), folded.replace(/ /g, '')])].filter(Boolean);
  const should: Clause[] = [];
  for (const f of def.fields.filter((x) => isSearchable(x) && x.search !== undefined)) {
    const boost = f.search as number;
    const n = companion.norm(f.name);
    should.push(
      // The name exactly as typed (case aside), punctuation, accents and suffix included: above
      // its folded twins ("Abebe Distributors, Inc." before "Abebe Distributors Inc.").
      { term: { [`${f.name}.lc`]: { value: text.trim().toLowerCase(), boost: 20 * boost } } },
      { term: { [`${n}.kw`]: { value: norm, boost: 10 * boost } } },
      ...compacts.map((c) => ({ term: { [companion.compact(f.name)]: { value: c, boost: 6 * boost } } })),
      { match_phrase_prefix: { [n]: { query: norm, boost: 3 * boost } } },
      // Every word within its edit distance (typos), but a long name may miss one word
      // (a misspelt legal suffix, a dropped word): "3<-1" = with more than 3 words, all but one.
      { match: { [n]: { query: norm, fuzziness: 'AUTO', prefix_length: 1, minimum_should_match: '2<-1 4<-2', boost: 2 * boost } } },
      ...compacts.map((c) => ({ fuzzy: { [companion.compact(f.name)]: { value: c, fuzziness: c.length > 7 ? 2 : 'AUTO', prefix_length: 1, boost } } })),
    );
  }
  // A website typed into search (an autocomplete value of a domain column) finds its row.
  const domain = normalizeDomain(text);
  if (domain) for (const c of Object.values(def.autocomplete.columns)) if (c.domain) should.push({ term: { [c.domain]: { value: domain, boost: 30 } } });
  return { bool: { should, minimum_should_match: 1 } };
}

/** The rank of a list's sort (names: their rank companion; numbers: themselves), or undefined for relevance. */
export function rankSort(def: EntityDef, p: ListRequest): RankSort | undefined {
  if (p.search && !p.sortExplicit) return undefined;
  const f = def.fields.find((x) => x.name === p.sortBy) as FieldDef;
  if (f.type === 'name') return f.sortable ? { field: companion.rank(f.name), order: p.sortDir, integral: true } : undefined;
  return f.type === 'integer' || f.type === 'long' || f.type === 'double' ? { field: f.name, order: p.sortDir, integral: f.type !== 'double' } : undefined;
}

export function sortClause(def: EntityDef, p: ListRequest): Clause[] {
  if (p.search && !p.sortExplicit) return [{ _score: 'desc' }, { id: 'asc' }];
  const f = def.fields.find((x) => x.name === p.sortBy) as FieldDef;
  return [{ [sortFieldOf(f)]: { order: p.sortDir, missing: '_last' } }, { id: 'asc' }];
}

/** Step 3 of the list pipeline: the search body of a list call (paging is added by the fetch step). */
export function buildListQuery(p: ListRequest, ctx: QueryContext): SearchBody {
  const { def } = p;
  const filter = [...commonFilters(def, p, ctx), ...ownFilterClauses(def, p.own, p.ownGeo)];
  const query: Clause = {
    bool: {
      filter,
      ...(p.search ? { must: [searchClause(def, p.search)] } : {}),
      ...marksOf(def, ctx),
    },
  };
  const rank = rankSort(def, p);
  return { query, sort: sortClause(def, p), track_total_hits: p.includeCount, ...(rank ? { rank } : {}) };
}

/** The query of rows read by id (detail, batch): the ids, the side, and the CRM marks when the rows carry crm_status. */
export function idsQuery(def: EntityDef, ids: readonly string[], side: string | null, ctx: QueryContext): Clause {
  return { bool: { filter: [{ ids: { values: [...ids] } }, ...sideFilter(def, side)], ...marksOf(def, ctx) } };
}

/** The query of the rows matching one exact term (personnel batch by EIN), side and marks as idsQuery. */
export function termQuery(def: EntityDef, term: Clause, side: string | null, ctx: QueryContext): Clause {
  return { bool: { filter: [term, ...sideFilter(def, side)], ...marksOf(def, ctx) } };
}
