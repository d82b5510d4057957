/**
 * The consumer's reference (docs/reference.md), written from the code: the field dictionary from
 * the entity definitions (mappings/) and the row schemas of the OpenAPI document, the prices and
 * the worked example from the pricing functions (server/pricing.ts), the sample responses from the
 * document's examples, and the "how to get N rows" table from the configuration's defaults and
 * the parameters' bounds in the document. `bintel docs` rewrites the sections; a test fails when
 * the file differs from what this renders.
 */
import { loadConfig } from '../../core/config.ts';
import { GENERATED_DOCS, GENERATED_SECTIONS, regenerateSections } from '../../mappings/docs.ts';
import { ENTITIES } from '../../mappings/index.ts';
import { SIGNALS, type SignalCategory } from '../../mappings/signals.ts';
import type { EntityDef, FieldDef, Tier } from '../../mappings/types.ts';
import { SIGNAL_SURCHARGE_MILLI, rowPrice, toCredits } from '../pricing.ts';
import { sharedDocument } from './document.ts';
import { exampleOf } from './examples.ts';
import type { Schema } from './params.ts';
import { rowName } from './schemas.ts';

const code = (s: string) => `\`${s}\``;
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
/** Credits as the API shows them: up to three decimals, at least two. */
const credits = (milli: number) => toCredits(milli).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 3 });
const int = (n: number) => n.toLocaleString('en-US');

function rowSchemaOf(def: EntityDef): Schema {
  return (sharedDocument().components as { schemas: Record<string, Schema> }).schemas[rowName(def)];
}

/** A property's JSON type as the OpenAPI document gives it (`null` left out: any field may be null): `string`, `array of string`. */
function typeOf(s: Schema): string {
  const types = ([] as string[]).concat((s.type as string | string[] | undefined) ?? []);
  const main = types.filter((t) => t !== 'null').map((t) => (t === 'array' ? `array of ${typeOf((s.items ?? {}) as Schema)}` : t));
  const values = (s.enum as unknown[] | undefined)?.filter((v) => v !== null);
  const listed = values && values.length <= 8 ? `: ${values.map((v) => code(String(v))).join(', ')}` : values ? ` (${values.length} values)` : '';
  return `${main.join(' or ') || 'any'}${listed}`;
}

/** Where a field's value comes from. */
function sourceOf(def: EntityDef, f: FieldDef): string {
  const s = f.source;
  if (s.kind === 'csv') return `CSV column ${code(f.name)}${s.required ? ' (required)' : ''}`;
  if (s.kind === 'derived') return 'computed at load from the row\'s other columns';
  const parts = s.paths.map(([join, field]) => {
    const j = def.joins.find((x) => x.name === join);
    return `${j ? j.entity : join} ${code(field)}${j ? ` (via ${code(j.key)})` : ''}`;
  });
  return `copied at load from the parent: ${parts.join(', then ')}`;
}

/** What a field can be used for in a list call. */
function usesOf(f: FieldDef): string {
  const out: string[] = [];
  if (f.sortable) out.push('`sort_by`');
  if (f.cf) out.push(`\`cf[${f.name}]\` (${f.cf})`);
  if (f.blank) out.push(`\`eb[${f.name}]\``);
  if (f.search) out.push('`search`');
  if (f.autocomplete) out.push('autocomplete');
  return out.join(', ');
}

/** Members every row of the resource may carry besides its fields (lead_source, crm_status, tags). */
const MEMBER_SOURCE: Record<string, string> = {
  lead_source: '`source` from the row\'s origin (the Form 5500 dataset and year, or the loaded file); `retrieved_at` when it was read',
  crm_status: 'per call: the CRM lists of the caller\'s organization that hold the row',
  tags: 'per call: the caller\'s tags on the row',
};

/** The field dictionary: one table per resource. */
export function fieldDictionary(): string {
  const out: string[] = [];
  for (const def of ENTITIES) {
    const props = rowSchemaOf(def).properties as Record<string, Schema>;
    out.push(`### ${def.name}\n`);
    out.push(`Price per row: ${credits(def.price.basic)} credits at the basic tier, ${credits(def.price.advanced)} at the advanced tier (a row is advanced when it carries an advanced field).\n`);
    out.push('| field | type | tier | meaning | source | in a list call |');
    out.push('|---|---|---|---|---|---|');
    for (const [name, s] of Object.entries(props)) {
      const f = def.fields.find((x) => x.name === name);
      const tier = f ? (f.tier ?? 'basic') : 'basic';
      const meaning = String(s.description ?? '');
      const source = f ? sourceOf(def, f) : (MEMBER_SOURCE[name] ?? '');
      out.push(`| ${code(name)} | ${cell(typeOf(s))} | ${tier} | ${cell(meaning)} | ${cell(source)} | ${f ? usesOf(f) : ''} |`);
    }
    const hidden = def.fields.filter((f) => f.output === false).map((f) => code(f.name));
    if (hidden.length) out.push(`\nNot returned, used by filters only: ${hidden.join(', ')}.`);
    out.push('');
  }
  return out.join('\n');
}

/** The price of a row of each resource at each tier. */
export function priceTable(): string {
  return ['| resource | basic row | advanced row |', '|---|---|---|', ...ENTITIES.map((d) => `| ${d.name} | ${credits(d.price.basic)} | ${credits(d.price.advanced)} |`)].join('\n');
}

/** Which rows carry signals, and the signal catalogue with each category's surcharge. */
export function signalTable(): string {
  const carriers = ENTITIES.filter((d) => d.fields.some((f) => f.name === 'signals')).map((d) => {
    const f = d.fields.find((x) => x.name === 'signals')!;
    return `${d.name}${f.tier === 'advanced' ? ' (advanced tier)' : ''}`;
  });
  const out = [
    `Rows of ${carriers.join(', ')} carry \`signals\`. Asking for signals with \`signals=\` filters the rows (\`signal_match=any\` or \`all\`) and adds each named signal's surcharge to the price of every returned row:\n`,
    '| category | surcharge per row (credits) |',
    '|---|---|',
    ...(Object.entries(SIGNAL_SURCHARGE_MILLI) as [SignalCategory, number][]).map(([cat, milli]) => `| ${cat} | ${credits(milli)} |`),
    '',
    '| signal | category | surcharge per row (credits) | meaning |',
    '|---|---|---|---|',
    ...SIGNALS.map((s) => `| ${code(s.name)} | ${s.category} | ${credits(SIGNAL_SURCHARGE_MILLI[s.category])} | ${cell(s.description)} |`),
  ];
  return out.join('\n');
}

/** One priced page of the worked example. */
export interface PriceExample {
  resource: string;
  rows: number;
  tier: Tier;
  signals: string[];
  /** Credits of the whole page, as `meta.credits_charged` shows it. */
  credits: number;
}

/** The pages the worked example prices, each with what the pricing functions charge for it. */
export function priceExamples(): PriceExample[] {
  const cases: Omit<PriceExample, 'credits'>[] = [
    { resource: 'companies', rows: 50, tier: 'basic', signals: [] },
    { resource: 'companies', rows: 50, tier: 'basic', signals: ['broker_change'] },
    { resource: 'companies', rows: 50, tier: 'advanced', signals: ['broker_change', 'renewal_window'] },
    { resource: 'personnel', rows: 100, tier: 'advanced', signals: ['new_filer'] },
  ];
  return cases.map((c) => {
    const def = ENTITIES.find((d) => d.name === c.resource)!;
    const p = rowPrice(def, c.tier, c.signals);
    return { ...c, credits: toCredits(c.rows * (p.base + p.signals)) };
  });
}

/** The worked pricing example: each page's arithmetic and its total. */
export function pricingExample(): string {
  const out = ['| page | per row | credits for the page |', '|---|---|---|'];
  for (const ex of priceExamples()) {
    const def = ENTITIES.find((d) => d.name === ex.resource)!;
    const p = rowPrice(def, ex.tier, ex.signals);
    const parts = [`${credits(p.base)} (${ex.tier} row)`, ...ex.signals.map((s) => `${credits(rowPrice(def, ex.tier, [s]).signals)} (${s})`)];
    const query = [...(def.side ? [`${def.side.param}=${def.side.values[0]}`] : []), 'states=TX', `page_size=${ex.rows}`, ...(ex.tier === 'advanced' ? ['mode=full'] : []), ...(ex.signals.length ? [`signals=${ex.signals.join(',')}`] : [])].join('&');
    out.push(`| ${ex.rows} rows of ${ex.resource}, ${ex.tier} tier: \`GET /v1/${ex.resource}?${query}\` | ${parts.join(' + ')} = ${credits(p.base + p.signals)} | ${ex.rows} × ${credits(p.base + p.signals)} = **${credits(ex.credits * 1000)}** |`);
  }
  out.push('', 'A page with fewer rows than `page_size` costs its rows only; a page of no rows, a count, a dry run and a cache hit cost 0. `dry_run=true` answers `estimated_credits` for the same call without charging.');
  return out.join('\n');
}

/** "How to get N rows": every way rows leave the API, with the cap on each and its setting. */
export function rowsTable(): string {
  const c = loadConfig({});
  const doc = sharedDocument() as { paths: Record<string, Record<string, { parameters?: { name: string; schema: Schema }[] }>> };
  const param = (path: string, name: string) => doc.paths[path].get.parameters!.find((p) => p.name === name)!.schema;
  const pageMax = param('/v1/companies', 'page_size').maximum as number;
  const pageDefault = param('/v1/companies', 'page_size').default as number;
  const exportMax = param('/v1/companies/export.csv', 'limit').maximum as number;
  const crawlRows = c.crawlThreshold * pageMax;
  const out = [
    '| rows you want | how | what bounds it (default; setting) |',
    '|---|---|---|',
    `| up to ${pageDefault} | one list page: \`GET /v1/{resource}\` | \`page_size\` default ${pageDefault}; above it a business filter is required (400 \`FILTER_REQUIRED\`) |`,
    `| up to ${int(pageMax)} | one list page with a business filter and \`page_size=${pageMax}\` | \`page_size\` at most ${pageMax} (test keys 100) |`,
    `| up to ${int(crawlRows)} | pages of one filter combination, by \`page\` or by following \`meta.next_cursor\` | crawl detection: at most ${c.crawlThreshold} distinct pages of one filter combination and order per key (\`BINTEL_CRAWL_THRESHOLD\`), then 429 \`CRAWL_DETECTED\` until 15 minutes pass without a request of those filters; ${c.crawlThreshold} × ${pageMax} = ${int(crawlRows)} rows. A page asked for by number in relevance order (\`search\` without \`sort_by\`) must start before row ${int(c.pageWindow)} (\`BINTEL_PAGE_WINDOW\`); the cursor goes on |`,
    `| up to ${int(exportMax)} in one file | \`GET /v1/{resource}/export.csv?limit=${exportMax}\` (synchronous CSV) | \`limit\` at most ${int(exportMax)}; \`page\` takes the next ${int(exportMax)} (each file a step of crawl detection, counted with the list pages of the same filters; a page must start before row 10,000) |`,
    `| up to ${int(c.exportMaxRows)} in one file | \`POST /v1/exports\` with \`max_rows\`, then download (asynchronous; live keys) | \`max_rows\` at most ${int(c.exportMaxRows)} (\`BINTEL_EXPORT_MAX_ROWS\`); ${c.exportMaxActive} exports queued or running per organization (\`BINTEL_EXPORT_MAX_ACTIVE\`); the file is kept ${c.exportTtlH} h (\`BINTEL_EXPORT_TTL_H\`); not a step of crawl detection |`,
    `| more | several exports or filter combinations (split by state, industry, size band...) over days | every way above counts toward the key's daily rows: ${int(c.dailyRowCap)} rows per key per UTC day (\`BINTEL_DAILY_ROW_CAP\`; 429 \`DAILY_CAP_EXCEEDED\`), lists, details, lookups, batches and both exports alike (dry runs and counts do not count, cache hits do) |`,
    '',
    `Every call also counts toward the rate limit: ${c.rateLimitPerMinute} requests per key per minute (\`BINTEL_RATE_LIMIT_PER_MIN\`; 429 \`RATE_LIMITED\` with \`Retry-After\`). Every row is paid (see [prices](#prices)); a row delivered again within ${c.cacheTtlS / 60} minutes, same page of the same call, is free (\`BINTEL_CACHE_TTL_S\`).`,
  ];
  return out.join('\n');
}

/** The sample request of a resource's list and detail, with the key tier they assume. */
function sampleQuery(def: EntityDef): string {
  return [...(def.side ? [`${def.side.param}=${def.side.values[0]}`] : []), 'mode=full'].join('&');
}

/** Sample list and detail responses of each resource, their rows the OpenAPI document's examples. */
export function sampleResponses(): string {
  const doc = sharedDocument() as { components: { schemas: Record<string, Schema> } };
  const refs = doc.components.schemas;
  const out: string[] = [];
  for (const def of ENTITIES) {
    const row = exampleOf(rowSchemaOf(def), refs) as Record<string, unknown>;
    const price = credits(rowPrice(def, 'advanced').base);
    const q = sampleQuery(def);
    const tiers = { response_tier: 'advanced', key_tier: 'advanced' };
    const list = {
      ok: true,
      data: [row],
      meta: { total_count: 1, page: 0, page_size: 1, returned: 1, has_more: false, ...tiers, credits_charged: Number(price), cache_hit: false, applied_filters: def.side ? { [def.side.param]: def.side.values[0] } : {} },
    };
    const detail = { ok: true, data: row, meta: { credits_charged: Number(price), cache_hit: false, ...tiers } };
    out.push(`### ${def.name}: list and detail\n`);
    out.push(`\`GET /v1/${def.name}?${q}&page_size=1\` with an advanced key (every field; a basic key's rows leave out the advanced ones):\n`);
    out.push('```json', JSON.stringify(list, null, 2), '```', '');
    out.push(`\`GET /v1/${def.name}/${String(row.id)}?${q}\`:\n`);
    out.push('```json', JSON.stringify(detail, null, 2), '```', '');
  }
  return out.join('\n');
}

/** The sections of docs/reference.md, by marker name. */
export const REFERENCE_SECTIONS: Record<string, () => string> = {
  'reference-rows': rowsTable,
  'reference-prices': priceTable,
  'reference-signals': signalTable,
  'reference-price-example': pricingExample,
  'reference-fields': fieldDictionary,
  'reference-samples': sampleResponses,
};

/** Every file with generated sections: those of the entity definitions and the reference. */
export const DOC_FILES: readonly string[] = [...GENERATED_DOCS, 'docs/reference.md'];

/** Every generated section of the documentation, by marker name. */
export const DOC_SECTIONS: Record<string, () => string> = { ...GENERATED_SECTIONS, ...REFERENCE_SECTIONS };

/** Rewrites every generated section (of either kind) `doc` holds. */
export function regenerateDocs(doc: string): { text: string; sections: string[] } {
  return regenerateSections(doc, DOC_SECTIONS);
}
