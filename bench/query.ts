/**
 * Query benchmark: `npm run bench:query [-- --rows 1000000 --duration 10 --connections 10]`.
 *
 * Loads N companies and N personnel (plus offices and brokers) into the `<ns>-benchq`
 * namespace once and reuses them. Then, for each scenario, autocannon measures the API call
 * and, in the same run, the identical Elasticsearch request sent directly (taken from the
 * API's `explain=true`), and prints p50/p99, req/s and the API/direct ratio:
 *   (a) a filtered list page, (b) a fuzzy search, (c) page 200 of a filtered walk (pages
 *   0..199 walked first, as a client does; and its page 0, for the page-200/page-0 ratio), (d) a personnel list with company-side filters.
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
const ROOT = new URL('..', import.meta.url).pathname;
import { loadConfig } from '../server/config.ts';
import { createServices } from '../server/context.ts';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ensureEs } from '../server/local/es-local.ts';
import { ensureRedis } from '../server/local/redis-local.ts';
import { generate } from '../ingest/generate/index.ts';
import { ingestFile } from '../ingest/run.ts';
import { resourceCounts } from '../ingest/demo.ts';

const { values: args } = parseArgs({ options: { rows: { type: 'string', default: '1000000' }, duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' }, 'load-only': { type: 'boolean', default: false } } });
const rows = Number(args.rows);
const base = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const config = Object.freeze({ ...base, namespace: `${base.namespace}-benchq`, rateLimitPerMinute: 100_000_000, crawlThreshold: 100_000_000, dailyRowCap: 2_000_000_000 });

async function ensureData(): Promise<void> {
  const es = createServices(config).es;
  const counts = await resourceCounts(es, config.namespace);
  if ((counts.companies ?? 0) >= rows && (counts.personnel ?? 0) >= rows) return;
  const dir = join(config.home, 'data', `benchq-${rows}`);
  process.stderr.write(`generating and loading ${rows} companies and ${rows} personnel into ${config.namespace} (once)\n`);
  const gen = await generate({ out: dir, companies: rows, personnel: rows, brokerOffices: Math.round(rows / 5), brokers: Math.round(rows / 40), seed: 99 });
  for (const r of ['brokers', 'broker-offices', 'companies', 'personnel'] as const) {
    const s = await ingestFile(config, r, gen.files[r], { progress: null }, es);
    process.stderr.write(`  ${r}: ${s.indexed} in ${(s.elapsedMs / 1000).toFixed(0)} s\n`);
  }
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
}

async function measure(opts: autocannon.Options): Promise<Result> {
  const res = await autocannon({ connections: Number(args.connections), duration: Number(args.duration), ...opts });
  if (res.non2xx || res.errors) throw new Error(`${opts.url}: ${res.non2xx} non-2xx, ${res.errors} errors`);
  return { rps: Math.round(res.requests.average), p50: res.latency.p50, p99: res.latency.p99 };
}

/** `bintel serve` in a child process on a free port, with the bench's namespace and limits. */
async function spawnServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const port = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  const child = spawn(process.execPath, [join(ROOT, 'bin/bintel.js'), 'serve', '--port', String(port)], {
    env: { ...process.env, BINTEL_NAMESPACE: config.namespace, LOG_LEVEL: 'silent', BINTEL_RATE_LIMIT_PER_MIN: '100000000', BINTEL_CRAWL_THRESHOLD: '100000000', BINTEL_DAILY_ROW_CAP: '2000000000' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('listening') && resolve());
    child.once('exit', (code) => reject(new Error(`bintel serve exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

async function main(): Promise<void> {
  await ensureEs(config);
  await ensureRedis(config);
  await ensureData();
  if (args['load-only']) return;
  const services = createServices(config);
  // The API runs in its own process, as in production: autocannon must not share its event loop.
  const running = await spawnServer();
  const org = `benchq-${randomUUID().slice(0, 8)}`;
  const { secret } = await services.keys.createRoot({ org, user: 'bench', internal: true });
  await services.credits.grant(org, 1_000_000_000_000);
  const sample = await services.es.search<{ company_name: string }>({ index: `${config.namespace}-companies`, size: 1, query: { term: { state: 'OH' } }, _source: ['company_name'] });
  const name = (sample.hits.hits[0]?._source?.company_name ?? 'Acme Health').replace(/a/, 'e');
  const scenarios: [string, string][] = [
    ['(a) filtered list page', '/v1/companies?states=TX,CA&employee_bands=51-200,201-500&funding_status=Fully%20Insured&page_size=25'],
    ['(b) fuzzy search', `/v1/companies?search=${encodeURIComponent(name)}&page_size=10`],
    ['(c) page 0 of a filtered walk', '/v1/companies?states=CA&short_form=true&page=0&page_size=25'],
    ['(c) page 200 of a filtered walk', '/v1/companies?states=CA&short_form=true&page=200&page_size=25'],
    ['(d) personnel, company-side filters', '/v1/personnel?lead_type=company&industries=Offices%20of%20Physicians&employee_bands=11-50,51-200&seniority=C-suite,VP-Director&page_size=25'],
  ];
  const auth = { authorization: `Bearer ${secret}` };
  const lines: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [label, path] of scenarios) {
    // Page 200 of a walk: the client has walked pages 0..199 (the server remembers where each ended).
    const deepPage = /[?&]page=(\d+)/.exec(path);
    for (let page = 0; deepPage && page < Number(deepPage[1]); page++) {
      const r = await fetch(`${running.url}${path.replace(/page=\d+/, `page=${page}`)}`, { headers: auth });
      if (!r.ok) throw new Error(`walk page ${page}: ${r.status}`);
    }
    const ex = await fetch(`${running.url}${path}&explain=true`, { headers: auth }).then((r) => r.json() as Promise<{ meta: { explain: { index: string; body: unknown } } }>);
    const { index, body } = ex.meta.explain;
    await measure({ url: running.url + path, headers: auth, duration: 2 });
    const api = await measure({ url: running.url + path, headers: auth });
    const direct = await measure({ url: `${config.esUrl}/${index}/_search`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ratio = api.p50 / Math.max(direct.p50, 0.001);
    out[label] = { api, direct, p50_ratio: Number(ratio.toFixed(2)) };
    lines.push(`| ${label} | ${api.p50} / ${api.p99} | ${api.rps} | ${direct.p50} / ${direct.p99} | ${direct.rps} | ${ratio.toFixed(2)} |`);
  }
  const p0 = out['(c) page 0 of a filtered walk'] as { api: Result };
  const p200 = out['(c) page 200 of a filtered walk'] as { api: Result };
  process.stdout.write(`\n| scenario | API p50 / p99 (ms) | API req/s | direct p50 / p99 (ms) | direct req/s | API/direct p50 |\n|---|---|---|---|---|---|\n${lines.join('\n')}\n\npage 200 / page 0 (API p50): ${(p200.api.p50 / Math.max(p0.api.p50, 0.001)).toFixed(2)}\n`);
  process.stdout.write(`${JSON.stringify({ rows, connections: Number(args.connections), duration_s: Number(args.duration), results: out })}\n`);
  await running.close();
  await services.close();
}

await main();
