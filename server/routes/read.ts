/**
 * The read API's list and detail endpoints for the four resources: GET /v1/{resource} and
 * GET /v1/{resource}/{id}. Each is the composition of the read pipeline's steps (server/read/):
 * parse → authorize → build → fetch → decorate → price + debit → envelope.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { authOf, requireScope } from '../middleware/auth.ts';
import { notFound } from '../errors.ts';
import { ENTITIES } from '../../mappings/index.ts';
import type { EntityDef } from '../../mappings/types.ts';
import { authorizeShape, tierMeta } from '../read/authorize.ts';
import { chargeRows, deliveryOf } from '../read/charge.ts';
import { callerContext, decorate } from '../read/decorate.ts';
import { fetchByIds } from '../read/fetch.ts';
import { listRows } from '../read/list.ts';
import { listParams, parseListRequest } from '../read/list-request.ts';
import { repeatableParams } from '../read/filters.ts';
import { checkFieldNames } from '../read/projection.ts';
import { ID_RE, SHAPE_PARAMS, one, readQuery, readShape, readSide, sideParams, throwProblems, type RawQuery } from '../read/request.ts';
import type { ErrorDetail } from '../errors.ts';


/** The allowlist of GET /v1/{resource}/{id}: shape and side. */
export const detailParams = (def: EntityDef): string[] => [...SHAPE_PARAMS, ...sideParams(def)];

/** Parse step of the detail endpoint: shape and side. */
function parseDetail(def: EntityDef, q: RawQuery) {
  const problems: ErrorDetail[] = [];
  const shape = readShape(q, problems);
  if (shape.fields) checkFieldNames(def, shape.fields, problems);
  const side = readSide(def, def.side ? one(q, def.side.param) : undefined, problems);
  throwProblems(problems);
  return { shape, side };
}

/** The id in a detail path, or 404 when it cannot be one. */
function idOf(ctx: Context, def: EntityDef, prefix: string): string {
  try {
    const id = decodeURIComponent(ctx.path.slice(prefix.length));
    if (ID_RE.test(id)) return id;
  } catch {
    /* a malformed escape names no record */
  }
  throw notFound(def.label, 'id');
}

export function readRoutes(services: Services): Router {
  const r = new Router();
  for (const def of ENTITIES) {
    const allowed = listParams(def);
    const repeatable = repeatableParams(def);
    r.get(`/v1/${def.name}`, async (ctx: Context) => {
      requireScope(ctx, `read:${def.name}`);
      const req = parseListRequest(def, readQuery(ctx, allowed, repeatable));
      const { data, meta } = await listRows(services, authOf(ctx), req);
      ok(ctx, data, meta);
    });
    // Paths other routers declare under /v1/{resource}/ (batch, lookup, export.csv) are theirs:
    // the app mounts them first and a later router never answers a path an earlier one declares.
    const prefix = `/v1/${def.name}/`;
    const detail = new RegExp(`^${prefix.replace(/[-/]/g, '\\$&')}[^/]+$`);
    const allowedDetail = detailParams(def);
    r.get(detail, async (ctx: Context) => {
      requireScope(ctx, `read:${def.name}`);
      const auth = authOf(ctx);
      const { shape, side } = parseDetail(def, readQuery(ctx, allowedDetail));
      const grant = authorizeShape(def, auth.key, shape);
      const id = idOf(ctx, def, prefix);
      const caller = await callerContext(services, auth, { def, rows: grant.projection });
      const hits = await fetchByIds(services, auth, { def, ids: [id], side, caller });
      if (!hits.length) throw notFound(def.label, 'id');
      // HEAD: the status and headers, no row (nor its length) and no charge.
      if (auth.headOnly) return ok(ctx, {}, { credits_charged: 0, ...tierMeta(grant) });
      const [row] = await decorate(services, auth, { def, projection: grant.projection, format: shape.format }, hits);
      const charge = await chargeRows(services, { auth, def, tier: grant.projection.tier, rows: 1, delivery: deliveryOf(hits) });
      ok(ctx, row, { credits_charged: charge.credits, cache_hit: charge.cacheHit, ...tierMeta(grant) });
    });
  }
  return r;
}
