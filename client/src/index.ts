/**
 * The bintel client: one method per operationId of the OpenAPI document, typed from it
 * (generated.ts), over the global `fetch`. A call resolves to a success or a failure, never
 * throws for an answer of the API: `if (!res.ok)` narrows to the error envelope of the documented
 * statuses, with `retryAfter` read from Retry-After. It throws only when no API answer came
 * (network, abort) or the answer is not the API's (a proxy's HTML page): `BintelClientError`.
 *
 *     const bintel = createClient({ baseUrl: 'http://localhost:3000', token: process.env.KEY });
 *     const res = await bintel.getCompanies({ query: { states: ['TX'], page_size: 50 } });
 *     if (res.ok) console.log(res.data.map((c) => c.company_name), res.meta.total_count);
 *     else if (res.status === 429) await sleep((res.retryAfter ?? 1) * 1000);
 */
import { OPERATIONS, type Operations } from './generated.ts';
import type { Failure, ErrorEnvelope, OperationSpec, RateLimit, StreamSuccess } from './result.ts';

export * from './generated.ts';
export type * from './result.ts';

/** Options of `createClient`. */
export interface ClientOptions {
  /** The server, e.g. `http://localhost:3000` (paths start with /v1). */
  baseUrl: string;
  /** An API key (bk_live_…, bk_test_…) or a JWT, sent as a Bearer token. */
  token?: string;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
  /** A fetch implementation; the global one by default. */
  fetch?: typeof fetch;
}

/** Per-call options besides the operation's own arguments. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Extra headers (X-Request-Id to correlate, If-Match ...). */
  headers?: Record<string, string>;
}

/** The arguments of an operation, optional when none is required. */
type Call<A, R> = Record<string, never> extends A ? (args?: A, options?: CallOptions) => Promise<R> : (args: A, options?: CallOptions) => Promise<R>;

/** The client: a method per operationId. */
export type BintelClient = { [K in keyof Operations]: Call<Operations[K]['args'], Operations[K]['result']> };

/** No answer of the API: a network failure, or a response that is not the API's (not its envelope). */
export class BintelClientError extends Error {
  override name = 'BintelClientError';
  constructor(
    message: string,
    /** The HTTP status, when a response came. */
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

type Args = { path?: Record<string, string | number>; query?: Record<string, unknown>; body?: unknown; headers?: Record<string, string> };

/** The query string: arrays comma-joined (or repeated when the document says so), objects as deepObject `name[key]=value`. */
export function queryString(query: Record<string, unknown> = {}, repeat: readonly string[] = []): string {
  const out = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      if (repeat.includes(name)) value.forEach((v) => out.append(name, String(v)));
      else out.append(name, value.map(String).join(','));
    } else if (typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) if (v !== undefined && v !== null) out.append(`${name}[${key}]`, String(v));
    } else out.append(name, String(value));
  }
  const s = out.toString();
  return s ? `?${s}` : '';
}

/** The path with `{name}` filled in, each value URL-encoded. */
const fillPath = (template: string, values: Record<string, string | number> = {}): string =>
  template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (values[name] === undefined) throw new BintelClientError(`${template}: path parameter ${name} is missing`);
    return encodeURIComponent(String(values[name]));
  });

/** Retry-After in seconds: a number of seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

function rateLimitOf(headers: Headers): RateLimit | null {
  const [limit, remaining, reset] = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].map((h) => headers.get(h));
  if (limit === null || remaining === null || reset === null) return null;
  return { limit: Number(limit), remaining: Number(remaining), reset: Number(reset) };
}

/** The parsed JSON body, or a BintelClientError naming what came instead. */
async function jsonOf(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (cause) {
    throw new BintelClientError(`HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`, res.status, { cause });
  }
}

/** One response read as the operation's result. */
async function resultOf(spec: OperationSpec, res: Response): Promise<unknown> {
  const common = { status: res.status, headers: res.headers, requestId: res.headers.get('x-request-id'), rateLimit: rateLimitOf(res.headers) };
  const type = res.headers.get('content-type') ?? '';
  if (res.ok && spec.kind === 'stream') {
    if (!res.body) throw new BintelClientError(`HTTP ${res.status} without a body`, res.status);
    return { ...common, ok: true, kind: 'stream', contentType: type, body: res.body } satisfies StreamSuccess<number>;
  }
  if (!type.includes('json')) {
    const text = await res.text();
    throw new BintelClientError(`HTTP ${res.status} ${type || 'without a content type'}, not the API's JSON: ${text.slice(0, 200)}`, res.status);
  }
  const body = await jsonOf(res);
  if (res.ok && spec.kind === 'json') return { ...common, ok: true, kind: 'json', data: body };
  if (body.ok === true && res.ok) return { ...common, ok: true, kind: 'envelope', data: body.data, meta: body.meta };
  if (body.ok === false && !res.ok) {
    const envelope = body as unknown as ErrorEnvelope;
    return { ...common, ok: false, kind: 'error', error: envelope.error, meta: envelope.meta, retryAfter: retryAfterSeconds(res.headers.get('retry-after')) } satisfies Failure<number, ErrorEnvelope>;
  }
  throw new BintelClientError(`HTTP ${res.status} with a body that is not the envelope: ${JSON.stringify(body).slice(0, 200)}`, res.status);
}

/** A client of the server at `options.baseUrl`. */
export function createClient(options: ClientOptions): BintelClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;
  const call = async (spec: OperationSpec, args: Args = {}, init: CallOptions = {}): Promise<unknown> => {
    const headers: Record<string, string> = { accept: spec.kind === 'stream' ? '*/*' : 'application/json', ...options.headers, ...args.headers, ...init.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (args.body !== undefined) headers['content-type'] = 'application/json';
    const url = base + fillPath(spec.path, args.path) + queryString(args.query, spec.repeat);
    let res: Response;
    try {
      res = await doFetch(url, { method: spec.method, headers, body: args.body === undefined ? undefined : JSON.stringify(args.body), signal: init.signal });
    } catch (cause) {
      throw new BintelClientError(`${spec.method} ${spec.path}: no answer (${(cause as Error).message})`, null, { cause });
    }
    return resultOf(spec, res);
  };
  const methods = Object.entries(OPERATIONS).map(([id, spec]) => [id, (args?: Args, init?: CallOptions) => call(spec, args, init)]);
  return Object.fromEntries(methods) as BintelClient;
}
