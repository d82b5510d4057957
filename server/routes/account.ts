/**
 * Health, whoami and credits.
 */
import { utcDay } from '../../core/clock.ts';
import { changelog } from '../changelog.ts';
import { budgetView } from './api-keys.ts';
import { API_VERSION } from '../version.ts';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { authOf } from '../access.ts';
import { ref } from '../openapi/schemas.ts';
import { array, obj } from '../openapi/shapes.ts';
import type { Schema } from '../openapi/params.ts';
import { ANY_KEY, PUBLIC, route, type Route } from './route.ts';
import { ApiError, type ErrorDetail } from '../errors.ts';
import { failedDependency } from '../services/health.ts';
import { toCredits } from '../pricing.ts';
import { publicKey } from '../services/keys.ts';
import { readAliases } from '../index-state.ts';

/** The live aliases that do not exist (none read when Elasticsearch does not answer: that is reported already). */
async function missingAliases(services: Services): Promise<ErrorDetail[]> {
  try {
    const aliases = await readAliases(services.es, services.config.namespace);
    return aliases.filter((a) => !a.index).map((a) => ({ field: `index.${a.resource}`, issue: 'not_found' as const }));
  } catch (err) {
    return [{ field: 'elasticsearch', issue: failedDependency(err).issue! }];
  }
}

const dep: Schema = { type: 'object', properties: { ok: { type: 'boolean' }, status: { type: 'string' } } };

/**
 * GET /v1/health (readiness): no auth; 200 when Elasticsearch and Redis answer and the live alias
 * of every resource exists, else 503 naming what is not (`elasticsearch`, `redis`,
 * `index.<resource>`: a server with no data loaded is not ready to take traffic). GET /v1/health/live (liveness): 200 while the process serves, whatever
 * its dependencies (an orchestrator restarts a process that fails it, never one whose Redis is down).
 * GET /v1/changelog: CHANGELOG.md as JSON.
 */
export const healthRoutes = (): Route[] => [
  route({
    method: 'get', path: '/v1/health', tag: 'account', summary: 'Health of Elasticsearch and Redis', access: PUBLIC,
    success: { data: { type: 'object', properties: { status: { const: 'ok' }, elasticsearch: dep, redis: dep, version: { type: 'string' }, ms: { type: 'integer' } } } }, errors: [503],
    handle: async ({ ctx, services }) => {
      const started = performance.now();
      const [es, redis] = await Promise.all([services.health.elasticsearch(), services.health.redis()]);
      const details: ErrorDetail[] = [];
      if (es.issue) details.push({ field: 'elasticsearch', issue: es.issue });
      if (redis.issue) details.push({ field: 'redis', issue: redis.issue });
      if (es.ok) details.push(...(await missingAliases(services)));
      if (details.length) throw new ApiError('SERVICE_UNAVAILABLE', `Unavailable: ${details.map((d) => d.field).join(', ')}`, details);
      ok(ctx, { status: 'ok', elasticsearch: { ok: es.ok, status: es.status }, redis: { ok: redis.ok, status: redis.status }, version: API_VERSION, ms: Math.round(performance.now() - started) });
    },
  }),
  route({
    method: 'get', path: '/v1/health/live', tag: 'account', summary: 'Liveness: 200 while the process serves, whatever its dependencies (readiness is /v1/health)', access: PUBLIC,
    success: { data: { type: 'object', properties: { status: { const: 'alive' }, uptime_s: { type: 'integer' }, pid: { type: 'integer' } } } },
    handle: ({ ctx }) => ok(ctx, { status: 'alive', uptime_s: Math.round(process.uptime()), pid: process.pid }),
  }),
  route({
    method: 'get', path: '/v1/changelog', tag: 'docs', summary: 'The dated changelog (CHANGELOG.md) as JSON, newest first', access: PUBLIC,
    success: { data: array({ type: 'object', required: ['version', 'date', 'changes'], properties: { version: { type: 'string' }, date: { type: 'string', format: 'date' }, changes: array({ type: 'object', properties: { type: { type: 'string', enum: ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'] }, description: { type: 'string' } } }) } }) },
    handle: ({ ctx }) => {
      const entries = changelog();
      ok(ctx, entries, { version: API_VERSION, returned: entries.length });
    },
  }),
];

/** Authenticated account routes: whoami and credits. */
export const accountRoutes = (): Route[] => [
  route({
    method: 'get', path: '/v1/whoami', tag: 'account', summary: 'The calling key, organization and user', access: ANY_KEY,
    success: { data: { type: 'object', properties: { key: ref('ApiKey'), organization: { type: 'string' }, user: { type: 'string' }, sandbox: { type: 'boolean' }, data_namespace: { type: 'string', enum: ['live', 'sandbox'] } } } },
    handle: ({ ctx }) => {
      const { key, sandbox } = authOf(ctx);
      ok(ctx, { key: publicKey(key), organization: key.org, user: key.user, sandbox, data_namespace: sandbox ? 'sandbox' : 'live' }, { key_tier: key.field_tier });
    },
  }),
  route({
    // The spec names no scope for the balance and excludes only test keys: every live key of the organization may read it.
    method: 'get', path: '/v1/credits', tag: 'account', summary: "The organization's balance and this key's usage", description: 'Any live key; test keys 403 test_key_not_allowed.', access: { kind: 'live', live: 'credits' },
    success: { data: obj },
    handle: async ({ ctx, services }) => {
      const { key } = authOf(ctx);
      const [balance, usage, today] = await Promise.all([services.credits.balance(key.org), services.credits.usage(key.org, key.id), services.credits.spentOn(key.org, key.id, utcDay())]);
      ok(ctx, { organization: key.org, balance: toCredits(balance), key_usage: { credits_used: toCredits(usage.credits_milli), rows_returned: usage.rows, queries: usage.queries, cache_hits: usage.cache_hits }, key_budget: budgetView(key, usage.credits_milli, today) });
    },
  }),
];
