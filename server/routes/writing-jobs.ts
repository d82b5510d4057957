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
import Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { authOf, requireScope } from '../middleware/auth.ts';
import { ApiError, forbidden, invalid, notFound, type ErrorDetail } from '../errors.ts';
import { bodyOf, idempotencyKeyOf } from '../validate.ts';
import { budgetExhausted } from '../read/charge.ts';
import { choiceParam, integerParam, listMeta, one, pageParams, readQuery, throwProblems } from '../read/request.ts';
import { toCredits } from '../pricing.ts';
import { parseStartJob } from '../writing/job-request.ts';
import { resolveContext } from '../writing/resolve.ts';
import { refsFor } from '../writing/refs.ts';
import { createWritingJob, jobView, loadWritingJob, newWritingJob, writingJobKind, type WritingJobRecord } from '../writing/jobs.ts';

/** Longest long poll. */
export const WAIT_MS_MAX = 5_000;
const ID_RE = /^wj_[0-9a-f]{32}$/;
const STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
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
    const key = requireScope(ctx, 'writing:generate');
    const idemKey = idempotencyKeyOf(ctx);
    const req = parseStartJob(bodyOf(ctx));
    if ((req.include_ai_costs || req.force_failure) && !key.internal) {
      throw forbidden('include_ai_costs and force_failure are for internal tokens only', req.include_ai_costs ? 'include_ai_costs' : 'force_failure', 'internal_only');
    }
    const idem = idemKey && !req.dry_run ? rk.writingIdem(key.org, key.user, idemKey) : null;

    /** The job an Idempotency-Key already names: 200 with it, charging nothing. */
    const reuse = async (id: string): Promise<boolean> => {
      // The winner of a concurrent pair may still be saving its job: wait for it briefly.
      for (let i = 0; i < 100; i++) {
        const job = await loadWritingJob(services, key.org, id);
        if (job) {
          ok(ctx, jobView(job), { idempotency_reused: true, credits_reserved: 0, credits_charged: 0 });
          return true;
        }
        if (!(await services.redis.exists(idem!))) return false;
        await new Promise((res) => setTimeout(res, 20));
      }
      throw new ApiError('CONFLICT', 'A writing job with this Idempotency-Key is being created; retry shortly', [{ field: 'idempotency-key', issue: 'conflicting_values' }]);
    };
    if (idem) {
      const earlier = await services.redis.get(idem);
      if (earlier && (await reuse(earlier))) return;
    }

    const context = await resolveContext(req, refsFor(services, key));
    const reserve = config.writingReserveMilli[req.channel];
    if (req.dry_run) {
      ok(ctx, { dry_run: true, job_created: false, prose_generated: false, estimated_credits: toCredits(reserve), resolved_context: context }, { credits_reserved: 0, credits_charged: 0 });
      return;
    }

    const id = `wj_${randomUUID().replace(/-/g, '')}`;
    if (idem && (await services.redis.set(idem, id, 'EX', config.writingRetentionDays * 86_400, 'NX')) !== 'OK') {
      const winner = await services.redis.get(idem);
      if (winner && (await reuse(winner))) return;
    }
    const day = new Date().toISOString().slice(0, 10);
    const debit = await services.credits.debit({ org: key.org, keyId: key.id, milli: reserve, rows: 0, dailyRows: 0, dailyCap: -1, day, budget: key.budget }).catch(async (err) => {
      if (idem) await services.redis.del(idem);
      throw err;
    });
    if (debit.outcome !== 'charged') {
      if (idem) await services.redis.del(idem);
      if (debit.outcome === 'budget') throw budgetExhausted(key, reserve);
      throw new ApiError('INSUFFICIENT_CREDITS', `A ${req.channel} job reserves ${toCredits(reserve)} credits; the organization has ${toCredits(debit.outcome === 'crawl' ? 0 : debit.balance)}`, [{ field: 'credits', issue: 'insufficient_credits', expected: toCredits(reserve) }]);
    }
    const job = newWritingJob({ id, org: key.org, user: key.user, keyId: key.id, reservedMilli: reserve, context, includeAiCosts: req.include_ai_costs === true, forceFailure: req.force_failure === true });
    try {
      await createWritingJob(services, job);
      await services.jobs.add(writingJobKind, id, { id, org: key.org });
    } catch (err) {
      // Not enqueued: nothing will run it, so nothing stays reserved.
      await writingJobKind.failed(services, { id, org: key.org }, (err as Error).message).catch(() => {});
      throw err;
    }
    ctx.set('Location', `/v1/writing-jobs/${id}`);
    ok(ctx, jobView(job), { credits_reserved: toCredits(reserve), credits_charged: 0 }, 202);
  });

  r.get('/v1/writing-jobs', async (ctx: Context) => {
    const key = requireScope(ctx, 'writing:read');
    const q = readQuery(ctx, ['status', 'channel', 'page', 'page_size']);
    const problems: ErrorDetail[] = [];
    const status = one(q, 'status') !== undefined ? choiceParam(q, 'status', { allowed: STATUSES, fallback: 'queued' }, problems) : null;
    const channel = one(q, 'channel') !== undefined ? choiceParam(q, 'channel', { allowed: CHANNELS, fallback: 'email' }, problems) : null;
    const { page, pageSize } = pageParams(q, problems);
    throwProblems(problems);
    const sets = [status ? `status:${status}` : null, channel ? `channel:${channel}` : null].filter((s): s is string => s !== null).map((s) => rk.writingJobs(key.org, key.user, s));
    const from = page * pageSize;
    let ids: string[];
    let total: number;
    if (sets.length === 2) {
      const all = (await services.redis.call('ZINTER', 2, ...sets, 'AGGREGATE', 'MAX')) as string[];
      // ZINTER answers in ascending score (creation) order: newest first is the reverse.
      all.reverse();
      total = all.length;
      ids = all.slice(from, from + pageSize);
    } else {
      const set = sets[0] ?? rk.writingJobs(key.org, key.user, 'all');
      [ids, total] = await Promise.all([services.redis.zrevrange(set, from, from + pageSize - 1), services.redis.zcard(set)]);
    }
    const raws = ids.length ? await services.redis.mget(ids.map((id) => rk.writingJob(key.org, id))) : [];
    const jobs = raws.filter((x): x is string => x !== null).map((x) => jobView(JSON.parse(x) as WritingJobRecord));
    ok(ctx, jobs, listMeta(page, pageSize, jobs.length, total));
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
