/**
 * GET /v1/{resource}/export.csv for the four resources (scope read:<resource>): parse →
 * authorize → caller context → build → exact count → debit (before the first byte) → a CSV
 * stream of the walk (server/read/export.ts). Mounted before the read routes, so the path is
 * never taken for a record id.
 */
import Router from '@koa/router';
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { authOf, requireScope } from '../middleware/auth.ts';
import { ENTITIES } from '../../mappings/index.ts';
import { chargeRows } from '../read/charge.ts';
import { exportCsv, exportParams, parseExportRequest, planExport, sizedExport } from '../read/export.ts';
import { repeatableParams } from '../read/filters.ts';
import { readQuery } from '../read/request.ts';

export function exportRoutes(services: Services): Router {
  const r = new Router();
  for (const def of ENTITIES) {
    const allowed = exportParams(def);
    const repeatable = repeatableParams(def);
    r.get(`/v1/${def.name}/export.csv`, async (ctx: Context) => {
      requireScope(ctx, `read:${def.name}`);
      const auth = authOf(ctx);
      const req = sizedExport(parseExportRequest(def, readQuery(ctx, allowed, repeatable)), auth.key);
      // The exact number of rows the file will hold is what is charged, before the first byte.
      const { grant, index, body, count, rows } = await planExport(services, auth, req);
      const charge = await chargeRows(services, { auth, def, tier: grant.projection.tier, rows, signals: req.signals });
      ctx.status = 200;
      ctx.set('Content-Type', 'text/csv; charset=utf-8');
      ctx.set('Content-Disposition', `attachment; filename="${def.name}-${new Date().toISOString().slice(0, 10)}.csv"`);
      ctx.set('X-Export-Rows', String(rows));
      ctx.set('X-Total-Count', String(count));
      ctx.set('X-Credits-Charged', String(charge.credits));
      ctx.set('X-Response-Tier', grant.projection.tier);
      if (ctx.method === 'HEAD') return;
      ctx.body = Readable.from(exportCsv(services, auth, { req, grant, index, body, rows, charge }));
    });
  }
  return r;
}
