/**
 * Exact lookups and batch enrichment: GET /v1/companies/lookup, GET /v1/brokers/lookup, POST
 * /v1/companies/batch and POST /v1/personnel/batch, each a short handler over its composition
 * of the read pipeline (server/read/lookup.ts).
 */
import { ok } from '../middleware/envelope.ts';
import { authOf } from '../access.ts';
import { entity } from '../../mappings/index.ts';
import { bodyOf } from '../validate.ts';
import { BROKER_LOOKUP_PARAMS, COMPANY_LOOKUP_PARAMS, IDS_BODY_SCHEMA, READ_PARAMS, companiesById, lookupBroker, lookupCompany, personnelBatch, personnelBatchSchema } from '../read/lookup.ts';
import { sideParams } from '../read/request.ts';
import { rowOf } from '../openapi/schemas.ts';
import { BODY, PRICED, array, obj, oneRow } from '../openapi/shapes.ts';
import { route, scope, type Route } from './route.ts';

export function lookupRoutes(): Route[] {
  const companies = entity('companies');
  const brokers = entity('brokers');
  const personnel = entity('personnel');
  const side = sideParams(personnel);
  return [
    route({
      method: 'get', path: '/v1/companies/lookup', tag: 'companies', summary: 'Look a company up by domain, name or EIN', access: scope('read:companies'),
      query: { names: COMPANY_LOOKUP_PARAMS, def: companies }, success: { data: oneRow(companies) }, errors: PRICED,
      handle: async ({ ctx, services, query }) => {
        const { data, meta } = await lookupCompany(services, authOf(ctx), query());
        ok(ctx, data, meta);
      },
    }),
    route({
      method: 'get', path: '/v1/brokers/lookup', tag: 'brokers', summary: 'Look a broker up by name', description: 'Several matches: 400 AMBIGUOUS_LOOKUP with suggestions.', access: scope('read:brokers'),
      query: { names: BROKER_LOOKUP_PARAMS, def: brokers, overrides: { name: { required: true } } }, success: { data: oneRow(brokers) }, errors: PRICED,
      handle: async ({ ctx, services, query }) => {
        const { data, meta } = await lookupBroker(services, authOf(ctx), query());
        ok(ctx, data, meta);
      },
    }),
    route({
      method: 'post', path: '/v1/companies/batch', tag: 'companies', summary: 'Companies by id (up to 100)', access: scope('read:companies'),
      query: { names: READ_PARAMS, def: companies }, body: { schema: IDS_BODY_SCHEMA, example: { ids: ['cmp_0001', 'cmp_0002'] } },
      success: { data: array(rowOf(companies)) }, errors: [...BODY, 402],
      handle: async ({ ctx, services, query }) => {
        const { data, meta } = await companiesById(services, authOf(ctx), query(), bodyOf(ctx));
        ok(ctx, data, meta);
      },
    }),
    route({
      method: 'post', path: '/v1/personnel/batch', tag: 'personnel', summary: 'Contacts of up to 50 companies by EIN, or personnel by id', access: scope('read:personnel'),
      query: { names: [...READ_PARAMS, ...side], def: personnel, overrides: Object.fromEntries(side.map((p) => [p, { required: false, description: 'The side, here or in the body (both given must agree).' }])) },
      body: { schema: personnelBatchSchema(personnel), example: { company_eins: ['12-3456789'], [side[0] ?? 'lead_type']: personnel.side?.values[0], page_size: 5 } },
      success: { data: array(obj) }, errors: [...BODY, 402],
      handle: async ({ ctx, services, query }) => {
        const { data, meta } = await personnelBatch(services, authOf(ctx), query(), bodyOf(ctx));
        ok(ctx, data, meta);
      },
    }),
  ];
}
