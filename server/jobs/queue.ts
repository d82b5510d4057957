/**
 * Background jobs on a Redis queue (BullMQ): async exports now, writing jobs next. A server
 * process enqueues; workers (in the server process by default, or `bintel worker` processes to
 * scale out) run the jobs. BullMQ gives what the money needs:
 *
 * - a lease per running job (`lockDuration`), renewed while the worker lives. A worker that dies
 *   (SIGKILL, OOM, a lost machine) stops renewing; another worker's stalled-job check gives the
 *   job to a live worker, which runs it again from the start (a kind's `run` must be safe to
 *   repeat), and a job that lapses twice is failed;
 * - attempts with backoff for a job whose run throws;
 * - job ids we choose (the export id), so a job is enqueued once.
 *
 * What a job holds (credits reserved) is settled by the kind, exactly once, by a Redis script
 * (CreditService.settleOnce): `run` settles on success and on its last failed attempt, `failed`
 * (called when BullMQ fails a job for good, a lapsed lease included) settles what is left.
 */
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../../core/config.ts';
import type { RedisKeys } from '../../core/names.ts';
import type { Services } from '../context.ts';
import { createRedis, type RedisClient } from '../../core/adapters/redis.ts';
import { countJob } from '../metrics.ts';

/** What the queues need of the process: built before the services that job kinds use. */
export interface QueueDeps {
  config: Config;
  rk: RedisKeys;
  log: Logger;
}

/** One attempt of a job, as its kind sees it. */
export interface Attempt {
  /** Runs started so far, this one included (a run whose worker died counts). */
  number: number;
  /** No attempt follows this one if it throws. */
  final: boolean;
}

/** A kind of job: its queue name, how to run one, and what to release when one fails for good. */
export interface JobKind<P> {
  readonly name: string;
  run(services: Services, payload: P, attempt: Attempt): Promise<void>;
  /** The job failed for good (`reason`): release what it holds. May be called after `run` settled; must be idempotent. */
  failed(services: Services, payload: P, reason: string): Promise<void>;
}

/** A failure that another run would repeat (bad input, a forced failure, a model's refusal): no retry. */
export class TerminalJobError extends Error {}

/** Finished jobs are kept this long in the queue (our own job records carry the user-facing state). */
const KEEP_FINISHED_S = 24 * 3600;

export class JobQueues {
  private readonly queues = new Map<string, Queue>();
  private readonly workers: Worker[] = [];
  private readonly workerConns: RedisClient[] = [];
  private conn: RedisClient | null = null;

  constructor(private readonly deps: QueueDeps) {}

  /** The connection enqueuing shares: commands fail fast (503) when Redis is away, as every request's do. */
  private connection(): RedisClient {
    this.conn ??= createRedis(this.deps.config, { autoPipelining: false });
    return this.conn;
  }

  private queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection(), prefix: this.deps.rk.queuePrefix() });
      q.on('error', (err) => this.deps.log.warn({ err: err.message, queue: name }, 'queue error'));
      this.queues.set(name, q);
    }
    return q;
  }

  /** Enqueues a job of `kind` under `id` (a second add of the same id is a no-op). */
  async add<P>(kind: JobKind<P>, id: string, payload: P): Promise<void> {
    const { config } = this.deps;
    await this.queue(kind.name).add(kind.name, payload, {
      jobId: id,
      attempts: config.jobAttempts,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { age: KEEP_FINISHED_S },
      removeOnFail: { age: KEEP_FINISHED_S },
    });
  }

  /** Where the queue holds job `id` of `kind`: waiting, active, delayed, completed, failed ..., or 'unknown' when it holds none. */
  async state(kind: Pick<JobKind<unknown>, 'name'>, id: string): Promise<string> {
    return this.queue(kind.name).getJobState(id);
  }

  /** Jobs of `kind` in the queue by state (for /metrics). */
  async counts(kind: Pick<JobKind<unknown>, 'name'>): Promise<Record<string, number>> {
    return this.queue(kind.name).getJobCounts('waiting', 'active', 'delayed', 'failed');
  }

  /** Starts this process's workers for `kinds` (config.jobConcurrency jobs at once each), which run with `services`. */
  work(kinds: readonly JobKind<any>[], services: Services): void {
    const { config, log } = this.deps;
    for (const kind of kinds) {
      // Workers block on Redis (BZPOPMIN): their connection waits out an outage instead of failing commands.
      const connection = createRedis(config, { maxRetriesPerRequest: null, autoPipelining: false });
      this.workerConns.push(connection);
      const worker = new Worker(
        kind.name,
        async (job: Job) => {
          // attemptsMade counts failed runs; attemptsStarted also counts runs whose worker died.
          const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
          try {
            await kind.run(services, job.data, { number: Math.max(job.attemptsStarted, job.attemptsMade + 1), final });
          } catch (err) {
            throw err instanceof TerminalJobError ? new UnrecoverableError(err.message) : err;
          }
        },
        {
          connection,
          prefix: this.deps.rk.queuePrefix(),
          concurrency: config.jobConcurrency,
          lockDuration: config.jobLockMs,
          stalledInterval: config.jobLockMs,
          maxStalledCount: 1,
        },
      );
      worker.on('failed', (job, err) => {
        if (!job) return;
        const final = job.finishedOn !== undefined || job.attemptsMade >= (job.opts.attempts ?? 1);
        log.warn({ err: err.message, queue: kind.name, job: job.id, attempt: job.attemptsMade, final }, 'job failed');
        countJob(kind.name, final ? 'failed' : 'retried');
        if (final) void kind.failed(services, job.data, err.message).catch((e: Error) => log.error({ err: e.message, queue: kind.name, job: job.id }, 'job release failed'));
      });
      worker.on('completed', () => countJob(kind.name, 'completed'));
      worker.on('stalled', (id) => log.warn({ queue: kind.name, job: id }, 'job lease lapsed (its worker stopped); given to another worker'));
      worker.on('error', (err) => log.warn({ err: err.message, queue: kind.name }, 'worker error'));
      this.workers.push(worker);
    }
  }

  /** This process's workers stop taking jobs (the running ones finish): maintenance, and tests that need jobs to stay queued. */
  async pause(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.pause()));
  }

  /** This process's workers take jobs again. */
  resume(): void {
    // Not awaited by callers: a failure is logged here, never left unhandled.
    for (const w of this.workers) w.resume().catch((err: Error) => this.deps.log.warn({ err: err.message }, 'worker did not resume'));
  }

  /** Stops the workers (waiting for the jobs they run) and closes the queues. */
  /**
   * Lets running jobs finish their step and closes the queues, within the shutdown bound
   * (BINTEL_SHUTDOWN_MS): a worker whose blocking connection is wedged (its Redis node died
   * under it) must not hold a deploy; past the bound the connections are cut.
   */
  async close(): Promise<void> {
    const bound = <T>(p: Promise<T>) => Promise.race([p, new Promise<void>((r) => setTimeout(r, this.deps.config.shutdownMs).unref())]);
    await bound(Promise.allSettled(this.workers.map((w) => w.close())));
    await bound(Promise.allSettled([...this.queues.values()].map((q) => q.close())));
    // Then whatever is still open is cut. A worker whose close is still waiting for a wedged job
    // keeps re-arming its lock-renewal timer (every lockDuration / 4) until that job ends, and
    // that timer alone kept the process alive after the Redis Cluster tests; BullMQ closes it only
    // after the jobs finish, so it is stopped here (the lock manager is protected in the typings).
    for (const w of this.workers) await (w as unknown as { lockManager?: { close(): Promise<void> } }).lockManager?.close();
    await bound(Promise.allSettled([...this.workers, ...this.queues.values()].map((x) => x.disconnect())));
    for (const c of [...this.workerConns, ...(this.conn ? [this.conn] : [])]) c.disconnect();
  }
}
