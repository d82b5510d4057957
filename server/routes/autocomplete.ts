/**
 * GET /v1/{resource}/autocomplete for the four resources: typeahead suggestions, 0 credits
 * (rate limited like every authenticated call by the auth middleware). The composition of the
 * read pipeline's steps: parse → build → fetch (the caller's data: the sandbox for test keys)
 * → items → envelope; nothing is priced or debited.
 */
import { ok } from '../middleware/envelope.ts';
import { authOf } from '../access.ts';
import type { EntityDef } from '../../mappings/types.ts';
import { AUTOCOMPLETE_LIMIT, autocompleteItems, autocompleteParams, buildAutocomplete, parseAutocomplete } from '../read/autocomplete.ts';
import { fetchSuggested } from '../read/fetch.ts';
import { AUTOCOMPLETE_ITEM } from '../openapi/schemas.ts';
import { array } from '../openapi/shapes.ts';
import { route, scope, type Route } from './route.ts';

export const autocompleteRoute = (def: EntityDef): Route =>
  route({
    method: 'get', path: `/v1/${def.name}/autocomplete`, tag: def.name, summary: `Autocomplete ${def.name}`, description: 'Typeahead suggestions, free (rate limited); one typo forgiven from the fifth character.',
    access: scope(`read:${def.name}`),
    query: {
      names: autocompleteParams(def), def,
      overrides: { search: { description: 'Alias of query.' }, ...(def.side ? { [def.side.param]: { description: `Optional here: ${def.side.values.join(' or ')} suggests that side only; without it both sides (the label tells them apart).`, required: false } } : {}), limit: { description: 'Items to return.', schema: { type: 'integer', minimum: AUTOCOMPLETE_LIMIT.min, maximum: AUTOCOMPLETE_LIMIT.max, default: AUTOCOMPLETE_LIMIT.fallback } } },
    },
    success: { data: array(AUTOCOMPLETE_ITEM) }, errors: [400],
    handle: async ({ ctx, services, query }) => {
      const req = parseAutocomplete(def, query());
      const body = buildAutocomplete(req);
      const rows = body ? await fetchSuggested(services, authOf(ctx), { def, body }) : [];
      const data = autocompleteItems(req, rows);
      ok(ctx, data, { credits_charged: 0, returned: data.length });
    },
  });
