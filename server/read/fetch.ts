/**
 * Step 4 of the read pipeline for reads that are not list pages: rows by id (detail, batch), by
 * an exact term per input (personnel batch by EIN), and by a query (lookups). Every read goes to
 * the caller's data namespace (the sandbox for test keys) and returns hits the decorate step
 * shapes (crm_status marks included when the context asks for them).
 */
import type { Services } from '../context.ts';
import type { AuthState } from '../access.ts';
import { aliasName } from '../../core/names.ts';
import type { Doc, EntityDef } from '../../mappings/types.ts';
import type { Hit } from './decorate.ts';
import { idsQuery, termQuery, type QueryContext } from './query.ts';
import { SUGGESTERS } from './autocomplete.ts';

type Clause = Record<string, unknown>;

/** The alias a caller reads for an entity. */
export const indexFor = (auth: AuthState, def: EntityDef): string => aliasName(auth.dataNamespace, def.name);

/**
 * Rows by id, of the side asked (rows of the other side do not exist for the call), in id order.
 * When the rows need CRM marks it is one search (ids, side and marks in one query); otherwise a
 * multi-get, which costs Elasticsearch about half a search per row (bench:ab on a detail read:
 * 0.15 against 0.29 ms of Elasticsearch CPU per request).
 */
export async function fetchByIds(services: Services, auth: AuthState, q: { def: EntityDef; ids: readonly string[]; side: string | null; caller: QueryContext }): Promise<Hit[]> {
  if (!q.ids.length) return [];
  const index = indexFor(auth, q.def);
  if (q.caller.crmMarks && q.caller.crm) {
    const res = await services.es.search<Doc>({ index, query: idsQuery(q.def, q.ids, q.side, q.caller), size: q.ids.length, sort: [{ id: 'asc' }], track_total_hits: false });
    return res.hits.hits as Hit[];
  }
  // The lean path (as list pages): the general client's per-request work was most of a detail read's own CPU.
  const res = await services.esSearch.mget<Doc>(index, [...new Set(q.ids)]);
  const sideField = q.def.side?.field;
  const hits: Hit[] = [];
  for (const d of res.docs) {
    if (!d.found || !d._source) continue;
    if (sideField && q.side !== null && d._source[sideField] !== q.side) continue;
    hits.push({ _id: d._id, _index: d._index, _source: d._source });
  }
  return hits.sort((a, b) => (String(a._id) < String(b._id) ? -1 : String(a._id) > String(b._id) ? 1 : 0));
}

/**
 * `sizes[i]` rows of each exact term (one search each, in one _msearch; none for a term of size
 * 0), in the given sort, with only the `source` fields.
 */
export async function fetchPerTerm(services: Services, auth: AuthState, q: { def: EntityDef; terms: readonly Clause[]; side: string | null; caller: QueryContext; sizes: readonly number[]; sort: Clause[]; source: string[] }): Promise<Hit[][]> {
  const index = indexFor(auth, q.def);
  const asked = q.terms.map((t, i) => ({ t, i })).filter(({ i }) => q.sizes[i] > 0);
  const out: Hit[][] = q.terms.map(() => []);
  if (!asked.length) return out;
  const res = await services.es.msearch<Doc>({ searches: asked.flatMap(({ t, i }) => [{ index }, { query: termQuery(q.def, t, q.side, q.caller), size: q.sizes[i], sort: q.sort, _source: q.source, track_total_hits: false }]) });
  res.responses.forEach((r, k) => {
    if ('hits' in r) out[asked[k].i] = r.hits.hits as Hit[];
  });
  return out;
}

/** How many rows match each exact term, counted up to `atMost` (one _msearch of counts: no documents). */
export async function countPerTerm(services: Services, auth: AuthState, q: { def: EntityDef; terms: readonly Clause[]; side: string | null; atMost: number }): Promise<number[]> {
  const index = indexFor(auth, q.def);
  const res = await services.es.msearch<Doc>({ searches: q.terms.flatMap((t) => [{ index }, { query: termQuery(q.def, t, q.side, { taggedIds: null }), size: 0, track_total_hits: q.atMost }]) });
  return res.responses.map((r) => {
    if (!('hits' in r)) return 0;
    const total = r.hits.total;
    return Math.min(q.atMost, typeof total === 'object' ? total.value : (total ?? 0));
  });
}

/** Rows matching a query, best first (or in `sort`), with the total number of matches. */
export async function fetchMatching(services: Services, auth: AuthState, q: { def: EntityDef; query: Clause; size: number; sort?: Clause[] }): Promise<{ hits: Hit[]; total: number }> {
  const res = await services.es.search<Doc>({ index: indexFor(auth, q.def), query: q.query, size: q.size, sort: (q.sort ?? [{ _score: 'desc' }, { id: 'asc' }]) as never, track_total_hits: true });
  const t = res.hits.total;
  return { hits: res.hits.hits as Hit[], total: typeof t === 'object' ? t.value : (t ?? 0) };
}

/**
 * The rows an autocomplete body (server/read/autocomplete.ts) suggests, in order: the hits of a
 * prefix query, or the options of its suggesters (with the article typed, exact, one-typo), each row once.
 */
export async function fetchSuggested(services: Services, auth: AuthState, q: { def: EntityDef; body: Clause }): Promise<{ id: string; source: Doc }[]> {
  // The lean search path (as list pages): a suggestion costs Elasticsearch about a millisecond, the official client's per-request work was more.
  const res = await services.esSearch.search<Doc>(indexFor(auth, q.def), q.body);
  const out: { id: string; source: Doc }[] = [];
  const seen = new Set<string>();
  // Doc values (`fields`: arrays, a name under its `.raw` keyword) read back as the row's fields.
  const fromFields = (fields: Record<string, unknown[]> | undefined): Doc | undefined =>
    fields && Object.fromEntries(Object.entries(fields).map(([k, v]) => [k.replace(/\.raw$/, ''), v.length === 1 ? v[0] : v])) as Doc;
  const add = (id: unknown, source: Doc | undefined, fields?: Record<string, unknown[]>) => {
    const doc = source ?? fromFields(fields) ?? (typeof id === 'string' ? ({} as Doc) : undefined);
    if (typeof id !== 'string' || !doc || seen.has(id)) return;
    seen.add(id);
    out.push({ id, source: doc });
  };
  for (const h of res.hits.hits) add(h._id, h._source, h.fields as Record<string, unknown[]> | undefined);
  for (const name of SUGGESTERS) {
    for (const entry of res.suggest?.[name] ?? []) {
      const options = Array.isArray(entry.options) ? entry.options : [entry.options];
      for (const o of options) add((o as { _id?: string })._id, (o as { _source?: Doc })._source, (o as { fields?: Record<string, unknown[]> }).fields);
    }
  }
  return out;
}
