/**
 * Writing jobs, a kind of the job layer (server/jobs/): the body (parse, resolve), the price (the
 * channel's configured reservation), the record and its events, the worker's run and settlement.
 *
 * Lifecycle: accept saves the job `queued` (event 1) with its reservation and enqueues it. A
 * worker moves it to `running`, writes, checks the voice and settles: completed keeps the
 * reservation as the charge, failed releases it, exactly once (a job whose worker dies is run
 * again by another and still settles once; one that lapses twice is failed and released). Every
 * save is a compare-and-set (server/jobs/store.ts) and publishes the job id on one channel per
 * namespace, so long polls answer at once (server/writing/waiter.ts).
 */
import type { Services } from '../../context.ts';
import { forbidden } from '../../errors.ts';
import { TerminalJobError } from '../queue.ts';
import type { JobRecord, JobStatus, PaidJobKind } from '../kind.ts';
import { advance, advanceLatest, loadRecord, StaleJobError } from '../store.ts';
import { settle as settleReservation } from '../settle.ts';
import { toCredits } from '../../pricing.ts';
import { creationScore, utcDay } from '../../../core/clock.ts';
import type { Channel, LinkedinType, ResolvedContext } from '../../writing/context.ts';
import { jobView, WRITING_JOB_ID_PREFIX, type WritingEvent, type WritingJobView } from '../../writing/job-view.ts';

export { jobView, type WritingEvent, type WritingJobView };
import { parseStartJob, type StartJobRequest } from '../../writing/job-request.ts';
import { resolveContext } from '../../writing/resolve.ts';
import { refsFor } from '../../writing/refs.ts';
import { announce } from '../../writing/waiter.ts';
import { createWriter, generate, ConstraintError, type AiCosts, type EmailOutput, type LinkedinOutput, type Writer } from '../../writing/writer.ts';

export type WritingStatus = JobStatus;

/** What Redis holds: the view, and what only the server reads. */
export interface WritingJobRecord extends WritingJobView, JobRecord {
  status: WritingStatus;
  internal: {
    org: string;
    user: string;
    keyId: string;
    day: string;
    reservedMilli: number;
    context: ResolvedContext;
    includeAiCosts: boolean;
    forceFailure: boolean;
    /** Sort score of the job in the user's lists (creation order). */
    score: number;
  };
}


export const kindOf = (channel: Channel, type: LinkedinType | null): string => (channel === 'email' ? 'email' : type === 'connection_request' ? 'linkedin_connection_request' : 'linkedin_message');


/** The caller's-organization job `id`, or null. */
export const loadWritingJob = (services: Services, org: string, id: string): Promise<WritingJobRecord | null> => loadRecord(services, writingJobKind, org, id);

/** The members that add an event (progress, label) to a record and set the job's progress and label. */
export function eventPatch(r: Pick<WritingJobRecord, 'events'>, progress: number, label: string): Pick<WritingJobRecord, 'events' | 'eventCount' | 'progress' | 'label' | 'updated_at'> {
  const ts = Date.now();
  const events = [...r.events, { progress, label, ts }];
  return { events, eventCount: events.length, progress, label, updated_at: new Date(ts).toISOString() };
}

/** A new job record, queued, with its first event (the layer adds its version and reservation). */
export function newWritingJob(input: { id: string; org: string; user: string; keyId: string; reservedMilli: number; context: ResolvedContext; includeAiCosts: boolean; forceFailure: boolean }): Omit<WritingJobRecord, 'version' | 'reservation'> {
  const now = new Date();
  const r: Omit<WritingJobRecord, 'version' | 'reservation'> = {
    id: input.id,
    kind: kindOf(input.context.channel, input.context.linkedin_type),
    status: 'queued',
    progress: 0,
    label: 'Queued',
    events: [],
    eventCount: 0,
    done: false,
    success: null,
    jobSuccess: null,
    error: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    channel: input.context.channel,
    linkedin_type: input.context.linkedin_type,
    output: null,
    resolved_context: null,
    billing: { credits_reserved: toCredits(input.reservedMilli), credits_charged: 0, credits_released: 0, credits_refunded: 0 },
    internal: { org: input.org, user: input.user, keyId: input.keyId, day: utcDay(now), reservedMilli: input.reservedMilli, context: input.context, includeAiCosts: input.includeAiCosts, forceFailure: input.forceFailure, score: creationScore(now.getTime()) },
  };
  return { ...r, ...eventPatch(r, 0, 'Queued') };
}

type Outcome = 'charged' | 'released';

/** Settles the job's reservation once; returns the outcome that holds (this call's, or an earlier one's). */
async function settle(services: Services, r: WritingJobRecord, outcome: Outcome): Promise<Outcome> {
  const { org, day, reservedMilli } = r.internal;
  const measure = outcome === 'charged' ? 'completed' : 'failed';
  const res = await settleReservation(services, writingJobKind, r.reservation, {
    backMilli: outcome === 'released' ? reservedMilli : 0,
    backRows: 0,
    outcome,
    stats: services.usage.writingJob(org, day, r.channel, 'generate', { [measure]: 1, [`credits_${outcome}_milli`]: reservedMilli }),
  });
  return res.outcome as Outcome;
}

/** The members of a failed record (its reservation released). */
const failedPatch = (r: WritingJobRecord, message: string, code: string): Partial<WritingJobRecord> => ({
  status: 'failed',
  done: true,
  success: false,
  jobSuccess: false,
  error: { code, message },
  billing: { ...r.billing, credits_charged: 0, credits_released: toCredits(r.internal.reservedMilli) },
  ...eventPatch(r, 100, 'Failed'),
});

/**
 * Marks the job failed (released; or, if it had been charged, leaves it to the run that charged
 * it). A record that changed since it was read is read again, so a release never leaves a job
 * `running`.
 */
async function failJob(services: Services, org: string, id: string, message: string, code: string): Promise<void> {
  await advanceLatest(services, writingJobKind, org, id, async (r) => {
    if (r.done || (await settle(services, r, 'released')) === 'charged') return null;
    return failedPatch(r, message, code);
  });
}

const timeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new TerminalJobError(`generation timed out after ${ms} ms`)), ms);
    p.then((v) => (clearTimeout(t), resolve(v)), (e) => (clearTimeout(t), reject(e)));
  });

let writer: Writer | null = null;

export interface WritingPayload {
  id: string;
  org: string;
}

/** The writing job kind. */
/** A parsed, resolved POST /v1/writing-jobs body. */
export interface WritingBody {
  req: StartJobRequest;
  context: ResolvedContext;
}

const label = (ctx: ResolvedContext): string => (ctx.channel === 'email' ? 'Writing email' : ctx.linkedin_type === 'connection_request' ? 'Writing connection request' : 'Writing LinkedIn message');

/** The writing job kind. */
/** Milli-credits a writing job of a channel reserves (and a dry run estimates): one price for both. */
export const writingJobPrice = (config: Services['config'], channel: keyof Services['config']['writingReserveMilli']): number => config.writingReserveMilli[channel];

export const writingJobKind: PaidJobKind<WritingBody, WritingPayload, WritingJobRecord> = {
  name: 'writing',
  idPrefix: WRITING_JOB_ID_PREFIX,
  releasedOutcome: 'released',
  describe: (b) => `A ${b.req.channel} job`,
  recordKey: (rk, org, id) => rk.writingJob(org, id),
  recordTtlS: (config) => config.writingRetentionDays * 86_400,
  settledFlag: (rk, org, id) => rk.writingSettled(org, id),
  activeCap: () => null,
  statusIndex: (rk, r, status) => rk.writingJobs(r.internal.org, r.internal.user, `status:${status}`),
  score: (r) => r.internal.score,
  view: jobView,
  releasedRecord: (r, reason) => ({ ...r, ...failedPatch(r, reason, 'GENERATION_FAILED') }),
  async afterSave(services, r) {
    await announce(services, r.id);
  },

  /** Every rule of the body, the internal-only options, then the saved references (invalid_reference). */
  async parse(services, auth, raw) {
    const req = parseStartJob(raw);
    if ((req.include_ai_costs || req.force_failure) && !auth.key.internal) {
      throw forbidden('include_ai_costs and force_failure are for internal tokens only', req.include_ai_costs ? 'include_ai_costs' : 'force_failure', 'internal_only');
    }
    return { req, context: await resolveContext(req, refsFor(services, auth.key)) };
  },

  async plan(services, auth, { req, context }, id) {
    const { key } = auth;
    const milli = writingJobPrice(services.config, req.channel);
    const record = newWritingJob({ id, org: key.org, user: key.user, keyId: key.id, reservedMilli: milli, context, includeAiCosts: req.include_ai_costs === true, forceFailure: req.force_failure === true });
    const { rk } = services;
    return {
      reserve: { milli, rows: 0, dailyRows: 0, dailyCap: -1 },
      record,
      payload: { id, org: key.org },
      indexes: ['all', `channel:${record.channel}`, `status:${record.status}`].map((subset) => rk.writingJobs(key.org, key.user, subset)),
      stats: services.usage.writingJob(key.org, record.internal.day, record.channel, 'generate', { accepted: 1, credits_reserved_milli: milli }),
    };
  },

  async run(services, p, attempt) {
    let r = await loadWritingJob(services, p.org, p.id);
    if (!r || r.done) return;
    r = await advance(services, writingJobKind, r, { status: 'running', ...eventPatch(r, 10, 'Resolving context') });
    const ctx = r.internal.context;
    try {
      if (r.internal.forceFailure) throw new TerminalJobError('forced failure (force_failure)');
      r = await advance(services, writingJobKind, r, eventPatch(r, 40, label(ctx)));
      writer ??= createWriter(services.config);
      const { output, costs } = await timeout(generate(writer, ctx), services.config.writingTimeoutMs);
      await services.usage.recordTokens(p.org, costs);
      r = await advance(services, writingJobKind, r, eventPatch(r, 90, 'Checked against the brand voice'));
      if ((await settle(services, r, 'charged')) === 'released') return;
      await advance(services, writingJobKind, r, {
        status: 'completed',
        done: true,
        success: true,
        jobSuccess: true,
        output: { ...output, resolved_context: ctx, ...(r.internal.includeAiCosts ? { ai_costs: costs } : {}) },
        resolved_context: ctx,
        billing: { ...r.billing, credits_charged: toCredits(r.internal.reservedMilli), credits_released: 0 },
        ...eventPatch(r, 100, 'Completed'),
      });
    } catch (err) {
      // Another worker has this job now: it settles.
      if (err instanceof StaleJobError) throw err;
      // A terminal failure (forced, timed out, the voice broken twice) fails now; anything else
      // (the model endpoint or Redis away) is retried by the queue, and fails on its last attempt.
      const e = err as Error;
      const terminal = e instanceof TerminalJobError || e instanceof ConstraintError;
      if (terminal || attempt.final) await failJob(services, p.org, p.id, e.message, e instanceof ConstraintError ? 'BRAND_VOICE_VIOLATION' : 'GENERATION_FAILED');
      throw terminal ? new TerminalJobError(e.message) : e;
    }
  },

  async failed(services, p, reason) {
    await failJob(services, p.org, p.id, reason, 'GENERATION_FAILED');
  },
};
