/**
 * Generates the Elasticsearch mapping and index settings of an entity from its definition.
 * Only core features are used (standard analyzer, lowercase normalizer, index_prefixes),
 * so the index is the same on every distribution; accent folding, punctuation and legal
 * suffixes are normalized in TypeScript (mappings/normalize.ts) into companion fields.
 */
import { createHash } from 'node:crypto';
import type { EntityDef, FieldDef, FieldType } from './types.ts';
import { LOOKALIKE_FIELD, lookalikeDims } from './lookalike.ts';

/** Names of the companion fields a `name` field gets (values computed at ingest). */
export const companion = {
  /** Folded, lowercase value for sorting (accents do not change order). */
  sort: (f: string) => `${f}__sort`,
  /** A sortable name's sort value as a number in the same order (sortRank): a deep page is found by counting (server/read/ladder.ts). */
  rank: (f: string) => `${f}__rank`,
  /** Normalized name (folded, no legal suffixes): fuzzy search and autocomplete prefixes. */
  norm: (f: string) => `${f}__norm`,
  /** Normalized name without spaces: finds "acmehealth" for "Acme Health". */
  compact: (f: string) => `${f}__compact`,
  /** Completion field of an autocomplete name: prefixes of the normalized name, fuzzy, weighted by popularity. */
  suggest: (f: string) => `${f}__suggest`,
} as const;

/** The completion context holding a row's side (personnel lead_type), when the entity has sides. */
export const SIDE_CONTEXT = 'side';

/**
 * Completion weights: a name's whole-name input outranks every later-word input ("acme" first
 * suggests names starting with Acme, then names with a word starting with acme); within each,
 * the popularity field (capped) orders. Weights are integers below 2^31.
 */
export const SUGGEST_WEIGHT = { wholeName: 1_000_000_000, popularityCap: 999_999_999 } as const;
/** Later words of a name that start an input of their own (the first 1 + 3 words of a long name). */
const SUGGEST_WORD_STARTS = 4;
/** Completion inputs are truncated at this length (Elasticsearch's default max_input_length). */
export const SUGGEST_MAX_INPUT = 50;
/**
 * Joins a later-word input to the whole name it belongs to: normalized text never holds it, so
 * typing cannot run into it, and each input stays distinct per name (skip_duplicates then
 * drops one name's repeats, never two names sharing a word).
 */
export const SUGGEST_JOIN = '|';

/** True for a name field with autocomplete: it gets the completion companion. */
export const hasSuggest = (f: FieldDef): boolean => f.type === 'name' && f.autocomplete === true;

/**
 * The form a normalized name is suggested under, at ingest and for what is typed: without the
 * word "and" ('&' folds to it), since "marsh mc" is typed for "Marsh & McLennan" as often as
 * "marsh and mc"; a name that is only "and" keeps it.
 */
export function suggestForm(norm: string): string {
  const words = norm.split(' ').filter((w) => w && w !== 'and');
  return words.length ? words.join(' ') : norm;
}

/** A row's popularity: the first of the entity's popularity fields it has a number for (else none). */
export function popularityOf(def: EntityDef, doc: Record<string, unknown>): number | undefined {
  for (const f of def.autocomplete.popularity) {
    const v = doc[f];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return undefined;
}

/**
 * The leading article a name had before normalizing dropped it ("The Doyle Group" is suggested
 * under "doyle group" and, for someone typing "The D", under "the doyle group" too).
 */
export const SUGGEST_ARTICLE = 'the ';

/** True when normalizing `folded` into `norm` dropped its leading "The" (at ingest and for what is typed). */
export const droppedArticle = (folded: string, norm: string): boolean => folded.startsWith(SUGGEST_ARTICLE) && !`${norm} `.startsWith(SUGGEST_ARTICLE);

/**
 * The completion value of a normalized name (in its suggestForm): the whole name, and each later
 * word start joined to the whole name; weighted by the row's popularity. `article`: the name
 * began with "The" (normalizing dropped it); its whole name is then also an input with it.
 */
export function suggestValue(name: string, popularity: unknown, article = false): { input: string[]; weight: number }[] {
  const norm = suggestForm(name);
  const words = norm.split(' ').filter(Boolean);
  if (!words.length) return [];
  const pop = typeof popularity === 'number' && popularity > 0 ? Math.min(Math.floor(popularity), SUGGEST_WEIGHT.popularityCap) : 0;
  const later: string[] = [];
  for (let i = 1; i < Math.min(words.length, SUGGEST_WORD_STARTS); i++) later.push(`${words.slice(i).join(' ')}${SUGGEST_JOIN}${norm}`);
  const whole = { input: article ? [norm, SUGGEST_ARTICLE + norm] : [norm], weight: SUGGEST_WEIGHT.wholeName + pop };
  return later.length ? [whole, { input: later, weight: pop }] : [whole];
}

type Mapping = Record<string, unknown>;

const KEYWORD = { type: 'keyword', ignore_above: 2048 } as const;

const BY_TYPE: Record<Exclude<FieldType, 'name'>, Mapping> = {
  keyword: KEYWORD,
  keywords: KEYWORD,
  text: { type: 'text', analyzer: 'standard' },
  integer: { type: 'integer' },
  long: { type: 'long' },
  double: { type: 'double' },
  boolean: { type: 'boolean' },
  date: { type: 'date', format: 'strict_date_optional_time||epoch_millis' },
};

/**
 * The doc-values field holding `name`'s value as stored (a name's `.raw` keyword; a keyword or
 * number itself), or null for a field without doc values (analyzed text). Reading doc values
 * spares Elasticsearch loading and parsing a row's whole `_source` (autocomplete).
 */
export function docValueField(def: EntityDef, name: string): string | null {
  if (name === 'id') return 'id';
  const f = def.fields.find((x) => x.name === name);
  if (!f) return null;
  if (f.type === 'name') return `${name}.raw`;
  return f.type === 'text' ? null : name;
}

/** True when a name field needs the search companions (fuzzy search or autocomplete). */
export function isSearchable(f: FieldDef): boolean {
  return f.type === 'name' && (f.search !== undefined || f.autocomplete === true);
}

function fieldMappings(def: EntityDef, f: FieldDef): [string, Mapping][] {
  if (f.type !== 'name') return [[f.name, BY_TYPE[f.type]]];
  const out: [string, Mapping][] = [
    // raw: the value as stored (cf exact); lc: the whole name, case-insensitive (search's exact tier).
    [f.name, { type: 'text', analyzer: 'standard', fields: { raw: KEYWORD, ...(isSearchable(f) ? { lc: { type: 'keyword', normalizer: 'lowercase', ignore_above: 512 } } : {}) } }],
    [companion.sort(f.name), { type: 'keyword', ignore_above: SORT_IGNORE_ABOVE }],
  ];
  if (f.sortable) out.push([companion.rank(f.name), { type: 'long' }]);
  if (isSearchable(f)) {
    out.push([
      companion.norm(f.name),
      {
        type: 'text',
        analyzer: 'standard',
        index_prefixes: { min_chars: 1, max_chars: 12 },
        fields: { kw: { type: 'keyword', ignore_above: 512 } },
      },
    ]);
    out.push([companion.compact(f.name), { type: 'keyword', ignore_above: 512 }]);
  }
  if (hasSuggest(f)) {
    // Inputs are normalized at ingest (and prefixes at query time) by the same code: the
    // keyword analyzer keeps them as they are. Rows of a side are suggested on their side only.
    const contexts = def.side ? { contexts: [{ name: SIDE_CONTEXT, type: 'category', path: def.side.field }] } : {};
    out.push([companion.suggest(f.name), { type: 'completion', analyzer: 'keyword', max_input_length: SUGGEST_MAX_INPUT, ...contexts }]);
  }
  return out;
}

/** The `mappings` body of an entity's index. */
export function esMappings(def: EntityDef): Mapping {
  return {
    dynamic: 'strict',
    _meta: { bintel: { entity: def.name, mapping_hash: mappingHash(def) } },
    // The lookalike vector is indexed for knn, never returned: a kilobyte of JSON per row otherwise.
    ...(def.lookalike ? { _source: { excludes: [LOOKALIKE_FIELD] } } : {}),
    properties: allProperties(def),
  };
}

/**
 * Knn graph of the lookalike vectors: HNSW over byte vectors (a byte per dimension, no
 * quantization needed), with a smaller construction beam than the default 100 (the vectors are
 * low-entropy feature codes; recall is measured by the quality test at this setting).
 */
export const LOOKALIKE_HNSW = { type: 'hnsw', m: 8, ef_construction: 32 } as const;

/**
 * How a load writes the lookalike vectors before the alias moves (BINTEL_VECTOR_BUILD=after, the
 * default): stored flat, without a graph, which costs Elasticsearch little more than a row without
 * a vector; a knn search then scores every candidate (exact, slower). Once the rows are served the
 * mapping is updated to LOOKALIKE_HNSW (Elasticsearch allows flat to hnsw) and the index is
 * force-merged, which writes the graph (ingest/indices.ts buildVectorIndex).
 */
export const LOOKALIKE_FLAT = { type: 'flat' } as const;

/** The mapping of an entity's lookalike vector with the given index options. */
export function vectorMapping(def: EntityDef, indexOptions: Mapping = LOOKALIKE_HNSW): Mapping {
  return { type: 'dense_vector', element_type: 'byte', dims: lookalikeDims(def.lookalike!), index: true, similarity: 'cosine', index_options: indexOptions };
}

/** Sort values longer than this are not indexed (nor sorted on: such a row sorts as missing). */
const SORT_IGNORE_ABOVE = 512;

/**
 * The rank of a sort value: a number that never decreases when the value's UTF-8 bytes increase
 * (Elasticsearch's keyword order), so that `rank < r` selects a leading run of the sorted list and
 * a range aggregation counts how many rows precede any rank. The first 9 bytes, each mapped to
 * its position in a 49-letter alphabet, read as digits of base 50 (under 2^53, exact as a double,
 * which range aggregations compute in). The alphabet keeps space, digits, a-z and common
 * punctuation exact and gives each other run of bytes one letter; after the first byte of such a
 * run the digits are 0, which keeps the order (two values whose bytes differ inside a run get the
 * same rank up to there). Undefined when the value is not sorted on (longer than ignore_above).
 */
export function sortRank(value: string): number | undefined {
  if (value.length > SORT_IGNORE_ABOVE) return undefined;
  let rank = 0;
  let exact = true;
  for (let i = 0; i < RANK_DIGITS; i++) {
    let digit = 0;
    if (exact && i < value.length) {
      const c = value.charCodeAt(i);
      digit = c < 128 ? RANK_ALPHABET[c] : RANK_HIGH;
      exact = c < 128 && RANK_EXACT[c] === 1;
    }
    rank = rank * RANK_BASE + digit;
  }
  return rank;
}
const RANK_DIGITS = 9;
const RANK_BASE = 50;
const { RANK_ALPHABET, RANK_EXACT, RANK_HIGH } = (() => {
  const exactBytes = new Set([...' &\',-./0123456789abcdefghijklmnopqrstuvwxyz'].map((c) => c.charCodeAt(0)));
  const alphabet = new Uint8Array(128);
  const exact = new Uint8Array(128);
  let letter = 0;
  for (let b = 0; b < 128; b++) {
    const inRun = b > 0 && !exactBytes.has(b) && !exactBytes.has(b - 1);
    if (!inRun) letter++;
    alphabet[b] = letter;
    exact[b] = exactBytes.has(b) ? 1 : 0;
  }
  // Bytes from 0x80 (every non-ASCII character's UTF-8 form): one run after all of ASCII.
  const high = letter + 1;
  if (high >= RANK_BASE) throw new Error('sortRank: alphabet larger than its base');
  return { RANK_ALPHABET: alphabet, RANK_EXACT: exact, RANK_HIGH: high };
})();

/** Every mapped property of an entity's index: its fields, their companions and the lookalike vector. */
function allProperties(def: EntityDef): Record<string, Mapping> {
  const props: Record<string, Mapping> = {};
  for (const f of def.fields) for (const [name, m] of fieldMappings(def, f)) props[name] = m;
  if (def.lookalike) props[LOOKALIKE_FIELD] = vectorMapping(def);
  return props;
}

/** Settings that a load changes and restores: see ingest/indices.ts. */
export interface IndexShape {
  shards: number;
  replicas: number;
  /** Segments to force-merge down to before the alias moves; 0: no merge. */
  mergeSegments?: number;
  /** Index sorting on the default sort (indexSortOf); off unless true (BINTEL_INDEX_SORT). */
  indexSort?: boolean;
  /**
   * When the lookalike graph is built (BINTEL_VECTOR_BUILD): `after` the alias moves (default;
   * vectors loaded flat, see LOOKALIKE_FLAT) or `during` the load (the graph built as segments are
   * written and merged, before the rows are served).
   */
  vectorBuild?: 'after' | 'during';
}

/**
 * The index sort of an entity (BINTEL_INDEX_SORT=1; off by default): its default list sort,
 * exactly as the list query sorts (the sort companion ascending, missing last, then `id`).
 * Segments are stored in that order, so a page of the default sort that does not count (counts
 * come from the cache) stops after `from + size` documents per segment: page 200 asked for
 * directly costs 21 ms instead of 91 at 1M. But the same list descending becomes the worst case
 * (every document beats the one before it): 235 ms instead of 7 with a one-state filter, 2.7 s
 * instead of 7 without one. docs/performance.md (Index sorting) has the figures.
 */
export function indexSortOf(def: EntityDef): { field: string[]; order: string[]; missing: string[] } {
  const f = def.fields.find((x) => x.name === def.defaultSort);
  if (f?.type !== 'name') throw new Error(`${def.name}: defaultSort ${def.defaultSort} must be a name field (it gets the sort companions)`);
  return { field: [companion.sort(f.name), 'id'], order: ['asc', 'asc'], missing: ['_last', '_last'] };
}

/** The `settings` body of a new index (with the entity's index sort when `def` is given and the shape turns it on). */
export function esSettings(shape: IndexShape, def?: EntityDef): Mapping {
  return {
    number_of_shards: shape.shards,
    number_of_replicas: shape.replicas,
    ...(def && shape.indexSort === true ? { sort: indexSortOf(def) } : {}),
    refresh_interval: '1s',
    max_result_window: 10_000,
    // CRM lists are matched with terms lookups (server/services/crm.ts CRM_MAX_TERMS).
    max_terms_count: 262_144,
    analysis: { normalizer: { bintel_lower: { type: 'custom', filter: ['lowercase'] } } },
  };
}

/**
 * Version of what ingest computes into the mapped fields (companion values such as the compact
 * forms of names): bump it when that changes, so older indices show as stale (`bintel indices`)
 * and `bintel reindex` rebuilds them. 2: compact form of names without their '&'. 3: letters
 * without a Unicode decomposition (Ł, Đ, ø, ß, ...) folded to ASCII. 4: the lookalike vector.
 * 5: the rank of each sortable name (sortRank).
 */
export const DOC_LAYOUT = 5;

/**
 * A short hash of the generated mapping and DOC_LAYOUT: stored in the index `_meta`, so `bintel indices`
 * can tell when the live index was built with an older definition (then `bintel reindex`).
 */
export function mappingHash(def: EntityDef): string {
  const props = allProperties(def);
  return createHash('sha1').update(JSON.stringify({ props, layout: DOC_LAYOUT })).digest('hex').slice(0, 12);
}
