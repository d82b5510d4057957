/**
 * Usage reports (0 credits, live keys): GET /v1/usage/writing (usage:read) groups the
 * organization's writing jobs by day (the day a job was accepted), channel and operation, with
 * outcomes and credits; GET /v1/usage/ai-costs (internal tokens only) the model tokens by day,
 * provider and model. `from` and `to` are UTC dates (YYYY-MM-DD), inclusive, at most 366 days
 * apart; the default is the last 30 days. The statistics are services/usage.ts's.
 */
import { utcDay } from '../../core/clock.ts';
import type { Context } from 'koa';
import { ok } from '../middleware/envelope.ts';
import { authOf } from '../access.ts';
import type { Schema } from '../openapi/params.ts';
import { array, obj } from '../openapi/shapes.ts';
import { route, scope, type QuerySpec, type Route } from './route.ts';
import { forbidden, type ErrorDetail } from '../errors.ts';
import { one, throwProblems, type RawQuery } from '../read/request.ts';
import { toCredits } from '../pricing.ts';
import type { UsageGroup } from '../services/usage.ts';

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
/** Longest period of one report. */
export const USAGE_MAX_DAYS = 366;

/** The days of the period asked for, oldest first (400 with details when `from`/`to` are bad). */
function period(q: RawQuery): string[] {
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

/** A report of the period asked: the rows of the caller's organization by day and group, in the envelope. */
async function report(ctx: Context, q: RawQuery, read: (org: string, days: string[]) => Promise<UsageGroup[]>, row: (g: UsageGroup) => Record<string, unknown>): Promise<void> {
  const { key } = authOf(ctx);
  const days = period(q);
  const rows = (await read(key.org, days)).map(row);
  ok(ctx, rows, { from: days[0], to: days[days.length - 1], organization: key.org });
}

/** The query of a report: its period. */
const PERIOD: QuerySpec = { schema: { properties: { from: { type: 'string', format: 'date' }, to: { type: 'string', format: 'date' } } }, about: { from: `First UTC day (default: 29 days before \`to\`); at most ${USAGE_MAX_DAYS} days in all.`, to: 'Last UTC day (default: today).' } };

export function usageRoutes(): Route[] {
  const str: Schema = { type: 'string' };
  return [
    route({
      method: 'get', path: '/v1/usage/writing', tag: 'usage', summary: 'Writing jobs and credits by day, channel and operation', access: scope('usage:read'), query: PERIOD,
      success: { data: array({ type: 'object', properties: { day: { type: 'string', format: 'date' }, channel: str, operation: str, accepted: { type: 'integer' }, completed: { type: 'integer' }, failed: { type: 'integer' }, credits_reserved: { type: 'number' }, credits_charged: { type: 'number' }, credits_released: { type: 'number' } } }) }, errors: [400],
      handle: ({ ctx, services, query }) =>
        report(ctx, query(), (org, days) => services.usage.writingJobs(org, days), ({ day, a: channel, b: operation, measures: m }) => ({ day, channel, operation, accepted: m.accepted ?? 0, completed: m.completed ?? 0, failed: m.failed ?? 0, credits_reserved: toCredits(m.credits_reserved_milli ?? 0), credits_charged: toCredits(m.credits_charged_milli ?? 0), credits_released: toCredits(m.credits_released_milli ?? 0) })),
    }),
    route({
      method: 'get', path: '/v1/usage/ai-costs', tag: 'usage', summary: 'Model tokens by day, provider and model (internal tokens only)', access: { kind: 'live', live: 'AI costs' }, query: PERIOD,
      success: { data: array(obj) }, errors: [400],
      handle: async ({ ctx, services, query }) => {
        const { key } = authOf(ctx);
        if (!key.internal) throw forbidden('AI costs are for internal tokens only', 'authorization', 'internal_only');
        await report(ctx, query(), (org, days) => services.usage.tokens(org, days), ({ day, a: provider, b: model, measures: m }) => ({ day, provider, model, requests: m.requests ?? 0, prompt_tokens: m.prompt_tokens ?? 0, completion_tokens: m.completion_tokens ?? 0, total_tokens: m.total_tokens ?? 0 }));
      },
    }),
  ];
}
