/**
 * The operation table of the OpenAPI document: an assembly of the route declarations
 * (server/routes/route.ts), one operation per route, in the document's order. Each declaration
 * gives the access, summary, path and query parameters (from the allowlist its handler reads
 * with), body (the ajv schema it validates with), success data and error statuses; nothing of a
 * route is written here.
 */
import { ENTITIES } from '../../mappings/index.ts';
import type { Access } from '../access.ts';
import { accountRoutes, healthRoutes } from '../routes/account.ts';
import { apiKeyRoutes } from '../routes/api-keys.ts';
import { autocompleteRoute } from '../routes/autocomplete.ts';
import { docsRoutes } from '../routes/docs.ts';
import { exportRoute } from '../routes/export.ts';
import { exportJobRoutes } from '../routes/exports.ts';
import { feedbackRoutes } from '../routes/feedback.ts';
import { filterOptionRoutes } from '../routes/filter-options.ts';
import { lookalikeRoutes } from '../routes/lookalikes.ts';
import { lookupRoutes } from '../routes/lookup.ts';
import { detailRoute, listRoute } from '../routes/read.ts';
import { queryParametersOf, type Route, type Success } from '../routes/route.ts';
import { entityTagsRoute, tagRoutes } from '../routes/tags.ts';
import { usageRoutes } from '../routes/usage.ts';
import { writingJobRoutes } from '../routes/writing-jobs.ts';
import { writingResourceRoutes } from '../routes/writing-resources.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../validate.ts';
import type { Parameter, Schema } from './params.ts';

export type { Access };

/** One operation of the document. */
export interface Operation {
  method: Route['method'];
  /** OpenAPI path template (`/v1/companies/{id}`). */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  parameters?: Parameter[];
  body?: { schema: Schema; example: unknown };
  success: Success;
  /** Error statuses besides the access ones (401, 403, 429, 500, 503 for keyed calls). */
  errors?: number[];
}

/** `GET /v1/companies/{id}`: the key of an operation and of a registered route. */
export const operationKey = (op: Pick<Operation, 'method' | 'path'>): string => `${op.method.toUpperCase()} ${op.path}`;

const IDEMPOTENCY_KEY_PARAMETER: Parameter = {
  name: 'Idempotency-Key',
  in: 'header',
  description: 'A repeat with the same key answers the first result and charges nothing. 1 to 255 printable ASCII characters; otherwise 400 idempotency-key/invalid_format.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN },
};

/** The operation of a route: its declaration less the handler, its parameters made from its path, query and header. */
export function operationOf(r: Route): Operation {
  const parameters = [...(r.params ?? []), ...queryParametersOf(r.query), ...(r.idempotencyKey ? [IDEMPOTENCY_KEY_PARAMETER] : [])];
  return {
    method: r.method,
    path: r.path,
    tag: r.tag,
    summary: r.summary,
    ...(r.description === undefined ? {} : { description: r.description }),
    access: r.access,
    ...(parameters.length ? { parameters } : {}),
    ...(r.body ? { body: r.body } : {}),
    success: r.success,
    ...(r.errors ? { errors: r.errors } : {}),
  };
}

/** The list, detail, export, autocomplete and tags of one resource. */
const resourceRoutes = (def: (typeof ENTITIES)[number]): Route[] => [listRoute(def), detailRoute(def), exportRoute(def), autocompleteRoute(def), entityTagsRoute(def)];

/** Every route the server declares, in document order. */
export function documentedRoutes(): Route[] {
  return [
    ...healthRoutes(),
    ...docsRoutes(),
    ...accountRoutes(),
    ...apiKeyRoutes(),
    ...filterOptionRoutes(),
    ...lookupRoutes(),
    ...ENTITIES.flatMap(resourceRoutes),
    ...exportJobRoutes(),
    ...lookalikeRoutes(),
    ...feedbackRoutes(),
    ...tagRoutes(),
    ...writingResourceRoutes(),
    ...writingJobRoutes(),
    ...usageRoutes(),
  ];
}

/** Every operation the server registers, in document order. */
export function operations(): Operation[] {
  return documentedRoutes().map(operationOf);
}
