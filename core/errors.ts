/**
 * Typed failures of the backing services, raised by the adapters (core/adapters/) in place of
 * the drivers' own errors, so nothing above an adapter recognises a driver error by its name or
 * message. They carry no HTTP knowledge: the server's envelope maps them to responses.
 */

/** The backing services. */
export type ServiceName = 'elasticsearch' | 'redis';

const LABEL: Record<ServiceName, string> = { elasticsearch: 'Elasticsearch', redis: 'Redis' };

/** Nothing answered, the connection broke, or the service timed out: worth a retry later. */
export class ServiceUnavailableError extends Error {
  override name = 'ServiceUnavailableError';
  constructor(
    readonly service: ServiceName,
    options?: { cause?: unknown },
  ) {
    super(`${LABEL[service]} is unavailable: ${(options?.cause as Error | undefined)?.message ?? 'no answer'}`, options);
  }
}

/** The service answered with an error status: a request it refused (a bug in a query we built, or a cluster problem). */
export class RejectedError extends Error {
  override name = 'RejectedError';
  constructor(
    readonly service: ServiceName,
    readonly statusCode: number,
    readonly body: unknown,
    options?: { cause?: unknown },
  ) {
    super(`${LABEL[service]} answered ${statusCode}: ${(typeof body === 'string' ? body : JSON.stringify(body) ?? '').slice(0, 500)}`, options);
  }
}

/** The service answered 404: the index or document asked for does not exist. */
export class NotFoundError extends RejectedError {
  override name = 'NotFoundError';
}
