/**
 * Health, whoami and credits.
 */
import Router from '@koa/router';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { authOf, requireScope } from '../middleware/auth.ts';
import { esHealth } from '../../core/adapters/es.ts';
import { ApiError } from '../errors.ts';
import { toCredits } from '../pricing.ts';
import { publicKey } from '../services/keys.ts';

/** GET /v1/health: no auth; 200 when Elasticsearch and Redis answer, else 503 with which one failed. */
export function healthRoutes(services: Services): Router {
  const r = new Router();
  r.get('/v1/health', async (ctx) => {
    const started = performance.now();
    const [es, redis] = await Promise.all([
      esHealth(services.es).then((h) => (h ? { ok: h.status !== 'red', status: h.status } : { ok: false, status: 'unreachable' })).catch((e: Error) => ({ ok: false, status: e.message })),
      services.redis.ping().then((p) => ({ ok: p === 'PONG', status: 'ok' })).catch(() => ({ ok: false, status: 'unreachable' })),
    ]);
    const data = { status: es.ok && redis.ok ? 'ok' : 'degraded', elasticsearch: es, redis, version: '1.0.0-internal-phase-1', ms: Math.round(performance.now() - started) };
    if (!es.ok || !redis.ok) {
      throw new ApiError('SERVICE_UNAVAILABLE', `Unavailable: ${[!es.ok && 'elasticsearch', !redis.ok && 'redis'].filter(Boolean).join(', ')}`, [
        // The issue says how the service failed: a red cluster, or no answer.
        ...(!es.ok ? [{ field: 'elasticsearch', issue: es.status === 'red' ? ('red' as const) : ('unreachable' as const) }] : []),
        ...(!redis.ok ? [{ field: 'redis', issue: 'unreachable' as const }] : []),
      ]);
    }
    ok(ctx, data);
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
    const key = requireScope(ctx, 'credits:read');
    const [balance, usage] = await Promise.all([services.credits.balance(key.org), services.credits.usage(key.org, key.id)]);
    ok(ctx, { organization: key.org, balance: toCredits(balance), key_usage: { credits_used: toCredits(usage.credits_milli), rows_returned: usage.rows, queries: usage.queries, cache_hits: usage.cache_hits } });
  });
  return r;
}
