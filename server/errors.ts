/**
 * The error catalogue: every error the API returns has a stable code, an HTTP status and a
 * message; `details` name the field and the issue. One middleware renders them
 * (server/middleware/envelope.ts); 5xx details are logged, never sent.
 */

/**
 * Every word `details[].issue` can hold, one spelling each (the error table of docs/api.md names them;
 * test/errors.test.ts checks the two agree). A new issue is a new entry here: a typo elsewhere
 * is a compile error. Settled spellings: a body that is not JSON is `unsupported_media_type`
 * (never `unsupported`); a page or page_size that is not a whole number is `invalid_integer`
 * (never `invalid_type`, which is a JSON body value of the wrong type).
 */
export const ISSUE_CODES = [
  // The request as a whole (HTTP layer, envelope)
  'malformed_json', 'malformed_request', 'too_large', 'unsupported_media_type', 'unknown_path', 'not_allowed',
  // Parameters and body fields
  'unknown_field', 'unknown_column', 'repeated_parameter', 'missing_required', 'missing_value', 'empty', 'one_of',
  'conflicting_values', 'invalid_type', 'invalid_integer', 'invalid_number', 'invalid_boolean', 'invalid_value',
  'invalid_format', 'invalid_state', 'invalid_reference', 'out_of_range', 'too_short', 'too_long', 'too_few_items',
  'too_many_items', 'too_many_values', 'duplicate_items', 'empty_item', 'too_deep', 'operator_not_supported', 'year_not_available', 'filter_required',
  'ambiguous', 'not_found', 'precondition_failed', 'precondition_required', 'not_supported', 'concurrent_change',
  // Cursors
  'invalid_cursor', 'stale_cursor', 'conflicts_with_cursor', 'cursor_filter_mismatch',
  // Credentials (401)
  'missing_credentials', 'malformed_credentials', 'invalid_credentials', 'revoked_key', 'rotated_key',
  'invalid_token', 'expired_token', 'revoked_token', 'tokens_not_accepted',
  // Permissions (403)
  'forbidden', 'missing_scope', 'test_key_not_allowed', 'not_root_key', 'scope_not_held_by_parent', 'tier_above_parent',
  'unknown_scope', 'not_a_data_read_scope', 'revoked', 'internal_only', 'crm_context_required', 'advanced_field',
  'advanced_filter', 'advanced_sort', 'advanced_mode',
  // Credits and limits (402, 429)
  'insufficient_credits', 'key_budget_exhausted', 'rate_limited', 'daily_row_cap', 'sequential_page_walking',
  'quota_exceeded',
  // Health (503): a dependency that does not answer, answers red, or refuses the check
  'unreachable', 'cluster_red', 'rejected',
] as const;

/** One issue word of `details[]` (see ISSUE_CODES). */
export type IssueCode = (typeof ISSUE_CODES)[number];

/** One problem with one field of a request. */
export interface ErrorDetail {
  field: string;
  issue: IssueCode;
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
  GONE: { status: 410, message: 'Gone' },
  PRECONDITION_FAILED: { status: 412, message: 'The If-Match precondition does not hold; nothing was applied' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  REQUEST_TOO_LARGE: { status: 431, message: 'Request line and headers too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Send the body as application/json' },
  PRECONDITION_REQUIRED: { status: 428, message: 'This write needs an If-Match header; nothing was applied' },
  RATE_LIMITED: { status: 429, message: 'Too many requests for this key' },
  DAILY_CAP_EXCEEDED: { status: 429, message: 'The daily row cap of this key is reached' },
  CRAWL_DETECTED: { status: 429, message: 'Sequential page walking of one filter combination was detected' },
  QUOTA_EXCEEDED: { status: 429, message: 'A count cap of the organization is reached' },
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

/** A 403 FORBIDDEN on one field. */
export const forbidden = (message: string, field = 'authorization', issue: IssueCode = 'forbidden') => new ApiError('FORBIDDEN', message, [{ field, issue }]);
/** A 404 NOT_FOUND: `what` (an API key, a tag ...) by the id given in `field`. */
export const notFound = (what: string, field = 'id') => new ApiError('NOT_FOUND', `${what} not found`, [{ field, issue: 'not_found' }]);
/**
 * A 429 QUOTA_EXCEEDED on one field: a count cap on stored records is reached. The detail's
 * `expected` is `{limit, current, per}` (per: `user` or `organization`); nothing was written.
 */
export const quotaExceeded = (field: string, what: string, limit: number, current: number, per: 'user' | 'organization', then = 'delete some first') =>
  new ApiError('QUOTA_EXCEEDED', `At most ${limit.toLocaleString('en-US')} ${what} per ${per}; ${per === 'user' ? 'this user has' : 'the organization has'} ${current.toLocaleString('en-US')}: ${then}`, [
    { field, issue: 'quota_exceeded', expected: { limit, current, per } },
  ]);
/** A 401 UNAUTHORIZED with the Bearer challenge. */
export const unauthorized = (issue: IssueCode, message?: string) =>
  new ApiError('UNAUTHORIZED', message ?? CATALOGUE.UNAUTHORIZED.message, [{ field: 'authorization', issue }]).withHeaders({ 'WWW-Authenticate': 'Bearer realm="bintel"' });
