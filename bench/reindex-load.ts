/**
 * Reindex and ingest under load: `npm run bench:reindex-load [-- --clients 50]`, on the 1M
 * companies of bench:query (`npm run bench:query -- --load-only` first).
 *
 * 50 clients read through the API (its own process) without pause (filtered lists, fuzzy
 * searches, details, counts) while `bintel reindex companies` rebuilds the 1M-row index and then
 * `bintel ingest` loads the bench CSV again; prints the calls made, failed (any status but 200)
 * and their p50/p99 in each phase, and where the alias ends. The goal: zero failed queries.
 */
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../core/config.ts';
import { aliasName } from '../core/names.ts';
import { createServices } from '../server/context.ts';
import { ingestFile, reindexResource } from '../ingest/run.ts';
import { spawnServer } from './server.ts';

const { values: args } = parseArgs({ options: { clients: { type: 'string', default: '50' }, rows: { type: 'string', default: '1000000' } } });
const base = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const config = Object.freeze({ ...base, namespace: `${base.namespace}-benchq`, rateLimitPerMinute: 100_000_000, crawlThreshold: 100_000_000, dailyRowCap: 2_000_000_000 });

async function main(): Promise<void> {
  const services = createServices(config);
  const alias = aliasName(config.namespace, 'companies');
  const csv = join(config.home, 'data', `benchq-${args.rows}`, 'companies.csv');
  if (!existsSync(csv)) throw new Error(`no ${csv}: run \`npm run bench:query -- --load-only\` first`);
  const running = await spawnServer(config.namespace, { env: { BINTEL_RATE_LIMIT_PER_MIN: '100000000', BINTEL_CRAWL_THRESHOLD: '100000000', BINTEL_DAILY_ROW_CAP: '2000000000' } });
  const org = `benchr-${randomUUID().slice(0, 8)}`;
  const { secret } = await services.keys.createRoot({ org, user: 'bench' });
  await services.credits.grant(org, 1_000_000_000_000);
  const sample = await services.es.search<{ id: string }>({ index: alias, size: 50, _source: ['id'], sort: [{ id: 'asc' }] });
  const paths = [
    '/v1/companies?states=TX,CA&page_size=25',
    '/v1/companies?search=smith%20health&page_size=10',
    '/v1/companies?count_only=true&states=FL',
    '/v1/companies?employee_bands=51-200&sort_by=total_number_of_employees&sort_dir=desc&page_size=10&page=4',
    ...sample.hits.hits.map((h) => `/v1/companies/${h._id}`),
  ];
  let phase = 'reindex';
  const stats = new Map<string, { ms: number[]; failed: number; statuses: Map<number, number> }>();
  const record = (ms: number, status: number) => {
    const s = stats.get(phase) ?? { ms: [] as number[], failed: 0, statuses: new Map<number, number>() };
    stats.set(phase, s);
    s.ms.push(ms);
    if (status !== 200) {
      s.failed++;
      s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1);
    }
  };
  let go = true;
  const client = async (n: number) => {
    for (let i = n; go; i++) {
      const t0 = performance.now();
      const res = await fetch(`${running.url}${paths[i % paths.length]}`, { headers: { authorization: `Bearer ${secret}` } }).catch(() => null);
      if (res) await res.arrayBuffer();
      record(performance.now() - t0, res?.status ?? 0);
    }
  };
  const before = Object.keys(await services.es.indices.getAlias({ name: alias }))[0];
  const clients = Array.from({ length: Number(args.clients) }, (_, n) => client(n));
  const t0 = Date.now();
  const reindexed = await reindexResource(config, 'companies', { progress: null });
  const t1 = Date.now();
  // Each phase's figures as soon as it ends (a run cut short still reports the phases it finished).
  const phaseLine = (name: string, rows: number, ms: number) => {
    const s = stats.get(name) ?? { ms: [] as number[], failed: 0, statuses: new Map<number, number>() };
    const sorted = [...s.ms].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]?.toFixed(0);
    return `| ${name} (${rows} rows, ${(ms / 1000).toFixed(0)} s) | ${s.ms.length} | ${s.failed}${s.failed ? ` (${[...s.statuses].map(([k, v]) => `${v}×${k}`).join(', ')})` : ''} | ${at(50)} / ${at(99)} |`;
  };
  process.stderr.write(`${phaseLine('reindex', reindexed.indexed, t1 - t0)}\n`);
  phase = 'ingest';
  const loaded = await ingestFile(config, 'companies', csv, { progress: null });
  const t2 = Date.now();
  go = false;
  await Promise.all(clients);
  const after = Object.keys(await services.es.indices.getAlias({ name: alias }))[0];
  const lines = [phaseLine('reindex', reindexed.indexed, t1 - t0), phaseLine('ingest', loaded.indexed, t2 - t1)];
  process.stdout.write(`\n${args.clients} clients reading through the API during a reindex and a reload of ${alias}\n\n| phase | calls | failed | p50 / p99 (ms) |\n|---|---|---|---|\n${lines.join('\n')}\n\nalias: ${before} → ${after}\n`);
  await running.close();
  await services.close();
}

await main();
