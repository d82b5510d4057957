/**
 * The error catalogue: every error the API returns has a stable code, an HTTP status and a
 * message; `details` name the field and the issue. One middleware renders them
 * (server/middleware/envelope.ts); 5xx details are logged, never sent.
 */

/** One problem with one field of a request. */
export interface ErrorDetail {
  field: string;
  issue: string;
  /** Allowed values or the expected form, when useful to the caller. */
  expected?: unknown;
  /** Close matches (ambiguous lookups). */
  suggestions?: unknown[];
}

export const CATALOGUE = {
  VALIDATION_ERROR: { status: 400, message: 'The request is invalid' },
  FILTER_REQUIRED: { status: 400, message: 'page_size above 25 needs at least one business filter' },
  AMBIGUOUS_LOOKUP: { status: 400, message: 'More than one record matches; use one of the suggestions' },
  UNAUTHORIZED: { status: 401, message: 'Missing or invalid credentials' },
  INSUFFICIENT_CREDITS: { status: 402, message: 'The organization credit pool cannot pay for this call' },
  FORBIDDEN: { status: 403, message: 'This key may not do that' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  CONFLICT: { status: 409, message: 'Conflict' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  REQUEST_TOO_LARGE: { status: 431, message: 'Request line and headers too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Send the body as application/json' },
  RATE_LIMITED: { status: 429, message: 'Too many requests for this key' },
  DAILY_CAP_EXCEEDED: { status: 429, message: 'The daily row cap of this key is reached' },
  CRAWL_DETECTED: { status: 429, message: 'Sequential page walking of one filter combination was detected' },
  INTERNAL: { status: 500, message: 'Internal error' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'A backing service is unavailable; retry shortly' },
} as const;

export type ErrorCode = keyof typeof CATALOGUE;

/** An error meant for the caller: rendered in the error envelope with its status. */
export class ApiError extends Error {
  readonly status: number;
  /** Extra response headers (Retry-After, WWW-Authenticate ...). */
  headers: Record<string, string> = {};

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message ?? CATALOGUE[code].message);
    this.status = CATALOGUE[code].status;
  }

  withHeaders(h: Record<string, string>): this {
    Object.assign(this.headers, h);
    return this;
  }
}

/** A 400 VALIDATION_ERROR naming one or more fields. */
export function invalid(details: ErrorDetail[] | ErrorDetail, message?: string): ApiError {
  const list = Array.isArray(details) ? details : [details];
  const first = list[0];
  return new ApiError('VALIDATION_ERROR', message ?? (first ? `${first.field}: ${first.issue.replace(/_/g, ' ')}` : undefined), list);
}

export const forbidden = (message: string, field = 'authorization', issue = 'forbidden') => new ApiError('FORBIDDEN', message, [{ field, issue }]);
export const notFound = (what: string, field = 'id') => new ApiError('NOT_FOUND', `${what} not found`, [{ field, issue: 'not_found' }]);
export const unauthorized = (issue: string, message?: string) =>
  new ApiError('UNAUTHORIZED', message ?? CATALOGUE.UNAUTHORIZED.message, [{ field: 'authorization', issue }]).withHeaders({ 'WWW-Authenticate': 'Bearer realm="bintel"' });
