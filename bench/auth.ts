/**
 * Access-layer benchmark: `npm run bench:auth [-- --duration 10 --connections 20 --rounds 3]`.
 *
 * One run, one process, two servers on the same Redis and Elasticsearch:
 *   (a) no access layer and no charge: a middleware sets the caller's key, and the debit is
 *       skipped (the key is a test key reading the same data, which is free);
 *   (b) the real thing: Bearer lookup in Redis, rate limit, scope check, atomic debit;
 *   (c) the same server called with a JWT (HS256, verified with jose in the same step, then its
 *       revocation check and rate window in one Redis script) instead of the key.
 * Each is measured with autocannon on `GET /v1/whoami` (auth only) and on a 1-row paid read
 * (`GET /v1/companies/c1`, 0.25 credits), `--rounds` times in a rotating order (a b c, b c a,
 * c a b). Prints the median req/s, p50, p99, the ratios, and JWT/key as the median of the
 * per-round ratios (goal: at least 0.95).
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { loadConfig } from '../core/config.ts';
import { sandboxNamespace } from '../core/names.ts';
import { ENTITY_NAMES } from '../mappings/index.ts';
import { createServices, type Services } from '../server/context.ts';
import { serve } from '../server/serve.ts';
import { ensureRedis } from '../local/redis-local.ts';
import { ingestFile } from '../ingest/run.ts';

const { values: args } = parseArgs({ options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '20' }, rounds: { type: 'string', default: '3' } } });
const base = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
// A rate limit that the benchmark never reaches: the cost of checking it is what we measure.
const config = Object.freeze({ ...base, namespace: `${base.namespace}-bench-auth`, rateLimitPerMinute: 100_000_000, jwt: { ...base.jwt, secret: 'bench-auth-hs256-secret-0123456789abcdef' } });

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
  const { token } = await services.jwt.mint({ org, user: 'bench', scopes: [...record!.scopes], tier: 'advanced', type: 'live', ttlS: 3600 });
  if (!record) throw new Error('key not found');
  // The same data in the live namespace (for b) and in the sandbox (read by a, free of charge).
  const fixtures = new URL('../test/fixtures/', import.meta.url).pathname;
  const reports = await mkdtemp(join(tmpdir(), 'bintel-bench-auth-'));
  for (const sandbox of [false, true]) {
    // The fixtures without personnel: every resource loaded before it.
    for (const r of ENTITY_NAMES.filter((n) => n !== 'personnel')) await ingestFile(config, r, `${fixtures}${r}.csv`, { progress: null, sandbox, errors: join(reports, `${r}.errors.csv`) });
  }
  const open = async (ctx: Context, next: Next) => {
    ctx.state.auth = { key: { ...record, key_type: 'test' }, dataNamespace: sandboxNamespace(config.namespace), sandbox: true };
    await next();
  };
  const noAuth = await serve(config, { port: 0, services: createServices(config), access: open });
  await noAuth.services.redis.connect().catch(() => {});
  const withAuth = await serve(config, { port: 0, services });
  const rows: string[] = [];
  const results: Record<string, unknown> = {};
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const servers = { a: [noAuth.url, {}], b: [withAuth.url, { authorization: `Bearer ${secret}` }], c: [withAuth.url, { authorization: `Bearer ${token}` }] } as const;
  for (const path of ['/v1/whoami', '/v1/companies/c1']) {
    // Warm all three, then measure in rounds, each in another order (a b c, b c a, c a b): the
    // machine is shared, and whatever drifts during a round must not fall on one variant only.
    await measure(noAuth.url, path, {});
    await measure(withAuth.url, path, { authorization: `Bearer ${secret}` });
    await measure(withAuth.url, path, { authorization: `Bearer ${token}` });
    const runs: Record<'a' | 'b' | 'c', { rps: number; p50: number; p99: number; errors: number }[]> = { a: [], b: [], c: [] };
    const order = ['a', 'b', 'c'] as const;
    for (let round = 0; round < Number(args.rounds); round++) {
      for (let i = 0; i < 3; i++) {
        const v = order[(round + i) % 3];
        runs[v].push(await measure(servers[v][0], path, servers[v][1]));
      }
    }
    const errors = Object.values(runs).flat().reduce((n, r) => n + r.errors, 0);
    if (errors) throw new Error(`${errors} non-2xx responses`);
    const [a, b, c] = order.map((v) => ({ rps: median(runs[v].map((r) => r.rps)), p50: median(runs[v].map((r) => r.p50)), p99: median(runs[v].map((r) => r.p99)) }));
    // Per round, so that each ratio compares runs measured a few seconds apart.
    const jwtVsKey = median(runs.c.map((r, i) => r.rps / runs.b[i].rps));
    const ratio = b.rps / a.rps;
    results[path] = { no_auth: a, auth: b, jwt: c, rounds: runs, throughput_ratio: Number(ratio.toFixed(3)), jwt_throughput_ratio: Number((c.rps / a.rps).toFixed(3)), jwt_vs_key: Number(jwtVsKey.toFixed(3)), added_p50_ms: b.p50 - a.p50 };
    rows.push(`| ${path} | ${a.rps} | ${b.rps} | ${ratio.toFixed(2)} | ${c.rps} | ${(c.rps / a.rps).toFixed(2)} | ${jwtVsKey.toFixed(2)} | ${a.p50} / ${a.p99} | ${b.p50} / ${b.p99} | ${c.p50} / ${c.p99} |`);
  }
  process.stdout.write(`\n| call | req/s no auth | req/s key | key ratio | req/s JWT | JWT ratio | JWT / key (median of rounds) | p50/p99 no auth (ms) | p50/p99 key (ms) | p50/p99 JWT (ms) |\n|---|---|---|---|---|---|---|---|---|---|\n${rows.join('\n')}\n\n`);
  process.stdout.write(`${JSON.stringify({ connections: Number(args.connections), duration_s: Number(args.duration), rounds: Number(args.rounds), key: key.id, results })}\n`);
  await noAuth.close();
  await withAuth.close();
}

await main();
