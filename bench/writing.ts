/**
 * Writing-job benchmark: `npm run bench:writing [-- --jobs 200]`.
 *
 * Two set-ups, each with the API in its own process (`bintel serve`): (A) the API's in-process
 * worker, (B) the API accepting only (BINTEL_WORKER_IN_PROCESS=0) and two `bintel worker`
 * processes. For 1, 10 and 100 concurrent clients, spread over `--orgs` organizations (default
 * 20; client i calls with organization i mod orgs' key), `--jobs` email jobs (default writer) are
 * started; it prints jobs accepted per second, the accept latency p50/p99 (client side) and the
 * time from accept to completed (the job's own first and last event), and checks that no job is
 * lost, failed, double-charged or left reserved (balance after = before − jobs × 5 credits,
 * usage accepted = completed). Baseline in the same run: the same number of jobs, with the
 * request's body as payload, added straight to a BullMQ queue (no HTTP, no validation, no
 * reservation) at the same concurrency. Goal: accept p99 at 100 clients at most 2× the baseline's.
 */
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { loadConfig } from '../core/config.ts';
import { createRedis } from '../core/adapters/redis.ts';
import { createServices } from '../server/context.ts';
import { spawnServer } from './server.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const { values: args } = parseArgs({ options: { jobs: { type: 'string', default: '200' }, orgs: { type: 'string', default: '20' } } });
const JOBS = Number(args.jobs);
const ORGS = Number(args.orgs);
const base = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const config = Object.freeze({ ...base, namespace: `${base.namespace}-benchw` });
const BODY = JSON.stringify({
  source_mode: 'inline',
  channel: 'email',
  identity: { companyName: 'Northwind Benefits', valueProps: [{ id: 'vp1', feature: 'Cut renewal costs by benchmarking every carrier quote' }], caseStudies: [{ id: 'cs1', result: 'saved 14% at renewal', customer: 'Acme Tools' }], brandVoice: { avoid: ['synergy', 'em dash'] } },
  target: { full_name: 'Dana Whitfield', title: 'VP People', company_name: 'Contoso Ltd', industry: 'manufacturing' },
  sender: { full_name: 'Sam Reyes', title: 'Partner' },
});

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

async function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/bintel.js'), 'worker'], { env: { ...process.env, BINTEL_NAMESPACE: config.namespace, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('worker running') && resolve());
    child.once('exit', (code) => reject(new Error(`bintel worker exited with ${code}`)));
  });
  return child;
}

/** Runs `n` tasks with `c` at a time; returns each task's latency (ms) and the wall time. */
async function drive(n: number, c: number, task: (i: number, client: number) => Promise<void>): Promise<{ lat: number[]; wallMs: number }> {
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

async function scenario(label: string, workers: number): Promise<void> {
  const services = createServices(config);
  await services.redis.connect();
  const api = await spawnServer(config.namespace, { env: { BINTEL_WORKER_IN_PROCESS: workers ? '0' : '1' } });
  const procs = await Promise.all(Array.from({ length: workers }, startWorker));
  const queue = new Queue('bench-floor', { connection: createRedis(config, { autoPipelining: false }), prefix: services.rk.queuePrefix() });
  console.log(`\n${label}`);
  console.log(`clients  accepted/s  accept p50  accept p99  to completed p50  p99   floor (BullMQ add) p50/p99  p99 / floor p99  ok   (${ORGS} organizations)`);
  for (const clients of [1, 10, 100]) {
    const orgs = await Promise.all(
      Array.from({ length: ORGS }, async () => {
        const org = `benchw-${randomUUID().slice(0, 8)}`;
        const { secret } = await services.keys.createRoot({ org, user: 'bench' });
        return { org, secret, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' } };
      }),
    );
    // Every organization can pay for every job: a refusal would measure another path.
    await Promise.all(orgs.map((o) => services.credits.grant(o.org, JOBS * 5000)));
    const ids: { id: string; org: number }[] = [];
    const payload = JSON.parse(BODY) as Record<string, unknown>;
    const accept = await drive(JOBS, clients, async (_, client) => {
      const o = client % ORGS;
      const res = await fetch(`${api.url}/v1/writing-jobs`, { method: 'POST', headers: orgs[o].headers, body: BODY });
      const body = (await res.json()) as { data: { id: string } };
      if (res.status !== 202) throw new Error(`POST answered ${res.status}: ${JSON.stringify(body)}`);
      ids.push({ id: body.data.id, org: o });
    });
    const floor = await drive(JOBS, clients, async (i) => {
      await queue.add('floor', { ...payload, i }, { jobId: `${orgs[0].org}-${i}`, removeOnComplete: true });
    });
    // Every job to completion (long polls), then the money.
    const jobs = await Promise.all(
      ids.map(async ({ id, org }) => {
        for (let n = 0; ; ) {
          const res = await fetch(`${api.url}/v1/writing-jobs/${id}?wait_ms=5000&last_event_count=${n}`, { headers: orgs[org].headers });
          const j = ((await res.json()) as { data: { done: boolean; status: string; eventCount: number; events: { ts: number }[]; billing: { credits_charged: number } } }).data;
          if (j.done) return j;
          n = j.eventCount;
        }
      }),
    );
    const completed = jobs.filter((j) => j.status === 'completed' && j.billing.credits_charged === 5).length;
    // Each organization paid 5 credits for each of its jobs, and kept the rest of its grant.
    const jobsOf = (o: number) => ids.filter((x) => x.org === o).length;
    const left = await Promise.all(orgs.map(async (o, i) => (await services.credits.balance(o.org)) - (JOBS - jobsOf(i)) * 5000));
    const balance = left.reduce((a, b) => a + Math.abs(b), 0);
    const toDone = jobs.map((j) => j.events[j.events.length - 1].ts - j.events[0].ts);
    const ok = completed === JOBS && balance === 0 ? 'yes' : `NO (${completed}/${JOBS} completed, balances off by ${balance} milli in all, expected 0)`;
    console.log(
      `${String(clients).padStart(7)}  ${(JOBS / (accept.wallMs / 1000)).toFixed(0).padStart(10)}  ${pct(accept.lat, 50).toFixed(1).padStart(8)} ms  ${pct(accept.lat, 99).toFixed(1).padStart(8)} ms  ${pct(toDone, 50).toFixed(0).padStart(13)} ms  ${pct(toDone, 99).toFixed(0).padStart(4)} ms  ${pct(floor.lat, 50).toFixed(1).padStart(10)} / ${pct(floor.lat, 99).toFixed(1)} ms  ${(pct(accept.lat, 99) / Math.max(pct(floor.lat, 99), 0.001)).toFixed(2).padStart(14)}  ${ok}`,
    );
  }
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  for (const p of procs) p.kill('SIGTERM');
  await api.close();
  const keys = await services.redis.keys(`${services.rk.prefix()}*`);
  for (let i = 0; i < keys.length; i += 500) await services.redis.del(...keys.slice(i, i + 500));
  await services.close();
}

await scenario('(A) API with its in-process worker (BINTEL_JOB_CONCURRENCY 2)', 0);
await scenario('(B) API accepting only + two `bintel worker` processes', 2);
