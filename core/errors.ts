/**
 * The errors the adapters throw. Every Elasticsearch and Redis failure is translated into one
 * of these inside core/adapters, so nothing above an adapter inspects a driver's error class,
 * name or message. They carry no HTTP knowledge: server/middleware/envelope.ts decides what a
 * caller sees (503, 500) and ingest decides what to retry. The driver's error stays as `cause`
 * for the logs.
 */

/** A backing service the adapters talk to. */
export type Service = 'elasticsearch' | 'redis';

/** How messages name each service. */
export const SERVICE_LABELS: Readonly<Record<Service, string>> = { elasticsearch: 'Elasticsearch', redis: 'Redis' };

/** Options shared by the adapter errors: the service and the driver's own error. */
export interface AdapterErrorOptions {
  service: Service;
  cause?: unknown;
}

/**
 * The service cannot answer now: nothing listens, the connection broke, the request timed out,
 * retries ran out, or the service said it is overloaded or not ready (429, 502-504, LOADING).
 * Worth retrying later; nothing about the request was wrong.
 */
export class ServiceUnavailableError extends Error {
  override readonly name = 'ServiceUnavailableError';
  readonly service: Service;
  /** Set when the service answers but refuses writes because its memory is full (Redis OOM under `noeviction`). */
  readonly full: boolean;

  constructor(opts: AdapterErrorOptions & { detail?: string; full?: boolean }) {
    super(`${SERVICE_LABELS[opts.service]} is unavailable${opts.detail ? `: ${opts.detail}` : ''}`, { cause: opts.cause });
    this.service = opts.service;
    this.full = opts.full ?? false;
  }
}

/** What was missing: an index (or alias), a document, or another named resource. */
export type Missing = 'index' | 'document' | 'resource';

/**
 * The service answered that the thing asked for does not exist (Elasticsearch 404). Calls that
 * expect a miss pass `{ ignore: [404] }` and never see this.
 */
export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
  readonly service: Service;
  readonly what: Missing;
  /** The index, alias or document id, when the answer names it. */
  readonly id: string | undefined;

  constructor(opts: AdapterErrorOptions & { what: Missing; id?: string }) {
    super(`${SERVICE_LABELS[opts.service]}: ${opts.what}${opts.id ? ` ${opts.id}` : ''} not found`, { cause: opts.cause });
    this.service = opts.service;
    this.what = opts.what;
    this.id = opts.id;
  }
}

/** What a service said when it refused a request. */
export interface Rejection {
  /** HTTP status (Elasticsearch); absent for Redis. */
  statusCode?: number;
  /** Elasticsearch `error.type`, or the Redis error code (`ERR`, `WRONGTYPE`, `NOSCRIPT` ...). */
  type?: string;
  /** Elasticsearch `error.reason`, or the Redis error message. */
  reason?: string;
  /** The start of the answer, for the logs. */
  body?: string;
}

/**
 * The service answered and refused the request: a query or script we built is wrong, a mapping
 * conflicts, a Lua script raised. A bug to fix or a state to repair, not something to retry.
 */
export class RejectedError extends Error {
  override readonly name = 'RejectedError';
  readonly service: Service;
  readonly statusCode: number | undefined;
  readonly type: string | undefined;
  readonly reason: string | undefined;
  readonly body: string | undefined;

  constructor(opts: AdapterErrorOptions & Rejection) {
    const what = [opts.statusCode, opts.type].filter((x) => x !== undefined).join(' ');
    super(`${SERVICE_LABELS[opts.service]} rejected the request${what ? ` (${what})` : ''}${opts.reason ? `: ${opts.reason}` : ''}`, { cause: opts.cause });
    this.service = opts.service;
    this.statusCode = opts.statusCode;
    this.type = opts.type;
    this.reason = opts.reason;
    this.body = opts.body;
  }
}

/** Any error an adapter throws on purpose. */
export type AdapterError = ServiceUnavailableError | NotFoundError | RejectedError;

/** True for the typed adapter errors (translation is idempotent: these pass through). */
export function isAdapterError(err: unknown): err is AdapterError {
  return err instanceof ServiceUnavailableError || err instanceof NotFoundError || err instanceof RejectedError;
}
