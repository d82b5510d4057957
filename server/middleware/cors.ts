/**
 * CORS for browser clients, off unless the operator lists origins (BINTEL_CORS_ORIGINS). For an
 * `Origin` on the list: a preflight (OPTIONS with Access-Control-Request-Method) is answered 204
 * here, before authentication (a browser sends no credentials with it), and every other answer,
 * errors included, names the origin and exposes the headers the client reads. Any other origin,
 * or none, gets no Access-Control-* header: the browser then refuses the page the answer.
 * Credentials are bearer tokens sent by the page, never cookies, so no Allow-Credentials.
 */
import type { Context, Next } from 'koa';

const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-Request-Id';
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, ETag, Location, X-Export-Rows, Content-Disposition';
/** How long a browser may reuse a preflight answer, in seconds. */
const MAX_AGE_S = 600;

export function cors(origins: readonly string[]) {
  const allowed = new Set(origins);
  return async function corsMiddleware(ctx: Context, next: Next): Promise<void> {
    if (allowed.size === 0) return next();
    ctx.vary('Origin');
    const origin = ctx.get('origin');
    if (!allowed.has(origin)) return next();
    ctx.set('Access-Control-Allow-Origin', origin);
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
      ctx.set('Access-Control-Allow-Methods', METHODS);
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      ctx.set('Access-Control-Max-Age', String(MAX_AGE_S));
      ctx.status = 204;
      return;
    }
    ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    await next();
  };
}
