/**
 * Access-layer benchmark: `npm run bench:auth [-- --duration 10 --connections 20]`.
 *
 * One run, one process, two servers on the same services (real Redis):
 *   (a) no access layer: a middleware sets the caller's key directly;
 *   (b) the real thing: Bearer lookup in Redis, rate limit, scope check.
 * Each is measured with autocannon on `GET /v1/whoami` (auth only) and on a charged
 * no-op (`GET /v1/bench/charge`: auth + one atomic debit of 1 milli-credit with usage
 * recording, the exact step a 1-row read pays). Prints req/s, p50, p99 and the ratios.
 */
import autocannon from 'autocannon';
import Router from '@koa/router';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { loadConfig } from '../server/config.ts';
import { createServices, type Services } from '../server/context.ts';
import { serve } from '../server/serve.ts';
import { ensureRedis } from '../server/local/redis-local.ts';
import { ok } from '../server/middleware/envelope.ts';
import { authOf } from '../server/middleware/auth.ts';
import { ApiError } from '../server/errors.ts';

const { values: args } = parseArgs({ options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '20' } } });
const base = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
// A rate limit that the benchmark never reaches: the cost of checking it is what we measure.
const config = Object.freeze({ ...base, namespace: `${base.namespace}-bench-auth`, rateLimitPerMinute: 100_000_000 });

/** The charged no-op: exactly the debit a 1-row read performs. */
const chargeRoute = (services: Services) => {
  const r = new Router();
  const day = new Date().toISOString().slice(0, 10);
  r.get('/v1/bench/charge', async (ctx) => {
    const { key } = authOf(ctx);
    const res = await services.credits.debit({ org: key.org, keyId: key.id, milli: 1, rows: 1, dailyRows: 1, dailyCap: -1, day });
    if (res.outcome !== 'charged') throw new ApiError('INSUFFICIENT_CREDITS');
    ok(ctx, { charged: 0.001 }, { credits_charged: 0.001 });
  });
  return r;
};

async function measure(url: string, path: string, headers: Record<string, string>): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const res = await autocannon({ url: url + path, headers, connections: Number(args.connections), duration: Number(args.duration), pipelining: 1 });
  return { rps: Math.round(res.requests.average), p50: res.latency.p50, p99: res.latency.p99, errors: res.non2xx + res.errors };
}

async function main(): Promise<void> {
  await ensureRedis(config);
  const services = createServices(config);
  await services.redis.connect();
  const org = `bench-${randomUUID().slice(0, 8)}`;
  const { key, secret } = await services.keys.createRoot({ org, user: 'bench' });
  await services.credits.grant(org, 1_000_000_000);
  const record = await services.keys.authenticate(secret);
  if (!record) throw new Error('key not found');
  const open = async (ctx: Context, next: Next) => {
    ctx.state.auth = { key: record, dataNamespace: config.namespace, sandbox: false };
    await next();
  };
  const noAuth = await serve(config, { port: 0, services: createServices(config), routes: [chargeRoute], access: open });
  await noAuth.services.redis.connect().catch(() => {});
  const withAuth = await serve(config, { port: 0, services, routes: [chargeRoute] });
  const rows: string[] = [];
  const results: Record<string, unknown> = {};
  for (const path of ['/v1/whoami', '/v1/bench/charge']) {
    // Warm both, then measure alternately.
    await measure(noAuth.url, path, {});
    await measure(withAuth.url, path, { authorization: `Bearer ${secret}` });
    const a = await measure(noAuth.url, path, {});
    const b = await measure(withAuth.url, path, { authorization: `Bearer ${secret}` });
    if (a.errors || b.errors) throw new Error(`non-2xx responses: ${a.errors} without auth, ${b.errors} with auth`);
    const ratio = b.rps / a.rps;
    results[path] = { no_auth: a, auth: b, throughput_ratio: Number(ratio.toFixed(3)), added_p50_ms: b.p50 - a.p50 };
    rows.push(`| ${path} | ${a.rps} | ${b.rps} | ${ratio.toFixed(2)} | ${a.p50} / ${a.p99} | ${b.p50} / ${b.p99} | ${(b.p50 - a.p50).toFixed(2)} ms |`);
  }
  process.stdout.write(`\n| call | req/s no auth | req/s auth | ratio | p50/p99 no auth (ms) | p50/p99 auth (ms) | added p50 |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}\n\n`);
  process.stdout.write(`${JSON.stringify({ connections: Number(args.connections), duration_s: Number(args.duration), key: key.id, results })}\n`);
  await noAuth.close();
  await withAuth.close();
}

await main();
