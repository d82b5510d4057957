/**
 * Job acceptance, shared by bench:writing and bench:export (issue 30, goal 5: a job POST accepts
 * at p99 at most 2× a bare BullMQ add of the same payload, in the same run, at 100 clients over
 * 20 organizations).
 *
 * - `benchOrgs`: `n` organizations, each with a live root key and credits enough for every job;
 * - `drive`: `n` tasks run by `c` concurrent clients (client `k` takes the next task each time);
 * - `postJobs`: the clients POST a job, client `k` with organization `k mod orgs`' key, and each
 *   answer must be 202; the latency is the client's, to the 202 read;
 * - `bareAdds`: the baseline, the same number of `Queue.add` calls of `payload` at the same
 *   concurrency, straight to BullMQ (no HTTP, no validation, no reservation), on a queue of the
 *   same Redis prefix as the API's;
 * - `httpAddFloor`: the second baseline, bench/floor-add.mjs: the same POSTs to a bare HTTP server
 *   that only adds the body to BullMQ (the floor of any HTTP API accepting a job);
 * - `cpuPer`: the CPU each process spent per operation while a run went (read from /proc);
 * - `pct`, `acceptRatio` and `startWorker` (a `bintel worker` process).
 */
import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Pool } from 'undici';
import type { Config } from '../core/config.ts';
import { createRedis } from '../core/adapters/redis.ts';
import type { Services } from '../server/context.ts';
import { cpuOf } from './proc.ts';
import { spawnFloor, type SpawnedServer } from './server.ts';

const ROOT = new URL('..', import.meta.url).pathname;

/** The goal: accept p99 at most this many times the bare add's p99. */
export const ACCEPT_GOAL = 2;

/** The p-th percentile (nearest rank below) of `xs`. */
export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

/** Latencies (ms) of a run and its wall time. */
export interface Driven {
  lat: number[];
  wallMs: number;
}

/** Runs `n` tasks with `c` at a time; returns each task's latency (ms) and the wall time. */
export async function drive(n: number, c: number, task: (i: number, client: number) => Promise<void>): Promise<Driven> {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: c }, async (_, client) => {
      while (next < n) {
        const i = next++;
        const s = performance.now();
        await task(i, client);
        lat.push(performance.now() - s);
      }
    }),
  );
  return { lat, wallMs: performance.now() - t0 };
}

/** A bench organization: its id, its root key's secret and id, and the headers of a JSON POST with it. */
export interface BenchOrg {
  org: string;
  secret: string;
  keyId: string;
  headers: Record<string, string>;
}

/** `n` organizations named `<prefix>-<random>`, each with a live root key and `milli` credits granted. */
export async function benchOrgs(services: Services, prefix: string, n: number, milli: number): Promise<BenchOrg[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const org = `${prefix}-${randomUUID().slice(0, 8)}`;
      const { secret, key } = await services.keys.createRoot({ org, user: 'bench' });
      // Every organization can pay for every job: a refusal would measure another path.
      await services.credits.grant(org, milli);
      return { org, secret, keyId: key.id, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' } };
    }),
  );
}

/** One accepted job: its id and the index of the organization that started it. */
export interface AcceptedJob {
  id: string;
  org: number;
}

/**
 * The clients' connections to an API, kept open between runs (a warm-up opens them): undici's
 * request, not fetch, which cost this process about 1.5 ms of CPU per POST on the cores the API
 * and the baseline share.
 */
const pools = new Map<string, Pool>();
function poolOf(origin: string): Pool {
  let pool = pools.get(origin);
  if (!pool) pools.set(origin, (pool = new Pool(origin)));
  return pool;
}

/**
 * `n` POSTs of `body(i)` to `url` by `clients` concurrent clients, client `k` with the key of
 * `orgs[k mod orgs.length]` (and `headers(i)` added); every answer must be 202.
 */
export async function postJobs(opts: { url: string; n: number; clients: number; orgs: BenchOrg[]; body: (i: number) => string; headers?: (i: number) => Record<string, string> }): Promise<Driven & { jobs: AcceptedJob[] }> {
  const { url, n, clients, orgs } = opts;
  const jobs: AcceptedJob[] = [];
  const { origin, pathname } = new URL(url);
  const pool = poolOf(origin);
  const run = await drive(n, clients, async (i, client) => {
    const o = client % orgs.length;
    const res = await pool.request({ path: pathname, method: 'POST', headers: { ...orgs[o].headers, ...opts.headers?.(i) }, body: opts.body(i) });
    const answer = (await res.body.json()) as { data: { id: string } };
    if (res.statusCode !== 202) throw new Error(`POST ${url} answered ${res.statusCode}: ${JSON.stringify(answer)}`);
    jobs.push({ id: answer.data.id, org: o });
  });
  return { ...run, jobs };
}

/** A BullMQ queue of its own (`bench-floor`) under the API's queue prefix, for the baseline; `close` empties and closes it. */
export function floorQueue(config: Config, services: Services): { queue: Queue; close: () => Promise<void> } {
  const connection = createRedis(config, { autoPipelining: false });
  const queue = new Queue('bench-floor', { connection, prefix: services.rk.queuePrefix() });
  return {
    queue,
    close: async () => {
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      // BullMQ leaves a connection it was given open.
      connection.disconnect();
    },
  };
}

/** The baseline: `n` bare `Queue.add` calls of `payload` (with its index `i` added) by `clients` concurrent callers, job ids `<idPrefix>-<run>-<i>`. */
export function bareAdds(queue: Queue, n: number, clients: number, payload: Record<string, unknown>, idPrefix: string): Promise<Driven> {
  const run = randomUUID().slice(0, 8);
  return drive(n, clients, async (i) => {
    await queue.add('floor', { ...payload, i }, { jobId: `${idPrefix}-${run}-${i}`, removeOnComplete: true });
  });
}

/**
 * The second baseline: bench/floor-add.mjs, a bare HTTP server in its own process that adds each
 * POSTed body to a BullMQ queue under the API's queue prefix and answers 202 (what any HTTP API
 * that accepts a job pays: a request read, a JSON parse, an add, an answer).
 */
export const httpAddFloor = (config: Config, services: Services): Promise<SpawnedServer> => spawnFloor('floor-add.mjs', { FLOOR_REDIS: config.redisUrl, FLOOR_PREFIX: services.rk.queuePrefix() });

/** One line comparing the accept with the HTTP floor's run of the same jobs. */
export const httpFloorLine = (accept: Driven, floor: Driven): string =>
  `         HTTP floor (bench/floor-add.mjs): p50 ${pct(floor.lat, 50).toFixed(1)} ms, p99 ${pct(floor.lat, 99).toFixed(1)} ms, ${(floor.lat.length / (floor.wallMs / 1000)).toFixed(0)}/s; accept p99 / HTTP floor p99 ${acceptRatio(accept, floor).toFixed(2)}\n`;

/** Accept p99 over the baseline's p99 (the goal's ratio). */
export const acceptRatio = (accept: Driven, floor: Driven): number => pct(accept.lat, 99) / Math.max(pct(floor.lat, 99), 0.001);

/** A `bintel worker` process on `namespace` (with `env` added; of checkout `root`, default this one), once it says it runs. */
export async function startWorker(namespace: string, env: Record<string, string> = {}, root = ROOT): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(root, 'bin/bintel.js'), 'worker'], { env: { ...process.env, BINTEL_NAMESPACE: namespace, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('worker running') && resolve());
    child.once('exit', (code) => reject(new Error(`bintel worker exited with ${code}`)));
  });
  return child;
}

/**
 * Runs `fn` (`n` operations) and returns its result with the CPU ms per operation each group of
 * processes spent meanwhile (`bench` is this process: the clients). Other work on the machine
 * that uses the same processes (another suite's requests to Elasticsearch or Redis) counts too.
 */
export async function cpuPer<T>(groups: Record<string, number[]>, n: number, fn: () => Promise<T>): Promise<{ result: T; cpu: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(groups).map(([k, pids]) => [k, cpuOf(pids)]));
  const self = process.cpuUsage();
  const result = await fn();
  const used = process.cpuUsage(self);
  const cpu: Record<string, number> = { bench: (used.user + used.system) / 1000 / n };
  for (const [k, pids] of Object.entries(groups)) cpu[k] = ((cpuOf(pids) - before[k]) * 1000) / n;
  return { result, cpu };
}

/** `name 1.23 ms` pairs of a cpuPer result. */
export const cpuText = (cpu: Record<string, number>): string =>
  Object.entries(cpu)
    .map(([k, ms]) => `${k} ${ms.toFixed(2)} ms`)
    .join(', ');
