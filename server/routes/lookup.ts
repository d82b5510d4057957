/**
 * Exact lookups and batch enrichment: GET /v1/companies/lookup (domain, name or ein),
 * GET /v1/brokers/lookup (name; 400 AMBIGUOUS_LOOKUP with suggestions), POST
 * /v1/companies/batch (up to 100 ids) and POST /v1/personnel/batch (up to 50 EINs, or ids).
 * Priced per returned row at the response tier; dry_run estimates without charging.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import type { AuthState } from '../middleware/auth.ts';
import { ok } from '../middleware/envelope.ts';
import { authOf, requireScope } from '../middleware/auth.ts';
import { ApiError, invalid, notFound } from '../errors.ts';
import { entity } from '../../mappings/index.ts';
import { LEAD_TYPES } from '../../mappings/reference.ts';
import { companion } from '../../mappings/es-mapping.ts';
import { foldText, normalizeDomain, normalizeEin, normalizeName } from '../../mappings/normalize.ts';
import type { Doc, EntityDef } from '../../mappings/types.ts';
import { rowPrice, toCredits } from '../pricing.ts';
import { keyTier } from '../services/tiers.ts';
import { bodyOf, validator } from '../validate.ts';
import { chargeRows, type Delivery } from '../read/charge.ts';
import { FORMATS, flattenRow, project, shapeRow, type Format, type Projection } from '../read/projection.ts';
import { leadTypeProblem, one, readQuery } from '../read/params.ts';
import { crmMarks, crmStatusOfHit, searchClause } from '../read/query.ts';
import { scopeOf } from '../services/tags.ts';
import { aliasName } from '../../core/names.ts';

type Query = Record<string, string | string[]>;

interface Shaping {
  projection: Projection;
  format: Format;
  dryRun: boolean;
}

function shaping(def: EntityDef, auth: AuthState, q: Query): Shaping {
  const format = (one(q, 'format') ?? 'json') as Format;
  if (!FORMATS.includes(format)) throw invalid({ field: 'format', issue: 'invalid_value', expected: FORMATS });
  const dry = one(q, 'dry_run');
  if (dry !== undefined && !['true', 'false'].includes(dry)) throw invalid({ field: 'dry_run', issue: 'invalid_boolean', expected: ['true', 'false'] });
  return { projection: project(def, auth.key, { mode: one(q, 'mode'), fields: one(q, 'fields') }), format, dryRun: dry === 'true' };
}

/** One row; personnel rows carry crm_status from the hit's CRM marks. */
function shape(def: EntityDef, s: Shaping, doc: Doc, now: string, matched?: unknown, tags?: string[]): Record<string, unknown> {
  const extra = def.name === 'personnel' ? { crm_status: crmStatusOfHit(matched), ...(tags ? { tags } : {}) } : undefined;
  const row = shapeRow(doc, s.projection.fields, { source: def.leadSource(doc), retrievedAt: now, extra });
  return s.format === 'flat' ? flattenRow(row) : row;
}

/** The delivery of some hits (for cache hits): their concrete index and ids. */
const deliveryOf = (hits: readonly { _index: string; _id?: string | null }[]): Delivery => ({ generation: hits[0]?._index ?? '', ids: hits.map((h) => String(h._id)) });

/** Answers with rows (charged) or, for a dry run, the estimate for `rows` rows. */
async function answer(ctx: Context, services: Services, def: EntityDef, s: Shaping, data: unknown, delivery: Delivery, extra: Record<string, unknown> = {}): Promise<void> {
  const rows = delivery.ids.length;
  const auth = authOf(ctx);
  const tiers = { response_tier: s.projection.tier, key_tier: keyTier(auth.key, def) };
  if (s.dryRun) {
    const price = rowPrice(def.name, s.projection.tier);
    const base = auth.sandbox ? 0 : rows * price.base;
    // No data, in the shape the real call would have (an object for a lookup, an array for a batch).
    ok(ctx, Array.isArray(data) ? [] : {}, { dry_run: true, estimated_rows: rows, base_credits: toCredits(base), signal_credits: 0, estimated_credits: toCredits(base), ...tiers, credits_charged: 0, phase: 'internal-phase-1', ...extra });
    return;
  }
  const charge = await chargeRows(services, auth, def.name, s.projection.tier, rows, [], undefined, delivery);
  ok(ctx, data, { ...tiers, returned: rows, credits_charged: charge.credits, cache_hit: charge.cacheHit, ...extra });
}

const search = (services: Services, auth: AuthState, def: EntityDef, query: Record<string, unknown>, size: number, sort: unknown[] = [{ _score: 'desc' }, { id: 'asc' }]) =>
  services.es.search<Doc>({ index: aliasName(auth.dataNamespace, def.name), query, size, sort: sort as never, track_total_hits: true });

const idsBody = validator<{ ids: string[] }>({
  type: 'object',
  additionalProperties: false,
  required: ['ids'],
  properties: { ids: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 128 } } },
});

interface PersonnelBatch {
  company_eins?: string[];
  ids?: string[];
  lead_type?: string;
  page_size?: number;
}
const personnelBody = validator<PersonnelBatch>({
  type: 'object',
  additionalProperties: false,
  properties: {
    company_eins: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', minLength: 1 } },
    ids: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 128 } },
    lead_type: { type: 'string', enum: [...LEAD_TYPES] },
    page_size: { type: 'integer', minimum: 1, maximum: 25 },
  },
});

export function lookupRoutes(services: Services): Router {
  const r = new Router();
  const companies = entity('companies');
  const brokers = entity('brokers');
  const personnel = entity('personnel');

  r.get('/v1/companies/lookup', async (ctx) => {
    requireScope(ctx, 'read:companies');
    const auth = authOf(ctx);
    const q = readQuery(ctx, ['domain', 'name', 'ein', 'mode', 'fields', 'format', 'dry_run']);
    const given = (['domain', 'name', 'ein'] as const).filter((k) => one(q, k) !== undefined);
    if (given.length !== 1) throw invalid({ field: given.length ? given.join(',') : 'domain', issue: given.length ? 'one_of' : 'missing_required', expected: 'exactly one of domain, name, ein' });
    const s = shaping(companies, auth, q);
    const key = given[0];
    const raw = one(q, key) as string;
    const value = key === 'domain' ? normalizeDomain(raw) : key === 'ein' ? normalizeEin(raw) : normalizeName(raw);
    if (!value) throw invalid({ field: key, issue: 'invalid_format', expected: key === 'domain' ? 'a domain such as acme.com' : key === 'ein' ? '9 digits' : 'a name' });
    const field = key === 'name' ? `${companion.norm('company_name')}.kw` : key;
    // Several sponsors can share a name or domain: the largest is the answer, the count is in meta.
    const res = await search(services, auth, companies, { term: { [field]: value } }, 1, [{ total_number_of_employees: { order: 'desc', missing: '_last' } }, { id: 'asc' }]);
    const doc = res.hits.hits[0]?._source;
    if (!doc) throw notFound('company', key);
    const matches = typeof res.hits.total === 'object' ? res.hits.total.value : res.hits.total;
    await answer(ctx, services, companies, s, shape(companies, s, doc, new Date().toISOString()), deliveryOf(res.hits.hits.slice(0, 1)), { matches });
  });

  r.get('/v1/brokers/lookup', async (ctx) => {
    requireScope(ctx, 'read:brokers');
    const auth = authOf(ctx);
    const q = readQuery(ctx, ['name', 'mode', 'fields', 'format', 'dry_run']);
    const name = one(q, 'name');
    if (name === undefined || !name.trim()) throw invalid({ field: 'name', issue: name === undefined ? 'missing_required' : 'missing_value' });
    const s = shaping(brokers, auth, q);
    const exact = await search(services, auth, brokers, { term: { [`${companion.norm('broker_name')}.kw`]: normalizeName(name) } }, 10);
    // Names match with legal suffixes folded away; when that leaves several, the one spelled as
    // asked (suffix included) is the answer: "Nagy Benefit Advisors LLC" is not ambiguous with
    // "Nagy Benefit Advisors".
    const asAsked = exact.hits.hits.filter((x) => foldText(String(x._source?.broker_name ?? '')) === foldText(name));
    const hits = exact.hits.hits.length > 1 && asAsked.length === 1 ? asAsked : exact.hits.hits;
    const suggest = (h: typeof hits) => h.map((x) => ({ id: x._id, broker_name: x._source?.broker_name, hq_city: x._source?.hq_city ?? null, hq_state: x._source?.hq_state ?? null }));
    if (hits.length > 1) {
      throw new ApiError('AMBIGUOUS_LOOKUP', `${hits.length} brokers are named "${name}"; look one up by id`, [{ field: 'name', issue: 'ambiguous', suggestions: suggest(hits) }]);
    }
    if (!hits.length) {
      const near = await search(services, auth, brokers, searchClause(brokers, name), 5);
      const e = notFound('broker', 'name');
      if (near.hits.hits.length) e.details[0].suggestions = suggest(near.hits.hits);
      throw e;
    }
    await answer(ctx, services, brokers, s, shape(brokers, s, hits[0]._source as Doc, new Date().toISOString()), deliveryOf(hits));
  });

  r.post('/v1/companies/batch', async (ctx) => {
    requireScope(ctx, 'read:companies');
    const auth = authOf(ctx);
    const q = readQuery(ctx, ['mode', 'fields', 'format', 'dry_run']);
    const { ids } = idsBody(bodyOf(ctx));
    const s = shaping(companies, auth, q);
    const unique = [...new Set(ids)];
    const res = await services.es.mget<Doc>({ index: aliasName(auth.dataNamespace, 'companies'), ids: unique });
    const found = new Map<string, Doc>();
    const delivered: { _index: string; _id: string }[] = [];
    for (const d of res.docs) {
      if ('found' in d && d.found && d._source) {
        found.set(d._id, d._source);
        delivered.push(d);
      }
    }
    const now = new Date().toISOString();
    const rows = unique.filter((id) => found.has(id)).map((id) => shape(companies, s, found.get(id) as Doc, now));
    await answer(ctx, services, companies, s, rows, deliveryOf(delivered), { requested: unique.length, not_found: unique.filter((id) => !found.has(id)) });
  });

  r.post('/v1/personnel/batch', async (ctx) => {
    requireScope(ctx, 'read:personnel');
    const auth = authOf(ctx);
    const q = readQuery(ctx, ['mode', 'fields', 'format', 'dry_run', 'lead_type']);
    const body = personnelBody(bodyOf(ctx));
    // lead_type may be in the query or the body (spec, Personnel); given in both, they must agree.
    const fromQuery = one(q, 'lead_type');
    if (fromQuery !== undefined && body.lead_type !== undefined && fromQuery !== body.lead_type) throw invalid({ field: 'lead_type', issue: 'conflicting_values', expected: `the same value in the query and the body (${body.lead_type})` });
    body.lead_type ??= fromQuery;
    const problem = leadTypeProblem(body.lead_type);
    if (problem) throw invalid(problem);
    if (!body.company_eins === !body.ids) throw invalid({ field: 'company_eins', issue: body.ids ? 'one_of' : 'missing_required', expected: 'exactly one of company_eins, ids' });
    const s = shaping(personnel, auth, q);
    const index = aliasName(auth.dataNamespace, 'personnel');
    const side = { term: { lead_type: body.lead_type } };
    const now = new Date().toISOString();
    const crm = s.dryRun ? null : await services.crm.context(auth.key.org);
    const marks = crm ? { should: crmMarks(personnel, crm), minimum_should_match: 0 } : {};
    const tagsOf = async (hits: readonly { _id?: string | null }[]) =>
      s.projection.tags ? services.tags.namesOfMany(scopeOf(auth.key), 'personnel', hits.map((h) => String(h._id))) : new Map<string, string[]>();
    const tagged = (m: Map<string, string[]>, id?: string | null) => (s.projection.tags ? (m.get(String(id)) ?? []) : undefined);
    if (body.ids) {
      const res = await services.es.search<Doc>({ index, query: { bool: { filter: [side, { ids: { values: body.ids } }], ...marks } }, size: body.ids.length, sort: [{ id: 'asc' }] });
      const tags = await tagsOf(res.hits.hits);
      const rows = res.hits.hits.map((h) => shape(personnel, s, h._source as Doc, now, h.matched_queries, tagged(tags, h._id)));
      await answer(ctx, services, personnel, s, rows, deliveryOf(res.hits.hits), { requested: body.ids.length });
      return;
    }
    const given = body.company_eins as string[];
    const bad = given.map((e, i) => [normalizeEin(e), i] as const).filter(([e]) => !e);
    if (bad.length) throw invalid(bad.map(([, i]) => ({ field: `company_eins[${i}]`, issue: 'invalid_format', expected: '9 digits' })));
    // An EIN given twice (or with and without the dash) is one input: answered and charged once.
    const eins = [...new Set(given.map(normalizeEin))];
    const size = body.page_size ?? 5;
    const res = await services.es.msearch<Doc>({
      searches: eins.flatMap((e) => [{ index }, { query: { bool: { filter: [side, { term: { company_ein: normalizeEin(e) } }], ...marks } }, size, sort: [{ [companion.sort('last_name')]: 'asc' }, { id: 'asc' }] }]),
    });
    const perEin = eins.map((_, i) => {
      const r0 = res.responses[i];
      return 'hits' in r0 ? r0.hits.hits : [];
    });
    const delivered = perEin.flat();
    const tags = await tagsOf(delivered);
    const contactsOf = (i: number) => perEin[i].map((h) => shape(personnel, s, h._source as Doc, now, h.matched_queries, tagged(tags, h._id)));
    // JSON groups contacts by input EIN; flat is one table of contact rows (each carries its company_ein).
    const data = s.format === 'flat' ? eins.flatMap((ein, i) => contactsOf(i).map((row) => ({ company_ein: normalizeEin(ein), ...row }))) : eins.map((ein, i) => ({ company_ein: normalizeEin(ein), contacts: contactsOf(i) }));
    await answer(ctx, services, personnel, s, data, deliveryOf(delivered), { requested: eins.length });
  });

  return r;
}
