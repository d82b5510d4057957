/**
 * POST /v1/lookalikes: ranked rows like one to five seeds (server/read/lookalikes.ts), scope
 * read:<type>; 1 credit per returned live result. Rate limited like every authenticated call.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { authOf, requireScope } from '../middleware/auth.ts';
import { lookalikeRows, parseLookalikes } from '../read/lookalikes.ts';
import { bodyOf } from '../validate.ts';

export function lookalikeRoutes(services: Services): Router {
  const r = new Router();
  r.post('/v1/lookalikes', async (ctx: Context) => {
    const req = parseLookalikes(bodyOf(ctx));
    requireScope(ctx, `read:${req.def.name}`);
    const { data, meta } = await lookalikeRows(services, authOf(ctx), req);
    ok(ctx, data, meta);
  });
  return r;
}
