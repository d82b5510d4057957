/**
 * Usage reports (0 credits, live keys): GET /v1/usage/writing (usage:read) groups the
 * organization's writing jobs by day (the day a job was accepted), channel and operation, with
 * outcomes and credits; GET /v1/usage/ai-costs (internal tokens only) the model tokens by day,
 * provider and model. `from` and `to` are UTC dates (YYYY-MM-DD), inclusive, at most 366 days
 * apart; the default is the last 30 days. The statistics are services/usage.ts's.
 */
import { utcDay } from '../../core/clock.ts';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { authOf, requireLiveKey, requireScope } from '../middleware/auth.ts';
import { forbidden, type ErrorDetail } from '../errors.ts';
import { one, readQuery, throwProblems } from '../read/request.ts';
import { toCredits } from '../pricing.ts';

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
/** Longest period of one report. */
export const USAGE_MAX_DAYS = 366;

/** The days of the period asked for, oldest first (400 with details when `from`/`to` are bad). */
function period(ctx: Context): string[] {
  const q = readQuery(ctx, ['from', 'to']);
  const problems: ErrorDetail[] = [];
  const day = (name: string, fallback: number): number => {
    const raw = one(q, name);
    if (raw === undefined) return fallback;
    const t = Date.parse(`${raw}T00:00:00Z`);
    if (!DAY_RE.test(raw) || Number.isNaN(t) || utcDay(t) !== raw) {
      problems.push({ field: name, issue: 'invalid_format', expected: 'a date, YYYY-MM-DD (UTC)' });
      return fallback;
    }
    return t;
  };
  const today = Date.parse(`${utcDay()}T00:00:00Z`);
  const to = day('to', today);
  const from = day('from', to - 29 * DAY_MS);
  if (!problems.length && from > to) problems.push({ field: 'from', issue: 'out_of_range', expected: 'a date on or before `to`' });
  if (!problems.length && (to - from) / DAY_MS + 1 > USAGE_MAX_DAYS) problems.push({ field: 'from', issue: 'out_of_range', expected: `at most ${USAGE_MAX_DAYS} days from \`from\` to \`to\`` });
  throwProblems(problems);
  const days: string[] = [];
  for (let t = from; t <= to; t += DAY_MS) days.push(utcDay(t));
  return days;
}

export function usageRoutes(services: Services): Router {
  const r = new Router();

  r.get('/v1/usage/writing', async (ctx: Context) => {
    const key = requireScope(ctx, 'usage:read');
    const days = period(ctx);
    const rows = (await services.usage.writingJobs(key.org, days)).map(({ day, a: channel, b: operation, measures: m }) => ({
      day,
      channel,
      operation,
      accepted: m.accepted ?? 0,
      completed: m.completed ?? 0,
      failed: m.failed ?? 0,
      credits_reserved: toCredits(m.credits_reserved_milli ?? 0),
      credits_charged: toCredits(m.credits_charged_milli ?? 0),
      credits_released: toCredits(m.credits_released_milli ?? 0),
    }));
    ok(ctx, rows, { from: days[0], to: days[days.length - 1], organization: key.org });
  });

  r.get('/v1/usage/ai-costs', async (ctx: Context) => {
    const key = requireLiveKey(ctx, 'AI costs');
    if (!key.internal) throw forbidden('AI costs are for internal tokens only', 'authorization', 'internal_only');
    const days = period(ctx);
    const rows = (await services.usage.tokens(authOf(ctx).key.org, days)).map(({ day, a: provider, b: model, measures: m }) => ({
      day,
      provider,
      model,
      requests: m.requests ?? 0,
      prompt_tokens: m.prompt_tokens ?? 0,
      completion_tokens: m.completion_tokens ?? 0,
      total_tokens: m.total_tokens ?? 0,
    }));
    ok(ctx, rows, { from: days[0], to: days[days.length - 1], organization: key.org });
  });

  return r;
}
