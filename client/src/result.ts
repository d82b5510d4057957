/**
 * What a call of the client resolves to: a success (the envelope's data and meta, a stream of
 * bytes for CSV and files, or plain JSON for the document) or a failure (the error envelope,
 * typed by status, with Retry-After read). Hand-written; the generated operations use them.
 */

/** The RateLimit-* headers of an authenticated response. */
export interface RateLimit {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
}

/** What every answer carries besides its body. */
export interface Answer<S extends number> {
  status: S;
  headers: Headers;
  /** X-Request-Id: quote it in a bug report. */
  requestId: string | null;
  /** RateLimit-* headers, when the response had them (keyed calls). */
  rateLimit: RateLimit | null;
}

/** A success in the envelope: `{ok: true, data, meta}`. */
export interface EnvelopeSuccess<S extends number, D, M> extends Answer<S> {
  ok: true;
  kind: 'envelope';
  data: D;
  meta: M;
}

/** A success whose body is a file (CSV, an asset, the docs page), as a stream of bytes, unread. */
export interface StreamSuccess<S extends number> extends Answer<S> {
  ok: true;
  kind: 'stream';
  contentType: string;
  /** The body, unread: read it once (`body.getReader()`, `body.pipeTo(...)`) or cancel it. */
  body: ReadableStream<Uint8Array>;
}

/** A success in plain JSON, outside the envelope (the OpenAPI document). */
export interface JsonSuccess<S extends number, D> extends Answer<S> {
  ok: true;
  kind: 'json';
  data: D;
}

/** The error envelope of one status. */
export interface ErrorEnvelope {
  ok: false;
  error: { code: string; message: string; details: unknown[]; request_id: string };
  meta: { credits_charged: 0 };
}

/** A failure: the error envelope of status `S`, with `Retry-After` in seconds when the server sent it (429, 503). */
export interface Failure<S extends number, E extends ErrorEnvelope> extends Answer<S> {
  ok: false;
  kind: 'error';
  error: E['error'];
  meta: E['meta'];
  /** Seconds to wait before the same call can succeed (Retry-After); null when absent. */
  retryAfter: number | null;
}

/** One operation's types: its arguments and what it resolves to. */
export interface OperationTypes<A, R> {
  args: A;
  result: R;
}

/** How the runtime calls one operation (the generated OPERATIONS table). */
export interface OperationSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path template, `{name}` filled from `args.path`. */
  path: string;
  /** How a success is read: the envelope, a byte stream, or plain JSON. */
  kind: 'envelope' | 'stream' | 'json';
  /** Array query parameters sent once per value (`a=1&a=2`) rather than comma-joined. */
  repeat?: readonly string[];
}
