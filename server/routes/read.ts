/**
 * The read API's list and detail endpoints for the four resources: GET /v1/{resource} and
 * GET /v1/{resource}/{id}, each a short handler over its composition of the read pipeline
 * (server/read/list.ts, server/read/detail.ts).
 */
import type { Context } from 'koa';
import { ok } from '../middleware/envelope.ts';
import { authOf } from '../access.ts';
import type { EntityDef } from '../../mappings/types.ts';
import { readDetail, detailParams } from '../read/detail.ts';
import { listRows } from '../read/list.ts';
import { listParams, parseListRequest } from '../read/list-request.ts';
import { repeatableParams } from '../read/filters.ts';
import { ref, rowOf } from '../openapi/schemas.ts';
import { COUNT_ONLY, PRICED, array, idParam, oneRow } from '../openapi/shapes.ts';
import { route, scope, type Route } from './route.ts';

/** The record id of a detail path; null when the segment is no valid percent-encoding. */
function idOf(ctx: Context, prefix: string): string | null {
  try {
    return decodeURIComponent(ctx.path.slice(prefix.length));
  } catch {
    return null;
  }
}

/** GET /v1/{resource}: the list. */
export const listRoute = (def: EntityDef): Route =>
  route({
    method: 'get', path: `/v1/${def.name}`, tag: def.name, summary: `List ${def.name}`, description: 'Filters, sort, paging and cursors; priced per returned row at the response tier (dry_run estimates).',
    access: scope(`read:${def.name}`), query: { names: listParams(def), def, repeatable: repeatableParams(def) },
    success: { data: { oneOf: [array(rowOf(def)), COUNT_ONLY] }, meta: ref('ListMeta') }, errors: [400, 402],
    handle: async ({ ctx, services, query }) => {
      const { data, meta } = await listRows(services, authOf(ctx), parseListRequest(def, query()));
      ok(ctx, data, meta);
    },
  });

/**
 * GET /v1/{resource}/{id}. Paths other routers declare under /v1/{resource}/ (batch, lookup,
 * export.csv) are theirs: the app mounts them first and a later router never answers a path an
 * earlier one declares.
 */
export function detailRoute(def: EntityDef): Route {
  const prefix = `/v1/${def.name}/`;
  return route({
    method: 'get', path: `/v1/${def.name}/{id}`, match: new RegExp(`^${prefix.replace(/[-/]/g, '\\$&')}[^/]+$`), tag: def.name, summary: `One ${def.label}`,
    access: scope(`read:${def.name}`), params: [idParam(def)], query: { names: detailParams(def), def },
    success: { data: oneRow(def) }, errors: PRICED,
    handle: async ({ ctx, services, query }) => {
      const { data, meta } = await readDetail(services, authOf(ctx), def, query(), idOf(ctx, prefix));
      ok(ctx, data, meta);
    },
  });
}
