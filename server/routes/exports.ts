/**
 * Async exports (an extension beyond the spec; server/read/async-export.ts):
 * POST /v1/exports, GET /v1/exports, GET /v1/exports/{id}, GET /v1/exports/{id}/download.
 * POST composes the export pipeline (parse → authorize → caller context → build → exact count →
 * debit) with `max_rows` in place of the synchronous 2,000-row limit, then starts the job; live
 * keys only (test keys read the sandbox through the resource read endpoints).
 * A job is listed, shown and downloaded only for keys that could read its rows (`canReadJob`:
 * read:<resource>, the job's tier, the same side); to any other key it does not exist (404).
 */
import { creationScore } from '../../core/clock.ts';
import Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { authOf, requireLiveKey, requireScope } from '../middleware/auth.ts';
import { ENTITIES, findEntity } from '../../mappings/index.ts';
import { ApiError, invalid, notFound, type ErrorDetail } from '../errors.ts';
import { chargeRows } from '../read/charge.ts';
import { exportParams, parseExportRequest, planExport } from '../read/export.ts';
import { tierNeeded } from '../read/authorize.ts';
import { activeJobs, canReadJob, exportFileName, exportJobKind, jobView, listReadableJobs, loadJob, saveJob, type ExportJob } from '../read/async-export.ts';
import { listMeta, pageParams, queryOfObject, readQuery, throwProblems } from '../read/request.ts';
import { repeatableParams } from '../read/filters.ts';
import { bodyOf, idempotencyKeyOf } from '../validate.ts';

const ID_RE = /^exp_[0-9a-f]{32}$/;

export function exportJobRoutes(services: Services): Router {
  const r = new Router();
  const { config } = services;

  r.post('/v1/exports', async (ctx: Context) => {
    requireLiveKey(ctx, 'async exports');
    const auth = authOf(ctx);
    const idemKey = idempotencyKeyOf(ctx);
    const raw = bodyOf(ctx);
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalid({ field: 'body', issue: 'invalid_type', expected: 'a JSON object' });
    const { resource, max_rows: maxRows, gzip, ...params } = raw as Record<string, unknown>;
    const def = typeof resource === 'string' ? findEntity(resource) : undefined;
    if (!def) throw invalid({ field: 'resource', issue: resource === undefined ? 'missing_required' : 'invalid_value', expected: ENTITIES.map((d) => d.name) });
    requireScope(ctx, `read:${def.name}`);
    const problems: ErrorDetail[] = [];
    if (!Number.isInteger(maxRows) || (maxRows as number) < 1) problems.push({ field: 'max_rows', issue: maxRows === undefined ? 'missing_required' : 'invalid_integer', expected: `a whole number from 1 to ${config.exportMaxRows}` });
    else if ((maxRows as number) > config.exportMaxRows) problems.push({ field: 'max_rows', issue: 'out_of_range', expected: `at most ${config.exportMaxRows} rows in one export` });
    if (gzip !== undefined && typeof gzip !== 'boolean') problems.push({ field: 'gzip', issue: 'invalid_type', expected: 'true or false' });
    const allowed = exportParams(def).filter((p) => p !== 'limit' && p !== 'page_size');
    const q = queryOfObject(params, { allowed, repeatable: repeatableParams(def) }, problems);
    if (problems.length) throw invalid(problems);

    /**
     * The job an Idempotency-Key already names (answered 200, charging nothing), or null. The
     * claim is the organization's: a job this key may not read is never shown (409 instead).
     */
    const earlierJob = async (claim: string): Promise<ExportJob | null> => {
      const existing = await services.redis.get(services.rk.exportIdem(auth.key.org, claim));
      const job = existing ? await loadJob(services, auth.key.org, existing) : null;
      if (job && !canReadJob(auth.key, job)) {
        throw new ApiError('CONFLICT', 'This Idempotency-Key names an export of another request; use a new key', [{ field: 'idempotency-key', issue: 'conflicting_values', expected: 'a new key for a new export' }]);
      }
      if (job) {
        ctx.status = 200;
        ctx.body = { ok: true, data: jobView(job), meta: { credits_charged: 0 } };
      }
      return job;
    };
    if (idemKey && (await earlierJob(idemKey))) return;

    const parsed = parseExportRequest(def, q);
    const req = { ...parsed.list, pageSize: maxRows as number };
    if ((await activeJobs(services, auth.key.org)) >= config.exportMaxActive) {
      throw new ApiError('RATE_LIMITED', `The organization has ${config.exportMaxActive} exports queued or running; wait for one to finish`, [
        { field: 'exports', issue: 'rate_limited', expected: `at most ${config.exportMaxActive} queued or running exports per organization` },
      ]).withHeaders({ 'Retry-After': '5' });
    }
    const { grant, index, body, count, rows } = await planExport(services, auth, req);
    const id = `exp_${randomUUID().replace(/-/g, '')}`;
    if (idemKey) {
      // The first request with the key wins; a concurrent twin reads the winner's job.
      const won = await services.redis.set(services.rk.exportIdem(auth.key.org, idemKey), id, 'EX', config.exportTtlH * 3600, 'NX');
      if (won !== 'OK') {
        if (await earlierJob(idemKey)) return;
        throw new ApiError('CONFLICT', 'An export with this Idempotency-Key is being created; retry shortly', [{ field: 'idempotency-key', issue: 'conflicting_values' }]);
      }
    }
    let charge;
    try {
      charge = await chargeRows(services, { auth, def, tier: grant.projection.tier, rows, signals: req.signals });
    } catch (err) {
      if (idemKey) await services.redis.del(services.rk.exportIdem(auth.key.org, idemKey));
      throw err;
    }
    const gz = gzip === true;
    const job: ExportJob = {
      id,
      org: auth.key.org,
      resource: def.name,
      tier: tierNeeded(auth.key, req, grant),
      sandbox: auth.sandbox,
      status: 'queued',
      gzip: gz,
      rows_reserved: rows,
      rows_written: 0,
      percent: 0,
      attempts: 0,
      credits_reserved: charge.credits,
      credits_charged: null,
      created_at: new Date().toISOString(),
      completed_at: null,
      expires_at: null,
      error: null,
      file: exportFileName(auth.key.org, id, gz),
      charge,
    };
    const { secret_hash: _h, ...key } = auth.key;
    const payload = { id, org: auth.key.org, key, dataNamespace: auth.dataNamespace, sandbox: auth.sandbox, resource: def.name, q, maxRows: maxRows as number, index, body, rows, charge };
    try {
      await saveJob(services, job);
      await services.redis.zadd(services.rk.exportJobs(auth.key.org), creationScore(), id);
      await services.jobs.add(exportJobKind, id, payload);
    } catch (err) {
      // Not enqueued: nothing will run, so nothing stays reserved (and the job is shown failed).
      await exportJobKind.failed(services, payload, (err as Error).message).catch(() => {});
      throw err;
    }
    ctx.status = 202;
    ctx.set('Location', `/v1/exports/${id}`);
    ctx.body = { ok: true, data: jobView(job), meta: { credits_charged: charge.credits, credits_reserved: charge.credits, total_count: count } };
  });

  r.get('/v1/exports', async (ctx: Context) => {
    const problems: ErrorDetail[] = [];
    const { page, pageSize } = pageParams(readQuery(ctx, ['page', 'page_size']), problems);
    throwProblems(problems);
    const { jobs, total } = await listReadableJobs(services, authOf(ctx).key, { from: page * pageSize, size: pageSize });
    ctx.body = { ok: true, data: jobs.map(jobView), meta: { credits_charged: 0, ...listMeta(page, pageSize, jobs.length, total) } };
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
    ctx.body = { ok: true, data: jobView(await jobOf(ctx)), meta: { credits_charged: 0 } };
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
