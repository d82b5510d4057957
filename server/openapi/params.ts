/**
 * Query parameters of the OpenAPI document, generated from the same allowlists the routes hand
 * to `readQuery` (listParams, exportParams, SHAPE_PARAMS, filterParams ...) and from the entity
 * definitions: every allowed name becomes one parameter, typed by the table below or by the
 * entity's filter row. A name with no description here throws when the document is built, so
 * an allowlist cannot grow without the document (the OpenAPI test builds it).
 *
 * `cf[column]` and `eb[column]` are one `deepObject` parameter each (`cf`, `eb`) whose schema
 * lists every column the entity allows, with its kind: exactly how the server reads them
 * (prefix `cf[`), one entry per column without a hundred separate parameters per operation.
 */
import type { FilterDef } from '../../mappings/filters.ts';
import { STATE_CODES } from '../../mappings/reference.ts';
import { SIGNAL_NAMES } from '../../mappings/signals.ts';
import type { EntityDef, FieldDef } from '../../mappings/types.ts';
import { CRM_STATUSES } from '../services/crm.ts';
import { fieldNames } from '../read/projection.ts';
import { EXPORT_SYNC_MAX } from '../read/export.ts';
import { PAGE_SIZE_UNFILTERED } from '../read/list-request.ts';
import { FORMATS, LOOKUP_TEXT_MAX, MAX_MATCH_CHARS, MAX_MATCH_VALUES, MAX_SEARCH_CHARS, MODES, PAGE_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../read/request.ts';

/** A JSON Schema (OpenAPI 3.1 schemas are JSON Schema 2020-12). */
export type Schema = Record<string, unknown>;

/** An OpenAPI Parameter Object. */
export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  description: string;
  schema: Schema;
  style?: 'form' | 'deepObject';
  explode?: boolean;
  example?: unknown;
}

/** What a parameter's description needs: the entity of the operation (null for account routes). */
export interface ParamContext {
  def: EntityDef | null;
}

type Describe = (ctx: ParamContext) => Omit<Parameter, 'name' | 'in'>;

const bool = (description: string, fallback?: boolean): Describe => () => ({ description, schema: { type: 'boolean', ...(fallback === undefined ? {} : { default: fallback }) } });
const choice = (description: string, values: readonly string[], fallback?: string): Describe => () => ({ description, schema: { type: 'string', enum: [...values], ...(fallback ? { default: fallback } : {}) } });
/** Comma-separated values (`a,b`), OpenAPI form style without explode. */
const csv = (items: Schema): Pick<Parameter, 'schema' | 'style' | 'explode'> => ({ schema: { type: 'array', minItems: 1, items }, style: 'form', explode: false });
const text = (description: string, maxLength: number): Describe => () => ({ description, schema: { type: 'string', minLength: 1, maxLength } });

const need = (ctx: ParamContext, name: string): EntityDef => {
  if (!ctx.def) throw new Error(`OpenAPI: parameter ${name} needs an entity`);
  return ctx.def;
};

/** The parameters every allowlist shares, described once. */
const COMMON: Record<string, Describe> = {
  page: () => ({ description: 'Page number, from 0. In relevance order (search without sort_by) a page asked for by number must start before row 10,000 (page × page_size < 10,000; BINTEL_PAGE_WINDOW): deeper is 400 out_of_range, and meta.next_cursor goes on.', schema: { type: 'integer', minimum: 0, maximum: PAGE_MAX, default: 0 } }),
  page_size: () => ({ description: `Rows per page. Above ${PAGE_SIZE_UNFILTERED} needs at least one business filter (FILTER_REQUIRED); test keys at most 100.`, schema: { type: 'integer', minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT } }),
  sort_by: (ctx) => {
    const def = need(ctx, 'sort_by');
    return { description: 'Sort column (advanced columns need an advanced key).', schema: { type: 'string', enum: def.fields.filter((f) => f.sortable).map((f) => f.name), default: def.defaultSort } };
  },
  sort_dir: choice('Sort direction.', ['asc', 'desc'], 'asc'),
  mode: choice('How many fields each row carries: light (identifying fields), basic or full (every field of the key\'s tier).', MODES, 'basic'),
  fields: (ctx) => ({ description: 'Exactly these fields (and id), comma-separated; overrides mode.', ...csv({ type: 'string', enum: fieldNames(need(ctx, 'fields')) }) }),
  format: choice('json (nested) or flat (one level, dotted names).', FORMATS, 'json'),
  count_only: bool('Only the total (meta.total_count), no rows; costs nothing.', false),
  include_count: bool('Compute meta.total_count.', true),
  dry_run: bool('Estimate rows and credits without reading or charging (meta only).', false),
  explain: bool('Echo the Elasticsearch request in meta (internal keys only).', false),
  search: text('Fuzzy search over the resource\'s name fields.', MAX_SEARCH_CHARS),
  signals: () => ({ description: 'Rows carrying any (signal_match=any) or all of these signals; each adds its price per row.', ...csv({ type: 'string', enum: [...SIGNAL_NAMES] }) }),
  signal_match: choice('Whether a row needs any or all of `signals`.', ['any', 'all'], 'any'),
  states: () => ({ description: 'USPS state codes, comma-separated.', ...csv({ type: 'string', enum: [...STATE_CODES] }) }),
  dmas: text('Designated market areas, comma-separated names (see GET /v1/filter-options/dmas).', 10_000),
  geo_mode: choice('Which of states and dmas applies when both are given.', ['state', 'dma'], 'state'),
  tags: () => ({ description: 'Rows carrying any of the caller\'s tags, comma-separated.', ...csv({ type: 'string', minLength: 1 }) }),
  crm_status: () => ({ description: 'Rows by their place in the organization\'s CRMs, comma-separated.', ...csv({ type: 'string', enum: [...CRM_STATUSES] }) }),
  cursor: () => ({ description: 'Opaque cursor from meta.next_cursor: the next page of the same filters and sort.', schema: { type: 'string', minLength: 1 } }),
  'cf[': (ctx) => columnFilters(need(ctx, 'cf')),
  'eb[': (ctx) => blankFilters(need(ctx, 'eb')),
  limit: () => ({ description: `Alias of page_size: rows in the file (at most ${EXPORT_SYNC_MAX}).`, schema: { type: 'integer', minimum: 1, maximum: EXPORT_SYNC_MAX } }),
  // Lookups (own parameters of GET /v1/companies/lookup and /v1/brokers/lookup).
  domain: text('A domain or URL (exactly one of domain, name, ein).', LOOKUP_TEXT_MAX),
  name: text('A name, legal suffixes folded away.', LOOKUP_TEXT_MAX),
  ein: () => ({ description: 'An EIN, 9 digits with or without the dash (exactly one of domain, name, ein).', schema: { type: 'string', pattern: '^\\d{2}-?\\d{7}$' }, example: '12-3456789' }),
  // Autocomplete (GET /v1/{resource}/autocomplete).
  query: text('The text typed so far (alias search), at least 2 characters.', MAX_SEARCH_CHARS),
  column: (ctx) => {
    const def = need(ctx, 'column');
    return { description: 'The column completed.', schema: { type: 'string', enum: def.fields.filter((f) => f.autocomplete).map((f) => f.name), default: def.defaultAutocomplete } };
  },
};

/** The `cf` deepObject: one property per column with a cf kind. */
function columnFilters(def: EntityDef): Omit<Parameter, 'name' | 'in'> {
  const KIND: Record<string, (f: FieldDef) => Schema> = {
    numeric: (f) => ({ type: 'string', description: `${f.description} Numbers, comma-separated, each optionally gte:, gt:, lte: or lt: (e.g. gte:50,lte:500).`, examples: ['gte:50'] }),
    percent: (f) => ({ type: 'string', description: `${f.description} Percent values with gte:/gt:/lte:/lt: (gte:1 is at least 1%).`, examples: ['gte:1'] }),
    string: (f) => ({ type: 'string', description: `${f.description} Case-insensitive substring; up to ${MAX_MATCH_VALUES} comma-separated values of ${MAX_MATCH_CHARS} characters.` }),
    exact: (f) => ({ type: 'string', description: `${f.description} Exact values, comma-separated.`, ...(f.enum ? { examples: [f.enum[0]] } : {}) }),
  };
  const cols = def.fields.filter((f) => f.cf);
  return {
    description: `Column filters, cf[column]=value (an empty value is 400 missing_value; advanced columns need an advanced key). Columns: ${cols.map((f) => f.name).join(', ')}.`,
    style: 'deepObject',
    explode: true,
    schema: { type: 'object', additionalProperties: false, properties: Object.fromEntries(cols.map((f) => [f.name, { ...KIND[f.cf as string](f), 'x-tier': f.tier ?? 'basic' }])) },
  };
}

/** The `eb` deepObject: eb[column]=true excludes rows where the column is blank. */
function blankFilters(def: EntityDef): Omit<Parameter, 'name' | 'in'> {
  const cols = def.fields.filter((f) => f.blank);
  return {
    description: `Exclude blanks, eb[column]=true (false is 400 invalid_value). Columns: ${cols.map((f) => f.name).join(', ')}.`,
    style: 'deepObject',
    explode: true,
    schema: { type: 'object', additionalProperties: false, properties: Object.fromEntries(cols.map((f) => [f.name, { type: 'string', enum: ['true'], 'x-tier': f.tier ?? 'basic' }])) },
  };
}

/** A resource filter row (mappings/filters.ts) as a parameter, by kind. */
function filterParameter(row: FilterDef): Omit<Parameter, 'name' | 'in'> {
  const on = `Matches ${row.fields.join(', ')}.`;
  const values = (items: Schema) => (row.repeatable ? { schema: { type: 'array', minItems: 1, items }, style: 'form' as const, explode: true } : csv(items));
  switch (row.kind) {
    case 'terms':
      return { description: `Any of these values. ${on}`, ...values(row.values ? { type: 'string', enum: [...row.values] } : { type: 'string', minLength: 1 }) };
    case 'bool':
      return { description: `true or false (also 1/0). ${on}`, schema: { type: 'boolean' } };
    case 'has':
      return { description: `true: the field has a value; false: it has none. ${on}`, schema: { type: 'boolean' } };
    case 'industries':
      return { description: `NAICS industry labels, comma-separated, each expanded over its category (GET /v1/filter-options/industries). ${on}`, ...values({ type: 'string', minLength: 1 }) };
    case 'domain':
      return { description: `Domains or URLs, normalized, matched exactly. ${on}`, ...values({ type: 'string', minLength: 1 }) };
    case 'ein':
      return { description: `EINs, 9 digits with or without the dash. ${on}`, ...values({ type: 'string', pattern: '^\\d{2}-?\\d{7}$' }) };
    case 'year_or_latest':
      return { description: `A filing year, or latest (the default). ${on}`, schema: row.values ? { type: 'string', enum: [...row.values] } : { type: 'string', pattern: '^(latest|(19|20)\\d{2})$' } };
    case 'substring':
    case 'id_or_name':
    case 'text':
      return {
        description: `${row.kind === 'text' ? 'Words, all required' : row.kind === 'id_or_name' ? 'An id, or a case-insensitive substring of the name' : 'Case-insensitive substring'}; at most ${MAX_MATCH_VALUES} values of ${MAX_MATCH_CHARS} characters. ${on}`,
        ...(row.whole || row.kind === 'text' ? { schema: { type: 'string', minLength: 1, maxLength: MAX_MATCH_CHARS } } : values({ type: 'string', minLength: 1, maxLength: MAX_MATCH_CHARS })),
      };
  }
}

/** Parameters the entity itself defines: its filter rows, its own geography and its side. */
function entityParameter(def: EntityDef, name: string): Omit<Parameter, 'name' | 'in'> | null {
  const row = def.filters.find((x) => x.param === name);
  if (row) return filterParameter(row);
  if (def.side?.param === name) return { description: `Which side\'s rows the call reads (required).`, required: true, schema: { type: 'string', enum: [...def.side.values] } };
  const g = def.ownGeo;
  if (g?.states === name) return { description: 'The row\'s own state, USPS codes comma-separated.', ...csv({ type: 'string', enum: [...STATE_CODES] }) };
  if (g?.dmas === name) return { description: 'The row\'s own DMAs, comma-separated names.', schema: { type: 'string', minLength: 1, maxLength: 10_000 } };
  if (g?.mode === name) return { description: `Which of ${g.states} and ${g.dmas} applies when both are given.`, schema: { type: 'string', enum: ['state', 'dma'], default: 'state' } };
  return null;
}

/**
 * How GET /v1/{resource}/export.csv reads the list parameters it shares: page_size (or limit) is
 * the file's rows and the page's size, `page` counts pages of that size, `format` can only be
 * flat, and the count parameters are refused (a CSV has no meta).
 */
export function exportOverrides(maxRows: number, walkMax: number): NonNullable<QueryOptions['overrides']> {
  const refused = (name: string) => ({ description: `Not supported: 400 VALIDATION_ERROR, issue not_supported, whatever the value (a CSV has no meta to carry a count; the X-Total-Count header gives the total, the list with count_only=true the count alone). ${name === 'count_only' ? '' : 'Listed so a client sending the list parameters learns why.'}`.trim(), schema: { type: 'boolean' } });
  return {
    page_size: { description: `Rows in the file and the size of its pages (alias limit); default as many as the key may take.`, schema: { type: 'integer', minimum: 1, maximum: maxRows } },
    page: {
      description: `Page of the export, from 0: page N holds rows N × page_size + 1 to (N + 1) × page_size of the same order (page_size ${maxRows}, page 1: rows ${maxRows + 1} to ${2 * maxRows}). As a list page, each page is a step of crawl detection (429 CRAWL_DETECTED), and a page must start before row ${walkMax.toLocaleString('en-US')} (page × page_size < ${walkMax.toLocaleString('en-US')}; in relevance order, search without sort_by, before BINTEL_PAGE_WINDOW, at most that): deeper is 400 out_of_range, and the list's cursor goes on.`,
      schema: { type: 'integer', minimum: 0, default: 0 },
    },
    format: { description: 'A CSV is always flat: flat is accepted and changes nothing; json is 400 not_supported.', schema: { type: 'string', enum: ['flat'], default: 'flat' } },
    count_only: refused('count_only'),
    include_count: refused('include_count'),
  };
}

/** Options of `queryParameters`. */
export interface QueryOptions {
  /** The allowlist the route hands to readQuery. */
  names: readonly string[];
  def?: EntityDef | null;
  /** Descriptions that differ on this operation (export's page_size bound, a side that is optional). */
  overrides?: Record<string, Partial<Omit<Parameter, 'name' | 'in'>>>;
}

/**
 * The query parameters of an allowlist: entity parameters first (filters, side, own geography),
 * then the shared table. Throws on a name that neither describes.
 */
export function queryParameters(opts: QueryOptions): Parameter[] {
  const ctx: ParamContext = { def: opts.def ?? null };
  return [...new Set(opts.names)].map((allowed) => {
    const found = (ctx.def && entityParameter(ctx.def, allowed)) ?? COMMON[allowed]?.(ctx);
    if (!found) throw new Error(`OpenAPI: no description of query parameter "${allowed}"`);
    const name = allowed.endsWith('[') ? allowed.slice(0, -1) : allowed;
    return { name, in: 'query' as const, ...found, ...(opts.overrides?.[allowed] ?? {}) };
  });
}

/** The parameters of a query validated by an ajv schema (its properties are the parameters; tags routes). */
export function schemaParameters(schema: { properties: Record<string, Schema> }, descriptions: Record<string, string>): Parameter[] {
  return Object.entries(schema.properties).map(([name, s]) => {
    const paging = name === 'page' || name === 'page_size' ? (COMMON[name]({ def: null }) as Parameter) : null;
    return { name, in: 'query' as const, description: paging?.description ?? descriptions[name] ?? '', schema: paging?.schema ?? s };
  });
}

/** A path parameter. */
export const pathParameter = (name: string, description: string, schema: Schema = { type: 'string', minLength: 1 }): Parameter => ({ name, in: 'path', required: true, description, schema });
