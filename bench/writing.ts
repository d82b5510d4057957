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
 * A first round at 100 clients is not measured (cold process, connections opened).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../core/config.ts';
import { createServices } from '../server/context.ts';
import { acceptRatio, bareAdds, benchOrgs, floorQueue, httpAddFloor, httpFloorLine, pct, postJobs, startWorker } from './accept.ts';
import { spawnServer } from './server.ts';

// --api <checkout>: that checkout's API and workers are measured (a before/after with the same bench code).
const { values: args } = parseArgs({ options: { jobs: { type: 'string', default: '200' }, orgs: { type: 'string', default: '20' }, api: { type: 'string' } } });
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

async function scenario(label: string, workers: number): Promise<void> {
  const services = createServices(config);
  await services.redis.connect();
  const api = await spawnServer(config.namespace, { root: args.api, env: { BINTEL_WORKER_IN_PROCESS: workers ? '0' : '1' } });
  const procs = await Promise.all(Array.from({ length: workers }, () => startWorker(config.namespace, {}, args.api)));
  const floorQ = floorQueue(config, services);
  const httpFloor = await httpAddFloor(config, services);
  console.log(`\n${label}`);
  console.log(`clients  accepted/s  accept p50  accept p99  to completed p50  p99   floor (BullMQ add) p50/p99  p99 / floor p99  ok   (${ORGS} organizations)`);
  // First an unmeasured round at 100 clients: the API's first requests run cold, and the clients'
  // connections are opened (the baseline's queue is warmed alike).
  for (const [clients, warm] of [[100, true], [1, false], [10, false], [100, false]] as const) {
    const orgs = await benchOrgs(services, 'benchw', ORGS, JOBS * 5000);
    const payload = JSON.parse(BODY) as Record<string, unknown>;
    const accept = await postJobs({ url: `${api.url}/v1/writing-jobs`, n: JOBS, clients, orgs, body: () => BODY });
    const ids = accept.jobs;
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
    // The baselines once the workers are idle (run while they still ran the jobs, they were slowed as the accepts were not).
    const floor = await bareAdds(floorQ.queue, JOBS, clients, payload, orgs[0].org);
    const overHttp = await postJobs({ url: `${httpFloor.url}/`, n: JOBS, clients, orgs, body: () => BODY });
    const completed = jobs.filter((j) => j.status === 'completed' && j.billing.credits_charged === 5).length;
    // Each organization paid 5 credits for each of its jobs, and kept the rest of its grant.
    const jobsOf = (o: number) => ids.filter((x) => x.org === o).length;
    const left = await Promise.all(orgs.map(async (o, i) => (await services.credits.balance(o.org)) - (JOBS - jobsOf(i)) * 5000));
    const balance = left.reduce((a, b) => a + Math.abs(b), 0);
    const toDone = jobs.map((j) => j.events[j.events.length - 1].ts - j.events[0].ts);
    if (warm) {
      if (completed !== JOBS || balance !== 0) throw new Error(`warm-up: ${completed}/${JOBS} completed, balances off by ${balance} milli`);
      continue;
    }
    const ok = completed === JOBS && balance === 0 ? 'yes' : `NO (${completed}/${JOBS} completed, balances off by ${balance} milli in all, expected 0)`;
    process.stdout.write(
      `${String(clients).padStart(7)}  ${(JOBS / (accept.wallMs / 1000)).toFixed(0).padStart(10)}  ${pct(accept.lat, 50).toFixed(1).padStart(8)} ms  ${pct(accept.lat, 99).toFixed(1).padStart(8)} ms  ${pct(toDone, 50).toFixed(0).padStart(13)} ms  ${pct(toDone, 99).toFixed(0).padStart(4)} ms  ${pct(floor.lat, 50).toFixed(1).padStart(10)} / ${pct(floor.lat, 99).toFixed(1)} ms  ${acceptRatio(accept, floor).toFixed(2).padStart(14)}  ${ok}\n${httpFloorLine(accept, overHttp)}`,
    );
  }
  await floorQ.close();
  await httpFloor.close();
  for (const p of procs) p.kill('SIGTERM');
  await api.close();
  const keys = await services.redis.keys(`${services.rk.prefix()}*`);
  for (let i = 0; i < keys.length; i += 500) await services.redis.del(...keys.slice(i, i + 500));
  await services.close();
}

await scenario('(A) API with its in-process worker (BINTEL_JOB_CONCURRENCY 2)', 0);
await scenario('(B) API accepting only + two `bintel worker` processes', 2);
