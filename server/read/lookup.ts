/**
 * Exact lookups and batch enrichment: GET /v1/companies/lookup (domain, name or ein: a term query
 * on the normalized value, the largest sponsor first), GET /v1/brokers/lookup (name; 400
 * AMBIGUOUS_LOOKUP with suggestions), POST /v1/companies/batch (up to 100 ids) and POST
 * /v1/personnel/batch (up to 50 EINs, or ids). Each composes the read pipeline (parse → authorize
 * → fetch → decorate → deliver: priced per returned row at the response tier; dry_run estimates
 * without charging) with what is its own; the routes (server/routes/lookup.ts) call them.
 */
import type { Services } from '../context.ts';
import type { AuthState } from '../access.ts';
import { ApiError, invalid, notFound, type ErrorDetail } from '../errors.ts';
import { entity } from '../../mappings/index.ts';
import { companion } from '../../mappings/es-mapping.ts';
import { foldText, normalizeDomain, normalizeEin, normalizeName } from '../../mappings/normalize.ts';
import type { EntityDef } from '../../mappings/types.ts';
import { validator } from '../validate.ts';
import { authorizeShape, type Grant } from './authorize.ts';
import { callerContext, decorate, sourceFields, type Hit } from './decorate.ts';
import { deliver } from './deliver.ts';
import { countPerTerm, fetchByIds, fetchMatching, fetchPerTerm } from './fetch.ts';
import { checkFieldNames } from './projection.ts';
import { searchClause } from './query.ts';
import { LOOKUP_TEXT_MAX, PAGE_SIZE_MAX, SHAPE_PARAMS, one, tooLong, readShape, readSide, throwProblems, type RawQuery, type ShapeRequest } from './request.ts';
import type { ReadResult } from './list.ts';

/** Parameters of every lookup and batch call besides its own. */
export const READ_PARAMS: readonly string[] = [...SHAPE_PARAMS, 'dry_run'];
/** The allowlist of GET /v1/companies/lookup. */
export const COMPANY_LOOKUP_PARAMS: readonly string[] = [...READ_PARAMS, 'domain', 'name', 'ein'];
/** The allowlist of GET /v1/brokers/lookup. */
export const BROKER_LOOKUP_PARAMS: readonly string[] = [...READ_PARAMS, 'name'];

/** Parse and authorize the shape of a lookup or batch (`own` checks the endpoint's own parameters into the same 400). */
function shapeFor(auth: AuthState, def: EntityDef, q: RawQuery, own: (problems: ErrorDetail[]) => void = () => {}): { shape: ShapeRequest; grant: Grant } {
  const problems: ErrorDetail[] = [];
  own(problems);
  const shape = readShape(q, problems);
  if (shape.fields) checkFieldNames(def, shape.fields, problems);
  throwProblems(problems);
  return { shape, grant: authorizeShape(def, auth.key, shape) };
}

const rowShape = (def: EntityDef, grant: Grant, shape: ShapeRequest) => ({ def, projection: grant.projection, format: shape.format });

/** The body of POST /v1/companies/batch (validated here, published in the OpenAPI document). */
export const IDS_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['ids'],
  properties: { ids: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 128 } } },
};

const idsBody = validator<{ ids: string[] }>(IDS_BODY_SCHEMA);

interface PersonnelBatch {
  company_eins?: string[];
  ids?: string[];
  lead_type?: string;
  page_size?: number;
}

/**
 * Most contacts in one answer of POST /v1/personnel/batch, over all its EINs: the list's page_size
 * limit (the spec caps the batch's page_size by it). page_size is contacts per EIN, up to it too.
 */
export const BATCH_ROWS_MAX = PAGE_SIZE_MAX;

/**
 * How many contacts of each EIN the answer holds, from how many each has (up to page_size), in
 * input order until the answer holds `max` in all: the first EINs keep theirs, the EIN that
 * reaches the cap is cut, later ones answer none. `capped` says whether any was cut. What the
 * batch fetches, so it never reads a contact it cannot return. Pure.
 */
export function shareContacts(counts: readonly number[], max: number): { sizes: number[]; capped: boolean } {
  let left = max;
  const sizes = counts.map((n) => {
    const kept = Math.min(n, Math.max(0, left));
    left -= kept;
    return kept;
  });
  return { sizes, capped: sizes.some((n, i) => n < counts[i]) };
}

/** The body of POST /v1/personnel/batch: EINs or ids, the entity's side, contacts per EIN (published in the OpenAPI document). */
export function personnelBatchSchema(def: EntityDef) {
  const side = def.side?.param ?? 'lead_type';
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      company_eins: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', minLength: 1 } },
      ids: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 128 } },
      [side]: { type: 'string', enum: [...(def.side?.values ?? [])] },
      page_size: { type: 'integer', minimum: 1, maximum: BATCH_ROWS_MAX, default: 5, description: `Contacts per EIN; the answer holds at most ${BATCH_ROWS_MAX} contacts in all (filled in input order; meta.truncated when some were left out).` },
    },
  };
}

const companies = entity('companies');
const brokers = entity('brokers');
const personnel = entity('personnel');
const side = personnel.side?.param ?? 'lead_type';
const personnelBody = validator<PersonnelBatch>(personnelBatchSchema(personnel));

/** GET /v1/companies/lookup: exactly one of domain, name, ein; the largest sponsor matching it. */
export async function lookupCompany(services: Services, auth: AuthState, q: RawQuery): Promise<ReadResult> {
  const given = (['domain', 'name', 'ein'] as const).filter((k) => one(q, k) !== undefined);
  // One 400 names every problem: which key, its length, and the shape parameters.
  const { shape, grant } = shapeFor(auth, companies, q, (problems) => {
    if (given.length !== 1) problems.push({ field: given.length ? given.join(',') : 'domain', issue: given.length ? 'one_of' : 'missing_required', expected: 'exactly one of domain, name, ein' });
    else tooLong(given[0], [one(q, given[0]) as string], LOOKUP_TEXT_MAX, problems);
  });
  const key = given[0];
  const raw = one(q, key) as string;
  const value = key === 'domain' ? normalizeDomain(raw) : key === 'ein' ? normalizeEin(raw) : normalizeName(raw);
  if (!value) throw invalid({ field: key, issue: 'invalid_format', expected: key === 'domain' ? 'a domain such as acme.com' : key === 'ein' ? '9 digits' : 'a name' });
  const field = key === 'name' ? `${companion.norm('company_name')}.kw` : key;
  // Several sponsors can share a name or domain: the largest is the answer, the count is in meta.
  const found = await fetchMatching(services, auth, { def: companies, query: { term: { [field]: value } }, size: 1, sort: [{ total_number_of_employees: { order: 'desc', missing: '_last' } }, { id: 'asc' }] });
  if (!found.hits.length) throw notFound('company', key);
  const [row] = await decorate(services, auth, rowShape(companies, grant, shape), found.hits);
  return deliver(services, auth, { def: companies, grant, dryRun: shape.dryRun, data: row, hits: found.hits, extra: { matches: found.total } });
}

/** GET /v1/brokers/lookup: the broker of a name (suffixes folded), 400 AMBIGUOUS_LOOKUP when several, 404 with near names. */
export async function lookupBroker(services: Services, auth: AuthState, q: RawQuery): Promise<ReadResult> {
  const name = one(q, 'name') ?? '';
  const { shape, grant } = shapeFor(auth, brokers, q, (problems) => {
    if (!name.trim()) problems.push({ field: 'name', issue: one(q, 'name') === undefined ? 'missing_required' : 'missing_value' });
    else tooLong('name', [name], LOOKUP_TEXT_MAX, problems);
  });
  const exact = await fetchMatching(services, auth, { def: brokers, query: { term: { [`${companion.norm('broker_name')}.kw`]: normalizeName(name) } }, size: 10 });
  // Names match with legal suffixes folded away; when that leaves several, the one spelled as
  // asked (suffix included) is the answer: "Nagy Benefit Advisors LLC" is not ambiguous with
  // "Nagy Benefit Advisors".
  const asAsked = exact.hits.filter((x) => foldText(String(x._source?.broker_name ?? '')) === foldText(name));
  const hits = exact.hits.length > 1 && asAsked.length === 1 ? asAsked : exact.hits;
  const suggest = (h: readonly Hit[]) => h.map((x) => ({ id: x._id, broker_name: x._source?.broker_name, hq_city: x._source?.hq_city ?? null, hq_state: x._source?.hq_state ?? null }));
  if (hits.length > 1) {
    throw new ApiError('AMBIGUOUS_LOOKUP', `${hits.length} brokers are named "${name}"; look one up by id`, [{ field: 'name', issue: 'ambiguous', suggestions: suggest(hits) }]);
  }
  if (!hits.length) {
    const near = await fetchMatching(services, auth, { def: brokers, query: searchClause(brokers, name), size: 5 });
    const e = notFound('broker', 'name');
    if (near.hits.length) e.details[0].suggestions = suggest(near.hits);
    throw e;
  }
  const [row] = await decorate(services, auth, rowShape(brokers, grant, shape), hits);
  return deliver(services, auth, { def: brokers, grant, dryRun: shape.dryRun, data: row, hits });
}

/** POST /v1/companies/batch: companies by id, in the order asked. */
export async function companiesById(services: Services, auth: AuthState, q: RawQuery, raw: unknown): Promise<ReadResult> {
  const { ids } = idsBody(raw);
  const { shape, grant } = shapeFor(auth, companies, q);
  const unique = [...new Set(ids)];
  const found = new Map((await fetchByIds(services, auth, { def: companies, ids: unique, side: null, caller: { taggedIds: null } })).map((h) => [String(h._id), h]));
  // Rows in the order asked.
  const hits = unique.filter((id) => found.has(id)).map((id) => found.get(id) as Hit);
  const rows = await decorate(services, auth, rowShape(companies, grant, shape), hits);
  return deliver(services, auth, { def: companies, grant, dryRun: shape.dryRun, data: rows, hits, extra: { requested: unique.length, not_found: unique.filter((id) => !found.has(id)) } });
}

/** POST /v1/personnel/batch: personnel by id, or the contacts of each EIN (BATCH_ROWS_MAX in all). */
export async function personnelBatch(services: Services, auth: AuthState, q: RawQuery, raw: unknown): Promise<ReadResult> {
  const body = personnelBody(raw);
  let lead: string | null = null;
  const { shape, grant } = shapeFor(auth, personnel, q, (problems) => {
    // lead_type may be in the query or the body (spec, Personnel); given in both, they must agree.
    const fromQuery = one(q, side);
    if (fromQuery !== undefined && body.lead_type !== undefined && fromQuery !== body.lead_type) {
      problems.push({ field: side, issue: 'conflicting_values', expected: `the same value in the query and the body (${body.lead_type})` });
      return;
    }
    lead = readSide(personnel, body.lead_type ?? fromQuery, problems);
    if (!body.company_eins === !body.ids) problems.push({ field: 'company_eins', issue: body.ids ? 'one_of' : 'missing_required', expected: 'exactly one of company_eins, ids' });
    (body.company_eins ?? []).forEach((e, i) => {
      if (!normalizeEin(e)) problems.push({ field: `company_eins[${i}]`, issue: 'invalid_format', expected: '9 digits' });
    });
  });
  const shaped = rowShape(personnel, grant, shape);
  if (body.ids) {
    const caller = await callerContext(services, auth, { def: personnel, rows: shape.dryRun ? null : grant.projection });
    const hits = await fetchByIds(services, auth, { def: personnel, ids: body.ids, side: lead, caller });
    const rows = await decorate(services, auth, shaped, hits);
    return deliver(services, auth, { def: personnel, grant, dryRun: shape.dryRun, data: rows, hits, extra: { requested: body.ids.length } });
  }
  // An EIN given twice (or with and without the dash) is one input: answered and charged once.
  const eins = [...new Set((body.company_eins as string[]).map(normalizeEin))];
  const terms = eins.map((e) => ({ term: { company_ein: e } }));
  // Counted first (no documents), then only what the answer holds is fetched: at most
  // BATCH_ROWS_MAX contacts in all, with the answer's fields. A dry run stops at the count.
  const counts = await countPerTerm(services, auth, { def: personnel, terms, side: lead, atMost: body.page_size ?? 5 });
  const { sizes, capped } = shareContacts(counts, BATCH_ROWS_MAX);
  const extra = { requested: eins.length, ...(capped ? { truncated: true } : {}) };
  if (shape.dryRun) {
    return deliver(services, auth, { def: personnel, grant, dryRun: true, data: [], hits: [], rows: sizes.reduce((a, b) => a + b, 0), extra });
  }
  const caller = await callerContext(services, auth, { def: personnel, rows: grant.projection });
  const sort = [{ [companion.sort('last_name')]: 'asc' }, { id: 'asc' }];
  const perEin = await fetchPerTerm(services, auth, { def: personnel, terms, side: lead, caller, sizes, sort, source: sourceFields(personnel, grant.projection) });
  const hits = perEin.flat();
  const rows = await decorate(services, auth, shaped, hits);
  // JSON groups contacts by input EIN; flat is one table of contact rows (each carries its company_ein).
  let at = 0;
  const groups = eins.map((ein, i) => ({ company_ein: ein, contacts: rows.slice(at, (at += perEin[i].length)) }));
  const data = shape.format === 'flat' ? groups.flatMap((g) => g.contacts.map((row) => ({ company_ein: g.company_ein, ...row }))) : groups;
  return deliver(services, auth, { def: personnel, grant, dryRun: false, data, hits, extra });
}
