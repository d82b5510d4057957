/**
 * Async exports run by `bintel worker` processes apart from the API (BINTEL_WORKER_IN_PROCESS=0
 * on the server), on 50,000 rows of real Elasticsearch data:
 *
 * - memory stays flat: the worker's peak RSS during a 50,000-row export stays under 150 MB
 *   above its idle RSS (the file would be far larger than that held in memory);
 * - a worker killed (SIGKILL) mid-export: another worker takes the job when its lease lapses and
 *   writes the whole file again; the organization pays rows written × price exactly once;
 * - a job whose worker is killed twice is failed and its whole reservation released; no `.part`
 *   file outlives the cleanup.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { kill, startWorker as startProcess, stopAll } from '../helpers/workers.ts';
import { entity } from '../../mappings/index.ts';
import { MONTHS } from '../../mappings/reference.ts';
import { rowPrice } from '../../server/pricing.ts';
import { cleanupExports } from '../../server/read/export-job.ts';
import { loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';

const t = suite('export workers');
const ROWS = 50_000;
const LOCK_MS = 1500;
const ALL = { renewal_month: MONTHS.join(','), sort_by: 'company_name', mode: 'full' };

let h: Harness;
let data: DataFiles | undefined;
let dir = '';

/** A `bintel worker` for the harness's namespace, the export directory and a short lease. */
const startWorker = (env: Record<string, string> = {}) => startProcess({ BINTEL_NAMESPACE: h.config.namespace, BINTEL_EXPORT_DIR: dir, BINTEL_JOB_LOCK_MS: String(LOCK_MS), ...env });

/** Resident set of a process, bytes (Linux /proc). */
async function rss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

async function status(id: string, secret: string): Promise<any> {
  const res = await h.call('GET', `/v1/exports/${id}`, { secret });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

/** Polls the job until `done` holds of it (a minute at most). */
async function until(id: string, secret: string, done: (j: any) => boolean, what: string): Promise<any> {
  for (let i = 0; i < 3000; i++) {
    const j = await status(id, secret);
    if (done(j)) return j;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`export ${id}: ${what} not reached within a minute`);
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
  h = await startHarness({ BINTEL_WORKER_IN_PROCESS: '0', BINTEL_EXPORT_DIR: dir, BINTEL_JOB_LOCK_MS: String(LOCK_MS), BINTEL_CRAWL_THRESHOLD: '1000', BINTEL_CACHE_TTL_S: '0', BINTEL_RATE_LIMIT_PER_MIN: '1000000' });
  data = await loadGenerated(h, { companies: ROWS + 2500, personnel: 0, brokerOffices: 10, brokers: 5, seed: 31 });
});
t.after(async () => {
  await stopAll();
  await h.close();
  await data?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

const price = () => rowPrice(entity('companies'), 'advanced').base;

t('a 50,000-row export keeps the worker within 150 MB of its idle RSS (old space capped at 192 MB: what grows by default is uncollected garbage)', async () => {
  const o = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000_000 });
  // With V8's default heap the RSS above idle sat at 149-151 MB, garbage not yet collected
  // (+32 MB with the old space capped at 160 MB, measured earlier); a cap shows it is collectable.
  const w = await startWorker({ NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=192`.trim() });
  try {
    await new Promise((r) => setTimeout(r, 500));
    const idle = await rss(w.pid!);
    const before = await h.running.services.credits.balance(o.org);
    const res = await h.call('POST', '/v1/exports', { secret: o.secret, body: { resource: 'companies', max_rows: ROWS, ...ALL } });
    assert.is(res.status, 202, JSON.stringify(res.body));
    let peak = idle;
    let job: any;
    do {
      peak = Math.max(peak, await rss(w.pid!));
      job = await status(res.body.data.id, o.secret);
      await new Promise((r) => setTimeout(r, 20));
    } while (!terminal(job));
    assert.is(job.status, 'completed');
    assert.is(job.rows_written, ROWS);
    assert.is(await csvRows(await exportFile()), ROWS);
    assert.is(before - (await h.running.services.credits.balance(o.org)), ROWS * price());
    const grown = (peak - idle) / 2 ** 20;
    assert.ok(grown < 150, `the worker grew ${grown.toFixed(0)} MB above idle (${(idle / 2 ** 20).toFixed(0)} MB) during the export`);
    await rm(await exportFile());
  } finally {
    // A worker left alive would take the next tests' jobs.
    await kill(w);
  }
});

t('a worker killed mid-export: another worker takes the job and writes the whole file; charged exactly once', async () => {
  const o = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000_000 });
  const before = await h.running.services.credits.balance(o.org);
  const w1 = await startWorker();
  const res = await h.call('POST', '/v1/exports', { secret: o.secret, body: { resource: 'companies', max_rows: ROWS, ...ALL } });
  assert.is(res.status, 202, JSON.stringify(res.body));
  const id = res.body.data.id as string;
  const midway = await until(id, o.secret, (j) => j.rows_written >= 5000 || terminal(j), '5,000 rows written');
  assert.is(midway.status, 'running', 'the export finished before the worker could be killed');
  await kill(w1);
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
  let w = await startWorker();
  const res = await h.call('POST', '/v1/exports', { secret: o.secret, body: { resource: 'companies', max_rows: ROWS, ...ALL } });
  assert.is(res.status, 202, JSON.stringify(res.body));
  const id = res.body.data.id as string;
  assert.is(before - (await h.running.services.credits.balance(o.org)), ROWS * price());
  for (let run = 1; run <= 2; run++) {
    const j = await until(id, o.secret, (x) => (x.attempts === run && x.rows_written >= 2000) || terminal(x), `run ${run} under way`);
    assert.is(j.status, 'running');
    await kill(w);
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
