/**
 * `bintel serve` and `bintel worker`: the API and the background jobs in the foreground. Wiring only.
 */
import cluster from 'node:cluster';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../core/config.ts';
import { JOB_KINDS, serve, startWorkers } from '../server/serve.ts';
import { startMetricsListener } from '../server/metrics.ts';
import { createServices } from '../server/context.ts';
import { guardProcess } from '../server/process-guard.ts';
import { example, positiveWhole } from './shared.ts';

/** Serves the API in the foreground until SIGINT/SIGTERM. */
export async function serveForeground(port?: number, host?: string): Promise<void> {
  const config = loadConfig();
  const services = createServices(config);
  // A rejection nobody handled is logged (error level, with its request id); it never ends the process.
  guardProcess(services.log);
  const running = await serve(config, { port, host: host ?? config.host, services });
  running.services.log.info({ url: running.url, namespace: config.namespace }, 'bintel API listening');
  process.stdout.write(`bintel API listening on ${running.url} (namespace ${config.namespace}); Ctrl-C stops it\n`);
  await untilStopped();
  await running.close();
  // A process of `serve --workers N` keeps its channel to the primary open: leave it once closed.
  if (cluster.isWorker) process.exit(0);
}

/**
 * `serve --workers N`: forks N server processes that share the listening port (node:cluster;
 * each is a whole API, state lives in Redis). SIGINT/SIGTERM is passed on; each finishes its
 * in-flight requests; the primary exits 0 once all have, 1 when one died otherwise. A worker
 * that dies while serving is replaced.
 */
async function servePrimary(workers: number): Promise<void> {
  let stopping = false;
  let failed = false;
  const fork = () => cluster.fork();
  for (let i = 0; i < workers; i++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    process.stderr.write(`bintel: server process ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
    failed = failed || code !== 0;
    fork();
  });
  await untilStopped();
  stopping = true;
  const alive = Object.values(cluster.workers ?? {}).filter((w): w is NonNullable<typeof w> => !!w);
  await Promise.all(
    alive.map(
      (w) =>
        new Promise<void>((resolve) => {
          w.once('exit', (code) => {
            failed = failed || (code !== 0 && code !== null);
            resolve();
          });
          w.process.kill('SIGTERM');
        }),
    ),
  );
  process.exitCode = failed ? 1 : 0;
}

/** Until SIGINT or SIGTERM. */
const untilStopped = (): Promise<void> =>
  new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });

/** Runs background jobs (async exports) in the foreground until SIGINT/SIGTERM, serving nothing. */
export async function workerForeground(concurrency?: number): Promise<void> {
  const base = loadConfig();
  const config = concurrency ? Object.freeze({ ...base, jobConcurrency: concurrency }) : base;
  const services = createServices(config);
  guardProcess(services.log);
  await services.redis.connect();
  const stopWorkers = startWorkers(services);
  const metrics = config.metricsPort === null ? null : await startMetricsListener(services, JOB_KINDS);
  services.log.info({ namespace: config.namespace, concurrency: config.jobConcurrency }, 'bintel worker running');
  process.stdout.write(`bintel worker running (namespace ${config.namespace}, ${config.jobConcurrency} jobs at once); Ctrl-C stops it after its running jobs\n`);
  await untilStopped();
  stopWorkers();
  await metrics?.close();
  await services.close();
}

/** Registers `bintel serve` and `bintel worker`. */
export function registerServerCommands(program: Command): void {
  example(
    program
      .command('worker')
      .summary('run background jobs (async exports, writing jobs)')
      .description('run background jobs (async exports, writing jobs) apart from the API; pair with BINTEL_WORKER_IN_PROCESS=0 on servers')
      .option('--concurrency <n>', 'jobs at once (default $BINTEL_JOB_CONCURRENCY or 2)', positiveWhole())
      .action((o: { concurrency?: number }) => workerForeground(o.concurrency)),
    'BINTEL_WORKER_IN_PROCESS=0 bintel worker --concurrency 4',
  );

  example(
    program
      .command('serve')
      .description('serve the HTTP API (PORT, default 3000)')
      .option('--port <n>', 'port (default $PORT or 3000)', (v) => Number(v))
      .option('--host <host>', 'interface to bind (default $BINTEL_HOST or 127.0.0.1)')
      .option('--workers <n>', 'server processes sharing the port (node:cluster); they share all state through Redis', (v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1 || n > 64) throw new InvalidArgumentError('expected a whole number from 1 to 64');
        return n;
      }, 1)
      .action((o: { port?: number; host: string; workers: number }) => (o.workers > 1 && cluster.isPrimary ? servePrimary(o.workers) : serveForeground(o.port, o.host))),
    'bintel serve --port 8080 --workers 2',
  );
}
