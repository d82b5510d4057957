/**
 * Async exports run by `bintel worker` processes apart from the API (BINTEL_WORKER_IN_PROCESS=0
 * on the server), on real Elasticsearch data:
 *
 * - a separate worker writes every row of a multi-page export and charges rows × price;
 * - a worker killed (SIGKILL) mid-export: another worker takes the job when its lease lapses and
 *   writes the whole file again; the organization pays rows written × price exactly once;
 * - a job whose worker is killed twice is failed and its whole reservation released; no `.part`
 *   file outlives the cleanup.
 *
 * "Mid-export" is a known point, not a race: the workers reach Elasticsearch through a TCP proxy
 * (test/helpers/tcp-proxy.ts) that lets the first searches of the walk through and holds the next
 * one, so the worker is surely stopped after some pages and before the last when it is killed.
 * How much memory a worker takes during a large export is a figure of `npm run bench:export`
 * (the RSS above idle during the async export), not an assertion here.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { kill, startWorker as startProcess, stopAll } from '../helpers/workers.ts';
import { pollUntil, testConfig } from '../helpers/env.ts';
import { entity } from '../../mappings/index.ts';
import { MONTHS } from '../../mappings/reference.ts';
import { rowPrice } from '../../server/pricing.ts';
import { cleanupExports } from '../../server/jobs/kinds/export.ts';
import { loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

const t = suite('export workers');
/** Rows of each export: six searches of the walk's 1,000 rows. */
const ROWS = 6_000;
/** Searches of the walk a worker is let through before it is held (and killed). */
const PAGES_BEFORE_KILL = 2;
const SEARCH = /^POST \/[^ ]*_search/;
const LOCK_MS = 1500;
const ALL = { renewal_month: MONTHS.join(','), sort_by: 'company_name', mode: 'full' };

let h: Harness;
let data: DataFiles | undefined;
let dir = '';
let proxy: TcpProxy;

/** A `bintel worker` for the harness's namespace, the export directory and a short lease, reaching Elasticsearch through the proxy. */
const startWorker = (env: Record<string, string> = {}) => startProcess({ BINTEL_NAMESPACE: h.config.namespace, BINTEL_EXPORT_DIR: dir, BINTEL_JOB_LOCK_MS: String(LOCK_MS), ES_URL: proxy.url, ...env });

/** Makes the proxy hold the next worker's search after PAGES_BEFORE_KILL of them; returns the count of held requests so far. */
function holdNextWorker(): number {
  proxy.hold(SEARCH, { after: PAGES_BEFORE_KILL });
  return proxy.held;
}

/**
 * Waits until the worker of job `id` is held by the proxy (`mark`: holdNextWorker's count) with
 * the job running and rows written, then kills it and lets the proxy forward again.
 */
async function killMidway(w: ChildProcess, id: string, secret: string, attempt: number, mark: number): Promise<any> {
  await pollUntil(() => proxy.held > mark, { what: `the worker of run ${attempt} held at its search ${PAGES_BEFORE_KILL + 1}` });
  const j = await until(id, secret, (x) => (x.attempts === attempt && x.rows_written > 0) || terminal(x), `run ${attempt} under way with rows written`);
  await kill(w);
  proxy.release();
  return j;
}

async function status(id: string, secret: string): Promise<any> {
  const res = await h.call('GET', `/v1/exports/${id}`, { secret });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

/** Polls the job until `done` holds of it (a minute at most). */
function until(id: string, secret: string, done: (j: any) => boolean, what: string): Promise<any> {
  return pollUntil(async () => {
    const j = await status(id, secret);
    return done(j) && j;
  }, { what: `export ${id}: ${what}`, timeoutMs: 60_000, everyMs: 20 });
}

const terminal = (j: any) => j.status === 'completed' || j.status === 'failed';

async function csvRows(path: string): Promise<number> {
  let lines = 0;
  for await (const _ of createInterface({ input: createReadStream(path) })) lines++;
  return lines - 1;
}

async function exportFile(): Promise<string> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.csv'));
  assert.is(files.length, 1, files.join(', '));
  return join(dir, files[0]);
}

t.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bintel-export-workers-'));
  const es = new URL(testConfig().esUrl);
  proxy = await startTcpProxy({ host: es.hostname, port: Number(es.port || 9200) });
  h = await startHarness({ BINTEL_WORKER_IN_PROCESS: '0', BINTEL_EXPORT_DIR: dir, BINTEL_JOB_LOCK_MS: String(LOCK_MS), BINTEL_CRAWL_THRESHOLD: '1000', BINTEL_CACHE_TTL_S: '0', BINTEL_RATE_LIMIT_PER_MIN: '1000000' });
  data = await loadGenerated(h, { companies: ROWS + 500, personnel: 0, brokerOffices: 10, brokers: 5, seed: 31 });
});
t.after(async () => {
  await stopAll();
  await proxy?.close();
  await h.close();
  await data?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

const price = () => rowPrice(entity('companies'), 'advanced').base;

t('a separate worker writes every row of a multi-page export; the organization pays rows × price', async () => {
  const o = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000_000 });
  const w = await startWorker();
  try {
    const before = await h.running.services.credits.balance(o.org);
    const res = await h.call('POST', '/v1/exports', { secret: o.secret, body: { resource: 'companies', max_rows: ROWS, ...ALL } });
    assert.is(res.status, 202, JSON.stringify(res.body));
    const job = await until(res.body.data.id, o.secret, terminal, 'completion');
    assert.is(job.status, 'completed');
    assert.is(job.rows_written, ROWS);
    assert.is(await csvRows(await exportFile()), ROWS);
    assert.is(before - (await h.running.services.credits.balance(o.org)), ROWS * price());
    await rm(await exportFile());
  } finally {
    // A worker left alive would take the next tests' jobs.
    await kill(w);
  }
});

t('a worker killed mid-export: another worker takes the job and writes the whole file; charged exactly once', async () => {
  const o = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000_000 });
  const before = await h.running.services.credits.balance(o.org);
  const mark = holdNextWorker();
  const w1 = await startWorker();
  const res = await h.call('POST', '/v1/exports', { secret: o.secret, body: { resource: 'companies', max_rows: ROWS, ...ALL } });
  assert.is(res.status, 202, JSON.stringify(res.body));
  const id = res.body.data.id as string;
  const midway = await killMidway(w1, id, o.secret, 1, mark);
  assert.is(midway.status, 'running');
  assert.ok(midway.rows_written < ROWS, `killed after ${midway.rows_written} rows`);
  const w2 = await startWorker();
  const job = await until(id, o.secret, terminal, 'completion');
  assert.is(job.status, 'completed');
  assert.is(job.attempts, 2);
  assert.is(job.rows_written, ROWS);
  assert.is(await csvRows(await exportFile()), ROWS);
  assert.is(before - (await h.running.services.credits.balance(o.org)), ROWS * price());
  assert.is(job.credits_charged, (ROWS * price()) / 1000);
  await kill(w2);
  // The killed run's .part file goes once the job is finished and the file untouched for two leases.
  assert.ok((await readdir(dir)).some((f) => f.endsWith('.part')));
  await cleanupExports(h.running.services, Date.now() + 2 * LOCK_MS + 1000);
  assert.equal((await readdir(dir)).filter((f) => f.endsWith('.part')), []);
  await rm(await exportFile());
});

t('a job whose worker is killed twice is failed and its whole reservation released', async () => {
  const o = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000_000 });
  const before = await h.running.services.credits.balance(o.org);
  let mark = holdNextWorker();
  let w = await startWorker();
  const res = await h.call('POST', '/v1/exports', { secret: o.secret, body: { resource: 'companies', max_rows: ROWS, ...ALL } });
  assert.is(res.status, 202, JSON.stringify(res.body));
  const id = res.body.data.id as string;
  assert.is(before - (await h.running.services.credits.balance(o.org)), ROWS * price());
  for (let run = 1; run <= 2; run++) {
    const j = await killMidway(w, id, o.secret, run, mark);
    assert.is(j.status, 'running');
    if (run < 2) mark = holdNextWorker();
    w = await startWorker();
  }
  const job = await until(id, o.secret, terminal, 'the job failed');
  assert.is(job.status, 'failed');
  assert.is(job.credits_charged, 0);
  assert.is(await h.running.services.credits.balance(o.org), before);
  await kill(w);
  await cleanupExports(h.running.services, Date.now() + 2 * LOCK_MS + 1000);
  assert.equal(await readdir(dir), []);
});

t.run();
