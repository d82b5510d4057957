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
import { WRITING_JOB_ID_PATTERN, WRITING_JOB_VIEW_SCHEMA } from '../writing/job-view.ts';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { authOf } from '../access.ts';
import { CONFIG_DEFAULTS } from '../../core/config.ts';
import { START_JOB_SCHEMA } from '../writing/job-request.ts';
import { CHANNELS } from '../writing/context.ts';
import { ref } from '../openapi/schemas.ts';
import { pathParameter, type Schema } from '../openapi/params.ts';
import { BODY, array, obj, pagedQuery } from '../openapi/shapes.ts';
import { route, scope, type Route } from './route.ts';
import { notFound, type ErrorDetail } from '../errors.ts';
import { bodyOf, idempotencyKeyOf } from '../validate.ts';
import { choiceParam, integerParam, listMeta, one, pageParams, throwProblems } from '../read/request.ts';
import { toCredits } from '../pricing.ts';
import { accept } from '../jobs/accept.ts';
import { JOB_STATUSES } from '../jobs/kind.ts';
import { listIndexed } from '../jobs/store.ts';
import { jobView, loadWritingJob, writingJobKind, writingJobPrice, type WritingJobRecord } from '../jobs/kinds/writing.ts';

/** Longest long poll. */
export const WAIT_MS_MAX = 5_000;
const ID_RE = new RegExp(WRITING_JOB_ID_PATTERN);

/** The caller's job, or 404 (another user's or organization's reads as missing). */
async function jobOf(services: Services, ctx: Context, id: string): Promise<WritingJobRecord> {
  const { key } = authOf(ctx);
  const job = ID_RE.test(id) ? await loadWritingJob(services, key.org, id) : null;
  if (!job || job.internal.user !== key.user) throw notFound('Writing job', 'job_id');
  return job;
}

export function writingJobRoutes(): Route[] {
  const job = WRITING_JOB_VIEW_SCHEMA as Schema;
  const dryRun: Schema = { type: 'object', additionalProperties: false, required: ['dry_run', 'job_created', 'prose_generated', 'estimated_credits', 'resolved_context'], properties: { dry_run: { const: true }, job_created: { const: false }, prose_generated: { const: false }, estimated_credits: { type: 'number' }, resolved_context: obj } };
  const example = { source_mode: 'inline', channel: 'email', identity: { companyName: 'Northwind Benefits', valueProps: [{ id: 'vp1', feature: 'Cut renewal costs by benchmarking every carrier quote' }], brandVoice: { avoid: ['synergy', 'em dash'] } }, target: { full_name: 'Dana Whitfield', title: 'VP People', company_name: 'Contoso Ltd' }, sender: { full_name: 'Sam Reyes', title: 'Partner' } };
  return [
    route({
      method: 'post', path: '/v1/writing-jobs', tag: 'writing', summary: 'Start a writing job (email or LinkedIn)', access: scope('writing:generate'), idempotencyKey: true,
      description: `Live keys. Reserves ${CONFIG_DEFAULTS.writingCredits.email} (email) or ${CONFIG_DEFAULTS.writingCredits.linkedin} (LinkedIn) credits by default; charged on completion only, released on failure. Idempotency-Key: a repeat returns the original job (200, meta.idempotency_reused). dry_run=true answers 200 with the resolved context and the estimate, creating nothing. include_ai_costs and force_failure: internal tokens only.`,
      body: { schema: START_JOB_SCHEMA, example }, success: { data: { oneOf: [job, dryRun] }, accepted: true }, errors: [...BODY, 402, 409],
      handle: async ({ ctx, services }) => {
        const auth = authOf(ctx);
        const idemKey = idempotencyKeyOf(ctx);
        const raw = bodyOf(ctx);
        if (raw && typeof raw === 'object' && (raw as { dry_run?: unknown }).dry_run === true) {
          // A dry run resolves what a job would, and creates, reserves and charges nothing.
          const { req, context } = await writingJobKind.parse(services, auth, raw);
          ok(ctx, { dry_run: true, job_created: false, prose_generated: false, estimated_credits: toCredits(writingJobPrice(services.config, req.channel)), resolved_context: context }, { credits_reserved: 0, credits_charged: 0 });
          return;
        }
        const res = await accept(services, writingJobKind, auth, raw, idemKey);
        if (res.status === 202) ctx.set('Location', `/v1/writing-jobs/${res.id}`);
        ok(ctx, res.data, res.meta, res.status);
      },
    }),
    route({
      method: 'get', path: '/v1/writing-jobs', tag: 'writing', summary: "The caller's writing jobs, newest first", access: scope('writing:read'),
      query: pagedQuery('Jobs', { properties: { status: { type: 'string', enum: [...JOB_STATUSES] }, channel: { type: 'string', enum: [...CHANNELS] } }, about: { status: 'Only jobs in this state.', channel: 'Only jobs of this channel.' } }),
      success: { data: array(job), meta: ref('ListMeta') }, errors: [400],
      handle: async ({ ctx, services, query }) => {
        const { key } = authOf(ctx);
        const q = query();
        const problems: ErrorDetail[] = [];
        const status = one(q, 'status') !== undefined ? choiceParam(q, 'status', { allowed: JOB_STATUSES, fallback: 'queued' }, problems) : null;
        const channel = one(q, 'channel') !== undefined ? choiceParam(q, 'channel', { allowed: CHANNELS, fallback: 'email' }, problems) : null;
        const { page, pageSize } = pageParams(q, problems);
        throwProblems(problems);
        const subsets = [status ? `status:${status}` : null, channel ? `channel:${channel}` : null].filter((x): x is string => x !== null);
        const sets = (subsets.length ? subsets : ['all']).map((x) => services.rk.writingJobs(key.org, key.user, x));
        const { records, total } = await listIndexed(services, writingJobKind, key.org, sets, { from: page * pageSize, size: pageSize });
        ok(ctx, records.map(jobView), listMeta(page, pageSize, records.length, total));
      },
    }),
    route({
      method: 'get', path: '/v1/writing-jobs/{job_id}', tag: 'writing', summary: 'A writing job, with a bounded long poll', access: scope('writing:read'),
      description: 'With wait_ms, answers as soon as the job has an event beyond last_event_count (or beyond its count when the request came), when it is done, or when wait_ms pass.',
      params: [pathParameter('job_id', 'The job id (wj_…).', { type: 'string', pattern: WRITING_JOB_ID_PATTERN })],
      query: { schema: { properties: { wait_ms: { type: 'integer', minimum: 0, maximum: WAIT_MS_MAX, default: 0 }, last_event_count: { type: 'integer', minimum: 0 } } }, about: { wait_ms: 'Longest wait, ms.', last_event_count: 'The eventCount the caller has seen.' } },
      success: { data: job }, errors: [400, 404],
      handle: async ({ ctx, services, query }) => {
        const q = query();
        const problems: ErrorDetail[] = [];
        const waitMs = integerParam('wait_ms', q.wait_ms, { min: 0, max: WAIT_MS_MAX, fallback: 0 }, problems);
        const last = q.last_event_count === undefined ? null : integerParam('last_event_count', q.last_event_count, { min: 0, max: 1_000_000, fallback: 0 }, problems);
        throwProblems(problems);
        const id = ctx.params.job_id as string;
        let job = await jobOf(services, ctx, id);
        // Without last_event_count, the poll waits for the job's next event from now.
        const seen = last ?? job.eventCount;
        if (waitMs > 0 && !job.done && job.eventCount === seen) {
          await services.writingWaiter.until(id, waitMs, async () => {
            job = await jobOf(services, ctx, id);
            return job.done || job.eventCount !== seen;
          });
        }
        ok(ctx, jobView(job));
      },
    }),
  ];
}
