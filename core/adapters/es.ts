/**
 * The Elasticsearch adapter: the only module that constructs the client. Every call of the
 * client goes through `TranslatingTransport`, so callers see the typed errors of core/errors.ts
 * (unavailable, not found, rejected) and never the client's own error classes.
 * This distribution may lack `GET /`, so health is always `_cluster/health`.
 */
import { Client, SniffingTransport, type TransportRequestOptions, type TransportRequestParams } from '@elastic/elasticsearch';
import type { Config } from '../config.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { translateEsError } from './es-errors.ts';

export type Es = Client;

/**
 * The client's default transport with translation at the boundary: the request runs with the
 * client's own retries and `ignore` handling (an ignored status returns normally), and only a
 * failure that escapes all of that is translated. Success costs nothing extra.
 * (Sniffing, which reads `err.meta` on failure, is not enabled here.)
 */
class TranslatingTransport extends SniffingTransport {
  // One generic signature covers the three overloads of Transport#request.
  override request<T = unknown>(params: TransportRequestParams, options?: TransportRequestOptions): Promise<T> {
    return super.request<T>(params, options).catch((err: unknown) => {
      throw translateEsError(err, params.path);
    });
  }
}

/**
 * Told of every request a client makes, once it settles: a bounded operation name (see
 * esOperation), its duration in ms, and its error (already translated) or null.
 */
export type EsObserver = (operation: string, ms: number, err: unknown) => void;

/**
 * The operation of a request path, for metrics: its first `_` segment (`_search`, `_bulk`,
 * `_doc`, `_cluster`, `_alias` ...), or `index` for a path with none (index creation, deletion).
 * Never an index name or an id: the set of values is bounded by Elasticsearch's API.
 */
export function esOperation(path: string): string {
  const seg = path.split('/').find((s) => s.startsWith('_'));
  return seg ? seg.replace(/[^A-Za-z0-9_]/g, '') : 'index';
}

/** The translating transport, also timing each request for `observe` when given. */
function transportFor(observe?: EsObserver): typeof TranslatingTransport {
  if (!observe) return TranslatingTransport;
  return class ObservedTransport extends TranslatingTransport {
    override request<T = unknown>(params: TransportRequestParams, options?: TransportRequestOptions): Promise<T> {
      const started = performance.now();
      return super.request<T>(params, options).then(
        (res) => {
          observe(esOperation(params.path), performance.now() - started, null);
          return res;
        },
        (err: unknown) => {
          observe(esOperation(params.path), performance.now() - started, err);
          throw err;
        },
      );
    }
  };
}

/** Creates a client for the configured cluster (`observe`: told of every request, for metrics). */
export function createEs(config: Pick<Config, 'esUrl'> & Partial<Pick<Config, 'esNodes'>>, opts: { maxRetries?: number; requestTimeout?: number; observe?: EsObserver } = {}): Es {
  return new Client({
    // Several nodes: the client spreads requests over them and retries a failed one on the next.
    ...(config.esNodes && config.esNodes.length > 1 ? { nodes: [...config.esNodes] } : { node: config.esUrl }),
    maxRetries: opts.maxRetries ?? 3,
    requestTimeout: opts.requestTimeout ?? 60_000,
    compression: false,
    Transport: transportFor(opts.observe),
  });
}

export interface EsHealth {
  status: 'green' | 'yellow' | 'red';
  number_of_nodes: number;
  cluster_name: string;
}

/** One `_cluster/health` call; null when nothing answers at the URL (ServiceUnavailableError). */
export async function esHealth(es: Es): Promise<EsHealth | null> {
  try {
    const h = await es.cluster.health({}, { requestTimeout: 3000, maxRetries: 0 });
    return { status: h.status.toLowerCase() as EsHealth['status'], number_of_nodes: h.number_of_nodes, cluster_name: h.cluster_name };
  } catch (err) {
    if (err instanceof ServiceUnavailableError) return null;
    throw err;
  }
}

/**
 * Waits until the cluster is at least yellow, or throws ServiceUnavailableError after
 * timeoutMs (the last health or error in its message, the last error as its cause).
 */
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
  const detail = `not healthy within ${timeoutMs} ms (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`;
  throw new ServiceUnavailableError({ service: 'elasticsearch', detail, cause: last instanceof Error ? last : undefined });
}
