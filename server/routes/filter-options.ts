/**
 * Filter options: GET /v1/filter-options (what exists), /v1/filter-options/{key} (one option
 * key), /v1/filter-options/{resource} (every filter of a resource) and
 * /v1/filter-options/{resource}/{filter}. Any key may call them, test keys included (spec,
 * Authentication 5); they cost 0 credits. Data-derived values read the caller's data namespace.
 */
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { authOf } from '../access.ts';
import { pathParameter } from '../openapi/params.ts';
import { array, obj } from '../openapi/shapes.ts';
import { ANY_KEY, route, type Route } from './route.ts';
import { ApiError } from '../errors.ts';
import { OPTION_KEY_NAMES } from '../../mappings/filter-options.ts';
import { ENTITY_NAMES, findEntity } from '../../mappings/index.ts';
import { optionKey, resourceFilters, type ResourceFilter, type ValuesPlan } from '../read/filter-options.ts';
import { dataOptions } from '../read/option-values.ts';

/** A 404 naming the path segment that names nothing, and what it could name. */
const unknownName = (opts: { field: string; given: string; expected: readonly string[] }) =>
  new ApiError('NOT_FOUND', `${opts.field} "${opts.given}" not found; expected one of ${opts.expected.join(', ')}`, [{ field: opts.field, issue: 'not_found', expected: opts.expected }]);

/** Values of a plan as served: `values` (absent for free-form filters), and for data-derived ones `truncated` and whether the cache answered. */
async function valuesOf(ctx: Context, services: Services, plan: ValuesPlan): Promise<{ values?: unknown[]; truncated?: boolean; cached?: boolean }> {
  if (plan.source === 'none') return {};
  if (plan.source !== 'data') return { values: [...plan.values] };
  const { values, truncated, cached } = await dataOptions(services, { namespace: authOf(ctx).dataNamespace, source: plan.data });
  return { values, truncated, cached };
}

/** One resource filter as served (`cached` goes to meta, not to each row). */
async function describe(ctx: Context, services: Services, f: ResourceFilter) {
  const { cached, ...vals } = await valuesOf(ctx, services, f.plan);
  const row = { param: f.param, kind: f.kind, tier: f.tier, repeatable: f.repeatable, ...(f.key ? { key: f.key } : {}), source: f.plan.source, ...vals };
  return { row, cached };
}

export function filterOptionRoutes(): Route[] {
  const names = [...OPTION_KEY_NAMES, ...ENTITY_NAMES];
  return [
    route({
      method: 'get', path: '/v1/filter-options', tag: 'filter-options', summary: 'Option keys and resources', access: ANY_KEY, success: { data: obj }, errors: [400],
      handle: ({ ctx, query }) => {
        query();
        ok(ctx, { keys: OPTION_KEY_NAMES, resources: ENTITY_NAMES });
      },
    }),
    route({
      method: 'get', path: '/v1/filter-options/{name}', tag: 'filter-options', summary: 'Values of an option key, or every filter of a resource', access: ANY_KEY,
      params: [pathParameter('name', 'An option key or a resource.', { type: 'string', enum: names })], success: { data: { oneOf: [obj, array(obj)] } }, errors: [400, 404],
      handle: async ({ ctx, services, query }) => {
        query();
        const { name } = ctx.params;
        const found = optionKey(name);
        if (found) {
          const { cached, ...vals } = await valuesOf(ctx, services, found.plan);
          const data = { key: name, source: found.plan.source, params: found.key.params, ...vals };
          ok(ctx, data, { returned: vals.values?.length ?? 0, ...(cached === undefined ? {} : { cached }) });
          return;
        }
        const def = findEntity(name);
        if (!def) throw unknownName({ field: 'key', given: name, expected: names });
        const rows = await Promise.all(resourceFilters(def).map((f) => describe(ctx, services, f)));
        ok(ctx, rows.map((x) => x.row), { resource: def.name, returned: rows.length });
      },
    }),
    route({
      method: 'get', path: '/v1/filter-options/{resource}/{filter}', tag: 'filter-options', summary: 'One filter of a resource and its values', access: ANY_KEY,
      params: [pathParameter('resource', 'A resource.', { type: 'string', enum: [...ENTITY_NAMES] }), pathParameter('filter', 'A filter parameter of the resource.')], success: { data: obj }, errors: [400, 404],
      handle: async ({ ctx, services, query }) => {
        query();
        const { resource, filter } = ctx.params;
        const def = findEntity(resource);
        if (!def) throw unknownName({ field: 'resource', given: resource, expected: ENTITY_NAMES });
        const filters = resourceFilters(def);
        const f = filters.find((x) => x.param === filter);
        if (!f) throw unknownName({ field: 'filter', given: filter, expected: filters.map((x) => x.param) });
        const { row, cached } = await describe(ctx, services, f);
        ok(ctx, { resource: def.name, ...row }, { returned: row.values?.length ?? 0, ...(cached === undefined ? {} : { cached }) });
      },
    }),
  ];
}
