/**
 * Usage statistics, written and read here alone: per organization and UTC day, one hash whose
 * fields are `<a>|<b>|<measure>` and values counts.
 *
 * - Writing jobs (`rk.writingUsage`): a = channel, b = operation; accepted / completed / failed
 *   and credits_{reserved,charged,released}_milli. They change with money, so they are counted
 *   inside the job scripts (accept's and the settlement's): `writingJob` gives the hash and its
 *   increments as those scripts take them.
 * - Model token use (`rk.aiCosts`): a = provider, b = model; requests and tokens, counted here.
 *
 * GET /v1/usage/writing and /v1/usage/ai-costs (server/routes/usage.ts) read them by day.
 */
import { utcDay } from '../../core/clock.ts';
import type { RedisClient } from '../../core/adapters/redis.ts';
import type { RedisKeys } from '../../core/names.ts';

/** Seconds a day's model token counts are kept. */
const AI_COSTS_TTL_S = 400 * 86_400;

/** A statistics hash and its increments, as the job scripts count them. */
export interface StatsIncrement {
  key: string;
  incr: Record<string, number>;
}

/** Model token use of one generation (the writer reports it as its AiCosts). */
export interface TokenUse {
  provider: string;
  model: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** One row of a report: a day, the two grouping values and the measures counted for them. */
export interface UsageGroup {
  day: string;
  a: string;
  b: string;
  measures: Record<string, number>;
}

export class UsageStats {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** The writing-job statistics of `org` on `day` for (channel, operation), with increments by measure. */
  writingJob(org: string, day: string, channel: string, operation: string, measures: Record<string, number>): StatsIncrement {
    const incr: Record<string, number> = {};
    for (const [measure, n] of Object.entries(measures)) incr[`${channel}|${operation}|${measure}`] = n;
    return { key: this.keys.writingUsage(org, day), incr };
  }

  /** Counts a model's token use for today (UTC). */
  async recordTokens(org: string, c: TokenUse): Promise<void> {
    const key = this.keys.aiCosts(org, utcDay());
    const f = `${c.provider}|${c.model}`;
    const m = this.redis.multi();
    m.hincrby(key, `${f}|requests`, c.requests);
    m.hincrby(key, `${f}|prompt_tokens`, c.prompt_tokens);
    m.hincrby(key, `${f}|completion_tokens`, c.completion_tokens);
    m.hincrby(key, `${f}|total_tokens`, c.total_tokens);
    m.expire(key, AI_COSTS_TTL_S);
    await m.exec();
  }

  /** The writing-job statistics of `org` on `days`: one group per day and (channel, operation). */
  writingJobs(org: string, days: readonly string[]): Promise<UsageGroup[]> {
    return this.grouped((d) => this.keys.writingUsage(org, d), days);
  }

  /** The model token use of `org` on `days`: one group per day and (provider, model). */
  tokens(org: string, days: readonly string[]): Promise<UsageGroup[]> {
    return this.grouped((d) => this.keys.aiCosts(org, d), days);
  }

  /** Groups of the per-day hashes, in day order, then by (a, b). */
  private async grouped(keyOf: (day: string) => string, days: readonly string[]): Promise<UsageGroup[]> {
    const p = this.redis.pipeline();
    for (const d of days) p.hgetall(keyOf(d));
    const res = (await p.exec()) ?? [];
    const rows: UsageGroup[] = [];
    days.forEach((day, i) => {
      const h = (res[i]?.[1] ?? {}) as Record<string, string>;
      const groups = new Map<string, Record<string, number>>();
      for (const [field, v] of Object.entries(h)) {
        const [a, b, measure] = field.split('|');
        const g = groups.get(`${a}|${b}`) ?? {};
        g[measure] = Number(v);
        groups.set(`${a}|${b}`, g);
      }
      for (const [ab, measures] of [...groups].sort(([x], [y]) => x.localeCompare(y))) {
        const [a, b] = ab.split('|');
        rows.push({ day, a, b, measures });
      }
    });
    return rows;
  }
}
