/**
 * Per-key rate limit (fixed one-minute windows in Redis, rate-limiter-flexible), with the
 * IETF RateLimit-* headers on every authenticated response and Retry-After on 429.
 */
import type { Context, Next } from 'koa';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Services } from '../context.ts';
import { ApiError } from '../errors.ts';
import { authOf } from './auth.ts';

export function rateLimit(services: Services) {
  const limit = services.config.rateLimitPerMinute;
  const limiter = new RateLimiterRedis({ storeClient: services.redis, keyPrefix: services.rk.rateLimit(), points: limit, duration: 60 });
  const headers = (ctx: Context, res: RateLimiterRes) => {
    ctx.set('RateLimit-Limit', String(limit));
    ctx.set('RateLimit-Remaining', String(Math.max(0, res.remainingPoints)));
    ctx.set('RateLimit-Reset', String(Math.ceil(res.msBeforeNext / 1000)));
    ctx.set('RateLimit-Policy', `${limit};w=60`);
  };
  return async function rateLimitMiddleware(ctx: Context, next: Next): Promise<void> {
    const { key } = authOf(ctx);
    let res: RateLimiterRes;
    try {
      res = await limiter.consume(key.id, 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      headers(ctx, rejection);
      const retry = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new ApiError('RATE_LIMITED', `Rate limit of ${limit} requests per minute reached; retry in ${retry} s`, [{ field: 'authorization', issue: 'rate_limited' }]).withHeaders({
        'Retry-After': String(retry),
        'RateLimit-Limit': String(limit),
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': String(retry),
      });
    }
    headers(ctx, res);
    await next();
  };
}
