/**
 * Writing jobs: the record in Redis, its events, the worker's run, settlement and usage.
 *
 * Lifecycle: POST validates, resolves and reserves, then saves the job `queued` (event 1) and
 * enqueues it (server/jobs/queue.ts). A worker marks it `running`, writes, checks the voice and
 * settles: completed keeps the reservation as the charge, failed releases it. Settlement is one
 * Redis script per job (CreditService.settleOnce, with the usage statistics): a job whose worker
 * dies is run again by another worker and still settles once; a job that lapses twice is failed
 * and released. Each event is published on one channel per namespace so long polls answer at
 * once (waiter.ts).
 */
import { creationScore } from '../../core/clock.ts';
import type { Services } from '../context.ts';
import { TerminalJobError, type JobKind } from '../jobs/queue.ts';
import { toCredits } from '../pricing.ts';
import type { Channel, LinkedinType, ResolvedContext } from './context.ts';
import { createWriter, generate, ConstraintError, type AiCosts, type EmailOutput, type LinkedinOutput, type Writer } from './writer.ts';

export type WritingStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface WritingEvent {
  progress: number;
  label: string;
  ts: number;
}

/** The job as the API shows it (WritingJob; no other members). */
export interface WritingJobView {
  id: string;
  kind: string | null;
  status: WritingStatus;
  progress: number;
  label: string;
  events: WritingEvent[];
  eventCount: number;
  done: boolean;
  success: boolean | null;
  jobSuccess: boolean | null;
  error: string | { code: string; message: string } | null;
  created_at: string | null;
  updated_at: string | null;
  channel: Channel;
  linkedin_type: LinkedinType | null;
  output: ((EmailOutput | LinkedinOutput) & { resolved_context: ResolvedContext; ai_costs?: AiCosts }) | null;
  resolved_context: ResolvedContext | null;
  billing: { credits_reserved: number; credits_charged: number; credits_released: number; credits_refunded: 0 };
}

/** What Redis holds: the view, and what only the server reads. */
export interface WritingJobRecord extends WritingJobView {
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

export const jobView = (r: WritingJobRecord): WritingJobView => {
  const { internal: _i, ...view } = r;
  return view;
};

export const kindOf = (channel: Channel, type: LinkedinType | null): string => (channel === 'email' ? 'email' : type === 'connection_request' ? 'linkedin_connection_request' : 'linkedin_message');

const retentionS = (s: Services) => s.config.writingRetentionDays * 86_400;

export async function loadWritingJob(services: Services, org: string, id: string): Promise<WritingJobRecord | null> {
  const raw = await services.redis.get(services.rk.writingJob(org, id));
  return raw ? (JSON.parse(raw) as WritingJobRecord) : null;
}

/** Saves the record; a status change moves it between the user's status indexes; publishes the event count. */
export async function saveWritingJob(services: Services, r: WritingJobRecord, previous: WritingStatus | null): Promise<void> {
  const { rk } = services;
  const { org, user } = r.internal;
  const created = r.internal.score;
  const m = services.redis.multi();
  m.set(rk.writingJob(org, r.id), JSON.stringify(r), 'EX', retentionS(services));
  if (previous !== r.status) {
    if (previous) m.zrem(rk.writingJobs(org, user, `status:${previous}`), r.id);
    m.zadd(rk.writingJobs(org, user, `status:${r.status}`), created, r.id);
    for (const subset of ['all', `status:${r.status}`]) m.expire(rk.writingJobs(org, user, subset), retentionS(services));
  }
  await m.exec();
  await services.redis.publish(rk.writingEvents(), r.id);
}

/** Appends an event (progress, label) to the record, and sets the job's progress and label. */
export function addEvent(r: WritingJobRecord, progress: number, label: string): void {
  const ts = Date.now();
  r.events.push({ progress, label, ts });
  r.eventCount = r.events.length;
  r.progress = progress;
  r.label = label;
  r.updated_at = new Date(ts).toISOString();
}

/** A new job record, queued, with its first event. */
export function newWritingJob(input: { id: string; org: string; user: string; keyId: string; reservedMilli: number; context: ResolvedContext; includeAiCosts: boolean; forceFailure: boolean }): WritingJobRecord {
  const now = new Date();
  const r: WritingJobRecord = {
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
    internal: { org: input.org, user: input.user, keyId: input.keyId, day: now.toISOString().slice(0, 10), reservedMilli: input.reservedMilli, context: input.context, includeAiCosts: input.includeAiCosts, forceFailure: input.forceFailure, score: creationScore(now.getTime()) },
  };
  addEvent(r, 0, 'Queued');
  return r;
}

/** Saves a job just accepted with its index entries and usage, in one round trip (nobody waits on it yet: no publish). */
export async function createWritingJob(services: Services, r: WritingJobRecord): Promise<void> {
  const { rk } = services;
  const { org, user, day, reservedMilli } = r.internal;
  const created = r.internal.score;
  const ttl = retentionS(services);
  const cutoff = Date.now() - ttl * 1000;
  const m = services.redis.multi();
  m.set(rk.writingJob(org, r.id), JSON.stringify(r), 'EX', ttl);
  for (const subset of ['all', `channel:${r.channel}`, `status:${r.status}`]) {
    const key = rk.writingJobs(org, user, subset);
    m.zadd(key, created, r.id);
    m.zremrangebyscore(key, '-inf', cutoff);
    m.expire(key, ttl);
  }
  const prefix = `${r.channel}|generate`;
  m.hincrby(rk.writingUsage(org, day), `${prefix}|accepted`, 1);
  m.hincrby(rk.writingUsage(org, day), `${prefix}|credits_reserved_milli`, reservedMilli);
  m.expire(rk.writingUsage(org, day), 400 * 86_400);
  await m.exec();
}

type Outcome = 'charged' | 'released';

/** Settles the job's reservation once; returns the outcome that holds (this call's, or an earlier one's). */
async function settle(services: Services, r: WritingJobRecord, outcome: Outcome): Promise<Outcome> {
  const { org, keyId, day, reservedMilli } = r.internal;
  const measure = outcome === 'charged' ? 'completed' : 'failed';
  const prefix = `${r.channel}|generate`;
  const res = await services.credits.settleOnce({
    org,
    keyId,
    milli: outcome === 'released' ? reservedMilli : 0,
    rows: 0,
    day,
    flag: services.rk.writingSettled(org, r.id),
    outcome,
    ttlS: retentionS(services),
    stats: { key: services.rk.writingUsage(org, day), incr: { [`${prefix}|${measure}`]: 1, [`${prefix}|credits_${outcome}_milli`]: reservedMilli } },
  });
  return res.outcome as Outcome;
}

/** Marks the job failed (released; or, if it had been charged, leaves it completed). */
async function failJob(services: Services, r: WritingJobRecord, message: string, code: string): Promise<void> {
  if (r.done) return;
  const outcome = await settle(services, r, 'released');
  if (outcome === 'charged') return;
  const previous = r.status;
  Object.assign(r, { status: 'failed', done: true, success: false, jobSuccess: false, error: { code, message } });
  r.billing = { ...r.billing, credits_charged: 0, credits_released: toCredits(r.internal.reservedMilli) };
  addEvent(r, 100, 'Failed');
  await saveWritingJob(services, r, previous);
}

/** Records a model's token use for GET /v1/usage/ai-costs. */
async function recordCosts(services: Services, org: string, c: AiCosts): Promise<void> {
  const key = services.rk.aiCosts(org, new Date().toISOString().slice(0, 10));
  const f = `${c.provider}|${c.model}`;
  const m = services.redis.multi();
  m.hincrby(key, `${f}|requests`, c.requests);
  m.hincrby(key, `${f}|prompt_tokens`, c.prompt_tokens);
  m.hincrby(key, `${f}|completion_tokens`, c.completion_tokens);
  m.hincrby(key, `${f}|total_tokens`, c.total_tokens);
  m.expire(key, 400 * 86_400);
  await m.exec();
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
export const writingJobKind: JobKind<WritingPayload> = {
  name: 'writing',

  async run(services, p, attempt) {
    const r = await loadWritingJob(services, p.org, p.id);
    if (!r || r.done) return;
    const previous = r.status;
    r.status = 'running';
    addEvent(r, 10, 'Resolving context');
    await saveWritingJob(services, r, previous);
    const ctx = r.internal.context;
    try {
      if (r.internal.forceFailure) throw new TerminalJobError('forced failure (force_failure)');
      addEvent(r, 40, ctx.channel === 'email' ? 'Writing email' : ctx.linkedin_type === 'connection_request' ? 'Writing connection request' : 'Writing LinkedIn message');
      await saveWritingJob(services, r, 'running');
      writer ??= createWriter(services.config);
      const { output, costs } = await timeout(generate(writer, ctx), services.config.writingTimeoutMs);
      await recordCosts(services, p.org, costs);
      addEvent(r, 90, 'Checked against the brand voice');
      await saveWritingJob(services, r, 'running');
      if ((await settle(services, r, 'charged')) === 'released') return;
      Object.assign(r, {
        status: 'completed',
        done: true,
        success: true,
        jobSuccess: true,
        output: { ...output, resolved_context: ctx, ...(r.internal.includeAiCosts ? { ai_costs: costs } : {}) },
        resolved_context: ctx,
      });
      r.billing = { ...r.billing, credits_charged: toCredits(r.internal.reservedMilli), credits_released: 0 };
      addEvent(r, 100, 'Completed');
      await saveWritingJob(services, r, 'running');
    } catch (err) {
      // A terminal failure (forced, timed out, the voice broken twice) fails now; anything else
      // (the model endpoint or Redis away) is retried by the queue, and fails on its last attempt.
      const e = err as Error;
      const terminal = e instanceof TerminalJobError || e instanceof ConstraintError;
      if (terminal || attempt.final) await failJob(services, r, e.message, e instanceof ConstraintError ? 'BRAND_VOICE_VIOLATION' : 'GENERATION_FAILED');
      throw terminal ? new TerminalJobError(e.message) : e;
    }
  },

  async failed(services, p, reason) {
    const r = await loadWritingJob(services, p.org, p.id);
    if (!r) return;
    await failJob(services, r, reason, 'GENERATION_FAILED');
  },
};
