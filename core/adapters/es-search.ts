/**
 * The lean search path of the list endpoint: one keep-alive undici pool that POSTs a search
 * body and parses the answer. The list call is the API's hot path, and the general client
 * (adapters/es.ts) spends CPU there on request building, events and response handling that
 * the list does not need (bench:ab measured the API's CPU per list call down 6-14% with this
 * path). Everything else (ingest, admin, lookups) keeps the general client.
 */
import { Pool, errors as undiciErrors } from 'undici';
import type { estypes } from '@elastic/elasticsearch';

export interface EsSearch {
  search<T>(index: string, body: Record<string, unknown>): Promise<estypes.SearchResponse<T>>;
  close(): Promise<void>;
}

/** Elasticsearch answered with an error status (a bug in a query we built, or a cluster problem). */
export class EsResponseError extends Error {
  override name = 'ResponseError';
  constructor(readonly statusCode: number, readonly body: string) {
    super(`Elasticsearch answered ${statusCode}: ${body.slice(0, 500)}`);
  }
}

/** Nothing answered, or the connection broke: callers render it as 503. */
export class EsConnectionError extends Error {
  override name = 'ConnectionError';
}

/** Connection-level failures worth one retry (a keep-alive socket closed by the server). */
const RETRYABLE = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

export function createEsSearch(esUrl: string, opts: { requestTimeout?: number } = {}): EsSearch {
  const url = new URL(esUrl);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (url.username) headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  const base = url.pathname.replace(/\/+$/, '');
  const timeout = opts.requestTimeout ?? 60_000;
  const pool = new Pool(url.origin, { keepAliveTimeout: 30_000, headersTimeout: timeout, bodyTimeout: timeout });

  async function once<T>(index: string, body: string): Promise<estypes.SearchResponse<T>> {
    const res = await pool.request({ method: 'POST', path: `${base}/${encodeURIComponent(index)}/_search`, headers, body });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new EsResponseError(res.statusCode, text);
    return JSON.parse(text) as estypes.SearchResponse<T>;
  }

  return {
    async search<T>(index: string, body: Record<string, unknown>) {
      const json = JSON.stringify(body);
      for (let attempt = 0; ; attempt++) {
        try {
          return await once<T>(index, json);
        } catch (err) {
          if (err instanceof EsResponseError) throw err;
          const code = (err as { code?: string }).code ?? '';
          if (attempt === 0 && RETRYABLE.has(code)) continue;
          if (err instanceof undiciErrors.UndiciError || /ECONN|ETIMEDOUT|EHOSTUNREACH/.test(code)) throw new EsConnectionError(`Elasticsearch at ${url.origin}: ${(err as Error).message}`, { cause: err });
          throw err;
        }
      }
    },
    close: () => pool.close(),
  };
}
