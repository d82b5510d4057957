/**
 * The lean search path of the list endpoint: one keep-alive undici pool that POSTs a search
 * body (or an `_mget` of ids, for detail reads) and parses the answer. The list call is the API's hot path, and the general client
 * (adapters/es.ts) spends CPU there on request building, events and response handling that
 * the list does not need (bench:ab measured the API's CPU per list call down 6-14% with this
 * path). Everything else (ingest, admin, lookups) keeps the general client.
 *
 * Failures are the typed errors of core/errors.ts, as from the general client: an error answer
 * through the same translation (es-errors.ts), a connection failure as ServiceUnavailableError.
 */
import { Pool } from 'undici';
import type { estypes } from '@elastic/elasticsearch';
import { ServiceUnavailableError } from '../errors.ts';
import { fromAnswer } from './es-errors.ts';
import type { EsObserver } from './es.ts';

export interface EsSearch {
  search<T>(index: string, body: Record<string, unknown>): Promise<estypes.SearchResponse<T>>;
  /** Documents by id (`_mget`): found ones with their source, the rest `found: false`. */
  mget<T>(index: string, ids: readonly string[]): Promise<{ docs: MgetDoc<T>[] }>;
  close(): Promise<void>;
}

/** One document of an `_mget` answer, as far as the reads use it. */
export interface MgetDoc<T> {
  _id: string;
  _index: string;
  found?: boolean;
  _source?: T;
}

/** Waits before asking again a node that answered 429 (too many requests); then the call is 503. */
const BUSY_BACKOFF_MS = [50, 200, 500] as const;

/** Connection-level failures worth one retry (a keep-alive socket closed by the server). */
const RETRYABLE = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** One node of the lean path: its pool, headers and path prefix. */
interface Node {
  origin: string;
  base: string;
  headers: Record<string, string>;
  pool: Pool;
}

/**
 * Creates the lean search path for the cluster at `esUrl` (one URL, or several nodes: requests
 * go round-robin, and a connection failure is retried once on the next node).
 */
export function createEsSearch(esUrl: string | readonly string[], opts: { requestTimeout?: number; observe?: EsObserver } = {}): EsSearch {
  const timeout = opts.requestTimeout ?? 60_000;
  const nodes: Node[] = (typeof esUrl === 'string' ? [esUrl] : esUrl).map((u) => {
    const url = new URL(u);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (url.username) headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    return { origin: url.origin, base: url.pathname.replace(/\/+$/, ''), headers, pool: new Pool(url.origin, { keepAliveTimeout: 30_000, headersTimeout: timeout, bodyTimeout: timeout }) };
  });
  let next = 0;

  async function once<T>(node: Node, index: string, body: string, endpoint: string): Promise<T> {
    for (let busy = 0; ; busy++) {
      const res = await node.pool.request({ method: 'POST', path: `${node.base}/${encodeURIComponent(index)}/${endpoint}`, headers: node.headers, body });
      const text = await res.body.text();
      // 429: the node's search queue is full. Back off and ask again (BUSY_BACKOFF_MS), then give up: 503.
      if (res.statusCode === 429 && busy < BUSY_BACKOFF_MS.length) {
        await new Promise((r) => setTimeout(r, BUSY_BACKOFF_MS[busy]));
        continue;
      }
      if (res.statusCode >= 300) throw answerError(res.statusCode, text, index);
      return JSON.parse(text) as T;
    }
  }

  /** One request to the next node (round-robin), retried as the module comment says. */
  async function send<T>(index: string, body: Record<string, unknown>, endpoint: string): Promise<T> {
    const json = JSON.stringify(body);
    const first = next;
    next = (next + 1) % nodes.length;
    for (let attempt = 0; ; attempt++) {
      const node = nodes[(first + attempt) % nodes.length];
      try {
        return await once<T>(node, index, json, endpoint);
      } catch (err) {
        if (!isNetworkError(err)) throw err; // an adapter error from the answer, or a bug
        // A closed keep-alive socket is retried on the same pool; another node is tried once when there is one.
        const again = attempt === 0 && (RETRYABLE.has(err.code ?? '') || nodes.length > 1);
        if (again) continue;
        throw new ServiceUnavailableError({ service: 'elasticsearch', detail: `${node.origin}: ${err.message}`, cause: err });
      }
    }
  }

  /** `send`, timed for `opts.observe` when given (metrics). */
  const observe = opts.observe;
  const timed = <T>(index: string, body: Record<string, unknown>, endpoint: string): Promise<T> => {
    if (!observe) return send<T>(index, body, endpoint);
    const started = performance.now();
    return send<T>(index, body, endpoint).then(
      (res) => {
        observe(endpoint, performance.now() - started, null);
        return res;
      },
      (err: unknown) => {
        observe(endpoint, performance.now() - started, err);
        throw err;
      },
    );
  };

  return {
    search: <T>(index: string, body: Record<string, unknown>) => timed<estypes.SearchResponse<T>>(index, body, '_search'),
    mget: <T>(index: string, ids: readonly string[]) => timed<{ docs: MgetDoc<T>[] }>(index, { ids }, '_mget'),
    close: () => Promise.all(nodes.map((n) => n.pool.close())).then(() => undefined),
  };
}

/** An error answer as a typed error; a body that is not JSON is kept as text for the logs. */
function answerError(statusCode: number, text: string, index: string): Error {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // A proxy's HTML page or an empty body: the text itself is the best description.
  }
  return fromAnswer({ statusCode, body, path: index });
}

/**
 * A failure of the connection rather than of our code: undici's errors and the socket's
 * (both carry a string `code`: UND_ERR_*, ECONNREFUSED, ECONNRESET ...). A SyntaxError from
 * JSON.parse of a 2xx body has none and passes through as the bug it is.
 */
function isNetworkError(err: unknown): err is Error & { code?: string } {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'string';
}
