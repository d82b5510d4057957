/**
 * The vocabulary of entity definitions. Each entity is described once, as data, in
 * mappings/<entity>.ts; the Elasticsearch mapping, the ingest validators, the sort and
 * column-filter allowlists, tier checks and projections are all derived from it.
 */

import type { FilterDef } from './filters.ts';
import type { LookalikeDef } from './lookalike.ts';

/** Field tier: advanced fields need an advanced key. */
export type Tier = 'basic' | 'advanced';

/**
 * Storage type of a field.
 * - `keyword`: an exact string (stored as an Elasticsearch keyword)
 * - `name`: a searchable name: fuzzy search, autocomplete, a sortable lowercase keyword
 * - `text`: free text, matched by words
 * - `keywords`: several exact strings (semicolon-separated in CSV)
 * - `integer`, `long`, `double`, `boolean`, `date`
 */
export type FieldType = 'keyword' | 'name' | 'text' | 'keywords' | 'integer' | 'long' | 'double' | 'boolean' | 'date';

/** How `cf[column]` filters a field. */
export type CfKind = 'numeric' | 'percent' | 'string' | 'exact';

/** Format checks applied to string values at ingest (and to filter values at query time). */
export type StringFormat = 'usps_state' | 'ein' | 'email' | 'url' | 'domain' | 'uuid_or_slug' | 'iso_date';

/** Where a field's value comes from at ingest. */
export type FieldSource =
  /** A CSV column of the same name. */
  | { kind: 'csv'; required?: boolean }
  /** Computed from the document being built (after csv and join fields are set). */
  | { kind: 'derived'; derive: (doc: Doc) => unknown }
  /**
   * Copied from a parent entity's document (denormalized at ingest): each path is
   * "<join name>:<parent field>"; the first join that resolved with a value wins.
   */
  | { kind: 'join'; paths: readonly (readonly [join: string, field: string])[] };

/** A record id (the CSV `id` column, the document `_id`, what a path or batch body may name): 1-128 of letters, digits, `_ . : -`. */
export const RECORD_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/** A document as stored in Elasticsearch. */
export type Doc = Record<string, unknown>;

export interface FieldDef {
  readonly name: string;
  readonly type: FieldType;
  readonly description: string;
  readonly source: FieldSource;
  /** Default basic. */
  readonly tier?: Tier;
  /** Returned by the API (default true). False for attributes that exist only for filters. */
  readonly output?: boolean;
  /** Part of `mode=light` (identifying fields). basic and full modes return every output field of their tier. */
  readonly light?: boolean;
  /** On the sort allowlist. */
  readonly sortable?: boolean;
  /** Kind of `cf[column]` filter supported, if any. */
  readonly cf?: CfKind;
  /** `eb[column]=true` (exclude blanks) supported. */
  readonly blank?: boolean;
  /** Boost of this field in fuzzy `search` (name fields only). */
  readonly search?: number;
  /** An autocomplete column. */
  readonly autocomplete?: boolean;
  /** Allowed values (checked at ingest). */
  readonly enum?: readonly string[];
  /** Format check of string values. */
  readonly format?: StringFormat;
  /** Inclusive numeric bounds. */
  readonly min?: number;
  readonly max?: number;
}

/** A join: fetch parent documents of `entity` whose ids are in the doc's `key` field. */
export interface JoinDef {
  readonly name: string;
  readonly entity: EntityName;
  /** Field of this document holding the parent id (or ids, for a keywords field). */
  readonly key: string;
}

export type EntityName = 'companies' | 'personnel' | 'broker-offices' | 'brokers';

/**
 * A side every read of the entity names (personnel: `lead_type=company|broker`): the parameter is
 * required on list, detail and batch calls, and a row of the other side does not exist for the call.
 */
export interface SideDef {
  readonly param: string;
  /** The document field holding the row's side. */
  readonly field: string;
  readonly values: readonly string[];
}

/**
 * Members a row carries that depend on who asks, computed per call: `crm_status` (the CRMs of
 * the caller's organization the row is in; always present) and `tags` (the caller's tags on the
 * row; with mode=full or fields=tags).
 */
export type CallerMember = 'crm_status' | 'tags';

/**
 * Filters on the entity's own location, beside `geo` (which for personnel is the employer's):
 * `states` and `dmas` parameters, and `mode` choosing between them when both are given.
 */
export interface OwnGeoDef {
  readonly states: string;
  readonly dmas: string;
  readonly mode: string;
  readonly fields: { readonly state: string; readonly dma: string };
}

/** How one autocomplete column suggests (GET /v1/{resource}/autocomplete?column=...). */
export interface AutocompleteColumnDef {
  /** Fields read to build the label, besides the column itself (basic-tier fields only: a label is shown to every key). */
  readonly reads: readonly string[];
  /** The label of a suggestion: the value qualified by who or where the row is. */
  readonly label: (doc: Doc) => string;
  /** Suggestions are distinct values rather than rows (personnel titles): one per value, id ''. */
  readonly distinct?: boolean;
  /**
   * Matched on prefixes of this normalized-domain keyword (a website column) instead of the
   * name's completion companion; the list's `search` matches the same keyword exactly.
   */
  readonly domain?: string;
}

/** Autocomplete of an entity: a column per field flagged `autocomplete`, and the popularity order. */
export interface AutocompleteDef {
  /**
   * Numeric fields ranking suggestions of a match tier (most first), in order of preference: a
   * row's popularity is the first of them it has (a company without an employee count ranks by
   * its participants rather than last). The completion weight at ingest; it only orders
   * suggestions and is never shown.
   */
  readonly popularity: readonly string[];
  readonly columns: Readonly<Record<string, AutocompleteColumnDef>>;
}

export interface EntityDef {
  readonly name: EntityName;
  /** Singular label for messages. */
  readonly label: string;
  readonly fields: readonly FieldDef[];
  /** Parents this entity denormalizes from, resolved before `join` fields. */
  readonly joins: readonly JoinDef[];
  /** Fields that identify a row when the CSV has no `id`: the id is a hash of them. */
  readonly naturalKey: readonly string[];
  /** Default sort column. */
  readonly defaultSort: string;
  /** Default autocomplete column. */
  readonly defaultAutocomplete: string;
  /** Autocomplete columns and ranking (see AutocompleteDef). */
  readonly autocomplete: AutocompleteDef;
  /** Fields the `states`/`dmas` filters match (for personnel: the company side). */
  readonly geo: { readonly state: string; readonly dma: string };
  /** Cross-field rules checked at ingest: each returns [field, issue] when broken. */
  readonly rules?: readonly ((doc: Doc) => readonly [field: string, issue: string] | null)[];
  /**
   * Fields a CRM list is matched on (`crm_status`): the EIN field (null when the entity has
   * none) and the normalized-domain field.
   */
  readonly crm: { readonly ein: string | null; readonly domain: string };
  /** Where `lead_source.source` comes from. */
  readonly leadSource: (doc: Doc) => string;
  /** The resource-specific list filters (mappings/filters.ts says how each kind reads and matches). */
  readonly filters: readonly FilterDef[];
  /** Price of one returned row by response tier, in integer milli-credits. */
  readonly price: Readonly<Record<Tier, number>>;
  /** A side every read must name (see SideDef). */
  readonly side?: SideDef;
  /** Per-caller row members (see CallerMember). */
  readonly callerMembers?: readonly CallerMember[];
  /** Filters on the entity's own location (see OwnGeoDef). */
  readonly ownGeo?: OwnGeoDef;
  /** Features of POST /v1/lookalikes (mappings/lookalike.ts); absent: the entity has no lookalikes. */
  readonly lookalike?: LookalikeDef;
}
