/**
 * Writing jobs (live keys only): POST /v1/writing-jobs (writing:generate), GET /v1/writing-jobs
 * and GET /v1/writing-jobs/{job_id} (writing:read) with a bounded long poll. A job is the
 * calling user's: another user or organization gets 404.
 *
 * POST: parse (every rule of the body) → internal-only options → Idempotency-Key already used?
 * → resolve (saved references: invalid_reference) → dry run? → claim the Idempotency-Key →
 * reserve → save, index, enqueue → 202. Nothing is reserved or written before the request is
 * known to be good; a reservation that cannot be enqueued is released.
 */
import { WRITING_JOB_ID_PATTERN } from '../writing/job-view.ts';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { authOf, requireScope } from '../middleware/auth.ts';
import { notFound, type ErrorDetail } from '../errors.ts';
import { bodyOf, idempotencyKeyOf } from '../validate.ts';
import { choiceParam, integerParam, listMeta, one, pageParams, readQuery, throwProblems } from '../read/request.ts';
import { toCredits } from '../pricing.ts';
import { accept } from '../jobs/accept.ts';
import { JOB_STATUSES } from '../jobs/kind.ts';
import { listIndexed } from '../jobs/store.ts';
import { jobView, loadWritingJob, writingJobKind, writingJobPrice, type WritingJobRecord } from '../writing/jobs.ts';

/** Longest long poll. */
export const WAIT_MS_MAX = 5_000;
const ID_RE = new RegExp(WRITING_JOB_ID_PATTERN);
const CHANNELS = ['email', 'linkedin'] as const;

export function writingJobRoutes(services: Services): Router {
  const r = new Router();
  const { config, rk } = services;

  /** The caller's job, or 404 (another user's or organization's reads as missing). */
  const jobOf = async (ctx: Context, id: string): Promise<WritingJobRecord> => {
    const { key } = authOf(ctx);
    const job = ID_RE.test(id) ? await loadWritingJob(services, key.org, id) : null;
    if (!job || job.internal.user !== key.user) throw notFound('Writing job', 'job_id');
    return job;
  };

  r.post('/v1/writing-jobs', async (ctx: Context) => {
    requireScope(ctx, 'writing:generate');
    const auth = authOf(ctx);
    const idemKey = idempotencyKeyOf(ctx);
    const raw = bodyOf(ctx);
    if (raw && typeof raw === 'object' && (raw as { dry_run?: unknown }).dry_run === true) {
      // A dry run resolves what a job would, and creates, reserves and charges nothing.
      const { req, context } = await writingJobKind.parse(services, auth, raw);
      ok(ctx, { dry_run: true, job_created: false, prose_generated: false, estimated_credits: toCredits(writingJobPrice(config, req.channel)), resolved_context: context }, { credits_reserved: 0, credits_charged: 0 });
      return;
    }
    const res = await accept(services, writingJobKind, auth, raw, idemKey);
    if (res.status === 202) ctx.set('Location', `/v1/writing-jobs/${res.id}`);
    ok(ctx, res.data, res.meta, res.status);
  });

  r.get('/v1/writing-jobs', async (ctx: Context) => {
    const key = requireScope(ctx, 'writing:read');
    const q = readQuery(ctx, ['status', 'channel', 'page', 'page_size']);
    const problems: ErrorDetail[] = [];
    const status = one(q, 'status') !== undefined ? choiceParam(q, 'status', { allowed: JOB_STATUSES, fallback: 'queued' }, problems) : null;
    const channel = one(q, 'channel') !== undefined ? choiceParam(q, 'channel', { allowed: CHANNELS, fallback: 'email' }, problems) : null;
    const { page, pageSize } = pageParams(q, problems);
    throwProblems(problems);
    const subsets = [status ? `status:${status}` : null, channel ? `channel:${channel}` : null].filter((x): x is string => x !== null);
    const sets = (subsets.length ? subsets : ['all']).map((x) => rk.writingJobs(key.org, key.user, x));
    const { records, total } = await listIndexed(services, writingJobKind, key.org, sets, { from: page * pageSize, size: pageSize });
    ok(ctx, records.map(jobView), listMeta(page, pageSize, records.length, total));
  });

  r.get('/v1/writing-jobs/:job_id', async (ctx: Context) => {
    requireScope(ctx, 'writing:read');
    const q = readQuery(ctx, ['wait_ms', 'last_event_count']);
    const problems: ErrorDetail[] = [];
    const waitMs = integerParam('wait_ms', q.wait_ms, { min: 0, max: WAIT_MS_MAX, fallback: 0 }, problems);
    const last = q.last_event_count === undefined ? null : integerParam('last_event_count', q.last_event_count, { min: 0, max: 1_000_000, fallback: 0 }, problems);
    throwProblems(problems);
    const id = ctx.params.job_id as string;
    let job = await jobOf(ctx, id);
    // Without last_event_count, the poll waits for the job's next event from now.
    const seen = last ?? job.eventCount;
    if (waitMs > 0 && !job.done && job.eventCount === seen) {
      await services.writingWaiter.until(id, waitMs, async () => {
        job = await jobOf(ctx, id);
        return job.done || job.eventCount !== seen;
      });
    }
    ok(ctx, jobView(job));
  });

  return r;
}
