/**
 * Async exports (an extension beyond the spec): POST /v1/exports reserves credits for the exact
 * row count and enqueues a job (server/jobs/queue.ts); a worker runs the same walk as the
 * synchronous export (`exportCsv`), writing `<dir>/<file>.<run>.part` and renaming it to the file
 * when complete. The job record lives in Redis (any server process of the namespace answers
 * status and download); files live in config.exportDir (a shared directory in production).
 *
 * Money: the reservation is settled exactly once, by one Redis script (CreditService.settleOnce):
 * a completed job keeps rows written × price and gives back the rest; a job failed for good
 * (its last attempt threw, or its worker died twice) gives back everything. A job whose worker
 * died is run again from the start by another worker; it was charged once, at POST, and settles
 * once, whichever run gets there first.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Services } from '../context.ts';
import type { AuthState } from '../middleware/auth.ts';
import type { KeyRecord } from '../services/keys.ts';
import { keyTier } from '../services/tiers.ts';
import type { JobKind } from '../jobs/queue.ts';
import type { Tier } from '../../mappings/types.ts';
import { findEntity } from '../../mappings/index.ts';
import type { Charge } from './charge.ts';
import { exportCsv, parseExportRequest } from './export.ts';
import { authorizeList } from './authorize.ts';
import type { SearchBody } from './query.ts';
import type { RawQuery } from './request.ts';
import { toCredits } from '../pricing.ts';

/** The file name of a job: the organization (base64url, no dots) and the id. */
export const exportFileName = (org: string, id: string, gzip: boolean): string => `${Buffer.from(org).toString('base64url')}.${id}.csv${gzip ? '.gz' : ''}`;

export type ExportStatus = 'queued' | 'running' | 'completed' | 'failed';

/** What Redis holds of one job (and GET /v1/exports/{id} shows, without `file` and `charge`). */
export interface ExportJob {
  id: string;
  org: string;
  resource: string;
  /** The tier a key needs to read the rows (tierNeeded of the request that started it). */
  tier: Tier;
  /** Sandbox rows (started by a test key): only test keys read the job; live rows only live keys. */
  sandbox: boolean;
  status: ExportStatus;
  gzip: boolean;
  rows_reserved: number;
  rows_written: number;
  percent: number;
  /** Runs started (a run again after a failed attempt or a dead worker starts from the first row). */
  attempts: number;
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

/**
 * What the queue carries: everything a worker in any process needs to run the export as it was
 * paid for: the key as it was (without its secret hash), the list parameters (parsed again, the
 * parse is pure), and the query and row count the reservation was made for.
 */
export interface ExportPayload {
  id: string;
  org: string;
  key: Omit<KeyRecord, 'secret_hash'>;
  dataNamespace: string;
  sandbox: boolean;
  resource: string;
  q: RawQuery;
  maxRows: number;
  index: string;
  body: SearchBody;
  rows: number;
  charge: Charge;
}

/** The public view of a job. */
export function jobView(j: ExportJob): Record<string, unknown> {
  const { file: _f, charge: _c, org: _o, ...rest } = j;
  return rest;
}

const recordTtlS = (services: Services): number => services.config.exportTtlH * 3600 + 86_400;

export async function saveJob(services: Services, j: ExportJob): Promise<void> {
  await services.redis.set(services.rk.exportJob(j.org, j.id), JSON.stringify(j), 'EX', recordTtlS(services));
}

/**
 * A stored job. Records saved before jobs carried their tier and side read as the strictest
 * (advanced, live): only a live key advanced for the resource reads them.
 */
function parseJob(raw: string): ExportJob {
  const j = JSON.parse(raw) as Partial<Pick<ExportJob, 'tier' | 'sandbox'>> & Omit<ExportJob, 'tier' | 'sandbox'>;
  return { ...j, tier: j.tier ?? 'advanced', sandbox: j.sandbox ?? false };
}

export async function loadJob(services: Services, org: string, id: string): Promise<ExportJob | null> {
  const raw = await services.redis.get(services.rk.exportJob(org, id));
  return raw ? parseJob(raw) : null;
}

/** One page of the organization's jobs, newest first, and how many it has. */
export async function listJobs(services: Services, org: string, page = { from: 0, size: 100 }): Promise<{ jobs: ExportJob[]; total: number }> {
  const key = services.rk.exportJobs(org);
  const [ids, total] = await Promise.all([services.redis.zrevrange(key, page.from, page.from + page.size - 1), services.redis.zcard(key)]);
  if (!ids.length) return { jobs: [], total };
  const raws = await services.redis.mget(ids.map((id) => services.rk.exportJob(org, id)));
  return { jobs: raws.filter((r): r is string => r !== null).map(parseJob), total };
}

const TIER_RANK: Record<Tier, number> = { basic: 0, advanced: 1 };

/**
 * Whether `key` could read the rows of `job`: it is of the job's organization, holds
 * `read:<resource>`, is at least the job's tier for the resource, and is on the job's side
 * (test keys sandbox jobs, live keys live ones). Status, list and download all ask this; a job
 * it refuses is answered as one that does not exist.
 */
export function canReadJob(key: KeyRecord, job: ExportJob): boolean {
  const def = findEntity(job.resource);
  if (!def || key.org !== job.org || !key.scopes.includes(`read:${def.name}`)) return false;
  return TIER_RANK[keyTier(key, def)] >= TIER_RANK[job.tier] && (key.key_type === 'test') === job.sandbox;
}

/** Ids read from the organization's index per round trip while listing. */
const LIST_BATCH = 200;

/**
 * One page of the jobs `key` may read (canReadJob), newest first, and how many it may read: the
 * others are left out of both. Walks the organization's index in batches; ids whose record has
 * expired are dropped from it on the way, so the walk stays as long as the live records.
 */
export async function listReadableJobs(services: Services, key: KeyRecord, page: { from: number; size: number }): Promise<{ jobs: ExportJob[]; total: number }> {
  const index = services.rk.exportJobs(key.org);
  const jobs: ExportJob[] = [];
  let total = 0;
  for (let start = 0; ; start += LIST_BATCH) {
    const ids = await services.redis.zrevrange(index, start, start + LIST_BATCH - 1);
    if (!ids.length) break;
    const raws = await services.redis.mget(ids.map((id) => services.rk.exportJob(key.org, id)));
    const gone = ids.filter((_, i) => raws[i] === null);
    for (const raw of raws) {
      const job = raw === null ? null : parseJob(raw);
      if (!job || !canReadJob(key, job)) continue;
      if (total >= page.from && jobs.length < page.size) jobs.push(job);
      total++;
    }
    if (gone.length) {
      await services.redis.zrem(index, ...gone);
      start -= gone.length;
    }
    if (ids.length < LIST_BATCH) break;
  }
  return { jobs, total };
}

/** Queued or running jobs among the organization's most recent ones (the per-organization limit counts these). */
export async function activeJobs(services: Services, org: string): Promise<number> {
  const { jobs } = await listJobs(services, org, { from: 0, size: 100 });
  return jobs.filter((j) => j.status === 'queued' || j.status === 'running').length;
}

/**
 * Settles the reservation once: keeps `kept` rows of it, gives back the rest. Returns the rows
 * the organization pays for: `kept`, or what an earlier settlement of the same job recorded.
 */
async function settle(services: Services, p: ExportPayload, kept: number): Promise<number> {
  if (!p.charge.milli || !p.charge.day || !p.rows) return kept;
  const perRow = p.charge.milli / p.rows;
  const back = p.rows - kept;
  const r = await services.credits.settleOnce({
    org: p.org,
    keyId: p.key.id,
    milli: Math.round(back * perRow),
    rows: back,
    day: p.charge.day,
    flag: services.rk.exportSettled(p.org, p.id),
    outcome: String(kept),
    ttlS: recordTtlS(services),
  });
  return Number(r.outcome);
}

const creditsFor = (p: ExportPayload, rows: number): number => (p.rows ? toCredits(Math.round((p.charge.milli / p.rows) * rows)) : 0);

const finished = (j: ExportJob | null): boolean => !j || j.status === 'completed' || j.status === 'failed';

/** The export job kind: run the walk into a file; settle; or release everything when it fails for good. */
export const exportJobKind: JobKind<ExportPayload> = {
  name: 'exports',

  async run(services, p, attempt) {
    const job = await loadJob(services, p.org, p.id);
    if (!job || finished(job)) return;
    const def = findEntity(p.resource);
    if (!def) throw new Error(`unknown resource ${p.resource}`);
    const req = { ...parseExportRequest(def, p.q).list, pageSize: p.maxRows };
    const auth: AuthState = { key: { ...p.key, secret_hash: '' }, dataNamespace: p.dataNamespace, sandbox: p.sandbox, headOnly: false };
    const grant = authorizeList(auth.key, req);
    const dir = services.config.exportDir;
    // A file per run: a run given to another worker never writes into a file a stalled run still holds.
    const part = join(dir, `${job.file}.${randomUUID().slice(0, 8)}.part`);
    Object.assign(job, { status: 'running', attempts: attempt.number, rows_written: 0, percent: 0, error: null });
    await saveJob(services, job);
    let written = 0;
    try {
      await mkdir(dir, { recursive: true });
      const csv = exportCsv(services, auth, {
        req,
        grant,
        index: p.index,
        body: p.body,
        rows: p.rows,
        charge: p.charge,
        onRows: async (sent) => {
          written = sent;
          job.rows_written = sent;
          job.percent = p.rows ? Math.floor((sent * 100) / p.rows) : 100;
          await saveJob(services, job);
        },
      });
      const out = createWriteStream(part);
      if (job.gzip) await pipeline(Readable.from(csv), createGzip(), out);
      else await pipeline(Readable.from(csv), out);
      await rename(part, join(dir, job.file));
    } catch (err) {
      await rm(part, { force: true }).catch(() => {});
      const reason = (err as Error).message;
      if (attempt.final) await exportJobKind.failed(services, p, reason);
      else await saveJob(services, { ...job, status: 'queued', error: `Run ${attempt.number} failed; it will be retried from the first row` });
      throw err;
    }
    const paid = await settle(services, p, written);
    Object.assign(job, {
      status: 'completed',
      rows_written: written,
      percent: 100,
      credits_charged: creditsFor(p, paid),
      completed_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + services.config.exportTtlH * 3_600_000).toISOString(),
    });
    await saveJob(services, job);
  },

  async failed(services, p, reason) {
    const job = await loadJob(services, p.org, p.id);
    if (job?.status === 'completed') return;
    const paid = await settle(services, p, 0);
    services.log.error({ err: reason, org: p.org, export: p.id }, 'export failed');
    if (!job || job.status === 'failed') return;
    Object.assign(job, { status: 'failed', credits_charged: creditsFor(p, paid), completed_at: new Date().toISOString(), error: 'The export failed; the reservation was released' });
    await saveJob(services, job);
  },
};

const FILE_RE = /^([^.]+)\.([^.]+)\.csv(\.gz)?(\.[0-9a-f]+\.part)?$/;

/**
 * Removes expired export files and leftovers. A finished file goes when its job is gone from
 * Redis or expired. A `.part` file goes only when its job is finished (completed or failed) or
 * gone, and it has not been written to for twice the job lease: a file being written is never
 * removed. A queued or running job's files always stay.
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
    const m = FILE_RE.exec(name);
    if (!m) continue;
    const job = await loadJob(services, Buffer.from(m[1], 'base64url').toString(), m[2]);
    if (job && !finished(job)) continue;
    const mtime = await stat(join(dir, name)).then((s) => s.mtimeMs, () => null);
    if (mtime === null) continue;
    const expired = m[4]
      ? mtime + 2 * services.config.jobLockMs <= now
      : job?.expires_at
        ? Date.parse(job.expires_at) <= now
        : mtime + services.config.exportTtlH * 3_600_000 <= now;
    if (!expired) continue;
    await rm(join(dir, name), { force: true });
    removed++;
  }
  return removed;
}
