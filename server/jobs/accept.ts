/**
 * Accepting a paid job, for every kind: parse → (a repeat of a claimed key answers at once) →
 * plan → one script that claims the Idempotency-Key, holds the active-job cap, debits the
 * reservation, writes its ledger entry, saves the record and lists it → enqueue → 202.
 *
 * Everything that must happen together happens in that one script (the organization's slot), so
 * a claim never names a missing record and a debit never lacks its ledger entry. What follows it
 * (the enqueue, in the queue's slot) is undone exactly on failure: the reservation released, the
 * record marked failed, the claim freed. A process that dies before the enqueue leaves a ledger
 * entry with no live job, which the sweeper releases (sweeper.ts).
 */
import { utcDay } from '../../core/clock.ts';
import { randomUUID } from 'node:crypto';
import type { Services } from '../context.ts';
import type { AuthState } from '../access.ts';
import { ApiError } from '../errors.ts';
import { toCredits } from '../pricing.ts';
import { DEBIT_LUA, debitOutcome, debitRefused, type DebitArgs } from '../services/credits.ts';
import { defineScript } from '../../core/adapters/redis.ts';
import { CLAIMED, claimLua, conflictingClaim, fingerprintOf } from '../services/claim.ts';
import { freeClaim, hasReservation, loadRecord, noteLedgerOrg, readClaim } from './store.ts';
import { personOf } from '../services/person.ts';
import { release } from './settle.ts';
import type { JobRecord, PaidJobKind, Reservation } from './kind.ts';
import { countDebit } from '../metrics.ts';

/**
 * KEYS: 1 credits, 2 usage, 3 daily rows, 4 an untouched key of the slot (the debit's receipt),
 * 5 claim, 6 ledger, 7 ledger by time, 8 record, 9 active set, 10 statistics hash, 11.. indexes.
 * ARGV: 1-10 the debit's (DEBIT_LUA), 11 id, 12 fingerprint, 13 claim TTL ('' no key), 14 record
 * JSON, 15 record TTL, 16 ledger entry JSON, 17 now (ms), 18 active cap (-1 none), 19 score,
 * 20 index cutoff score, 21 retained cap (-1 none: KEYS[11], trimmed to the cutoff, counts the
 * jobs kept), 22.. statistics (field, increment) pairs.
 * Returns {1, balance}; {5, id, fingerprint} for a claimed key; {6, cap}; {7, cap, oldest score};
 * or the debit's refusal.
 */
type AcceptArgs = [
  ...debit: DebitArgs,
  id: string,
  fingerprint: string,
  claimTtlS: number | '',
  record: string,
  recordTtlS: number,
  ledgerEntry: string,
  now: number,
  activeCap: number,
  score: number,
  cutoff: number,
  retainedCap: number,
  ...stats: (string | number)[],
];
const ACCEPT = defineScript<(string | number)[], AcceptArgs>({
  name: 'jobs:accept',
  keys: 'variadic',
  lua: `
local function debit()
${DEBIT_LUA}
end
${claimLua(5, 11)}
local cap = tonumber(ARGV[18])
if cap >= 0 and redis.call('SCARD', KEYS[9]) >= cap then return {6, cap} end
local kept = tonumber(ARGV[21])
if kept >= 0 and #KEYS >= 11 then
  redis.call('ZREMRANGEBYSCORE', KEYS[11], '-inf', '(' .. ARGV[20])
  if redis.call('ZCARD', KEYS[11]) >= kept then
    local oldest = redis.call('ZRANGE', KEYS[11], 0, 0, 'WITHSCORES')
    return {7, kept, oldest[2] or ARGV[17]}
  end
end
local d = debit()
if d[1] ~= 1 then return d end
redis.call('HSET', KEYS[6], ARGV[11], ARGV[16])
redis.call('ZADD', KEYS[7], tonumber(ARGV[17]), ARGV[11])
redis.call('SET', KEYS[8], ARGV[14], 'EX', tonumber(ARGV[15]))
claim()
if cap >= 0 then redis.call('SADD', KEYS[9], ARGV[11]) end
for i = 11, #KEYS do
  redis.call('ZADD', KEYS[i], tonumber(ARGV[19]), ARGV[11])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. ARGV[20])
  redis.call('EXPIRE', KEYS[i], tonumber(ARGV[15]))
end
if #ARGV > 21 then
  for i = 22, #ARGV, 2 do redis.call('HINCRBY', KEYS[10], ARGV[i], tonumber(ARGV[i + 1])) end
  redis.call('EXPIRE', KEYS[10], tonumber(ARGV[15]))
end
return {1, d[2]}
`,
});

/** What accept answers: 202 with a new job, or 200 with the job a repeated key names. */
export interface Accepted {
  status: 200 | 202;
  data: unknown;
  meta: Record<string, unknown>;
  /** The new job's path (202 only). */
  id: string;
}

type Kind<B, P, R extends JobRecord> = PaidJobKind<B, P, R>;

/** The original job of a claimed key: 200 with it, or 409 when the claim was made with another fingerprint. */
async function repeat<R extends JobRecord>(services: Services, kind: Kind<unknown, unknown, R>, org: string, claim: { id: string; fingerprint: string }, fingerprint: string): Promise<Accepted> {
  if (claim.fingerprint !== fingerprint) throw conflictingClaim();
  const rec = await loadRecord(services, kind, org, claim.id);
  // The record is written with the claim and outlives it; only a record expired under its claim is missing.
  if (!rec) throw conflictingClaim();
  return { status: 200, data: kind.view(rec), meta: { idempotency_reused: true, credits_reserved: 0, credits_charged: 0 }, id: rec.id };
}

/** Accepts one request for a job of `kind` (see the module comment). */
export async function accept<B, P, R extends JobRecord>(services: Services, kind: Kind<B, P, R>, auth: AuthState, raw: unknown, idemKey: string | null): Promise<Accepted> {
  const { rk, config, redis } = services;
  const { key } = auth;
  const body = await kind.parse(services, auth, raw);
  // Without an Idempotency-Key nothing is claimed, so nothing is compared: the body is not hashed.
  const fingerprint = idemKey ? fingerprintOf(kind.name, key.id, raw) : '';
  const claimKey = idemKey ? rk.idemClaim(key.org, key.user, kind.name, idemKey) : rk.idemClaim(key.org, key.user, kind.name, '-');
  if (idemKey) {
    const earlier = await readClaim(services, claimKey);
    if (earlier) return repeat(services, kind, key.org, earlier, fingerprint);
  }

  const id = `${kind.idPrefix}_${randomUUID().replace(/-/g, '')}`;
  const plan = await kind.plan(services, auth, body, id);
  const now = Date.now();
  const day = utcDay(now);
  const person = personOf(key);
  const reservation: Reservation = { id, kind: kind.name, org: key.org, key_id: key.id, person, milli: plan.reserve.milli, rows: plan.reserve.rows, day, at: now };
  const record = { ...plan.record, version: 0, reservation } as unknown as R;
  const ttl = kind.recordTtlS(config);
  const cap = kind.activeCap(config);
  // The sweeper finds organizations here; written first, so a crash right after the debit is still found.
  await noteLedgerOrg(services, key.org);
  const keys = [rk.credits(key.org), rk.usage(key.org, key.id), rk.dailyRows(key.org, person, day), rk.paid(key.org, '-'), claimKey, rk.ledger(key.org), rk.ledgerByTime(key.org), kind.recordKey(rk, key.org, id), rk.activeJobs(key.org, kind.name), plan.stats?.key ?? rk.paid(key.org, '-'), ...plan.indexes];
  const debitArgs: DebitArgs = [plan.reserve.milli, plan.reserve.rows, plan.reserve.dailyRows, plan.reserve.dailyCap, 0, 0, 0, 0, key.budget?.total_milli ?? -1, key.budget?.daily_milli ?? -1];
  const args: AcceptArgs = [...debitArgs, id, fingerprint, idemKey ? ttl : '', JSON.stringify(record), ttl, JSON.stringify(reservation), now, cap ?? -1, kind.score(record), now - ttl * 1000, kind.retainedCap?.(config) ?? -1, ...Object.entries(plan.stats?.incr ?? {}).flat()];
  let res: (string | number)[];
  try {
    res = await ACCEPT.run(redis, keys, args);
  } catch (err) {
    // A command of the script failed part-way: give back what it did (the ledger entry says whether the debit happened).
    await undo(services, kind, reservation, claimKey, (err as Error).message);
    throw err;
  }
  const code = Number(res[0]);
  if (code === CLAIMED) return repeat(services, kind, key.org, { id: String(res[1]), fingerprint: String(res[2]) }, fingerprint);
  if (code === 6) throw activeCapReached(kind.name, Number(res[1]));
  if (code === 7) throw retainedCapReached(kind.name, Number(res[1]), Math.ceil((Number(res[2]) + ttl * 1000 - now) / 1000));
  const outcome = debitOutcome(code);
  if (outcome !== 'charged') throw debitRefused(outcome, { what: `${kind.describe(body)} reserves`, milli: plan.reserve.milli, balance: Number(res[1]), key, field: 'max_rows', cap: plan.reserve.dailyCap, day });
  countDebit(plan.reserve.milli);

  try {
    await services.jobs.add(kind, id, plan.payload);
  } catch (err) {
    await undo(services, kind, reservation, claimKey, (err as Error).message);
    throw err;
  }
  return { status: 202, data: kind.view(record), meta: { credits_reserved: toCredits(plan.reserve.milli), credits_charged: 0, ...plan.meta }, id };
}

/** Undoes an accept that did not reach the queue: the reservation released (if debited), the record failed, the claim freed (if ours). */
async function undo(services: Services, kind: Kind<unknown, unknown, JobRecord>, reservation: Reservation, claimKey: string, reason: string): Promise<void> {
  const { log } = services;
  const step = async (what: string, fn: () => Promise<unknown>): Promise<void> => {
    try {
      await fn();
    } catch (err) {
      // The sweeper releases what is left; the caller still gets the first error.
      log.error({ err: (err as Error).message, job: reservation.id, kind: kind.name, step: what }, 'undo of a job accept failed; the sweeper will release it');
    }
  };
  await step('release', async () => {
    if (await hasReservation(services, reservation.org, reservation.id)) await release(services, kind, reservation, `Not started: ${reason}; the reservation was released`);
  });
  // Freed even when the release failed (its record may be what broke the accept): a retry must not be answered with this job.
  await step('claim', () => freeClaim(services, claimKey, reservation.id));
}

/** 429 when the organization has `cap` jobs of the kind queued or running. */
function activeCapReached(kind: string, cap: number): ApiError {
  const what = kind === 'exports' ? 'exports' : `${kind} jobs`;
  return new ApiError('RATE_LIMITED', `The organization has ${cap} ${what} queued or running; wait for one to finish`, [
    { field: kind, issue: 'rate_limited', expected: `at most ${cap} queued or running ${what} per organization` },
  ]).withHeaders({ 'Retry-After': '5' });
}

/** 429 QUOTA_EXCEEDED when the organization keeps `cap` jobs of the kind; `retryS`: until the oldest leaves. */
function retainedCapReached(kind: string, cap: number, retryS: number): ApiError {
  const what = kind === 'exports' ? 'exports' : `${kind} jobs`;
  return new ApiError('QUOTA_EXCEEDED', `The organization keeps ${cap} ${what}, the most it may; the oldest leaves in ${Math.max(1, retryS)} s`, [
    { field: kind, issue: 'quota_exceeded', expected: { [`max_retained_${kind}`]: cap } },
  ]).withHeaders({ 'Retry-After': String(Math.max(1, retryS)) });
}

