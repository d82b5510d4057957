/**
 * GET /v1/{resource}/export.csv for the four resources (scope read:<resource>): parse → depth
 * bound of the page → authorize → caller context → build → exact count → reserve the rows with
 * the page's crawl step, as a list page takes it (before the first byte: a 402 or 429 is still
 * the JSON envelope) → the CSV sent and the reservation settled to the rows the connection took
 * (server/read/export-send.ts).
 * Mounted before the read routes, so the path is never taken for a record id.
 */
import { utcDay } from '../../core/clock.ts';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { authOf, requireScope } from '../middleware/auth.ts';
import { ENTITIES } from '../../mappings/index.ts';
import { chargeRows, type Charge } from '../read/charge.ts';
import { checkExportDepth, exportOffset, parseExportRequest, planExport, sizedExport, syncExportParams } from '../read/export.ts';
import { crawlStep } from '../read/list.ts';
import { sendExport } from '../read/export-send.ts';
import { repeatableParams } from '../read/filters.ts';
import { readQuery } from '../read/request.ts';

export function exportRoutes(services: Services): Router {
  const r = new Router();
  for (const def of ENTITIES) {
    const allowed = syncExportParams(def);
    const repeatable = repeatableParams(def);
    r.get(`/v1/${def.name}/export.csv`, async (ctx: Context) => {
      requireScope(ctx, `read:${def.name}`);
      const auth = authOf(ctx);
      const req = sizedExport(parseExportRequest(def, readQuery(ctx, allowed, repeatable)), auth.key);
      checkExportDepth(req, services.config.pageWindow);
      const offset = exportOffset(req);
      // Page after page of one filter combination is a crawl, whether read as list pages or as export pages (one count).
      const crawl = crawlStep(services, auth, req, offset);
      // The exact number of rows the file will hold is held before the first byte (402 when the
      // pool or the key's budget cannot pay). A client gone during the count holds nothing.
      const { grant, index, body, count, rows } = await planExport(services, auth, req);
      const tier = grant.projection.tier;
      const charge: Charge = ctx.writable ? await chargeRows(services, { auth, def, tier, rows, signals: req.signals, crawl }) : { milli: 0, credits: 0, cacheHit: false };
      ctx.status = 200;
      ctx.set('Content-Type', 'text/csv; charset=utf-8');
      ctx.set('Content-Disposition', `attachment; filename="${def.name}-${utcDay()}.csv"`);
      ctx.set('X-Export-Rows', String(rows));
      ctx.set('X-Total-Count', String(count));
      ctx.set('X-Credits-Charged', String(charge.credits));
      ctx.set('X-Response-Tier', tier);
      if (ctx.method === 'HEAD') return;
      // Written by sendExport, not piped by Koa: only it knows which rows the socket took.
      ctx.respond = false;
      await sendExport(services, auth, ctx.res, { req, grant, index, body, rows, offset, charge, requestId: ctx.state.requestId });
    });
  }
  return r;
}
