/**
 * The Elasticsearch adapter: the only module that constructs the client, and the boundary where
 * the driver's errors become typed ones (core/errors.ts): every request of the client goes through
 * its transport, whose failures are translated there (an `ignore`d status still returns normally).
 * This distribution may lack `GET /`, so health is always `_cluster/health`.
 */
import { Client, errors } from '@elastic/elasticsearch';
import type { Config } from '../config.ts';
import { NotFoundError, RejectedError, ServiceUnavailableError } from '../errors.ts';

export type Es = Client;

/** A driver error as a typed one; anything else (an aborted request, a serialization bug) as it is. */
export function translateEsError(err: unknown): unknown {
  if (err instanceof errors.ResponseError) {
    const status = err.statusCode ?? 500;
    return new (status === 404 ? NotFoundError : RejectedError)('elasticsearch', status, err.body, { cause: err });
  }
  if (err instanceof errors.ConnectionError || err instanceof errors.TimeoutError || err instanceof errors.NoLivingConnectionsError) return new ServiceUnavailableError('elasticsearch', { cause: err });
  return err;
}

/** Creates a client for the configured cluster. */
export function createEs(config: Pick<Config, 'esUrl'>, opts: { maxRetries?: number; requestTimeout?: number } = {}): Es {
  const client = new Client({
    node: config.esUrl,
    maxRetries: opts.maxRetries ?? 3,
    requestTimeout: opts.requestTimeout ?? 60_000,
    compression: false,
  });
  const transport = client.transport;
  const request = transport.request.bind(transport) as (...args: unknown[]) => Promise<unknown>;
  // After the transport's own retries: what reaches the caller is typed.
  transport.request = ((...args: unknown[]) => request(...args).catch((err: unknown) => Promise.reject(translateEsError(err)))) as typeof transport.request;
  return client;
}

export interface EsHealth {
  status: 'green' | 'yellow' | 'red';
  number_of_nodes: number;
  cluster_name: string;
}

/** One `_cluster/health` call; null when nothing answers at the URL. */
export async function esHealth(es: Es): Promise<EsHealth | null> {
  try {
    const h = await es.cluster.health({}, { requestTimeout: 3000, maxRetries: 0 });
    return { status: h.status.toLowerCase() as EsHealth['status'], number_of_nodes: h.number_of_nodes, cluster_name: h.cluster_name };
  } catch (err) {
    if (err instanceof ServiceUnavailableError) return null;
    throw err;
  }
}

/** Waits until the cluster is at least yellow, or throws after timeoutMs. */
export async function waitForEs(es: Es, timeoutMs = 120_000): Promise<EsHealth> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < deadline) {
    try {
      const h = await esHealth(es);
      if (h && h.status !== 'red') return h;
      last = h;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`Elasticsearch did not become healthy within ${timeoutMs} ms (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
}

