/**
 * Generates the Elasticsearch mapping and index settings of an entity from its definition.
 * Only core features are used (standard analyzer, lowercase normalizer, index_prefixes),
 * so the index is the same on every distribution; accent folding, punctuation and legal
 * suffixes are normalized in TypeScript (mappings/normalize.ts) into companion fields.
 */
import { createHash } from 'node:crypto';
import type { EntityDef, FieldDef, FieldType } from './types.ts';

/** Names of the companion fields a `name` field gets (values computed at ingest). */
export const companion = {
  /** Folded, lowercase value for sorting (accents do not change order). */
  sort: (f: string) => `${f}__sort`,
  /** Normalized name (folded, no legal suffixes): fuzzy search and autocomplete prefixes. */
  norm: (f: string) => `${f}__norm`,
  /** Normalized name without spaces: finds "acmehealth" for "Acme Health". */
  compact: (f: string) => `${f}__compact`,
} as const;

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

/** True when a name field needs the search companions (fuzzy search or autocomplete). */
export function isSearchable(f: FieldDef): boolean {
  return f.type === 'name' && (f.search !== undefined || f.autocomplete === true);
}

function fieldMappings(f: FieldDef): [string, Mapping][] {
  if (f.type !== 'name') return [[f.name, BY_TYPE[f.type]]];
  const out: [string, Mapping][] = [
    [f.name, { type: 'text', analyzer: 'standard', fields: { raw: KEYWORD } }],
    [companion.sort(f.name), { type: 'keyword', ignore_above: 512 }],
  ];
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
  return out;
}

/** The `mappings` body of an entity's index. */
export function esMappings(def: EntityDef): Mapping {
  const properties: Record<string, Mapping> = {};
  for (const f of def.fields) for (const [name, m] of fieldMappings(f)) properties[name] = m;
  return {
    dynamic: 'strict',
    _meta: { bintel: { entity: def.name, mapping_hash: mappingHash(def) } },
    properties,
  };
}

/** Settings that a load changes and restores: see ingest/indices.ts. */
export interface IndexShape {
  shards: number;
  replicas: number;
}

/** The `settings` body of a new index. */
export function esSettings(shape: IndexShape): Mapping {
  return {
    number_of_shards: shape.shards,
    number_of_replicas: shape.replicas,
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
 * without a Unicode decomposition (Ł, Đ, ø, ß, ...) folded to ASCII.
 */
export const DOC_LAYOUT = 3;

/**
 * A short hash of the generated mapping and DOC_LAYOUT: stored in the index `_meta`, so `bintel indices`
 * can tell when the live index was built with an older definition (then `bintel reindex`).
 */
export function mappingHash(def: EntityDef): string {
  const props: Record<string, Mapping> = {};
  for (const f of def.fields) for (const [name, m] of fieldMappings(f)) props[name] = m;
  return createHash('sha1').update(JSON.stringify({ props, layout: DOC_LAYOUT })).digest('hex').slice(0, 12);
}
