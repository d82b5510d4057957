/**
 * Async exports (an extension beyond the spec): POST /v1/exports reserves credits for the exact
 * row count and runs the same walk as the synchronous export (`exportCsv`) in the background,
 * writing `<dir>/<id>.csv[.gz].part` and renaming it when complete. The job record lives in Redis
 * (any server process of the namespace answers status and download); files live in
 * config.exportDir (a shared directory in production). Settlement is exactly once: the walk gives
 * back undelivered rows when it ends, and a failed job gives back the delivered rows too, behind a
 * SET NX flag, so the organization pays rows written × price or nothing.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Services } from '../context.ts';
import type { AuthState } from '../middleware/auth.ts';
import { refundRows, type Charge } from './charge.ts';
import { exportCsv, type ExportWalk } from './export.ts';
import { toCredits } from '../pricing.ts';

/** The file name of a job: the organization (base64url, no dots) and the id. */
export const exportFileName = (org: string, id: string, gzip: boolean): string => `${Buffer.from(org).toString('base64url')}.${id}.csv${gzip ? '.gz' : ''}`;

export type ExportStatus = 'queued' | 'running' | 'completed' | 'failed';

/** What Redis holds of one job (and GET /v1/exports/{id} shows, without `file` and `charge`). */
export interface ExportJob {
  id: string;
  org: string;
  resource: string;
  status: ExportStatus;
  gzip: boolean;
  rows_reserved: number;
  rows_written: number;
  percent: number;
  credits_reserved: number;
  credits_charged: number | null;
  created_at: string;
  completed_at: string | null;
  expires_at: string | null;
  error: string | null;
  /** File name inside the export directory. */
  file: string;
  charge: Charge;
}

/** Test-only fault injection: fail a walk after this many rows (null: never). */
export const exportFaults: { failAfterRows: number | null } = { failAfterRows: null };

const running = new Set<Promise<void>>();

/** The public view of a job. */
export function jobView(j: ExportJob): Record<string, unknown> {
  const { file: _f, charge: _c, org: _o, ...rest } = j;
  return rest;
}

export async function saveJob(services: Services, j: ExportJob): Promise<void> {
  const ttlS = services.config.exportTtlH * 3600 + 86_400;
  await services.redis.set(services.rk.exportJob(j.org, j.id), JSON.stringify(j), 'EX', ttlS);
}

export async function loadJob(services: Services, org: string, id: string): Promise<ExportJob | null> {
  const raw = await services.redis.get(services.rk.exportJob(org, id));
  return raw ? (JSON.parse(raw) as ExportJob) : null;
}

export async function listJobs(services: Services, org: string): Promise<ExportJob[]> {
  const ids = await services.redis.zrevrange(services.rk.exportJobs(org), 0, 99);
  const jobs = await Promise.all(ids.map((id) => loadJob(services, org, id)));
  return jobs.filter((j): j is ExportJob => j !== null);
}

/** Starts the job's walk in this process (in the background); a job is run once. */
export function startJob(services: Services, auth: AuthState, walk: ExportWalk, job: ExportJob): void {
  const p = runJob(services, auth, walk, job).finally(() => running.delete(p));
  running.add(p);
}

/** Waits for every job this process runs (shutdown, tests). */
export async function drainJobs(): Promise<void> {
  while (running.size) await Promise.allSettled([...running]);
}

async function runJob(services: Services, auth: AuthState, walk: ExportWalk, job: ExportJob): Promise<void> {
  const dir = services.config.exportDir;
  const part = join(dir, `${job.file}.part`);
  let written = 0;
  const fault = exportFaults.failAfterRows;
  try {
    await mkdir(dir, { recursive: true });
    job.status = 'running';
    await saveJob(services, job);
    const csv = exportCsv(services, auth, {
      ...walk,
      onRows: async (sent) => {
        written = sent;
        job.rows_written = sent;
        job.percent = walk.rows ? Math.floor((sent * 100) / walk.rows) : 100;
        await saveJob(services, job);
        if (fault !== null && sent >= fault) throw new Error('injected export fault');
      },
    });
    const out = createWriteStream(part);
    if (job.gzip) await pipeline(Readable.from(csv), createGzip(), out);
    else await pipeline(Readable.from(csv), out);
    await rename(part, join(dir, job.file));
    const price = walk.rows ? walk.charge.milli / walk.rows : 0;
    const milli = walk.charge.milli && walk.rows ? Math.round(price * written) : 0;
    Object.assign(job, {
      status: 'completed',
      rows_written: written,
      percent: 100,
      credits_charged: toCredits(milli),
      completed_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + services.config.exportTtlH * 3_600_000).toISOString(),
    });
    await saveJob(services, job);
  } catch (err) {
    // exportCsv gave back the rows it did not deliver; a failed job gives back the rest, once.
    await rm(part, { force: true }).catch(() => {});
    const first = await services.redis.set(services.rk.exportSettled(job.org, job.id), '1', 'EX', services.config.exportTtlH * 3600 + 86_400, 'NX');
    if (first === 'OK' && written > 0) {
      await refundRows(services, { auth, def: walk.req.def, tier: walk.grant.projection.tier, rows: written, signals: walk.req.signals, charge: walk.charge }).catch((e: Error) =>
        services.log.error({ err: e.message, org: job.org, export: job.id }, 'export release failed'),
      );
    }
    Object.assign(job, { status: 'failed', credits_charged: 0, completed_at: new Date().toISOString(), error: 'The export failed; the reservation was released' });
    services.log.error({ err: (err as Error).message, org: job.org, export: job.id }, 'export failed');
    await saveJob(services, job).catch(() => {});
  }
}

/**
 * Removes expired export files (and their `.part` leftovers never: a `.part` file is being
 * written, or belongs to a job that failed and removed it). A file is removed when its job is
 * gone from Redis or expired, and only when its job is not running.
 */
export async function cleanupExports(services: Services, now = Date.now()): Promise<number> {
  const dir = services.config.exportDir;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (name.endsWith('.part')) continue;
    const m = /^([^.]+)\.([^.]+)\.csv(\.gz)?$/.exec(name);
    if (!m) continue;
    const org = Buffer.from(m[1], 'base64url').toString();
    const id = m[2];
    const job = await loadJob(services, org, id);
    if (job && (job.status === 'running' || job.status === 'queued')) continue;
    const expired = job?.expires_at ? Date.parse(job.expires_at) <= now : (await stat(join(dir, name))).mtimeMs + services.config.exportTtlH * 3_600_000 <= now;
    if (!expired) continue;
    await rm(join(dir, name), { force: true });
    removed++;
  }
  return removed;
}
