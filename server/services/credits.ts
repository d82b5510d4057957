/**
 * Organization credit pools in integer milli-credits. A debit is one Lua script: check the
 * balance, debit, and record the key's usage (credits, rows, queries) and its person's daily
 * rows (server/services/person.ts) in the same step; it either does all of it or nothing. Every key the script touches carries
 * the organization's hash tag, so the script is Redis Cluster-safe.
 */
import { defineScript, type RedisClient } from '../../core/adapters/redis.ts';
import type { RedisKeys } from '../../core/names.ts';
import { crawlStepLua, type CrawlStep } from './crawl.ts';
import { countDebit, countRefund } from '../metrics.ts';
import { ApiError } from '../errors.ts';
import { toCredits } from '../pricing.ts';

/**
 * KEYS: credits, usage, daily rows (its name ends with the UTC day), receipt. ARGV: milli, rows,
 * daily rows, daily cap, receipt TTL (0: no receipt); 6-8 the crawl step's (unused here); 9-10
 * the key's credit budget, total and per UTC day, in milli-credits (-1: none), checked against the
 * key's usage (`credits_milli`, and `credits_milli:<day>` which every charge also counts): over
 * either, refused {4} with nothing charged. A delivery whose receipt exists is a cache hit: nothing is debited, but
 * its rows still count toward the daily cap and the key's usage (rows, queries, cache_hits).
 */
export const DEBIT_LUA = `
local amount = tonumber(ARGV[1])
local ttl = tonumber(ARGV[5])
local hit = 0
if ttl > 0 and redis.call('EXISTS', KEYS[4]) == 1 then
  hit = 1
  amount = 0
end
local balance = tonumber(redis.call('GET', KEYS[1]) or '0')
local cap = tonumber(ARGV[4])
if cap >= 0 and tonumber(ARGV[3]) > 0 then
  local used = tonumber(redis.call('GET', KEYS[3]) or '0')
  if used + tonumber(ARGV[3]) > cap then return {2, balance, used} end
end
local day = string.match(KEYS[3], '(%d%d%d%d%-%d%d%-%d%d)$') or 'day'
local total_budget = tonumber(ARGV[9] or '-1')
local daily_budget = tonumber(ARGV[10] or '-1')
if amount > 0 and total_budget >= 0 then
  local spent = tonumber(redis.call('HGET', KEYS[2], 'credits_milli') or '0')
  if spent + amount > total_budget then return {4, balance, spent} end
end
if amount > 0 and daily_budget >= 0 then
  local spent = tonumber(redis.call('HGET', KEYS[2], 'credits_milli:' .. day) or '0')
  if spent + amount > daily_budget then return {4, balance, spent} end
end
if amount > balance then return {0, balance} end
if amount > 0 then
  balance = redis.call('DECRBY', KEYS[1], amount)
  redis.call('HINCRBY', KEYS[2], 'credits_milli:' .. day, amount)
end
redis.call('HINCRBY', KEYS[2], 'credits_milli', amount)
redis.call('HINCRBY', KEYS[2], 'rows', tonumber(ARGV[2]))
redis.call('HINCRBY', KEYS[2], 'queries', 1)
if hit == 1 then redis.call('HINCRBY', KEYS[2], 'cache_hits', 1) end
if tonumber(ARGV[3]) > 0 then
  redis.call('INCRBY', KEYS[3], tonumber(ARGV[3]))
  redis.call('EXPIRE', KEYS[3], 172800)
end
if ttl > 0 and hit == 0 then redis.call('SET', KEYS[4], '1', 'EX', ttl) end
return {1, balance, hit}
`;

/**
 * A list page's crawl step, then its debit, in one script (one round trip, and a refused page
 * is never charged): KEYS[5] is the crawl state, ARGV[6] the page's first row, ARGV[7] the window, ARGV[8]
 * the threshold. Every key lives in the organization's slot.
 */
const CRAWL_THEN_DEBIT = `${crawlStepLua(5, 6)}
if run > tonumber(ARGV[8]) then return {3, run} end
${DEBIT_LUA}`;

/** ARGV of DEBIT_LUA (and of CRAWL_THEN_DEBIT: 6-8 its crawl step). */
export type DebitArgs = [milli: number, rows: number, dailyRows: number, dailyCap: number, receiptTtlS: number, crawlStart: number, crawlWindowS: number, crawlThreshold: number, budgetTotal: number, budgetDaily: number];
/** {code, balance or the crawl run or the count that refused, cache hit}. */
type DebitReply = [code: number, value: number, hit?: number];
const DEBIT = defineScript<DebitReply, DebitArgs>({ name: 'credits:debit', keys: 4, lua: DEBIT_LUA });
const CRAWL_DEBIT = defineScript<DebitReply, DebitArgs>({ name: 'credits:crawl-debit', keys: 5, lua: CRAWL_THEN_DEBIT });

/**
 * The give-back of part of a debit, as the Lua function `give_back(milli, rows)` on KEYS 1-3
 * (credits, usage, daily rows): the pool, the key's usage (total and the day's credits, rows)
 * and the person's daily rows move back together; answers the new balance. REFUND and SETTLE
 * include it.
 */
const GIVE_BACK_LUA = `
local function give_back(milli, rows)
  local balance = redis.call('INCRBY', KEYS[1], milli)
  redis.call('HINCRBY', KEYS[2], 'credits_milli', 0 - milli)
  local day = string.match(KEYS[3], '(%d%d%d%d%-%d%d%-%d%d)$') or 'day'
  if redis.call('HEXISTS', KEYS[2], 'credits_milli:' .. day) == 1 then redis.call('HINCRBY', KEYS[2], 'credits_milli:' .. day, 0 - milli) end
  redis.call('HINCRBY', KEYS[2], 'rows', 0 - rows)
  if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('DECRBY', KEYS[3], rows) end
  return balance
end
`;

/**
 * Gives back part of a debit (rows charged but not delivered: an export whose stream broke, or
 * whose data shrank between the count and the walk). KEYS: credits, usage, daily rows. ARGV:
 * milli, rows. Usage and the daily counter move back with the pool, in one step.
 */
const REFUND = defineScript<number, [milli: number, rows: number]>({
  name: 'credits:refund',
  keys: 3,
  lua: `${GIVE_BACK_LUA}
return give_back(tonumber(ARGV[1]), tonumber(ARGV[2]))
`,
});

/**
 * Settles a reservation once: KEYS[4] is the settlement flag of the reservation (SET NX with a
 * TTL, value ARGV[3]); the first call gives back ARGV[1] milli-credits and ARGV[2] rows as
 * REFUND does, adds the (field, increment) pairs of ARGV[6..] to the hash KEYS[5] (usage
 * statistics; expiring after ARGV[4] seconds too) and returns {1, ARGV[3]}; every later call
 * changes nothing and returns {0, the first call's value}. Either way the reservation ARGV[5]
 * leaves the ledger (KEYS[6] hash, KEYS[7] by time; '' none). Flag, refund, statistics and
 * ledger in one script: a crash cannot leave one without the others.
 */
const SETTLE_LUA = `${GIVE_BACK_LUA}
if ARGV[5] ~= '' then
  redis.call('HDEL', KEYS[6], ARGV[5])
  redis.call('ZREM', KEYS[7], ARGV[5])
end
if not redis.call('SET', KEYS[4], ARGV[3], 'NX', 'EX', tonumber(ARGV[4])) then
  return {0, redis.call('GET', KEYS[4])}
end
local milli = tonumber(ARGV[1])
if milli > 0 then give_back(milli, tonumber(ARGV[2])) end
if #ARGV > 5 then
  for i = 6, #ARGV, 2 do redis.call('HINCRBY', KEYS[5], ARGV[i], tonumber(ARGV[i + 1])) end
  redis.call('EXPIRE', KEYS[5], tonumber(ARGV[4]))
end
return {1, ARGV[3]}
`;
const SETTLE = defineScript<[settled: number, outcome: string], [milli: number, rows: number, outcome: string, ttlS: number, reservation: string, ...stats: (string | number)[]]>({ name: 'credits:settle', keys: 7, lua: SETTLE_LUA });

export type DebitResult =
  | {
      /** charged, or refused because the pool cannot pay, the daily row cap of the key's user would be passed, or its credit budget. */
      outcome: 'charged' | 'insufficient' | 'daily_cap' | 'budget';
      /** Balance after the debit (or the unchanged balance when refused), milli-credits. */
      balance: number;
      /** Charged nothing: the receipt of the same delivery was still valid. */
      cacheHit: boolean;
    }
  /** Refused (with a crawl step): the page would be the `run`th distinct page of one fingerprint. */
  | { outcome: 'crawl'; run: number };

/** A child key's credit budget, in milli-credits (null: no limit of that kind). */
export interface KeyBudget {
  total_milli: number | null;
  daily_milli: number | null;
}

export interface Usage {
  credits_milli: number;
  rows: number;
  queries: number;
  cache_hits: number;
}

/** The receipt of a delivery, for cache hits: its Redis key and how long it stays valid. */
export interface Receipt {
  key: string;
  ttlS: number;
}

const OUTCOMES = { 0: 'insufficient', 1: 'charged', 2: 'daily_cap', 4: 'budget' } as const;
/** A refused debit's reason. */
export type DebitRefusal = 'insufficient' | 'daily_cap' | 'budget';
/** The one reading of DEBIT_LUA's result code (every script that embeds it answers these codes). */
export const debitOutcome = (code: number): (typeof OUTCOMES)[keyof typeof OUTCOMES] => OUTCOMES[code as keyof typeof OUTCOMES] ?? 'insufficient';

/**
 * The one place a refused debit becomes an error, for charged reads and reserved jobs alike:
 * 402 INSUFFICIENT_CREDITS (the pool), 402 key_budget_exhausted (a child key's budget) or 429
 * DAILY_CAP_EXCEEDED (the user's rows of the UTC day, with Retry-After until the next day);
 * `field` is what to change (page_size, max_rows), `what` how the message starts.
 */
export function debitRefused(outcome: DebitRefusal, c: { what: string; milli: number; balance: number; key: { budget?: KeyBudget | null }; field: string; cap: number; day: string }): ApiError {
  if (outcome === 'budget') return budgetExhausted(c.key, c.milli);
  if (outcome === 'daily_cap') {
    const reset = new Date(`${c.day}T00:00:00Z`).getTime() + 86_400_000;
    return new ApiError('DAILY_CAP_EXCEEDED', `The daily cap of ${c.cap} rows of this user (all its keys) would be passed`, [{ field: c.field, issue: 'daily_row_cap' }]).withHeaders({ 'Retry-After': String(Math.max(1, Math.ceil((reset - Date.now()) / 1000))) });
  }
  return new ApiError('INSUFFICIENT_CREDITS', `${c.what} ${toCredits(c.milli)} credits; the organization has ${toCredits(c.balance)}`, [{ field: 'credits', issue: 'insufficient_credits', expected: toCredits(c.milli) }]);
}

/** 402 for a child key over its credit budget (the pool may still have credits); nothing charged. */
export function budgetExhausted(key: { budget?: KeyBudget | null }, milli: number): ApiError {
  const b = key.budget;
  const limits = [b?.total_milli != null ? `${toCredits(b.total_milli)} in all` : '', b?.daily_milli != null ? `${toCredits(b.daily_milli)} a day` : ''].filter(Boolean).join(', ');
  return new ApiError('INSUFFICIENT_CREDITS', `This call costs ${toCredits(milli)} credits, over this key's budget (${limits})`, [{ field: 'credits', issue: 'key_budget_exhausted', expected: limits }]);
}

export class CreditService {
  constructor(private readonly redis: RedisClient, private readonly keys: RedisKeys) {}

  /**
   * Settles a reservation exactly once (see SETTLE): the first call for `flag` gives back `milli`
   * and `rows` of the key's debit on `day` and records `outcome`; a repeat (a retried or resumed
   * job) gives back nothing. `reservation` (its id) leaves the ledger either way. Returns whether
   * this call settled, and the recorded outcome.
   */
  async settleOnce(req: { org: string; keyId: string; person: string; milli: number; rows: number; day: string; flag: string; outcome: string; ttlS: number; reservation?: string; stats?: { key: string; incr: Record<string, number> } }): Promise<{ settled: boolean; outcome: string }> {
    // Without statistics the script is handed the flag again as KEYS[5] (same slot), untouched.
    const keys = [this.keys.credits(req.org), this.keys.usage(req.org, req.keyId), this.keys.dailyRows(req.org, req.person, req.day), req.flag, req.stats?.key ?? req.flag, this.keys.ledger(req.org), this.keys.ledgerByTime(req.org)];
    const pairs = Object.entries(req.stats?.incr ?? {}).flat();
    const [settled, outcome] = await SETTLE.run(this.redis, keys, [req.milli, req.rows, req.outcome, req.ttlS, req.reservation ?? '', ...pairs]);
    if (settled === 1) countRefund(req.milli);
    return { settled: settled === 1, outcome: String(outcome) };
  }

  /** Gives back `milli` and `rows` of an earlier debit of the key (and its person's daily rows) on `day` (see REFUND); returns the new balance. */
  async refund(req: { org: string; keyId: string; person: string; milli: number; rows: number; day: string }): Promise<number> {
    const keys = [this.keys.credits(req.org), this.keys.usage(req.org, req.keyId), this.keys.dailyRows(req.org, req.person, req.day)];
    const balance = Number(await REFUND.run(this.redis, keys, [req.milli, req.rows]));
    countRefund(req.milli);
    return balance;
  }

  async balance(org: string): Promise<number> {
    return Number((await this.redis.get(this.keys.credits(org))) ?? 0);
  }

  /** Adds (or, negative, removes) milli-credits; returns the new balance. */
  async grant(org: string, milli: number): Promise<number> {
    return this.redis.incrby(this.keys.credits(org), milli);
  }

  /**
   * Charges `milli` to the org pool and records usage of the key (and `dailyRows` rows on
   * its person's counter of today, which may not pass `dailyCap`; -1 for none) atomically; refuses without
   * side effects when the pool cannot pay or the cap would be passed. With `crawl`, the page's
   * crawl step is taken first in the same script, and a page over the threshold is refused.
   * With `receipt`, a delivery whose receipt is still valid is a cache hit (nothing debited);
   * a charged one leaves its receipt for `receipt.ttlS` seconds.
   */
  async debit(req: { org: string; keyId: string; person: string; milli: number; rows: number; dailyRows: number; dailyCap: number; day: string; budget?: KeyBudget | null }, crawl?: CrawlStep, receipt?: Receipt): Promise<DebitResult> {
    // Without a receipt the script is handed a key in the org's slot that it will not touch (TTL 0).
    const keys = [this.keys.credits(req.org), this.keys.usage(req.org, req.keyId), this.keys.dailyRows(req.org, req.person, req.day), receipt?.key ?? this.keys.paid(req.org, '-'), ...(crawl ? [crawl.key] : [])];
    const args: DebitArgs = [req.milli, req.rows, req.dailyRows, req.dailyCap, receipt?.ttlS ?? 0, crawl?.start ?? 0, crawl?.windowS ?? 0, crawl?.threshold ?? 0, req.budget?.total_milli ?? -1, req.budget?.daily_milli ?? -1];
    const [code, value, hit] = await (crawl ? CRAWL_DEBIT : DEBIT).run(this.redis, keys, args);
    if (code === 3) return { outcome: 'crawl', run: Number(value) };
    if (code === 1 && hit !== 1) countDebit(req.milli);
    // A refusal's third value is the count that refused, not a cache hit.
    return { outcome: debitOutcome(code), balance: Number(value), cacheHit: code === 1 && hit === 1 };
  }

  async usage(org: string, keyId: string): Promise<Usage> {
    const h = await this.redis.hgetall(this.keys.usage(org, keyId));
    return { credits_milli: Number(h.credits_milli ?? 0), rows: Number(h.rows ?? 0), queries: Number(h.queries ?? 0), cache_hits: Number(h.cache_hits ?? 0) };
  }

  /** Milli-credits a key has spent on a UTC day. */
  async spentOn(org: string, keyId: string, day: string): Promise<number> {
    return Number((await this.redis.hget(this.keys.usage(org, keyId), `credits_milli:${day}`)) ?? 0);
  }

  /** Rows a person (server/services/person.ts) took on a UTC day, toward the daily row cap. */
  async dailyRows(org: string, person: string, day: string): Promise<number> {
    return Number((await this.redis.get(this.keys.dailyRows(org, person, day))) ?? 0);
  }
}
