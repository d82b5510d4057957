/**
 * POST /v1/lookalikes: rows like one to five seeds, as the composition of the read pipeline's
 * steps:
 *
 *   parse (this file, the list's parser for `filters`) → authorize (authorize.ts) → caller
 *   context (decorate.ts) → seeds (fetch.ts) → build (query.ts filters as the knn pre-filter) →
 *   approximate knn on the features' vector (mappings/lookalike.ts) → decorate → reasons →
 *   price + debit (charge.ts, a flat 1 credit per result) → envelope
 *
 * There is no page, offset or cursor: the same seeds and filters give the same top `limit`
 * (at most 50), so paging is not a way past the ceiling. The debit comes after the results are
 * in hand: a failed, timed-out or empty call costs nothing, and so do test keys (sandbox).
 */
import type { Services } from '../context.ts';
import type { AuthState } from '../access.ts';
import { ENTITIES, fieldOf } from '../../mappings/index.ts';
import { LOOKALIKE_FIELD, cosineOfScore, featureFields, reasonsFor, seedQuery, type LookalikeDef } from '../../mappings/lookalike.ts';
import { RECORD_ID_RE, type Doc, type EntityDef } from '../../mappings/types.ts';
import { ApiError, invalid, type ErrorDetail } from '../errors.ts';
import { authorizeList, tierMeta } from './authorize.ts';
import { chargeRows, deliveryOf, estimate } from './charge.ts';
import { callerContext, decorate, sourceFields, type Hit } from './decorate.ts';
import { fetchByIds, indexFor } from './fetch.ts';
import { repeatableParams } from './filters.ts';
import { listParams, parseListRequest, type ListRequest } from './list-request.ts';
import { commonFilters, searchClause } from './query.ts';
import { ownFilterClauses } from './filters.ts';
import { SHAPE_PARAMS, queryOfObject, type RawQuery } from './request.ts';
import type { ReadResult } from './list.ts';
import { onlyBintelMeta, vectorsOf } from '../../mappings/index-meta.ts';

type Clause = Record<string, unknown>;

export const LOOKALIKE_MIN_SEEDS = 1;
export const LOOKALIKE_MAX_SEEDS = 5;
export const LOOKALIKE_MAX_RESULTS = 50;
export const LOOKALIKE_DEFAULT_LIMIT = 25;
/** Price of one returned live result, in milli-credits (1 credit). */
export const LOOKALIKE_PRICE_MILLI = 1000;
/** The name of the similarity model in meta (changes when the features or their weights do). */
export const LOOKALIKE_MODEL = 'features-v1';

/** Entities with lookalikes (`type`): those whose definition declares features. */
export const LOOKALIKE_TYPES: readonly string[] = ENTITIES.filter((d) => d.lookalike).map((d) => d.name);

/** Fields of the request body. */
export const LOOKALIKE_BODY_FIELDS = ['type', 'seed_ids', 'limit', 'filters', 'exclude_seeds', 'fields', 'mode', 'format', 'dry_run', 'lead_type'] as const;

/** List parameters that do not narrow (paging, sorting, shaping, counting): not filters of a lookalike call. */
const NOT_FILTERS = new Set<string>(['page', 'page_size', 'sort_by', 'sort_dir', ...SHAPE_PARAMS, 'count_only', 'include_count', 'dry_run', 'cursor', 'explain']);

/** What `filters` may hold for an entity: the parameters of its list that narrow the rows. */
export const lookalikeFilterParams = (def: EntityDef): string[] => listParams(def).filter((p) => !NOT_FILTERS.has(p));

/** A lookalike call as read. */
export interface LookalikeRequest {
  def: EntityDef;
  features: LookalikeDef;
  seedIds: string[];
  limit: number;
  excludeSeeds: boolean;
  dryRun: boolean;
  /** The filters, fields and mode as a list call of the entity would read them. */
  list: ListRequest;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The seed ids: 1-5 distinct record ids. */
function readSeeds(raw: unknown, problems: ErrorDetail[]): string[] {
  const expected = `an array of ${LOOKALIKE_MIN_SEEDS} to ${LOOKALIKE_MAX_SEEDS} distinct record ids`;
  if (raw === undefined) {
    problems.push({ field: 'seed_ids', issue: 'missing_required', expected });
    return [];
  }
  if (!Array.isArray(raw)) {
    problems.push({ field: 'seed_ids', issue: 'invalid_type', expected });
    return [];
  }
  if (raw.length < LOOKALIKE_MIN_SEEDS) problems.push({ field: 'seed_ids', issue: 'too_few_items', expected });
  if (raw.length > LOOKALIKE_MAX_SEEDS) problems.push({ field: 'seed_ids', issue: 'too_many_items', expected });
  const out: string[] = [];
  raw.forEach((v, i) => {
    if (typeof v !== 'string' || !RECORD_ID_RE.test(v)) problems.push({ field: `seed_ids[${i}]`, issue: typeof v === 'string' ? 'invalid_format' : 'invalid_type', expected: 'a record id' });
    else if (out.includes(v)) problems.push({ field: `seed_ids[${i}]`, issue: 'duplicate_items', expected: 'each seed once' });
    else out.push(v);
  });
  return out;
}

/** Parses the body of POST /v1/lookalikes: one 400 naming every problem. */
export function parseLookalikes(body: unknown): LookalikeRequest {
  if (!isObject(body)) throw invalid({ field: 'body', issue: 'invalid_type', expected: 'a JSON object' });
  const problems: ErrorDetail[] = [];
  for (const k of Object.keys(body)) if (!(LOOKALIKE_BODY_FIELDS as readonly string[]).includes(k)) problems.push({ field: k, issue: 'unknown_field', expected: LOOKALIKE_BODY_FIELDS });
  const def = typeof body.type === 'string' ? ENTITIES.find((d) => d.name === body.type && d.lookalike) : undefined;
  if (!def) problems.push({ field: 'type', issue: body.type === undefined ? 'missing_required' : 'invalid_value', expected: LOOKALIKE_TYPES });
  const seedIds = readSeeds(body.seed_ids, problems);
  // A member left out takes its default; null is no value of the member's type (the document types it an integer).
  const limit = body.limit === undefined ? LOOKALIKE_DEFAULT_LIMIT : body.limit;
  if (typeof limit !== 'number' || !Number.isInteger(limit)) problems.push({ field: 'limit', issue: 'invalid_integer', expected: `a whole number from 1 to ${LOOKALIKE_MAX_RESULTS}` });
  else if (limit < 1 || limit > LOOKALIKE_MAX_RESULTS) problems.push({ field: 'limit', issue: 'out_of_range', expected: `1 to ${LOOKALIKE_MAX_RESULTS}` });
  for (const k of ['exclude_seeds', 'dry_run'] as const) if (body[k] !== undefined && typeof body[k] !== 'boolean') problems.push({ field: k, issue: 'invalid_boolean', expected: [true, false] });
  if (body.filters !== undefined && !isObject(body.filters)) problems.push({ field: 'filters', issue: 'invalid_type', expected: 'an object of list parameters' });
  if (!def) throw invalid(problems);

  const q: RawQuery = queryOfObject(isObject(body.filters) ? body.filters : {}, { allowed: lookalikeFilterParams(def), repeatable: repeatableParams(def), prefix: 'filters.' }, problems);
  // The side (personnel lead_type) may also be given beside the filters; given twice it must agree.
  if (body.lead_type !== undefined && def.side) {
    const inFilters = q[def.side.param];
    if (typeof body.lead_type !== 'string') problems.push({ field: 'lead_type', issue: 'invalid_type', expected: def.side.values });
    else if (inFilters !== undefined && inFilters !== body.lead_type) problems.push({ field: 'lead_type', issue: 'conflicting_values', expected: `the same as filters.${def.side.param}` });
    else q[def.side.param] = body.lead_type;
  } else if (body.lead_type !== undefined) problems.push({ field: 'lead_type', issue: 'unknown_field' });
  const shape = queryOfObject(Object.fromEntries(SHAPE_PARAMS.filter((k) => body[k] !== undefined).map((k) => [k, body[k]])), { allowed: SHAPE_PARAMS }, problems);
  if (problems.length) throw invalid(problems);
  let list: ListRequest;
  try {
    list = parseListRequest(def, { ...q, ...shape });
  } catch (err) {
    // The list parser names the parameter; here a filter is a member of `filters`.
    if (err instanceof ApiError) for (const d of err.details) if (!(SHAPE_PARAMS as readonly string[]).includes(d.field) && d.field !== def.side?.param) d.field = `filters.${d.field}`;
    throw err;
  }
  return {
    def,
    features: def.lookalike as LookalikeDef,
    seedIds,
    limit: limit as number,
    excludeSeeds: body.exclude_seeds !== false,
    dryRun: body.dry_run === true,
    list,
  };
}

/** The knn pre-filter: every list filter, the search as a filter, the seeds left out when asked, contacts with an email. */
export function knnFilter(req: LookalikeRequest, ctx: Parameters<typeof commonFilters>[2]): Clause {
  const { def, list } = req;
  const filter: Clause[] = [...commonFilters(def, list, ctx), ...ownFilterClauses(def, list.own, list.ownGeo)];
  if (list.search) filter.push(searchClause(def, list.search));
  // Personnel lookalikes are email-eligible contacts only.
  if (def.side) filter.push({ exists: { field: 'email_address' } });
  return { bool: { filter, ...(req.excludeSeeds ? { must_not: [{ ids: { values: req.seedIds } }] } : {}) } };
}

/**
 * The knn search of a lookalike call (pure: the bench sends the same body straight to
 * Elasticsearch): the seeds' centroid as the query vector, the pre-filter, the rows' fields.
 */
export function lookalikeBody(req: LookalikeRequest, opts: { filter: Clause; seeds: readonly Doc[]; candidates: number; source: readonly string[] }): Record<string, unknown> {
  return {
    knn: { field: LOOKALIKE_FIELD, query_vector: seedQuery(req.features, opts.seeds), k: req.limit, num_candidates: Math.max(req.limit, opts.candidates), filter: opts.filter },
    size: req.limit,
    // Most similar first; ties in id order, so the same call answers the same rows in the same order.
    sort: [{ _score: 'desc' }, { id: 'asc' }],
    track_total_hits: false,
    _source: { includes: [...new Set([...opts.source, ...featureFields(req.features)])] },
  };
}

/** How long the knn graph status of an index is kept before it is read again (ms). */
const INDEX_STATUS_TTL_MS = 5_000;
const indexStatuses = new Map<string, { at: number; status: Promise<'ready' | 'building'> }>();

/**
 * Whether the knn graph of the index behind `index` (an alias) is written: a load serves its rows
 * first and writes the graph afterwards (ingest/indices.ts buildVectorIndex), marking the index
 * `_meta.bintel.vectors: "building"` meanwhile. Read from the mapping, kept a few seconds.
 */
export function indexStatus(services: Services, index: string, now = Date.now()): Promise<'ready' | 'building'> {
  const hit = indexStatuses.get(index);
  if (hit && now - hit.at < INDEX_STATUS_TTL_MS) return hit.status;
  const status = services.es.indices
    .getMapping({ index }, { ignore: [404] })
    .then((m) => vectorsOf(onlyBintelMeta(m as Record<string, unknown> | null)))
    .catch(() => {
      indexStatuses.delete(index);
      return 'ready' as const;
    });
  indexStatuses.set(index, { at: now, status });
  return status;
}

/** Forgets every index status read (tests: a status changed now is seen by the next call). */
export const forgetIndexStatuses = (): void => indexStatuses.clear();

/** Serves a parsed lookalike call for the authenticated caller. */
export async function lookalikeRows(services: Services, auth: AuthState, req: LookalikeRequest): Promise<ReadResult> {
  const { def, list } = req;
  const grant = authorizeList(auth.key, list);
  // The caller's context (Redis) and the seeds (Elasticsearch: the caller's data, the sandbox for
  // test keys, on the side asked) are read at once.
  const [caller, seeds] = await Promise.all([
    callerContext(services, auth, { def, rows: req.dryRun ? null : grant.projection, tags: list.tags, crmStatus: list.crmStatus }),
    fetchByIds(services, auth, { def, ids: req.seedIds, side: list.side, caller: { taggedIds: null } }),
  ]);
  const found = new Set(seeds.map((h) => String(h._id)));
  const missing = req.seedIds.map((id, i) => ({ id, i })).filter((s) => !found.has(s.id));
  if (missing.length) {
    throw invalid(
      missing.map((s) => ({ field: `seed_ids[${s.i}]`, issue: 'invalid_reference' as const, expected: `a ${def.label} id in this key's data${def.side ? ` with ${def.side.param}=${list.side}` : ''}` })),
      `seed_ids: ${missing.length} of the seeds ${missing.length > 1 ? 'are' : 'is'} not a ${def.label} this key can read`,
    );
  }
  const index = indexFor(auth, def);
  const filter = knnFilter(req, caller);
  const common = { tier: grant.projection.tier, unitMilli: LOOKALIKE_PRICE_MILLI };
  // The graph status (cached a few seconds) is read beside the search, never before it.
  const status = indexStatus(services, index);
  const echoOf = async () => ({ type: def.name, seed_ids: req.seedIds, limit: req.limit, exclude_seeds: req.excludeSeeds, model: LOOKALIKE_MODEL, applied_filters: list.applied, index_status: await status });
  if (req.dryRun) {
    const [{ count }, echo] = await Promise.all([services.es.count({ index, query: filter }), echoOf()]);
    const rows = Math.min(req.limit, count);
    return { data: [], meta: { ...estimate({ auth, def, rows, ...common }), estimated_total_matches: count, ...echo, ...tierMeta(grant) } };
  }

  const seedDocs = seeds.map((h) => h._source ?? {});
  const body = lookalikeBody(req, { filter, seeds: seedDocs, candidates: services.config.lookalikeCandidates, source: sourceFields(def, grant.projection) });
  const [res, echo] = await Promise.all([services.esSearch.search<Doc>(index, body), echoOf()]);
  let hits = res.hits.hits as (Hit & { _score?: number | null })[];
  if (caller.crmMarks && caller.crm && hits.length) {
    // The knn pre-filter cannot name the CRMs a row is in: the rows' marks come from a search by id.
    const marked = new Map((await fetchByIds(services, auth, { def, ids: hits.map((h) => String(h._id)), side: list.side, caller })).map((h) => [String(h._id), h.matched_queries]));
    hits = hits.map((h) => ({ ...h, matched_queries: marked.get(String(h._id)) }));
  }
  const rows = await decorate(services, auth, { def, projection: grant.projection, format: list.shape.format }, hits);
  const visible = (field: string) => fieldOf(def, field)?.tier !== 'advanced' || grant.keyTier === 'advanced';
  const data = hits.map((h, i) => ({
    id: String(h._id),
    // The score is the cosine itself, 1 for identical features.
    score: Math.round(cosineOfScore(Number(h._score ?? (h.sort?.[0] as number) ?? 0)) * 10_000) / 10_000,
    reasons: reasonsFor(req.features, h._source ?? {}, seedDocs, visible),
    ...rows[i],
  }));
  const charge = await chargeRows(services, { auth, def, rows: data.length, delivery: deliveryOf(hits), ...common });
  return { data, meta: { ...echo, returned: data.length, ...tierMeta(grant), credits_charged: charge.credits, cache_hit: charge.cacheHit } };
}
