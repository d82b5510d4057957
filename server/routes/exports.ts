/**
 * Async exports (an extension beyond the spec; server/read/async-export.ts):
 * POST /v1/exports, GET /v1/exports, GET /v1/exports/{id}, GET /v1/exports/{id}/download.
 * POST is the job layer's accept (server/jobs/accept.ts) with the export kind
 * (server/jobs/kinds/export.ts); live keys only (test keys read the sandbox through the resource
 * read endpoints). GET /v1/exports filters by `status` as GET /v1/writing-jobs does.
 * A job is listed, shown and downloaded only for its user's keys and tokens that could read its
 * rows (`canReadJob`: the same user, read:<resource>, the job's tier, the same side); to any other
 * key it does not exist (404).
 */
import { ok } from '../middleware/envelope.ts';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { authOf } from '../access.ts';
import { CONFIG_DEFAULTS } from '../../core/config.ts';
import { ref } from '../openapi/schemas.ts';
import { pathParameter, type Schema } from '../openapi/params.ts';
import { BODY, array, pagedQuery } from '../openapi/shapes.ts';
import { ANY_KEY, route, type Route } from './route.ts';
import { ApiError, notFound, type ErrorDetail } from '../errors.ts';
import { accept } from '../jobs/accept.ts';
import { JOB_STATUSES } from '../jobs/kind.ts';
import { EXPORT_BODY_SCHEMA, exportJobKind, listReadableJobs, loadJob } from '../jobs/kinds/export.ts';
import { EXPORT_ID_PATTERN, EXPORT_JOB_VIEW_SCHEMA, canReadJob, jobView, type ExportJob } from '../read/async-export.ts';
import { choiceParam, listMeta, one, pageParams, throwProblems } from '../read/request.ts';
import { bodyOf, idempotencyKeyOf } from '../validate.ts';

const ID_RE = new RegExp(EXPORT_ID_PATTERN);

/** The job of the path, if this key may read it; 404 alike for no such job and one it may not read. */
async function jobOf(services: Services, ctx: Context): Promise<ExportJob> {
  const id = ctx.params.id as string;
  const { key } = authOf(ctx);
  const job = ID_RE.test(id) ? await loadJob(services, key.org, id) : null;
  if (!job || !canReadJob(key, job)) throw notFound('Export');
  return job;
}

export function exportJobRoutes(): Route[] {
  const id = pathParameter('id', 'The export id (exp_…).', { type: 'string', pattern: EXPORT_ID_PATTERN });
  const job = EXPORT_JOB_VIEW_SCHEMA as unknown as Schema;
  const readable = "A job is read only by its user's keys and tokens (the key that started it, its root and child keys, tokens of the same user) that could read its rows: read:<resource>, a tier for the resource at least the job's (`tier`), and the job's side (test keys sandbox jobs, live keys live ones)";
  return [
    route({
      method: 'post', path: '/v1/exports', tag: 'exports', summary: 'Start an async export (reserves credits for the exact count)', description: `Live keys holding read:<resource> (test keys 403 test_key_not_allowed). Idempotency-Key: a repeat with the same body returns the same job (200, meta.idempotency_reused), another body or another key is 409. 202 Accepted with Location; meta.credits_reserved is the reservation, meta.credits_charged 0 until the job settles. 429 RATE_LIMITED when the organization already has BINTEL_EXPORT_MAX_ACTIVE (default ${CONFIG_DEFAULTS.exportMaxActive}) exports queued or running; 429 QUOTA_EXCEEDED when it keeps BINTEL_EXPORT_MAX_RETAINED (default ${CONFIG_DEFAULTS.exportMaxRetained}) export jobs of any status (Retry-After: until the oldest expires). Filters that match no row are 400 (filters/no_matching_rows), nothing reserved. The export takes the crawl step of its question's first row and its rows count toward the user's daily row cap, as list pages do.`,
      access: { kind: 'live', live: 'async exports' }, idempotencyKey: true,
      body: { schema: EXPORT_BODY_SCHEMA as Schema, example: { resource: 'companies', max_rows: 20000, states: 'TX,CA' } }, success: { data: job, accepted: true }, errors: [...BODY, 402, 409, 429],
      handle: async ({ ctx, services }) => {
        const res = await accept(services, exportJobKind, authOf(ctx), bodyOf(ctx), idempotencyKeyOf(ctx));
        if (res.status === 202) ctx.set('Location', `/v1/exports/${res.id}`);
        ok(ctx, res.data, res.meta, res.status);
      },
    }),
    route({
      method: 'get', path: '/v1/exports', tag: 'exports', summary: "The organization's exports this key may read, newest first", description: `${readable}; the list and total_count leave the others out. Reads the organization's newest BINTEL_EXPORT_MAX_RETAINED (default ${CONFIG_DEFAULTS.exportMaxRetained}) jobs, as many as it may keep.`, access: ANY_KEY,
      query: pagedQuery('Exports', { properties: { status: { type: 'string', enum: [...JOB_STATUSES] } }, about: { status: 'Only jobs in this state.' } }), success: { data: array(job), meta: ref('ListMeta') }, errors: [400],
      handle: async ({ ctx, services, query }) => {
        const problems: ErrorDetail[] = [];
        const q = query();
        const status = one(q, 'status') !== undefined ? choiceParam(q, 'status', { allowed: JOB_STATUSES, fallback: 'queued' }, problems) : null;
        const { page, pageSize } = pageParams(q, problems);
        throwProblems(problems);
        const { jobs, total } = await listReadableJobs(services, authOf(ctx).key, { from: page * pageSize, size: pageSize, status });
        ok(ctx, jobs.map(jobView), listMeta(page, pageSize, jobs.length, total));
      },
    }),
    route({
      method: 'get', path: '/v1/exports/{id}', tag: 'exports', summary: 'Status and progress of an export', description: `${readable}; any other is 404, as an unknown id.`, access: ANY_KEY,
      params: [id], success: { data: job }, errors: [404],
      handle: async ({ ctx, services }) => ok(ctx, jobView(await jobOf(services, ctx))),
    }),
    route({
      method: 'get', path: '/v1/exports/{id}/download', tag: 'exports', summary: 'The file of a completed export', description: `${readable}; any other is 404, as an unknown id. 409 before completion, 410 once expired.`, access: ANY_KEY,
      params: [id], success: { media: 'text/csv', gzip: true }, errors: [404, 409, 410],
      handle: async ({ ctx, services }) => {
        const { config } = services;
        const job = await jobOf(services, ctx);
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
      },
    }),
  ];
}
