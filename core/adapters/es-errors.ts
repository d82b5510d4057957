/**
 * Translation of Elasticsearch answers and failures into the typed errors of core/errors.ts,
 * shared by the general client (es.ts) and the lean search path (es-search.ts).
 */
import { errors } from '@elastic/elasticsearch';
import { NotFoundError, RejectedError, ServiceUnavailableError, isAdapterError, type AdapterError } from '../errors.ts';

/** Statuses that mean "not now" rather than "not this": overloaded (429) or a gateway in trouble. */
const UNAVAILABLE_STATUSES = new Set([429, 502, 503, 504]);

/** The parts of an error answer we use (`error` is an object, or a plain string for some 404s). */
interface ErrorAnswer {
  error?: { type?: string; reason?: string; index?: string } | string;
  found?: boolean;
  _id?: string;
}

/**
 * An error answer (status >= 300) as a typed error. 404 is NotFoundError: an index or alias
 * (`index_not_found_exception`), a document (`found: false`), or another resource (a missing
 * alias answers a plain string). `path` names the resource when the answer does not.
 */
export function fromAnswer(opts: { statusCode: number; body: unknown; path?: string; cause?: unknown }): AdapterError {
  const answer = (typeof opts.body === 'object' && opts.body !== null ? opts.body : {}) as ErrorAnswer;
  const error = typeof answer.error === 'object' ? answer.error : undefined;
  const text = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body ?? '');
  const rejection = { statusCode: opts.statusCode, type: error?.type, reason: error?.reason ?? (typeof answer.error === 'string' ? answer.error : undefined), body: text.slice(0, 500) };
  const base = { service: 'elasticsearch' as const, cause: opts.cause };
  if (opts.statusCode === 404) {
    if (error?.type === 'index_not_found_exception') return new NotFoundError({ ...base, what: 'index', id: error.index });
    if (answer.found === false) return new NotFoundError({ ...base, what: 'document', id: answer._id });
    return new NotFoundError({ ...base, what: 'resource', id: opts.path });
  }
  if (UNAVAILABLE_STATUSES.has(opts.statusCode)) return new ServiceUnavailableError({ ...base, detail: `answered ${opts.statusCode}${error?.type ? ` ${error.type}` : ''}` });
  return new RejectedError({ ...base, ...rejection });
}

/**
 * Any failure of the general client as a typed error. Connection failures, timeouts and "no
 * living connections" (the client's retries are spent) are unavailability; an error answer goes
 * through `fromAnswer`. Anything else is returned as it is: an abort the caller asked for, or a
 * (de)serialization or configuration error, which is a bug in our code, not in the service.
 */
export function translateEsError(err: unknown, path?: string): unknown {
  if (isAdapterError(err)) return err;
  if (err instanceof errors.ResponseError) return fromAnswer({ statusCode: err.statusCode ?? 0, body: err.body, path, cause: err });
  if (err instanceof errors.ConnectionError || err instanceof errors.TimeoutError || err instanceof errors.NoLivingConnectionsError) {
    return new ServiceUnavailableError({ service: 'elasticsearch', detail: err.message, cause: err });
  }
  return err;
}
