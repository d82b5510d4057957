/**
 * A bulk writer with bounded concurrency and backpressure: `add` resolves once the batch is
 * in flight and fewer than `concurrency` requests are pending, so a reader that awaits it
 * never runs ahead of Elasticsearch. Whole-request failures (429, 5xx, connection) and
 * per-item 429/5xx are retried with exponential backoff; per-item 4xx reject that row.
 */
import type { Es } from '../core/adapters/es.ts';
import { RejectedError, ServiceUnavailableError } from '../core/errors.ts';
import type { PreparedRow, RejectedRow } from './transform.ts';

export interface BulkWriterOptions {
  es: Es;
  index: string;
  concurrency: number;
  /** Documents per `_bulk` request: rows added in smaller pieces are serialized at once and gathered up to this. */
  batchSize: number;
  /** Retries of one request before the load aborts. */
  maxRetries?: number;
  /** First backoff delay, ms (doubles each retry, capped at 15 s, with jitter). */
  backoffMs?: number;
  onIndexed: (n: number) => void;
  onRejected: (r: RejectedRow) => void;
  onRetry?: (attempt: number, reason: string) => void;
}

interface BulkItem {
  index?: { status: number; error?: { type?: string; reason?: string } };
}

/** The `_bulk` index action line of a document (with its newline). */
const actionLine = (id: string): string => `{"index":{"_id":${JSON.stringify(id)}}}\n`;

/** One `_bulk` index action and its document, as two NDJSON lines (without the final newline). */
export function toAction(r: PreparedRow): string {
  return `${actionLine(r.id)}${JSON.stringify(r.doc)}`;
}

/** Serializes rows as `_bulk` NDJSON index actions. */
export function toNdjson(rows: readonly PreparedRow[]): string {
  let s = '';
  for (const r of rows) s += `${toAction(r)}\n`;
  return s;
}

/**
 * A batch in flight: each document is serialized and its bytes copied at once into one buffer per
 * request (outside the JavaScript heap), so neither the row objects nor their JSON text outlive
 * the young generation, and the request body is that buffer as it stands. `ends[i]` is where
 * action i ends (after its newline); retries of some items copy their byte ranges out.
 */
export interface Flight {
  body: Buffer;
  size: number;
  ends: number[];
  rows: number[];
  lines: number[];
}

export const newFlight = (capacity: number): Flight => ({ body: Buffer.allocUnsafe(capacity), size: 0, ends: [], rows: [], lines: [] });

/** Appends one string's UTF-8 bytes, growing the buffer (by doubling) when it could not hold them. */
function append(f: Flight, s: string): void {
  const worst = f.size + s.length * 3 + 1;
  if (worst > f.body.length) {
    const grown = Buffer.allocUnsafe(Math.max(worst, f.body.length * 2));
    f.body.copy(grown, 0, 0, f.size);
    f.body = grown;
  }
  f.size += f.body.write(s, f.size, 'utf8');
}

/** Adds one row's index action and document, each line ending in a newline. */
export function addAction(f: Flight, r: PreparedRow): void {
  append(f, actionLine(r.id));
  append(f, JSON.stringify(r.doc));
  f.body[f.size++] = 0x0a;
  f.ends.push(f.size);
  f.rows.push(r.row);
  f.lines.push(r.line);
}

/** The requests of the items at `idx` (exported for its test: the retry path of per-item 429/5xx). */
export function pick(f: Flight, idx: number[]): Flight {
  const parts = idx.map((i) => f.body.subarray(i ? f.ends[i - 1] : 0, f.ends[i]));
  const body = Buffer.concat(parts);
  let at = 0;
  return { body, size: body.length, ends: parts.map((p) => (at += p.length)), rows: idx.map((i) => f.rows[i]), lines: idx.map((i) => f.lines[i]) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Unavailable (no answer, timeout, 429, 502-504) or a 5xx answer: worth another attempt. */
function retryable(err: unknown): boolean {
  return err instanceof ServiceUnavailableError || (err instanceof RejectedError && (err.statusCode ?? 0) >= 500);
}

export class BulkWriter {
  private readonly pending = new Set<Promise<void>>();
  private failure: Error | null = null;
  private readonly opts: Required<Omit<BulkWriterOptions, 'onRetry'>> & Pick<BulkWriterOptions, 'onRetry'>;

  constructor(opts: BulkWriterOptions) {
    this.opts = { maxRetries: 8, backoffMs: 250, ...opts };
  }

  /** Bytes the last request held: the next one starts at that size instead of growing to it. */
  private capacity = 1 << 20;

  /** Documents serialized and not yet sent (fewer than batchSize). */
  private open = newFlight(this.capacity);

  /**
   * Bodies of answered requests, written over by the next ones: a new buffer per request lived
   * outside the heap until a full collection found its Buffer object dead, which with few full
   * collections held 50-60 MB of old bodies (`external` in BINTEL_DEBUG_GC's lines).
   */
  private readonly spare: Buffer[] = [];

  /** An empty request on a spare body when one is large enough. */
  private reuse(): Flight {
    while (this.spare.length) {
      const body = this.spare.pop() as Buffer;
      if (body.length >= this.capacity) return { body, size: 0, ends: [], rows: [], lines: [] };
    }
    return newFlight(this.capacity);
  }

  /**
   * Serializes rows into the open request, and sends it once it holds `batchSize` documents;
   * waits while `concurrency` requests are in flight. Throws once a request has failed for good.
   */
  async add(rows: readonly PreparedRow[]): Promise<void> {
    if (this.failure) throw this.failure;
    for (const r of rows) {
      addAction(this.open, r);
      if (this.open.ends.length >= this.opts.batchSize) await this.dispatch();
    }
  }

  /** Sends the open request, then waits until fewer than `concurrency` are in flight. */
  private async dispatch(): Promise<void> {
    const flight = this.open;
    if (!flight.ends.length) return;
    this.capacity = Math.max(this.capacity, flight.size + (flight.size >> 3));
    this.open = this.reuse();
    const p = this.send(flight).then(
      () => void this.spare.push(flight.body),
      (err: unknown) => {
        this.failure ??= err instanceof Error ? err : new Error(String(err));
      },
    );
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
    while (this.pending.size >= this.opts.concurrency) await Promise.race(this.pending);
    if (this.failure) throw this.failure;
  }

  /** Sends what is left and waits for every request in flight. */
  async flush(): Promise<void> {
    if (!this.failure) await this.dispatch();
    await Promise.all(this.pending);
    if (this.failure) throw this.failure;
  }

  private async send(flight: Flight): Promise<void> {
    let todo = flight;
    for (let attempt = 0; ; attempt++) {
      let items: BulkItem[];
      try {
        items = await this.request(todo);
      } catch (err) {
        if (!retryable(err) || attempt >= this.opts.maxRetries) throw new Error(`bulk request to ${this.opts.index} failed: ${describe(err)}`);
        await this.backoff(attempt, describe(err));
        continue;
      }
      const retry: number[] = [];
      let indexed = 0;
      items.forEach((item, i) => {
        const res = item.index;
        if (!res || res.status < 300) indexed++;
        else if (res.status === 429 || res.status >= 500) retry.push(i);
        else this.opts.onRejected({ row: todo.rows[i], line: todo.lines[i], issues: [{ field: '(document)', issue: 'rejected_by_elasticsearch', expected: `${res.error?.type ?? res.status}: ${res.error?.reason ?? ''}`.slice(0, 300) }] });
      });
      this.opts.onIndexed(indexed);
      if (!retry.length) return;
      if (attempt >= this.opts.maxRetries) throw new Error(`bulk load into ${this.opts.index}: ${retry.length} documents still rejected with 429/5xx after ${attempt} retries`);
      todo = pick(todo, retry);
      await this.backoff(attempt, `${retry.length} items rejected with 429/5xx`);
    }
  }

  private async request(f: Flight): Promise<BulkItem[]> {
    const res = (await this.opts.es.transport.request(
      { method: 'POST', path: `/${encodeURIComponent(this.opts.index)}/_bulk`, bulkBody: f.body.subarray(0, f.size), querystring: { filter_path: 'errors,items.*.status,items.*.error' } },
      { maxRetries: 0, requestTimeout: 120_000 },
    )) as { errors: boolean; items?: BulkItem[] };
    if (!res.errors) return f.rows.map(() => ({ index: { status: 201 } }));
    return res.items ?? [];
  }

  private async backoff(attempt: number, reason: string): Promise<void> {
    this.opts.onRetry?.(attempt + 1, reason);
    const base = Math.min(15_000, this.opts.backoffMs * 2 ** attempt);
    await sleep(base / 2 + Math.random() * (base / 2));
  }
}

function describe(err: unknown): string {
  if (err instanceof RejectedError) return `HTTP ${err.statusCode}: ${(err.body ?? '').slice(0, 300)}`;
  return err instanceof Error ? err.message : String(err);
}
