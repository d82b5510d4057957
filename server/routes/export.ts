/**
 * GET /v1/{resource}/export.csv for the four resources (scope read:<resource>): the export held
 * before the first byte, then sent and settled to the rows the connection took
 * (server/read/export-send.ts). Mounted before the read routes, so the path is never taken for a
 * record id.
 */
import { utcDay } from '../../core/clock.ts';
import { authOf } from '../access.ts';
import type { EntityDef } from '../../mappings/types.ts';
import { EXPORT_SYNC_MAX, syncExportParams } from '../read/export.ts';
import { holdExport, sendExport } from '../read/export-send.ts';
import { WALK_MAX } from '../read/page.ts';
import { repeatableParams } from '../read/filters.ts';
import { exportOverrides } from '../openapi/params.ts';
import { route, scope, type Route } from './route.ts';

export const exportRoute = (def: EntityDef): Route =>
  route({
    method: 'get', path: `/v1/${def.name}/export.csv`, tag: def.name, summary: `Export ${def.name} as CSV`,
    description: `The rows of a list call as CSV (up to ${EXPORT_SYNC_MAX}); the price is held before the first byte (402 there) and settled to the rows the connection took; headers X-Export-Rows, X-Total-Count, X-Credits-Charged.`,
    access: scope(`read:${def.name}`), query: { names: syncExportParams(def), def, overrides: exportOverrides(EXPORT_SYNC_MAX, WALK_MAX), repeatable: repeatableParams(def) },
    success: { media: 'text/csv' }, errors: [400, 402],
    handle: async ({ ctx, services, query }) => {
      const auth = authOf(ctx);
      const { count, ...walk } = await holdExport(services, auth, def, query(), () => ctx.writable);
      ctx.status = 200;
      ctx.set('Content-Type', 'text/csv; charset=utf-8');
      ctx.set('Content-Disposition', `attachment; filename="${def.name}-${utcDay()}.csv"`);
      ctx.set('X-Export-Rows', String(walk.rows));
      ctx.set('X-Total-Count', String(count));
      ctx.set('X-Credits-Charged', String(walk.charge.credits));
      ctx.set('X-Response-Tier', walk.grant.projection.tier);
      if (ctx.method === 'HEAD') return;
      // Written by sendExport, not piped by Koa: only it knows which rows the socket took.
      ctx.respond = false;
      await sendExport(services, auth, ctx.res, { ...walk, requestId: ctx.state.requestId });
    },
  });
