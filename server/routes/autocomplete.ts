/**
 * GET /v1/{resource}/autocomplete for the four resources: typeahead suggestions, 0 credits
 * (rate limited like every authenticated call by the auth middleware). The composition of the
 * read pipeline's steps: parse → build → fetch (the caller's data: the sandbox for test keys)
 * → items → envelope; nothing is priced or debited.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { authOf, requireScope } from '../middleware/auth.ts';
import { ENTITIES } from '../../mappings/index.ts';
import { autocompleteItems, autocompleteParams, buildAutocomplete, parseAutocomplete } from '../read/autocomplete.ts';
import { fetchSuggested } from '../read/fetch.ts';
import { readQuery } from '../read/request.ts';

export function autocompleteRoutes(services: Services): Router {
  const r = new Router();
  for (const def of ENTITIES) {
    const allowed = autocompleteParams(def);
    r.get(`/v1/${def.name}/autocomplete`, async (ctx: Context) => {
      requireScope(ctx, `read:${def.name}`);
      const req = parseAutocomplete(def, readQuery(ctx, allowed));
      const body = buildAutocomplete(req);
      const rows = body ? await fetchSuggested(services, authOf(ctx), { def, body }) : [];
      const data = autocompleteItems(req, rows);
      ok(ctx, data, { credits_charged: 0, returned: data.length });
    });
  }
  return r;
}
