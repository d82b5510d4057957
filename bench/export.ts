/**
 * CSV export benchmark: `npm run bench:export [-- --rounds 5 --limit 2000]`, on the `<ns>-benchq`
 * data of bench:query (load it first: `npm run bench:query -- --load-only`).
 *
 * The API runs in its own process. Each round downloads the same synchronous export (`limit`
 * rows, the maximum 2,000 by default) through the API, then walks the identical query straight
 * from Elasticsearch with a point in time and search_after (the query and sort from the list's
 * `explain=true`, the same `_source` fields, the same 1,000-row batches) as the baseline. Prints
 * rows/s of both, their ratio (goal: at least 0.80) and the API process's peak RSS above its idle
 * RSS during the exports (goal: under 150 MB), read from /proc.
 *
 * Then one async export of `--async-rows` rows (default 200,000; POST /v1/exports, run by the
 * API process's in-process worker, polled until completed, then downloaded) against the raw
 * walk of the same rows: rows/s from POST to completed, the download, and the API process's peak
 * RSS above idle during the job.
 *
 * Then acceptance (issue 30, goal 5; alone with `--accept-only`, which needs only a few thousand
 * rows, e.g. `npm run bench:query -- --rows 20000 --load-only`): an API process that accepts only
 * (BINTEL_WORKER_IN_PROCESS=0, so no export runs beside the accepts) with the per-organization
 * cap of queued or running exports (BINTEL_EXPORT_MAX_ACTIVE, default 5) raised to `--jobs`;
 * `--clients` (default 100) concurrent clients spread over `--orgs` organizations (default 20;
 * client k with organization k mod orgs' key) POST `--jobs` small exports (default 500 of
 * `--accept-rows` rows, default 300; no Idempotency-Key, so each is a new job, or a fresh one per
 * request with `--idempotency-keys`). Prints accepted/s and the accept latency p50/p99 (client
 * side, to the 202 read) and, in the same run at the same concurrency, as the baseline, the same
 * number of bare BullMQ `Queue.add` calls of the payload the API enqueued (read back from its
 * queue), and the ratio of the p99s (goal: at most 2). Then one `bintel worker` runs the accepted
 * exports and the bench checks every one completed with all its rows and each organization paid
 * exactly the reservations (`--no-drain` skips this). `--warmup` exports (default 300, at the
 * largest client count) and as many bare adds go first, unmeasured: the API process starts cold
 * and the clients' connections are opened then.
 */
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { CONFIG_DEFAULTS, loadConfig } from '../core/config.ts';
import { createRedis } from '../core/adapters/redis.ts';
import { aliasName } from '../core/names.ts';
import { createServices, type Services } from '../server/context.ts';
import { exportJobKind, loadJob } from '../server/jobs/kinds/export.ts';
import { hashSecret } from '../server/services/keys.ts';
import { ACCEPT_GOAL, acceptRatio, bareAdds, benchOrgs, cpuPer, cpuText, floorQueue, httpAddFloor, httpFloorLine, pct, postJobs, startWorker, type AcceptedJob, type BenchOrg } from './accept.ts';
import { esPids, pidsOf } from './proc.ts';
import { spawnServer } from './server.ts';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    limit: { type: 'string', default: '2000' },
    'async-rows': { type: 'string', default: '200000' },
    'accept-only': { type: 'boolean', default: false },
    jobs: { type: 'string', default: '500' },
    orgs: { type: 'string', default: '20' },
    clients: { type: 'string', default: '100' },
    'accept-rows': { type: 'string', default: '300' },
    'idempotency-keys': { type: 'boolean', default: false },
    'no-drain': { type: 'boolean', default: false },
    warmup: { type: 'string', default: '300' },
    /** Another checkout whose API (and worker) is measured: a before/after with the same bench code. */
    api: { type: 'string' },
  },
});
const base = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const config = Object.freeze({ ...base, namespace: `${base.namespace}-benchq` });
const FILTERS = 'states=CA,TX,NY,FL,OH,PA,IL,GA&sort_by=total_number_of_employees&sort_dir=desc&mode=full';

/** Resident set size of a process, MB. */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

async function main(): Promise<void> {
  const services = createServices(config);
  const need = args['accept-only'] ? Number(args['accept-rows']) : Number(args.limit);
  const count = await services.es.count({ index: aliasName(config.namespace, 'companies') }).catch(() => ({ count: 0 }));
  if (count.count < need) throw new Error(`no bench data in ${config.namespace}: run \`npm run bench:query -- --load-only\` first (\`-- --rows 20000 --load-only\` is enough for --accept-only)`);
  if (!args['accept-only']) await throughput(services);
  await acceptance(services);
  await services.close();
}

/** The sync and async exports' rows/s against the raw walk (see the module comment). */
async function throughput(services: Services): Promise<void> {
  const asyncRows = Number(args['async-rows']);
  const running = await spawnServer(config.namespace, { env: { BINTEL_EXPORT_MAX_ROWS: String(Math.max(asyncRows, 50_000)) } });
  const org = `benche-${randomUUID().slice(0, 8)}`;
  const { secret } = await services.keys.createRoot({ org, user: 'bench', internal: true });
  await services.credits.grant(org, 1_000_000_000_000);
  const auth = { authorization: `Bearer ${secret}` };
  const limit = Number(args.limit);
  /** The raw point-in-time walk of the same query: rows read (their _source serialized, as the API must). */
  const rawWalk = async (rows: number): Promise<number> => {
    const pit = (await services.es.openPointInTime({ index: aliasName(config.namespace, 'companies'), keep_alive: '1m' })).id;
    let walked = 0;
    let after: unknown[] | undefined;
    while (walked < rows) {
      const page = await services.es.search({ pit: { id: pit, keep_alive: '1m' }, query: query as never, sort: sort as never, size: Math.min(1000, rows - walked), _source: source as never, track_total_hits: false, ...(after ? { search_after: after as never } : {}) });
      const hits = page.hits.hits;
      if (!hits.length) break;
      walked += hits.length;
      after = hits[hits.length - 1].sort as unknown[];
      JSON.stringify(hits.map((h) => h._source));
    }
    await services.es.closePointInTime({ id: pit });
    return walked;
  };
  // The exact Elasticsearch query and sort of the same list call, and the fields a row carries.
  const ex = (await (await fetch(`${running.url}/v1/companies?${FILTERS}&page_size=1&explain=true`, { headers: auth })).json()) as { meta: { explain: { body: { query: unknown; sort: unknown; _source: unknown } } } };
  const { query, sort, _source: source } = ex.meta.explain.body;
  const idle = rssMb(running.pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(running.pid))), 20);
  const api: number[] = [];
  const raw: number[] = [];
  for (let round = 0; round < Number(args.rounds); round++) {
    let t = performance.now();
    const res = await fetch(`${running.url}/v1/companies/export.csv?${FILTERS}&limit=${limit}`, { headers: auth });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`export: ${res.status} ${text.slice(0, 200)}`);
    const rows = text.split('\r\n').filter(Boolean).length - 1;
    api.push(rows / ((performance.now() - t) / 1000));
    t = performance.now();
    const walked = await rawWalk(limit);
    raw.push(walked / ((performance.now() - t) / 1000));
    if (walked !== rows) throw new Error(`the walk read ${walked} rows, the export sent ${rows}`);
  }
  clearInterval(sampler);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const a = median(api);
  const r = median(raw);
  const syncPeak = peak;
  // The async export: POST, poll to completed, download; RSS sampled throughout.
  peak = rssMb(running.pid);
  const asyncIdle = peak;
  const sampler2 = setInterval(() => (peak = Math.max(peak, rssMb(running.pid))), 20);
  let t0 = performance.now();
  const body = { resource: 'companies', max_rows: asyncRows, ...Object.fromEntries(new URLSearchParams(FILTERS)) };
  const created = await fetch(`${running.url}/v1/exports`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const job = ((await created.json()) as { data: { id: string; rows_reserved: number } }).data;
  if (created.status !== 202) throw new Error(`POST /v1/exports: ${created.status} ${JSON.stringify(job)}`);
  let status = '';
  let written = 0;
  while (status !== 'completed') {
    await new Promise((res) => setTimeout(res, 100));
    const j = ((await (await fetch(`${running.url}/v1/exports/${job.id}`, { headers: auth })).json()) as { data: { status: string; rows_written: number } }).data;
    status = j.status;
    written = j.rows_written;
    if (status === 'failed') throw new Error('the async export failed');
  }
  const asyncS = (performance.now() - t0) / 1000;
  t0 = performance.now();
  const dl = await fetch(`${running.url}/v1/exports/${job.id}/download`, { headers: auth });
  let bytes = 0;
  for await (const chunk of dl.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  const dlS = (performance.now() - t0) / 1000;
  clearInterval(sampler2);
  t0 = performance.now();
  const rawAsync = await rawWalk(written);
  const rawS = (performance.now() - t0) / 1000;
  if (rawAsync !== written) throw new Error(`the walk read ${rawAsync} rows, the job wrote ${written}`);
  const asyncPeak = peak;
  peak = syncPeak;
  process.stdout.write(
    `\n| async export of ${written} rows | rows/s |\n|---|---|\n| API: POST to completed (file written) | ${Math.round(written / asyncS)} |\n| raw point-in-time walk, same query | ${Math.round(written / rawS)} |\n| API / raw | ${(rawS / asyncS).toFixed(2)} |\n| download (${(bytes / 2 ** 20).toFixed(0)} MB) | ${Math.round(written / dlS)} |\n\nAPI process RSS during the async export: idle ${asyncIdle.toFixed(0)} MB, peak ${asyncPeak.toFixed(0)} MB (+${(asyncPeak - asyncIdle).toFixed(0)} MB)\n`,
  );
  process.stdout.write(`\n| export of ${limit} rows (${args.rounds} rounds, median) | rows/s |\n|---|---|\n| API export.csv (CSV, streamed) | ${Math.round(a)} |\n| raw point-in-time walk, same query | ${Math.round(r)} |\n| API / raw | ${(a / r).toFixed(2)} |\n\nAPI process RSS: idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB (+${(peak - idle).toFixed(0)} MB)\n`);
  await running.close();
}


/** The ids of a run's accepted jobs with their organizations. */
interface AcceptRun {
  orgs: BenchOrg[];
  jobs: AcceptedJob[];
}

/** Acceptance against a bare BullMQ add (see the module comment). */
async function acceptance(services: Services): Promise<void> {
  const JOBS = Number(args.jobs);
  const ORGS = Number(args.orgs);
  const rows = Number(args['accept-rows']);
  const cap = Math.max(JOBS, CONFIG_DEFAULTS.exportMaxActive);
  const api = await spawnServer(config.namespace, { root: args.api, env: { BINTEL_WORKER_IN_PROCESS: '0', BINTEL_EXPORT_MAX_ACTIVE: String(cap) } });
  const floorQ = floorQueue(config, services);
  const httpFloor = await httpAddFloor(config, services);
  const exportsConn = createRedis(config, { autoPipelining: false });
  const exportsQ = new Queue(exportJobKind.name, { connection: exportsConn, prefix: services.rk.queuePrefix() });
  const body = JSON.stringify({ resource: 'companies', max_rows: rows, ...Object.fromEntries(new URLSearchParams(FILTERS)) });
  process.stdout.write(
    `\nacceptance of POST /v1/exports (${JOBS} exports of ${rows} rows per client count, ${ORGS} organizations; the API accepts only: BINTEL_WORKER_IN_PROCESS=0, and BINTEL_EXPORT_MAX_ACTIVE raised from ${CONFIG_DEFAULTS.exportMaxActive} to ${cap} for the bench so the per-organization cap never refuses; ${args['idempotency-keys'] ? 'a fresh Idempotency-Key per request' : 'no Idempotency-Key'}; request body ${body.length} bytes)\n`,
  );
  process.stdout.write(`(after ${args.warmup} unmeasured accepts and adds)\nclients  accepted/s  accept p50  accept p99  bare BullMQ add p50  p99        add/s  payload  p99 / add p99  goal ≤ ${ACCEPT_GOAL}\n`);
  const runs: AcceptRun[] = [];
  const redisPids = pidsOf(`redis-server .*:${new URL(config.redisUrl).port || 6379}`);
  const notes: string[] = [];
  try {
    // Unmeasured first: the API process's first requests (and the bench's first adds) run cold.
    // At the run's largest client count, so the clients' connections to the API are open before it is measured.
    const counts = args.clients.split(',').map(Number);
    const warm = Number(args.warmup);
    if (warm > 0) {
      const orgs = await benchOrgs(services, 'benche', ORGS, 1_000_000_000_000);
      const first = await postJobs({ url: `${api.url}/v1/exports`, n: warm, clients: Math.max(...counts), orgs, body: () => body });
      runs.push({ orgs, jobs: first.jobs });
      await bareAdds(floorQ.queue, warm, Math.max(...counts), { warm: body }, orgs[0].org);
    }
    for (const clients of counts) {
      const orgs = await benchOrgs(services, 'benche', ORGS, 1_000_000_000_000);
      const posted = await cpuPer({ api: [api.pid], elasticsearch: esPids(), redis: redisPids }, JOBS, () =>
        postJobs({ url: `${api.url}/v1/exports`, n: JOBS, clients, orgs, body: () => body, headers: args['idempotency-keys'] ? () => ({ 'idempotency-key': randomUUID() }) : undefined }),
      );
      const accept = posted.result;
      runs.push({ orgs, jobs: accept.jobs });
      // The baseline adds what the API enqueued for one of these jobs (the payload a worker gets), as is.
      const payload = (await exportsQ.getJob(accept.jobs[0].id))?.data as Record<string, unknown> | undefined;
      if (!payload) throw new Error(`job ${accept.jobs[0].id} is not in the exports queue`);
      const added = await cpuPer({ redis: redisPids }, JOBS, () => bareAdds(floorQ.queue, JOBS, clients, payload, orgs[0].org));
      const floor = added.result;
      // The HTTP floor gets the queued payload as its body and adds it as is (one warm-up run first).
      const floorBody = JSON.stringify(payload);
      await postJobs({ url: `${httpFloor.url}/`, n: Math.min(JOBS, 200), clients, orgs, body: () => floorBody });
      const overHttp = await postJobs({ url: `${httpFloor.url}/`, n: JOBS, clients, orgs, body: () => floorBody });
      notes.push(`${clients} clients: CPU per accept: ${cpuText(posted.cpu)}; per bare add: ${cpuText(added.cpu)}`);
      const ratio = acceptRatio(accept, floor);
      process.stdout.write(
        `${String(clients).padStart(7)}  ${(JOBS / (accept.wallMs / 1000)).toFixed(0).padStart(10)}  ${pct(accept.lat, 50).toFixed(1).padStart(7)} ms  ${pct(accept.lat, 99).toFixed(1).padStart(7)} ms  ${pct(floor.lat, 50).toFixed(1).padStart(16)} ms  ${pct(floor.lat, 99).toFixed(1).padStart(6)} ms  ${(JOBS / (floor.wallMs / 1000)).toFixed(0).padStart(7)}  ${String(JSON.stringify(payload).length).padStart(5)} B  ${ratio.toFixed(2).padStart(13)}  ${ratio <= ACCEPT_GOAL ? 'met' : 'not met'}\n${httpFloorLine(accept, overHttp)}`,
      );
    }
    process.stdout.write(`${notes.join('\n')}\n(CPU from /proc while each ran: bench is this process, the clients and the BullMQ caller; work of other processes on the same Elasticsearch and Redis counts too)\n`);
    await api.close();
    if (!args['no-drain']) await drain(services, runs);
  } finally {
    await floorQ.close();
    await httpFloor.close();
    await cleanup(services, exportsQ, runs);
    await exportsQ.close();
    exportsConn.disconnect();
  }
}

/** One `bintel worker` runs the accepted exports; every one must complete with all its rows, and each organization pays exactly its reservations. */
async function drain(services: Services, runs: AcceptRun[]): Promise<void> {
  const t0 = performance.now();
  const worker = await startWorker(config.namespace, {}, args.api);
  const all = runs.flatMap((r) => r.jobs.map((j) => ({ ...j, org: r.orgs[j.org] })));
  try {
    const deadline = Date.now() + 600_000;
    for (;;) {
      const active = await Promise.all(runs.flatMap((r) => r.orgs.map((o) => services.redis.scard(services.rk.activeJobs(o.org, exportJobKind.name)))));
      if (active.every((n) => n === 0)) break;
      if (Date.now() > deadline) throw new Error(`exports still queued or running after 600 s: ${active.reduce((a, b) => a + b, 0)}`);
      await new Promise((res) => setTimeout(res, 500));
    }
  } finally {
    worker.kill('SIGTERM');
  }
  const records = await Promise.all(all.map((j) => loadJob(services, j.org.org, j.id)));
  const done = records.filter((r) => r?.status === 'completed' && r.rows_written === r.rows_reserved && r.rows_reserved > 0).length;
  let off = 0;
  for (const o of runs.flatMap((r) => r.orgs)) {
    const paid = records.reduce((a, r) => a + (r?.org === o.org ? r.charge.milli : 0), 0);
    off += Math.abs(1_000_000_000_000 - paid - (await services.credits.balance(o.org)));
  }
  process.stdout.write(
    `drained by one \`bintel worker\` in ${((performance.now() - t0) / 1000).toFixed(0)} s: ${done}/${all.length} completed with all their rows, balances off by ${off} milli in all (expected 0): ${done === all.length && off === 0 ? 'ok' : 'NOT OK'}\n`,
  );
}

/** Removes what the acceptance left: the bench organizations' keys, records and files, and their jobs in the exports queue. */
async function cleanup(services: Services, exportsQ: Queue, runs: AcceptRun[]): Promise<void> {
  const { redis, rk } = services;
  const orgs = runs.flatMap((r) => r.orgs);
  for (const job of runs.flatMap((r) => r.jobs)) await exportsQ.remove(job.id).catch(() => 0);
  for (const o of orgs) {
    const keys: string[] = [rk.key(o.keyId), rk.keyBySecret(hashSecret(o.secret))];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${rk.prefix()}{org:${o.org}}*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    await redis.srem(rk.ledgerOrgs(), o.org);
  }
  const names = await readdir(config.exportDir).catch(() => [] as string[]);
  const prefixes = orgs.map((o) => `${Buffer.from(o.org).toString('base64url')}.`);
  for (const name of names) if (prefixes.some((p) => name.startsWith(p))) await rm(join(config.exportDir, name), { force: true });
}

await main();
