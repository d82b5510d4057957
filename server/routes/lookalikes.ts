/**
 * POST /v1/lookalikes: ranked rows like one to five seeds (server/read/lookalikes.ts), scope
 * read:<type>; 1 credit per returned live result. Rate limited like every authenticated call.
 */
import { ok } from '../middleware/envelope.ts';
import { assertScope, authOf } from '../access.ts';
import { ENTITIES } from '../../mappings/index.ts';
import { LEAD_TYPES } from '../../mappings/reference.ts';
import { FORMATS, MODES } from '../read/request.ts';
import type { Schema } from '../openapi/params.ts';
import { BODY, array } from '../openapi/shapes.ts';
import { ANY_KEY, route, type Route } from './route.ts';
import { LOOKALIKE_DEFAULT_LIMIT, LOOKALIKE_MAX_RESULTS, LOOKALIKE_MAX_SEEDS, LOOKALIKE_MIN_SEEDS, LOOKALIKE_TYPES, lookalikeRows, parseLookalikes } from '../read/lookalikes.ts';
import { bodyOf } from '../validate.ts';

/** The features of each lookalike type with their weights, for the operation's description. */
const lookalikeFeatureText = (): string =>
  ENTITIES.filter((d) => d.lookalike)
    .map((d) => `${d.name}: ${d.lookalike!.features.map((f) => `${f.name} (${f.weight})`).join(', ')}`)
    .join('; ');

/** POST /v1/lookalikes (server/read/lookalikes.ts); the scope is the body type's, checked once the body is read. */
export function lookalikeRoutes(): Route[] {
  const id: Schema = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' };
  const scalar: Schema[] = [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }];
  const body: Schema = {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'seed_ids'],
    properties: {
      type: { type: 'string', enum: [...LOOKALIKE_TYPES], description: 'What to find; the key needs read:<type>.' },
      seed_ids: { type: 'array', items: id, minItems: LOOKALIKE_MIN_SEEDS, maxItems: LOOKALIKE_MAX_SEEDS, uniqueItems: true, description: "Rows of the type in the key's data (test keys: the sandbox); an unknown id is 400 invalid_reference." },
      limit: { type: 'integer', minimum: 1, maximum: LOOKALIKE_MAX_RESULTS, default: LOOKALIKE_DEFAULT_LIMIT },
      filters: { type: 'object', description: "The list's filter parameters of the type (states, industries, cf[...], signals, tags, crm_status, search ...; personnel: lead_type), as in its query string. Every result honours every filter. No paging, sorting or shaping parameters.", additionalProperties: { oneOf: [...scalar, { type: 'array', items: { oneOf: scalar } }] } },
      exclude_seeds: { type: 'boolean', default: true },
      fields: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description: 'As on the list: id plus these fields.' },
      mode: { type: 'string', enum: [...MODES], default: 'basic' },
      format: { type: 'string', enum: [...FORMATS], default: 'json' },
      dry_run: { type: 'boolean', default: false, description: 'The estimate (min(limit, matches) credits), no rows, nothing charged.' },
      lead_type: { type: 'string', enum: [...LEAD_TYPES], description: 'Personnel: the side (here or in filters; both given must agree).' },
    },
  };
  const reason: Schema = { type: 'object', required: ['feature', 'field', 'match', 'value', 'seeds'], properties: { feature: { type: 'string' }, field: { type: 'string' }, match: { type: 'string', enum: ['same', 'adjacent'] }, value: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] }, seeds: { type: 'integer', minimum: 1, maximum: LOOKALIKE_MAX_SEEDS } } };
  const result: Schema = { type: 'object', required: ['id', 'score', 'reasons'], properties: { id: { type: 'string' }, score: { type: 'number', minimum: -1, maximum: 1, description: 'Cosine similarity of the feature vectors (1: the same features as the seeds).' }, reasons: { type: 'array', items: reason } }, additionalProperties: true };
  return [
    route({
      method: 'post', path: '/v1/lookalikes', tag: 'lookalikes', summary: 'Up to 50 ranked rows like one to five seeds', access: ANY_KEY,
      description: `Companies, broker offices or email-eligible contacts ranked by the similarity of their features to the seeds, each with the reasons it matched and the row shaped by fields/mode. Scope read:<type>. 1 credit per returned live result, debited once; test keys, dry runs, no match and failed calls cost 0. No paging: the same call answers the same rows. Features (weight): ${lookalikeFeatureText()}. The query is the centroid of the seeds' feature vectors, searched with approximate knn under the list filters (exact, every candidate scored, while meta.index_status is building after a load). Measured: for seed sets of one NAICS subsector and employee band, 100% of results share the subsector and 100% the band or a neighbouring one (more_like_this on the same fields: 15-25% and 76-77%).`,
      body: { schema: body, example: { type: 'companies', seed_ids: ['cmp_0001', 'cmp_0002', 'cmp_0003'], limit: 25, filters: { states: 'TX,OK', employee_bands: '51-200,201-500' } } },
      success: { data: array(result), meta: { type: 'object', required: ['credits_charged', 'index_status'], properties: { credits_charged: { type: 'number' }, index_status: { type: 'string', enum: ['ready', 'building'], description: 'ready: the approximate knn index of the type is built. building: a load has just replaced the rows and its knn graph is still being written; every candidate row is scored instead (exact results, slower calls) until it is ready.' } }, additionalProperties: true } }, errors: [...BODY, 402],
      handle: async ({ ctx, services }) => {
        const req = parseLookalikes(bodyOf(ctx));
        const auth = authOf(ctx);
        assertScope(auth.key, `read:${req.def.name}`);
        const { data, meta } = await lookalikeRows(services, auth, req);
        ok(ctx, data, meta);
      },
    }),
  ];
}
