/**
 * The Elasticsearch adapter: the only module that constructs the client.
 * This distribution may lack `GET /`, so health is always `_cluster/health`.
 */
import { Client, errors } from '@elastic/elasticsearch';
import type { Config } from '../config.ts';

export type Es = Client;

/** Creates a client for the configured cluster. */
export function createEs(config: Pick<Config, 'esUrl'>, opts: { maxRetries?: number; requestTimeout?: number } = {}): Es {
  return new Client({
    node: config.esUrl,
    maxRetries: opts.maxRetries ?? 3,
    requestTimeout: opts.requestTimeout ?? 60_000,
    compression: false,
  });
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
    if (err instanceof errors.ConnectionError || err instanceof errors.TimeoutError || err instanceof errors.NoLivingConnectionsError) return null;
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

export { errors as esErrors };
