/**
 * One declaration per route: method and path, the access rule, the query it reads, the body it
 * takes, the success and error responses, the words of its OpenAPI entry, and the handler. The
 * router (`mount`, server/app.ts) and the operation table of the OpenAPI document
 * (server/openapi/operations.ts) are both assembled from these objects, so a route is written
 * once: its access is enforced here before the handler runs, and the document shows the same rule;
 * its query allowlist is what `query()` reads with, and the document's parameters are made from it.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { authOf, enforce, type Access } from '../access.ts';
import { queryParameters, schemaParameters, type Parameter, type QueryOptions, type Schema } from '../openapi/params.ts';
import { readQuery, type RawQuery } from '../read/request.ts';
import { validator } from '../validate.ts';

export type { Access };

/** The access rules routes declare. */
export const PUBLIC: Access = { kind: 'public' };
export const ANY_KEY: Access = { kind: 'key' };
export const scope = (s: string): Access => ({ kind: 'scope', scope: s });

/**
 * The query a route reads: an allowlist for `readQuery` (typed in the document from the shared
 * parameter table and the entity), or a schema whose properties are the parameters (read with
 * `readQuery` over its names, or, `validate`, checked by ajv as the tag routes do).
 */
export type QuerySpec = (QueryOptions & { repeatable?: readonly string[] }) | { schema: { properties: Record<string, Schema> }; about: Record<string, string>; validate?: true };

/** The success response: status (200 by default; `created` adds 201, `accepted` 202 for a job queued), data and meta schemas, or a non-JSON media type. */
export interface Success {
  data?: Schema;
  meta?: Schema;
  created?: boolean;
  accepted?: boolean;
  gzip?: boolean;
  notModified?: boolean;
  media?: 'text/csv' | 'text/html' | 'application/json' | 'asset';
}

/** What a handler is given: the request, the services, and the query read with the route's own allowlist. */
export interface Call {
  ctx: Context;
  services: Services;
  query(): RawQuery;
}

export interface Route {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path template (`/v1/companies/{id}`); the router path unless `match` is given. */
  path: string;
  /** The router's pattern where the template is not it (the detail route, a tag id that is not bulk or entities). */
  match?: RegExp;
  /** The group it is shown under (a resource, account, api-keys, tags ...). */
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  /** Path parameters. */
  params?: Parameter[];
  query?: QuerySpec;
  /** The JSON body: the schema the handler validates with, and the document's example. */
  body?: { schema: Schema; example: unknown };
  /** It reads an Idempotency-Key header (with `idempotencyKeyOf`, before the body). */
  idempotencyKey?: true;
  success: Success;
  /** Error statuses besides the access ones (401, 403, 429, 500, 503 for keyed calls). */
  errors?: number[];
  handle(call: Call): unknown;
}

/** Declares a route (the identity, typed). */
export const route = (r: Route): Route => r;

/** The document's query parameters of a route. */
export function queryParametersOf(spec: QuerySpec | undefined): Parameter[] {
  if (!spec) return [];
  return 'schema' in spec ? schemaParameters(spec.schema, spec.about) : queryParameters(spec);
}

const validators = new WeakMap<object, (q: unknown) => RawQuery>();

/** How a route reads its query: with no spec, no parameter at all is allowed. */
function queryReader(spec: QuerySpec | undefined): (ctx: Context) => RawQuery {
  if (!spec) return (ctx) => readQuery(ctx, []);
  if (!('schema' in spec)) return (ctx) => readQuery(ctx, spec.names, spec.repeatable);
  const names = Object.keys(spec.schema.properties);
  if (!spec.validate) return (ctx) => readQuery(ctx, names);
  let check = validators.get(spec.schema);
  if (!check) validators.set(spec.schema, (check = validator<RawQuery>(spec.schema)));
  return (ctx) => check(ctx.query);
}

/** The router of a group of routes: each enforces its access, then runs its handler. */
export function mount(services: Services, routes: readonly Route[]): Router {
  const r = new Router();
  for (const route of routes) {
    const read = queryReader(route.query);
    const handler = async (ctx: Context) => {
      enforce(route.access, authOf(ctx));
      await route.handle({ ctx, services, query: () => read(ctx) });
    };
    (r[route.method] as (path: string | RegExp, h: typeof handler) => Router)(route.match ?? route.path.replace(/\{(\w+)\}/g, ':$1'), handler);
  }
  return r;
}
