/**
 * The response envelope, request ids and error rendering. Every response carries
 * `X-Request-Id`; errors are `{ok:false, error:{code, message, details, request_id}, meta:{credits_charged:0}}`.
 * Errors are mapped by type, never by message: an ApiError is rendered as it is; the adapters'
 * typed errors (core/errors.ts) become 503 or 500 (`fromAdapterError`); anything else is 500.
 * Those are logged with their cause; the caller sees the catalogue message only.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { ApiError } from '../errors.ts';
import { NotFoundError, SERVICE_LABELS, ServiceUnavailableError } from '../../core/errors.ts';
import { clusterClientError } from '../../core/adapters/redis.ts';
import { inRequestScope } from '../process-guard.ts';

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{8,128}$/;

/** Body-parser and Koa HTTP errors mapped to catalogue errors. */
function fromHttpError(err: { status?: number; expose?: boolean; message?: string; type?: string }): ApiError | null {
  switch (err.status) {
    case 400:
      return new ApiError('VALIDATION_ERROR', 'The request body is not valid JSON', [{ field: 'body', issue: 'malformed_json' }]);
    case 413:
      return new ApiError('PAYLOAD_TOO_LARGE', undefined, [{ field: 'body', issue: 'too_large' }]);
    case 415:
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', undefined, [{ field: 'content-type', issue: 'unsupported_media_type', expected: 'application/json' }]);
    default:
      return null;
  }
}

/** The outermost middleware: request id, timing log line, error envelope. */
/**
 * Headers on every answer: no content sniffing, no framing (the docs page included), no referrer,
 * nothing cached by shared caches (answers depend on the key). CORS headers only for the origins
 * an operator lists (middleware/cors.ts).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
});

export function envelope(log: Logger) {
  return async function envelopeMiddleware(ctx: Context, next: Next): Promise<void> {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID_RE.test(incoming) ? incoming : `req_${randomUUID().replace(/-/g, '')}`;
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    ctx.set(SECURITY_HEADERS);
    const started = performance.now();
    try {
      // In the request's scope: a rejection left unhandled by its work is logged with its id (process-guard.ts).
      await inRequestScope(requestId, next);
      if (ctx.method === 'OPTIONS' && ctx.status === 200 && !ctx.body && ctx.response.get('Allow')) {
        // The router's automatic OPTIONS answer, in the envelope like everything else.
        ctx.body = { ok: true, data: { methods: ctx.response.get('Allow').split(/,\s*/) }, meta: { credits_charged: 0 } };
      }
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) throw new ApiError('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`, [{ field: 'path', issue: 'unknown_path' }]);
        if (ctx.status === 405) throw new ApiError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}`, [{ field: 'method', issue: 'not_allowed' }]);
      }
    } catch (raw) {
      let err = raw instanceof ApiError ? raw : fromHttpError(raw as { status?: number });
      if (!err) {
        log.error({ err: raw, requestId, method: ctx.method, path: ctx.path }, 'request failed');
        err = fromAdapterError(raw) ?? new ApiError('INTERNAL', 'Internal error; quote the request_id when reporting it');
      }
      ctx.status = err.status;
      // A dependency that does not answer: worth retrying soon.
      if (err.code === 'SERVICE_UNAVAILABLE' && !err.headers['Retry-After']) ctx.set('Retry-After', '2');
      for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
      ctx.body = { ok: false, error: { code: err.code, message: err.message, details: err.details, request_id: requestId }, meta: { credits_charged: 0 } };
    } finally {
      log.info({ requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round((performance.now() - started) * 100) / 100, key: ctx.state.auth?.key?.id }, 'request');
    }
  };
}

/**
 * The caller's view of an adapter error that escaped a route; null means 500 INTERNAL.
 * - unavailable: 503 naming the service, as the caller can only retry (a Redis whose memory is
 *   full, refusing writes: 503 saying so, Retry-After 30);
 * - a missing index or alias: 503 too. The data was never loaded (or a load is being
 *   repaired); the request was right and will work once it is, so a 500 would blame code
 *   that has no bug and a 404 would tell the caller the record does not exist;
 * - a missing document, or a rejected request: a route let it escape or built a wrong query,
 *   a bug of ours, so 500 (RejectedError and NotFoundError of a document fall through).
 */
function fromAdapterError(raw: unknown): ApiError | null {
  // What the Redis Cluster client raises about its own node connections is unavailability too.
  const err = clusterClientError(raw);
  if (err instanceof ServiceUnavailableError && err.full) return new ApiError('SERVICE_UNAVAILABLE', `${SERVICE_LABELS[err.service]} is out of memory and refuses writes; nothing was charged or written; retry later`).withHeaders({ 'Retry-After': '30' });
  if (err instanceof ServiceUnavailableError) return new ApiError('SERVICE_UNAVAILABLE', `${SERVICE_LABELS[err.service]} is unavailable; retry shortly`);
  if (err instanceof NotFoundError && err.what === 'index') return new ApiError('SERVICE_UNAVAILABLE', 'The data for this request is not loaded yet; retry once a load has finished');
  return null;
}

/** Sets a success envelope. */
export function ok(ctx: Context, data: unknown, meta: Record<string, unknown> = {}, status = 200): void {
  ctx.status = status;
  ctx.body = { ok: true, data, meta: { credits_charged: 0, ...meta } };
}
