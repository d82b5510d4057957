/**
 * The async export job kind (server/jobs/kind.ts): its body (a resource, `max_rows`, `gzip` and
 * the list parameters), its price (the exact count × the row price, reserved at accept), its run
 * (the synchronous export's walk into a file, `<file>.<run>.part` renamed when complete) and its
 * settlement (rows written kept, the rest given back).
 */
import { utcDay } from '../../../core/clock.ts';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Services } from '../../context.ts';
import type { AuthState } from '../../access.ts';
import { assertScope } from '../../access.ts';
import { CONFIG_DEFAULTS } from '../../../core/config.ts';
import { ENTITIES, findEntity } from '../../../mappings/index.ts';
import type { EntityDef } from '../../../mappings/types.ts';
import { invalid, type ErrorDetail } from '../../errors.ts';
import { toCredits } from '../../pricing.ts';
import type { JobStatus, PaidJobKind } from '../kind.ts';
import type { KeyRecord } from '../../services/keys.ts';
import { isFinished } from '../kind.ts';
import { advance, advanceLatest, listIndexed, loadRecord, StaleJobError } from '../store.ts';
import { settle } from '../settle.ts';
import { personOf } from '../../services/person.ts';
import { authorizeList, tierNeeded } from '../../read/authorize.ts';
import { chargeMilli } from '../../read/charge.ts';
import { crawlStep } from '../../read/list.ts';
import { exportCsv, exportParams, parseExportRequest, planExport } from '../../read/export.ts';
import type { ListRequest } from '../../read/list-request.ts';
import { repeatableParams } from '../../read/filters.ts';
import { queryOfObject, type RawQuery } from '../../read/request.ts';
import { canReadJob, EXPORT_ID_PREFIX, exportFileName, jobView, recordTtlS, type ExportJob, type ExportPayload } from '../../read/async-export.ts';

/**
 * The POST /v1/exports body as the document shows it; `parse` below checks the same members (a
 * resource, max_rows up to config.exportMaxRows, gzip) and hands the rest to the list's rules.
 */
export const EXPORT_BODY_SCHEMA = {
  type: 'object',
  required: ['resource', 'max_rows'],
  properties: {
    resource: { type: 'string', enum: ENTITIES.map((d) => d.name), description: 'The key needs read:<resource>.' },
    max_rows: { type: 'integer', minimum: 1, description: `At most BINTEL_EXPORT_MAX_ROWS (default ${CONFIG_DEFAULTS.exportMaxRows.toLocaleString('en-US')}).` },
    gzip: { type: 'boolean', description: 'The file gzipped (downloaded as application/gzip).' },
  },
  additionalProperties: { type: 'string', description: "A list parameter of the resource, as in the list's query string." },
};

/** A parsed POST /v1/exports body. */
export interface ExportBody {
  def: EntityDef;
  q: RawQuery;
  maxRows: number;
  gzip: boolean;
  /** The list question of `q` (parsed once, in `parse`), its page size `maxRows`. */
  req: ListRequest;
}

/** The rows an organization pays for, as a settlement recorded them. */
const paidRows = (outcome: string): number => Number(outcome) || 0;

const creditsFor = (p: ExportPayload, rows: number): number => (p.rows ? toCredits(Math.round((p.charge.milli / p.rows) * rows)) : 0);

/** Keeps `kept` rows of the reservation, gives back the rest, once; returns the rows paid for (this settlement's or an earlier one's). */
async function settleRows(services: Services, p: ExportPayload, kept: number): Promise<number> {
  const back = p.rows - kept;
  // The payload says what was reserved.
  const reservation = { id: p.id, kind: exportJobKind.name, org: p.org, key_id: p.key.id, person: p.person, milli: p.charge.milli, rows: p.rows, day: p.charge.day ?? '', at: 0 };
  const { outcome } = await settle(services, exportJobKind, reservation, { backMilli: p.rows ? Math.round((back * p.charge.milli) / p.rows) : 0, backRows: back, outcome: String(kept) });
  return paidRows(outcome);
}

export const exportJobKind: PaidJobKind<ExportBody, ExportPayload, ExportJob> = {
  name: 'exports',
  idPrefix: EXPORT_ID_PREFIX,
  releasedOutcome: '0',
  describe: (b) => `An export of up to ${b.maxRows} rows`,
  recordKey: (rk, org, id) => rk.exportJob(org, id),
  recordTtlS,
  settledFlag: (rk, org, id) => rk.exportSettled(org, id),
  activeCap: (config) => config.exportMaxActive,
  retainedCap: (config) => config.exportMaxRetained,
  statusIndex: () => null,
  score: (r) => Date.parse(r.created_at),
  view: jobView,
  releasedRecord: (r, reason) => ({ ...r, status: 'failed', credits_charged: 0, completed_at: new Date().toISOString(), error: reason }),

  async parse(services, auth, raw) {
    const { config } = services;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalid({ field: 'body', issue: 'invalid_type', expected: 'a JSON object' });
    const { resource, max_rows: maxRows, gzip, ...params } = raw as Record<string, unknown>;
    const def = typeof resource === 'string' ? findEntity(resource) : undefined;
    if (!def) throw invalid({ field: 'resource', issue: resource === undefined ? 'missing_required' : 'invalid_value', expected: ENTITIES.map((d) => d.name) });
    assertScope(auth.key, `read:${def.name}`);
    const problems: ErrorDetail[] = [];
    if (!Number.isInteger(maxRows) || (maxRows as number) < 1) problems.push({ field: 'max_rows', issue: maxRows === undefined ? 'missing_required' : 'invalid_integer', expected: `a whole number from 1 to ${config.exportMaxRows}` });
    else if ((maxRows as number) > config.exportMaxRows) problems.push({ field: 'max_rows', issue: 'out_of_range', expected: `at most ${config.exportMaxRows} rows in one export` });
    if (gzip !== undefined && typeof gzip !== 'boolean') problems.push({ field: 'gzip', issue: 'invalid_type', expected: 'true or false' });
    const allowed = exportParams(def).filter((p) => p !== 'limit' && p !== 'page_size');
    const q = queryOfObject(params, { allowed, repeatable: repeatableParams(def) }, problems);
    if (problems.length) throw invalid(problems);
    // The list parameters' own rules, before anything is counted.
    const req = { ...parseExportRequest(def, q).list, pageSize: maxRows as number };
    return { def, q, maxRows: maxRows as number, gzip: gzip === true, req };
  },

  async plan(services, auth, body, id) {
    const { def, q, maxRows, gzip, req } = body;
    // The rows of a list question from its first row, as a CSV export's first page: the same crawl
    // step (a walk of that question's pages past the threshold refuses the export too, 429). The
    // count that prices it is asked meanwhile (it changes nothing; a refused step wastes only it).
    const [, { grant, index, body: search, count, rows }] = await Promise.all([services.crawl.check(crawlStep(services, auth, req, 0)), planExport(services, auth, req)]);
    // An empty file is no export: refused, where pricing it at 0 would let a tenant queue work for free.
    if (!rows) throw invalid({ field: 'filters', issue: 'no_matching_rows', expected: 'filters that match at least one row (the list with count_only=true gives the count)' }, 'No row matches these filters: an export of nothing is refused (nothing reserved)');
    const milli = chargeMilli({ def, tier: grant.projection.tier, rows, signals: req.signals });
    const day = utcDay();
    const record: Omit<ExportJob, 'version' | 'reservation'> = {
      id,
      org: auth.key.org,
      user: auth.key.user,
      resource: def.name,
      tier: tierNeeded(auth.key, req, grant),
      sandbox: auth.sandbox,
      status: 'queued',
      gzip,
      rows_reserved: rows,
      rows_written: 0,
      percent: 0,
      attempts: 0,
      credits_reserved: toCredits(milli),
      credits_charged: null,
      created_at: new Date().toISOString(),
      completed_at: null,
      expires_at: null,
      error: null,
      file: exportFileName(auth.key.org, id, gzip),
      charge: { milli, credits: toCredits(milli), day, cacheHit: false },
    };
    const { secret_hash: _h, ...key } = auth.key;
    const payload: ExportPayload = { id, org: auth.key.org, key, person: personOf(auth.key), dataNamespace: auth.dataNamespace, sandbox: auth.sandbox, resource: def.name, q, maxRows, index, body: search, rows, charge: record.charge };
    return {
      reserve: { milli, rows, dailyRows: rows, dailyCap: services.config.dailyRowCap },
      record,
      payload,
      indexes: [services.rk.exportJobs(auth.key.org)],
      meta: { total_count: count },
    };
  },

  async run(services, p, attempt) {
    let job = await loadRecord(services, exportJobKind, p.org, p.id);
    if (!job || isFinished(job.status)) return;
    const def = findEntity(p.resource);
    if (!def) throw new Error(`unknown resource ${p.resource}`);
    const req = { ...parseExportRequest(def, p.q).list, pageSize: p.maxRows };
    const auth: AuthState = { key: { ...p.key, secret_hash: '' }, dataNamespace: p.dataNamespace, sandbox: p.sandbox, headOnly: false };
    const grant = authorizeList(auth.key, req);
    const dir = services.config.exportDir;
    // A file per run: a run given to another worker never writes into a file a stalled run still holds.
    const part = join(dir, `${job.file}.${randomUUID().slice(0, 8)}.part`);
    job = await advance(services, exportJobKind, job, { status: 'running', attempts: attempt.number, rows_written: 0, percent: 0, error: null });
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
          job = await advance(services, exportJobKind, job!, { rows_written: sent, percent: p.rows ? Math.floor((sent * 100) / p.rows) : 100 });
        },
      });
      const out = createWriteStream(part);
      if (job.gzip) await pipeline(Readable.from(csv), createGzip(), out);
      else await pipeline(Readable.from(csv), out);
      await rename(part, join(dir, job.file));
    } catch (err) {
      await rm(part, { force: true }).catch(() => {});
      // Another worker has this job now: it settles; this run writes nothing more.
      if (err instanceof StaleJobError) throw err;
      if (attempt.final) await exportJobKind.failed(services, p, (err as Error).message);
      else await advance(services, exportJobKind, job, { status: 'queued', error: `Run ${attempt.number} failed; it will be retried from the first row` });
      throw err;
    }
    const paid = await settleRows(services, p, written);
    await advance(services, exportJobKind, job, {
      status: 'completed',
      rows_written: written,
      percent: 100,
      credits_charged: creditsFor(p, paid),
      completed_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + services.config.exportTtlH * 3_600_000).toISOString(),
    });
  },

  async failed(services, p, reason) {
    services.log.error({ err: reason, org: p.org, export: p.id }, 'export failed');
    await advanceLatest(services, exportJobKind, p.org, p.id, async (job) => {
      if (job.status === 'completed') return null;
      const paid = await settleRows(services, p, 0);
      if (job.status === 'failed') return null;
      return { status: 'failed', credits_charged: creditsFor(p, paid), completed_at: new Date().toISOString(), error: 'The export failed; the reservation was released' };
    });
  },
};

/** A stored export job (null when gone or expired). */
export const loadJob = (services: Services, org: string, id: string): Promise<ExportJob | null> => loadRecord(services, exportJobKind, org, id);

/**
 * One page of the jobs `key` may read (canReadJob), newest first, with `status` when given, and
 * how many there are: the others are left out of both. Walks the organization's newest
 * BINTEL_EXPORT_MAX_RETAINED jobs (an organization keeps no more: accept refuses the next), so a
 * call's work is bounded whatever the index holds (server/jobs/store.ts `listIndexed`).
 */
export async function listReadableJobs(services: Services, key: KeyRecord, page: { from: number; size: number; status?: JobStatus | null }): Promise<{ jobs: ExportJob[]; total: number }> {
  const where = (job: ExportJob): boolean => canReadJob(key, job) && (!page.status || job.status === page.status);
  const { records, total } = await listIndexed(services, exportJobKind, key.org, [services.rk.exportJobs(key.org)], { from: page.from, size: page.size, where, bound: services.config.exportMaxRetained });
  return { jobs: records, total };
}

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
    if (job && !isFinished(job.status)) continue;
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
