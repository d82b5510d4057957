/**
 * The Koa application: envelope → CORS (when origins are listed) → public routes → auth → rate limit → body parsing →
 * authenticated routes → 404 in the envelope. The body is read only once the caller is known:
 * without a valid key a request is 401 whatever its body (never parsed, so never 400 or 413).
 */
import { writingJobRoutes } from './routes/writing-jobs.ts';
import { writingResourceRoutes } from './routes/writing-resources.ts';
import { usageRoutes } from './routes/usage.ts';
import { ENTITIES } from '../mappings/index.ts';
import Koa, { type Context, type Middleware, type Next } from 'koa';
import { koaBody } from 'koa-body';
import type { Services } from './context.ts';
import { envelope } from './middleware/envelope.ts';
import { cors } from './middleware/cors.ts';
import { httpMetrics } from './metrics.ts';
import { authenticate } from './middleware/auth.ts';
import { bodyOf, checkBodyDepth } from './validate.ts';
import { accountRoutes, healthRoutes } from './routes/account.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { entityTagsRoute, tagRoutes } from './routes/tags.ts';
import { detailRoute, listRoute } from './routes/read.ts';
import { lookupRoutes } from './routes/lookup.ts';
import { exportRoute } from './routes/export.ts';
import { exportJobRoutes } from './routes/exports.ts';
import { filterOptionRoutes } from './routes/filter-options.ts';
import { autocompleteRoute } from './routes/autocomplete.ts';
import { mount, type Route } from './routes/route.ts';
import { docsRoutes } from './routes/docs.ts';
import { lookalikeRoutes } from './routes/lookalikes.ts';
import { feedbackRoutes } from './routes/feedback.ts';
import type Router from '@koa/router';
import { ApiError } from './errors.ts';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Paths whose owning router is remembered (see createApp). */
const OWNERS_MAX = 10_000;

/** A router of routes the declarations do not cover (benchmarks add their own). */
export type RouteFactory = (services: Services) => Router;

/**
 * Route groups that need an authenticated key, in mount order: each is mounted as one router
 * (server/routes/route.ts). Mount order decides path ownership (see below): the specific routes
 * of a resource before its detail route.
 */
const LOOKUPS = lookupRoutes();
const CSV_EXPORTS = ENTITIES.map(exportRoute);
const READS = ENTITIES.flatMap((def) => [listRoute(def), detailRoute(def)]);
const AUTHENTICATED: readonly (readonly Route[])[] = [
  accountRoutes(),
  apiKeyRoutes(),
  [...tagRoutes(), ...ENTITIES.map(entityTagsRoute)],
  filterOptionRoutes(),
  writingResourceRoutes(),
  writingJobRoutes(),
  usageRoutes(),
  lookalikeRoutes(),
  feedbackRoutes(),
  LOOKUPS,
  ENTITIES.map(autocompleteRoute),
  CSV_EXPORTS,
  exportJobRoutes(),
  READS,
];
/** The groups whose GET routes read rows with the caller's CRM context (read in the authentication's round trip). */
const ROW_READERS: ReadonlySet<readonly Route[]> = new Set([LOOKUPS, CSV_EXPORTS, READS]);
/** Route groups open to every caller, no key: health, the OpenAPI document and the docs page. */
const PUBLIC: readonly (readonly Route[])[] = [healthRoutes(), docsRoutes()];

/** Every route group the server mounts (the OpenAPI coverage test compares them with the operation table). */
export const ROUTE_GROUPS: Readonly<{ public: readonly (readonly Route[])[]; authenticated: readonly (readonly Route[])[] }> = Object.freeze({ public: PUBLIC, authenticated: AUTHENTICATED });

export interface AppOptions {
  /** More authenticated route groups (the read API, benchmarks). */
  routes?: RouteFactory[];
  /**
   * Replaces authentication and the rate limit (benchmarks measure the access layer by
   * comparing against an app that sets `ctx.state.auth` itself). Never used in serving.
   */
  access?: Middleware;
}

const parseJson = koaBody({ json: true, multipart: false, urlencoded: false, text: false, jsonLimit: '1mb', jsonStrict: true, parsedMethods: [...BODY_METHODS] as never, onError: (err) => { throw Object.assign(err, { status: (err as { status?: number }).status ?? 400 }); } });

/** Reads a JSON body (after authentication): anything but JSON is 415, not read as a missing or malformed body. */
async function readBody(ctx: Context, next: Next): Promise<void> {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  if (hasBody && BODY_METHODS.has(ctx.method) && !ctx.is('json')) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Send the body as application/json (got ${ctx.get('content-type') || 'no Content-Type'})`, [{ field: 'content-type', issue: 'unsupported_media_type', expected: 'application/json' }]);
  }
  await parseJson(ctx, async () => {
    checkBodyDepth(bodyOf(ctx));
    await next();
  });
}

export function createApp(services: Services, opts: AppOptions = {}): Koa {
  const extra = opts.routes ?? [];
  const app = new Koa({ proxy: false });
  app.silent = true;
  app.use(httpMetrics());
  app.use(envelope(services.log));
  app.use(cors(services.config.corsOrigins));
  for (const group of PUBLIC) app.use(mount(services, group).routes());
  const routers = [...AUTHENTICATED.map((group) => mount(services, group)), ...extra.map((factory) => factory(services))];
  const rowReaders = new Set(AUTHENTICATED.flatMap((group, i) => (ROW_READERS.has(group) ? [i] : [])));
  const access: Middleware = opts.access ?? authenticate(services, (ctx) => (ctx.method === 'GET' || ctx.method === 'HEAD') && rowReaders.has(ctx.state.routeOwner as number));
  // The owner of a path (ownership is by path, whatever the method) is found once per distinct
  // path and remembered, up to OWNERS_MAX paths (then forgotten and found again): up to 14
  // routers' patterns were matched on every request.
  const owners = new Map<string, number>();
  const ownerOf = (path: string): number => {
    let owner = owners.get(path);
    if (owner === undefined) {
      owner = routers.findIndex((r) => r.match(path, 'GET').path.length > 0);
      if (owners.size >= OWNERS_MAX) owners.clear();
      owners.set(path, owner);
    }
    return owner;
  };
  app.use(async (ctx, next) => {
    // Each router owns the paths it declares: the first router declaring the path answers it,
    // whatever the method (GET /v1/companies/batch is the batch route's 405, not a read of the
    // record "batch"), so no router keeps a list of other routers' paths. Matched once here.
    const owner = ownerOf(ctx.path);
    ctx.state.routeOwner = owner;
    // A path no route knows is a 404 whoever asks; known paths need a key.
    if (owner < 0) return next();
    // A GET, HEAD or OPTIONS has no body to read (koa-body parses only BODY_METHODS).
    await access(ctx, BODY_METHODS.has(ctx.method) ? () => readBody(ctx, next) : next);
  });
  routers.forEach((router, i) => {
    const routes = router.routes() as unknown as Middleware;
    const allowed = router.allowedMethods({ throw: false }) as unknown as Middleware;
    const owns = (ctx: Context) => ctx.state.routeOwner === i;
    app.use((ctx, next) => (owns(ctx) ? routes(ctx, next) : next()));
    app.use((ctx, next) => (owns(ctx) ? allowed(ctx, next) : next()));
  });
  return app;
}
