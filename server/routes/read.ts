/**
 * The read API's detail endpoints: GET /v1/{resource}/{id} for the four resources. Reads
 * the caller's data namespace (the sandbox for test keys), projects by mode, fields and tier,
 * prices one row at the response tier and debits it atomically before answering.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { authOf, requireScope } from '../middleware/auth.ts';
import { invalid, notFound } from '../errors.ts';
import { ENTITIES } from '../../mappings/index.ts';
import type { Doc, EntityDef } from '../../mappings/types.ts';
import { FORMATS, flattenRow, project, shapeRow, type Format } from '../read/projection.ts';
import { chargeRows } from '../read/charge.ts';
import { leadTypeProblem, one, readQuery } from '../read/params.ts';
import { keyTier } from '../services/tiers.ts';
import { COMMON_LIST_PARAMS } from '../read/list-params.ts';
import { listRows } from '../read/list.ts';
import { crmStatusByIds } from '../read/crm.ts';
import { filterParams, repeatableParams } from '../read/filters.ts';
import { scopeOf } from '../services/tags.ts';
import { aliasName } from '../../core/names.ts';

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
/** Path segments under /v1/{resource}/ that are not record ids. */
const RESERVED = ['batch', 'lookup', 'autocomplete', 'export\\.csv'];

/** Personnel needs lead_type on every read, and it must match the contact's side. */
function leadType(def: EntityDef, q: Record<string, string | string[]>): string | null {
  if (def.name !== 'personnel') return null;
  const v = one(q, 'lead_type');
  const problem = leadTypeProblem(v);
  if (problem) throw invalid(problem);
  return v as string;
}

async function getDoc(services: Services, ns: string, def: EntityDef, id: string): Promise<{ doc: Doc; index: string } | null> {
  if (!ID_RE.test(id)) return null;
  const res = await services.es.get<Doc>({ index: aliasName(ns, def.name), id }, { ignore: [404] });
  return res.found && res._source ? { doc: res._source, index: res._index } : null;
}

export function readRoutes(services: Services): Router {
  const r = new Router();
  for (const def of ENTITIES) {
    const listParams = [...COMMON_LIST_PARAMS, ...filterParams(def), ...(def.name === 'personnel' ? ['lead_type'] : [])];
    const repeatable = repeatableParams(def);
    r.get(`/v1/${def.name}`, async (ctx: Context) => {
      requireScope(ctx, `read:${def.name}`);
      const q = readQuery(ctx, listParams, repeatable);
      const { data, meta } = await listRows(services, authOf(ctx), def, q);
      ok(ctx, data, meta);
    });
    const allowed = def.name === 'personnel' ? ['mode', 'fields', 'format', 'lead_type'] : ['mode', 'fields', 'format'];
    // The detail route leaves the resource's other paths alone (batch, lookup, autocomplete,
    // export.csv): GET on them is a 405 or 404 of their own, never "no record with id batch".
    const prefix = `/v1/${def.name}/`;
    const detail = new RegExp(`^${prefix.replace(/[-/]/g, '\\$&')}(?!(?:${RESERVED.join('|')})$)[^/]+$`);
    r.get(detail, async (ctx: Context) => {
      requireScope(ctx, `read:${def.name}`);
      let id: string;
      try {
        id = decodeURIComponent(ctx.path.slice(prefix.length));
      } catch {
        throw notFound(def.label, 'id');
      }
      const auth = authOf(ctx);
      const q = readQuery(ctx, allowed);
      const side = leadType(def, q);
      const format = (one(q, 'format') ?? 'json') as Format;
      if (!FORMATS.includes(format)) throw invalid({ field: 'format', issue: 'invalid_value', expected: FORMATS });
      const projection = project(def, auth.key, { mode: one(q, 'mode'), fields: one(q, 'fields') });
      const got = await getDoc(services, auth.dataNamespace, def, id);
      if (!got || (side && got.doc.lead_type !== side)) throw notFound(def.label, 'id');
      const doc = got.doc;
      const extra: Record<string, unknown> = {};
      if (def.name === 'personnel') {
        extra.crm_status = (await crmStatusByIds(services, auth.key.org, def, aliasName(auth.dataNamespace, def.name), [String(doc.id)])).get(String(doc.id));
        if (projection.tags) extra.tags = await services.tags.namesOf(scopeOf(auth.key), 'personnel', String(doc.id));
      }
      const row = shapeRow(doc, projection.fields, { source: def.leadSource(doc), retrievedAt: new Date().toISOString(), extra });
      const charge = await chargeRows(services, auth, def.name, projection.tier, 1, [], undefined, { generation: got.index, ids: [String(doc.id)] });
      ok(ctx, format === 'flat' ? flattenRow(row) : row, { credits_charged: charge.credits, cache_hit: charge.cacheHit, response_tier: projection.tier, key_tier: keyTier(auth.key, def) });
    });
  }
  return r;
}
