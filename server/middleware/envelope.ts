/**
 * The response envelope, request ids and error rendering. Every response carries
 * `X-Request-Id`; errors are `{ok:false, error:{code, message, details, request_id}, meta:{credits_charged:0}}`;
 * 5xx are logged with their cause and shown to the caller as a plain INTERNAL error.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { ApiError } from '../errors.ts';
import { ServiceUnavailableError } from '../../core/errors.ts';

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
export function envelope(log: Logger) {
  return async function envelopeMiddleware(ctx: Context, next: Next): Promise<void> {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID_RE.test(incoming) ? incoming : `req_${randomUUID().replace(/-/g, '')}`;
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
      if (ctx.method === 'OPTIONS' && ctx.status === 200 && !ctx.body && ctx.response.get('Allow')) {
        // The router's automatic OPTIONS answer, in the envelope like everything else.
        ctx.body = { ok: true, data: { methods: ctx.response.get('Allow').split(/,\s*/) }, meta: { credits_charged: 0 } };
      }
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) throw new ApiError('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`, [{ field: 'path', issue: 'unknown_path' }]);
        if (ctx.status === 405) throw new ApiError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}`, [{ field: 'method', issue: 'not_allowed' }]);
      }
    } catch (raw) {
      const err = raw instanceof ApiError ? raw : (fromHttpError(raw as { status?: number }) ?? null);
      if (err) {
        ctx.status = err.status;
        for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
        ctx.body = { ok: false, error: { code: err.code, message: err.message, details: err.details, request_id: requestId }, meta: { credits_charged: 0 } };
      } else {
        // Typed failures of the backing services (core/errors.ts), translated by the adapters.
        const unavailable = raw instanceof ServiceUnavailableError;
        log.error({ err: raw, requestId, method: ctx.method, path: ctx.path }, 'request failed');
        ctx.status = unavailable ? 503 : 500;
        const code = unavailable ? 'SERVICE_UNAVAILABLE' : 'INTERNAL';
        const message = unavailable ? `A backing service (${raw.service === 'redis' ? 'Redis' : 'Elasticsearch'}) is unavailable; retry shortly` : 'Internal error; quote the request_id when reporting it';
        ctx.body = { ok: false, error: { code, message, details: [], request_id: requestId }, meta: { credits_charged: 0 } };
      }
    } finally {
      log.info({ requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round((performance.now() - started) * 100) / 100, key: ctx.state.auth?.key?.id }, 'request');
    }
  };
}

/** Sets a success envelope. */
export function ok(ctx: Context, data: unknown, meta: Record<string, unknown> = {}, status = 200): void {
  ctx.status = status;
  ctx.body = { ok: true, data, meta: { credits_charged: 0, ...meta } };
}
