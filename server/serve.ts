/**
 * Starting and stopping the HTTP server.
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { Config } from '../core/config.ts';
import { createServices, type Services } from './context.ts';
import { createApp, type AppOptions } from './app.ts';
import { cleanupExports } from './jobs/kinds/export.ts';
import { exportJobKind } from './jobs/kinds/export.ts';
import { sweep } from './jobs/sweeper.ts';
import { writingJobKind } from './jobs/kinds/writing.ts';
import type { ErrorCode, IssueCode } from './errors.ts';
import { startMetricsListener } from './metrics.ts';

export interface Running {
  server: Server;
  services: Services;
  url: string;
  /** The Prometheus endpoint (its own port), when BINTEL_METRICS_PORT is set. */
  metricsUrl: string | null;
  close: () => Promise<void>;
}

/** ioredis states in which `connect()` starts a connection (in the others it refuses: already connecting or connected). */
const IDLE = new Set(['wait', 'end', 'close']);

/** Listens on `port` (0: any free port) at config.host unless `host` is given. */
export async function serve(config: Config, opts: { port?: number; host?: string; services?: Services } & AppOptions = {}): Promise<Running> {
  const services = opts.services ?? createServices(config);
  // Only an idle client is connected here: services passed in may be connected (or connecting) already.
  if (IDLE.has(services.redis.status)) {
    await services.redis.connect().catch((err: Error) => {
      throw new Error(`Redis at ${config.redisUrl} does not answer: ${err.message}`, { cause: err });
    });
  }
  const app = createApp(services, { routes: opts.routes, access: opts.access });
  const host = opts.host ?? config.host;
  const server = app.listen(opts.port ?? config.port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  // Background jobs run here too unless config.workerInProcess is off (then `bintel worker` runs them).
  const stopWorkers = config.workerInProcess ? startWorkers(services) : null;
  const metrics = config.metricsPort === null ? null : await startMetricsListener(services, JOB_KINDS);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    server,
    services,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    metricsUrl: metrics?.url ?? null,
    close: async () => {
      // Stop accepting; idle keep-alive connections close now, in-flight requests get up to
      // BINTEL_SHUTDOWN_MS to finish, then what is left is cut.
      const drained = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections?.();
      const bound = new Promise<void>((r) => setTimeout(r, config.shutdownMs).unref());
      await Promise.race([drained, bound]);
      server.closeAllConnections?.();
      stopWorkers?.();
      await metrics?.close();
      await services.close();
    },
  };
}

/** The kinds of background job this service runs. */
export const JOB_KINDS = [exportJobKind, writingJobKind] as const;

/**
 * Starts this process's workers, the hourly cleanup of expired export files (never a file being
 * written nor a running job's) and the reservation sweeper (every BINTEL_JOB_SWEEP_AFTER_S / 2);
 * returns what stops the timers.
 */
export function startWorkers(services: Services): () => void {
  const { log, config } = services;
  services.jobs.work(JOB_KINDS, services);
  const cleanup = setInterval(() => void cleanupExports(services).catch((err: Error) => log.warn({ err: err.message }, 'export cleanup failed; retried in an hour')), 3_600_000);
  const sweeper = setInterval(() => void sweep(services, JOB_KINDS, config.jobSweepAfterS).catch((err: Error) => log.warn({ err: err.message }, 'reservation sweep failed; retried')), (config.jobSweepAfterS * 1000) / 2);
  cleanup.unref();
  sweeper.unref();
  return () => {
    clearInterval(cleanup);
    clearInterval(sweeper);
  };
}

/**
 * Requests Node's HTTP parser refuses before the app sees them (request line and headers over
 * 16 KB, malformed HTTP) still get the error envelope, not a bare status line.
 */
function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const large = err.code === 'HPE_HEADER_OVERFLOW';
  const [status, reason, code, message, issue]: [number, string, ErrorCode, string, IssueCode] = large
    ? [431, 'Request Header Fields Too Large', 'REQUEST_TOO_LARGE', 'The request line and headers may total at most 16 KB; send long id lists in a batch body (POST)', 'too_long']
    : [400, 'Bad Request', 'VALIDATION_ERROR', 'Malformed HTTP request', 'malformed_request'];
  const requestId = `req_${randomUUID().replace(/-/g, '')}`;
  const body = JSON.stringify({ ok: false, error: { code, message, details: [{ field: 'request', issue }], request_id: requestId }, meta: { credits_charged: 0 } });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`);
}
