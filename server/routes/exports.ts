/**
 * Async exports (an extension beyond the spec; server/read/async-export.ts):
 * POST /v1/exports, GET /v1/exports, GET /v1/exports/{id}, GET /v1/exports/{id}/download.
 * POST is the job layer's accept (server/jobs/accept.ts) with the export kind
 * (server/read/export-job.ts); live keys only (test keys read the sandbox through the resource
 * read endpoints). GET /v1/exports filters by `status` as GET /v1/writing-jobs does.
 * A job is listed, shown and downloaded only for its user's keys and tokens that could read its
 * rows (`canReadJob`: the same user, read:<resource>, the job's tier, the same side); to any other
 * key it does not exist (404).
 */
import { ok } from '../middleware/envelope.ts';
import Router from '@koa/router';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { authOf, requireLiveKey } from '../middleware/auth.ts';
import { ApiError, notFound, type ErrorDetail } from '../errors.ts';
import { accept } from '../jobs/accept.ts';
import { JOB_STATUSES } from '../jobs/kind.ts';
import { exportJobKind, listReadableJobs, loadJob } from '../read/export-job.ts';
import { EXPORT_ID_PATTERN, canReadJob, jobView, type ExportJob } from '../read/async-export.ts';
import { choiceParam, listMeta, one, pageParams, readQuery, throwProblems } from '../read/request.ts';
import { bodyOf, idempotencyKeyOf } from '../validate.ts';

const ID_RE = new RegExp(EXPORT_ID_PATTERN);

export function exportJobRoutes(services: Services): Router {
  const r = new Router();
  const { config } = services;

  r.post('/v1/exports', async (ctx: Context) => {
    requireLiveKey(ctx, 'async exports');
    const res = await accept(services, exportJobKind, authOf(ctx), bodyOf(ctx), idempotencyKeyOf(ctx));
    if (res.status === 202) ctx.set('Location', `/v1/exports/${res.id}`);
    ok(ctx, res.data, res.meta, res.status);
  });

  r.get('/v1/exports', async (ctx: Context) => {
    const problems: ErrorDetail[] = [];
    const q = readQuery(ctx, ['status', 'page', 'page_size']);
    const status = one(q, 'status') !== undefined ? choiceParam(q, 'status', { allowed: JOB_STATUSES, fallback: 'queued' }, problems) : null;
    const { page, pageSize } = pageParams(q, problems);
    throwProblems(problems);
    const { jobs, total } = await listReadableJobs(services, authOf(ctx).key, { from: page * pageSize, size: pageSize, status });
    ok(ctx, jobs.map(jobView), listMeta(page, pageSize, jobs.length, total));
  });

  /** The job of the path, if this key may read it; 404 alike for no such job and one it may not read. */
  const jobOf = async (ctx: Context): Promise<ExportJob> => {
    const id = ctx.params.id as string;
    const { key } = authOf(ctx);
    const job = ID_RE.test(id) ? await loadJob(services, key.org, id) : null;
    if (!job || !canReadJob(key, job)) throw notFound('Export');
    return job;
  };

  r.get('/v1/exports/:id', async (ctx: Context) => {
    ok(ctx, jobView(await jobOf(ctx)));
  });

  r.get('/v1/exports/:id/download', async (ctx: Context) => {
    const job = await jobOf(ctx);
    if (job.status !== 'completed') {
      throw new ApiError('CONFLICT', `The export is ${job.status}, not completed`, [{ field: 'id', issue: 'invalid_state', expected: 'completed' }]);
    }
    const path = join(config.exportDir, job.file);
    const expired = job.expires_at !== null && Date.parse(job.expires_at) <= Date.now();
    const size = expired ? null : await stat(path).then((s) => s.size, () => null);
    if (size === null) throw new ApiError('GONE', 'The export file has expired; create the export again', [{ field: 'id', issue: 'invalid_state', expected: `a file is kept ${config.exportTtlH} h` }]);
    ctx.status = 200;
    ctx.set('Content-Type', job.gzip ? 'application/gzip' : 'text/csv; charset=utf-8');
    ctx.set('Content-Disposition', `attachment; filename="${job.resource}-${job.id}.csv${job.gzip ? '.gz' : ''}"`);
    ctx.set('Content-Length', String(size));
    ctx.set('X-Export-Rows', String(job.rows_written));
    ctx.body = createReadStream(path);
  });
  return r;
}
