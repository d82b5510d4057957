/**
 * Health, whoami and credits.
 */
import { utcDay } from '../../core/clock.ts';
import Router from '@koa/router';
import { changelog } from '../changelog.ts';
import { budgetView } from './api-keys.ts';
import { API_VERSION } from '../version.ts';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { authOf, requireLiveKey } from '../middleware/auth.ts';
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

/**
 * GET /v1/health (readiness): no auth; 200 when Elasticsearch and Redis answer and the live alias
 * of every resource exists, else 503 naming what is not (`elasticsearch`, `redis`,
 * `index.<resource>`: a server with no data loaded is not ready to take traffic). GET /v1/health/live (liveness): 200 while the process serves, whatever
 * its dependencies (an orchestrator restarts a process that fails it, never one whose Redis is down).
 */
export function healthRoutes(services: Services): Router {
  const r = new Router();
  r.get('/v1/changelog', (ctx) => {
    const entries = changelog();
    ok(ctx, entries, { version: API_VERSION, returned: entries.length });
  });
  r.get('/v1/health/live', (ctx) => {
    ok(ctx, { status: 'alive', uptime_s: Math.round(process.uptime()), pid: process.pid });
  });
  r.get('/v1/health', async (ctx) => {
    const started = performance.now();
    const [es, redis] = await Promise.all([services.health.elasticsearch(), services.health.redis()]);
    const details: ErrorDetail[] = [];
    if (es.issue) details.push({ field: 'elasticsearch', issue: es.issue });
    if (redis.issue) details.push({ field: 'redis', issue: redis.issue });
    if (es.ok) details.push(...(await missingAliases(services)));
    if (details.length) throw new ApiError('SERVICE_UNAVAILABLE', `Unavailable: ${details.map((d) => d.field).join(', ')}`, details);
    ok(ctx, { status: 'ok', elasticsearch: { ok: es.ok, status: es.status }, redis: { ok: redis.ok, status: redis.status }, version: API_VERSION, ms: Math.round(performance.now() - started) });
  });
  return r;
}

/** Authenticated account routes. */
export function accountRoutes(services: Services): Router {
  const r = new Router();
  r.get('/v1/whoami', async (ctx) => {
    const { key, sandbox } = authOf(ctx);
    ok(ctx, { key: publicKey(key), organization: key.org, user: key.user, sandbox, data_namespace: sandbox ? 'sandbox' : 'live' }, { key_tier: key.field_tier });
  });
  r.get('/v1/credits', async (ctx) => {
    // The spec names no scope for the balance and excludes only test keys: every live key of the
    // organization may read it.
    const key = requireLiveKey(ctx, 'credits');
    const [balance, usage, today] = await Promise.all([services.credits.balance(key.org), services.credits.usage(key.org, key.id), services.credits.spentOn(key.org, key.id, utcDay())]);
    ok(ctx, { organization: key.org, balance: toCredits(balance), key_usage: { credits_used: toCredits(usage.credits_milli), rows_returned: usage.rows, queries: usage.queries, cache_hits: usage.cache_hits }, key_budget: budgetView(key, usage.credits_milli, today) });
  });
  return r;
}
