/**
 * Prometheus metrics (prom-client): one registry per process, served in the text format on a
 * port of its own (BINTEL_METRICS_PORT, bound to BINTEL_METRICS_HOST), never on the API port.
 * Counters and histograms are updated where things happen (the HTTP middleware below, the
 * Elasticsearch and Redis adapters' observers, credit debits and refunds, job outcomes); the
 * gauges (queue depth, index state) are read when Prometheus scrapes. Every label has a bounded
 * set of values: a route template, never a raw path; an Elasticsearch operation, never an index.
 * The list, and the alerts worth setting, are in docs/operations.md#metrics.
 */
import http from 'node:http';
import type { Context, Next } from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { NotFoundError, RejectedError, ServiceUnavailableError } from '../core/errors.ts';
import type { Services } from './context.ts';
import { generationOf, readAliases, readVectorStates } from './index-state.ts';

/** A job kind as the gauges see it: the name of its queue. */
type QueueName = { readonly name: string };

export const registry = new Registry();

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const FAST_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

const httpRequests = new Counter({ name: 'bintel_http_requests_total', help: 'HTTP requests answered, by method, route template and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
const httpDuration = new Histogram({ name: 'bintel_http_request_duration_seconds', help: 'Time to answer an HTTP request (to the first byte of a streamed body), by method, route template and status', labelNames: ['method', 'route', 'status'], buckets: SECONDS, registers: [registry] });
const refusals = new Counter({ name: 'bintel_refusals_total', help: 'Calls refused by a limit: rate_limited, crawl_detected, daily_cap_exceeded, quota_exceeded, insufficient_credits', labelNames: ['reason'], registers: [registry] });
const esDuration = new Histogram({ name: 'bintel_es_request_duration_seconds', help: 'Elasticsearch requests of this process, by operation (_search, _mget, _bulk ...)', labelNames: ['operation'], buckets: SECONDS, registers: [registry] });
const esErrors = new Counter({ name: 'bintel_es_errors_total', help: 'Elasticsearch requests that failed, by operation and kind (unavailable, not_found, rejected, other)', labelNames: ['operation', 'kind'], registers: [registry] });
const redisDuration = new Histogram({ name: 'bintel_redis_command_duration_seconds', help: 'Redis commands of the API client, by command', labelNames: ['command'], buckets: FAST_SECONDS, registers: [registry] });
const redisErrors = new Counter({ name: 'bintel_redis_errors_total', help: 'Redis commands that failed, by command and kind (unavailable, out_of_memory, rejected, other)', labelNames: ['command', 'kind'], registers: [registry] });
const creditsDebited = new Counter({ name: 'bintel_credits_debited_milli_total', help: 'Milli-credits debited from organization pools (paid reads, job reservations)', registers: [registry] });
const creditsRefunded = new Counter({ name: 'bintel_credits_refunded_milli_total', help: 'Milli-credits given back (undelivered rows, settled or released job reservations)', registers: [registry] });
const jobsFinished = new Counter({ name: 'bintel_jobs_finished_total', help: 'Job runs of this process by kind and outcome: completed, retried (a run failed, another follows), failed (for good)', labelNames: ['kind', 'outcome'], registers: [registry] });
const queueDepth = new Gauge({ name: 'bintel_jobs_queue_depth', help: 'Jobs in the queue by kind and state (waiting, active, delayed, failed), read at scrape', labelNames: ['kind', 'state'], registers: [registry] });
const aliasReady = new Gauge({ name: 'bintel_index_alias_ready', help: '1 when the live alias of the resource exists, 0 when missing (readiness fails), read at scrape', labelNames: ['resource'], registers: [registry] });
const generation = new Gauge({ name: 'bintel_index_generation_timestamp_seconds', help: 'Creation time of the index version the live alias points at', labelNames: ['resource'], registers: [registry] });
const vectorsReady = new Gauge({ name: 'bintel_index_vectors_ready', help: '1 when the lookalike graph of the live index is built, 0 while it is building (lookalikes exact and slower)', labelNames: ['resource'], registers: [registry] });
const indexInfo = new Gauge({ name: 'bintel_index_info', help: 'The index version behind each live alias (value 1)', labelNames: ['resource', 'alias', 'index'], registers: [registry] });
const scrapeErrors = new Counter({ name: 'bintel_metrics_read_errors_total', help: 'Gauges that could not be read at a scrape (their source did not answer), by source', labelNames: ['source'], registers: [registry] });

let defaultsStarted = false;

/** Process metrics (CPU, memory, event-loop lag, GC), started with the first metrics listener. */
function startDefaults(): void {
  if (defaultsStarted) return;
  defaultsStarted = true;
  collectDefaultMetrics({ register: registry });
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Error codes counted as refusals (bintel_refusals_total). */
const REFUSALS = new Set(['RATE_LIMITED', 'CRAWL_DETECTED', 'DAILY_CAP_EXCEEDED', 'QUOTA_EXCEEDED', 'INSUFFICIENT_CREDITS']);

/**
 * A matched route as a label: its path template (`/v1/:resource`); a route declared by a regular
 * expression (the detail routes, `^\/v1\/companies\/[^/]+$`) as the template it stands for
 * (`/v1/companies/:id`); `unmatched` when no route knows the path.
 */
export function routeLabel(matched: unknown): string {
  if (typeof matched === 'string') return matched;
  if (matched instanceof RegExp) return matched.source.replace(/^\^/, '').replace(/\$$/, '').replace(/\[\^\/\]\+/g, ':id').replace(/\\(.)/g, '$1');
  return 'unmatched';
}

/**
 * The series of each label set, looked up once: prom-client hashes a label object on every
 * `inc`/`observe`, a cost paid per request (and per Redis command) otherwise. The label values are
 * bounded sets (methods, route templates, statuses, command and operation names).
 */
const httpSeriesByKey = new Map<string, { requests: ReturnType<typeof httpRequests.labels>; duration: ReturnType<typeof httpDuration.labels> }>();
function httpSeries(method: string, route: string, status: number) {
  const key = `${method} ${status} ${route}`;
  let s = httpSeriesByKey.get(key);
  if (!s) {
    const labels = { method, route, status: String(status) };
    httpSeriesByKey.set(key, (s = { requests: httpRequests.labels(labels), duration: httpDuration.labels(labels) }));
  }
  return s;
}
const redisSeries = new Map<string, ReturnType<typeof redisDuration.labels>>();
const esSeries = new Map<string, ReturnType<typeof esDuration.labels>>();

/**
 * The outermost middleware: counts and times every answer by its route template (the router's
 * matched path, `/v1/:resource/:id`; `unmatched` when no route knows the path) and status.
 */
export function httpMetrics() {
  return async function metricsMiddleware(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    try {
      await next();
    } finally {
      const { requests, duration } = httpSeries(METHODS.has(ctx.method) ? ctx.method : 'other', routeLabel(ctx._matchedRoute), ctx.status);
      requests.inc();
      duration.observe((performance.now() - started) / 1000);
      const code = (ctx.body as { error?: { code?: unknown } } | null)?.error?.code;
      if (typeof code === 'string' && REFUSALS.has(code)) refusals.inc({ reason: code.toLowerCase() });
    }
  };
}

const kindOf = (err: unknown): string => {
  if (err instanceof ServiceUnavailableError) return err.full ? 'out_of_memory' : 'unavailable';
  if (err instanceof NotFoundError) return 'not_found';
  if (err instanceof RejectedError) return 'rejected';
  return 'other';
};

/** The Elasticsearch adapters' observer (createEs / createEsSearch `observe`). */
export function observeEs(operation: string, ms: number, err: unknown): void {
  let series = esSeries.get(operation);
  if (!series) esSeries.set(operation, (series = esDuration.labels({ operation })));
  series.observe(ms / 1000);
  if (err) esErrors.inc({ operation, kind: kindOf(err) });
}

/** The Redis adapter's observer (createRedis `observe`). */
export function observeRedis(command: string, ms: number, err: Error | null): void {
  let series = redisSeries.get(command);
  if (!series) redisSeries.set(command, (series = redisDuration.labels({ command })));
  series.observe(ms / 1000);
  if (err) redisErrors.inc({ command, kind: kindOf(err) });
}

/** Milli-credits debited from a pool. */
export const countDebit = (milli: number): void => {
  if (milli > 0) creditsDebited.inc(milli);
};

/** Milli-credits given back to a pool. */
export const countRefund = (milli: number): void => {
  if (milli > 0) creditsRefunded.inc(milli);
};

/** A job run of this process ended: completed, retried or failed. */
export const countJob = (kind: string, outcome: 'completed' | 'retried' | 'failed'): void => {
  jobsFinished.inc({ kind, outcome });
};

/** Reads the gauges from Redis (queue depth) and Elasticsearch (live aliases, their versions and graphs). */
async function readGauges(services: Services, kinds: readonly QueueName[]): Promise<void> {
  const queues = Promise.all(
    kinds.map(async (kind) => {
      const counts = await services.jobs.counts(kind);
      for (const [state, n] of Object.entries(counts)) queueDepth.set({ kind: kind.name, state }, n);
    }),
  ).catch(() => scrapeErrors.inc({ source: 'redis' }));
  const indices = (async () => {
    const aliases = await readAliases(services.es, services.config.namespace);
    const present = aliases.filter((a) => a.index).map((a) => a.index!);
    const vectors = await readVectorStates(services.es, present);
    indexInfo.reset();
    generation.reset();
    vectorsReady.reset();
    for (const a of aliases) {
      aliasReady.set({ resource: a.resource }, a.index ? 1 : 0);
      if (!a.index) continue;
      indexInfo.set({ resource: a.resource, alias: a.alias, index: a.index }, 1);
      const g = generationOf(a.index);
      if (g !== null) generation.set({ resource: a.resource }, g);
      vectorsReady.set({ resource: a.resource }, vectors.get(a.index) === 'building' ? 0 : 1);
    }
  })().catch(() => scrapeErrors.inc({ source: 'elasticsearch' }));
  await Promise.all([queues, indices]);
}

/** The metrics text (Prometheus format), gauges read first. */
export async function renderMetrics(services: Services, kinds: readonly QueueName[]): Promise<string> {
  await readGauges(services, kinds);
  return registry.metrics();
}

export interface MetricsListener {
  url: string;
  close: () => Promise<void>;
}

/**
 * Serves `GET /metrics` on config.metricsPort at config.metricsHost (its own listener, no key:
 * keep the port off the public network); every other path is 404.
 */
export async function startMetricsListener(services: Services, kinds: readonly QueueName[]): Promise<MetricsListener> {
  const { config, log } = services;
  startDefaults();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: the metrics are at GET /metrics\n');
      return;
    }
    renderMetrics(services, kinds).then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (err: Error) => {
        log.warn({ err: err.message }, 'metrics scrape failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.metricsPort ?? 0, config.metricsHost, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.metricsPort;
  const host = config.metricsHost === '0.0.0.0' ? '127.0.0.1' : config.metricsHost;
  log.info({ port, host: config.metricsHost }, 'metrics listening');
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections?.();
      }),
  };
}
