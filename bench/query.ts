/**
 * Query benchmark: `npm run bench:query [-- --rows 1000000 --duration 10 --connections 10]`.
 *
 * Loads N companies and N personnel (plus offices and brokers) into the `<ns>-benchq`
 * namespace once and reuses them. Then, for each scenario, autocannon measures the API call
 * and, in the same run, the identical Elasticsearch request sent directly (taken from the
 * API's `explain=true`), and prints p50/p99, req/s and the API/direct ratio:
 *   (a) a filtered list page, (b) a fuzzy search, (c) page 200 of a filtered walk (pages
 *   0..199 walked first, as a client does; and its page 0, for the page-200/page-0 ratio), (d) a personnel list with company-side filters,
 *   (e) page 200 asked for directly (no walk: a from/size page) and page 0 of the same filter,
 *   (f) descending lists (the index is sorted ascending on the default sort).
 * `--as-is` measures the indices as they are, without reloading them when the layout changed.
 * For each it also measures the floor (bench/floor-proxy.mjs, a bare Node proxy of the same
 * request) and the CPU per request of the API, Elasticsearch, Redis and the load generator,
 * read from /proc: on a CPU-bound machine the p50 ratio follows the CPU per request.
 * `--only <text>[|<text>...]` runs the scenarios whose label holds one of them; `--profile DIR` writes a V8 CPU
 * profile of the API process there.
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { loadConfig } from '../core/config.ts';
import { createServices } from '../server/context.ts';
import { ensureEs } from '../local/es-local.ts';
import { cpuSeconds, pidsOf } from './proc.ts';
import { spawnSearchFloor, spawnServer } from './server.ts';
import { ensureRedis } from '../local/redis-local.ts';
import { generate } from '../ingest/generate/index.ts';
import { ingestFile } from '../ingest/run.ts';
import { hasStaleMapping, resourceCounts } from '../ingest/demo.ts';
import { ENTITY_NAMES } from '../mappings/index.ts';
import { aliasName } from '../core/names.ts';

const { values: args } = parseArgs({ options: { rows: { type: 'string', default: '1000000' }, duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' }, 'load-only': { type: 'boolean', default: false }, 'as-is': { type: 'boolean', default: false }, only: { type: 'string' }, profile: { type: 'string' } } });
const rows = Number(args.rows);
const base = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const config = Object.freeze({ ...base, namespace: `${base.namespace}-benchq`, rateLimitPerMinute: 100_000_000, crawlThreshold: 100_000_000, dailyRowCap: 2_000_000_000 });

async function ensureData(): Promise<void> {
  const es = createServices(config).es;
  const counts = await resourceCounts(es, config.namespace);
  // Enough rows, built with the current mapping (a mapping change, such as a new companion, reloads).
  if ((counts.companies ?? 0) >= rows && (counts.personnel ?? 0) >= rows && !(await hasStaleMapping(es, config.namespace))) return;
  const dir = join(config.home, 'data', `benchq-${rows}`);
  process.stderr.write(`generating and loading ${rows} companies and ${rows} personnel into ${config.namespace} (once)\n`);
  const gen = await generate({ out: dir, companies: rows, personnel: rows, brokerOffices: Math.round(rows / 5), brokers: Math.round(rows / 40), seed: 99 });
  for (const r of ENTITY_NAMES) {
    const s = await ingestFile(config, r, gen.files[r], { progress: null, es });
    process.stderr.write(`  ${r}: ${s.indexed} in ${(s.elapsedMs / 1000).toFixed(0)} s\n`);
  }
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
}

/** Runs `fn` and returns, with its result, the CPU ms per request each process spent. */
async function accounted(procs: Record<string, number[]>, fn: () => Promise<Result & { total: number }>): Promise<Result & { cpu: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(procs).map(([k, pids]) => [k, pids.reduce((a, p) => a + cpuSeconds(p), 0)]));
  const res = await fn();
  const cpu: Record<string, number> = {};
  for (const [k, pids] of Object.entries(procs)) cpu[k] = Number((((pids.reduce((a, p) => a + cpuSeconds(p), 0) - before[k]) * 1000) / Math.max(1, res.total)).toFixed(2));
  return { rps: res.rps, p50: res.p50, p99: res.p99, cpu };
}

async function measure(opts: autocannon.Options): Promise<Result & { total: number }> {
  const res = await autocannon({ connections: Number(args.connections), duration: Number(args.duration), ...opts });
  if (res.non2xx || res.errors) throw new Error(`${opts.url}: ${res.non2xx} non-2xx, ${res.errors} errors`);
  return { rps: Math.round(res.requests.average), p50: res.latency.p50, p99: res.latency.p99, total: res.requests.total };
}


async function main(): Promise<void> {
  await ensureEs(config);
  await ensureRedis(config);
  // --as-is: measure the indices as they are (no reload when the layout changed): before/after runs of an index change.
  if (!args['as-is']) await ensureData();
  if (args['load-only']) return;
  const services = createServices(config);
  // The API runs in its own process, as in production: autocannon must not share its event loop.
  const running = await spawnServer(config.namespace, { profileDir: args.profile });
  const org = `benchq-${randomUUID().slice(0, 8)}`;
  const { secret } = await services.keys.createRoot({ org, user: 'bench', internal: true });
  await services.credits.grant(org, 1_000_000_000_000);
  const sample = await services.es.search<{ company_name: string }>({ index: aliasName(config.namespace, 'companies'), size: 1, query: { term: { state: 'OH' } }, _source: ['company_name'] });
  const name = (sample.hits.hits[0]?._source?.company_name ?? 'Acme Health').replace(/a/, 'e');
  const scenarios: [string, string][] = [
    ['(a) filtered list page', '/v1/companies?states=TX,CA&employee_bands=51-200,201-500&funding_status=Fully%20Insured&page_size=25'],
    ['(b) fuzzy search', `/v1/companies?search=${encodeURIComponent(name)}&page_size=10`],
    ['(c) page 0 of a filtered walk', '/v1/companies?states=CA&short_form=true&page=0&page_size=25'],
    ['(c) page 200 of a filtered walk', '/v1/companies?states=CA&short_form=true&page=200&page_size=25'],
    // Asked for directly (a results table with a page picker): no walk remembered, a from/size page.
    ['(e) page 200 asked directly', '/v1/companies?states=NY&short_form=true&page=200&page_size=25'],
    ['(e) page 0 of the same filter', '/v1/companies?states=NY&short_form=true&page=0&page_size=25'],
    ['(e) page 200 asked directly, no filter', '/v1/companies?page=200&page_size=25'],
    ['(e) page 200 asked directly, employees descending', '/v1/companies?states=NY&sort_by=total_number_of_employees&sort_dir=desc&page=200&page_size=25'],
    ['(f) the same filter, descending', '/v1/companies?states=NY&short_form=true&sort_dir=desc&page=0&page_size=25'],
    ['(f) no filter, descending', '/v1/companies?sort_dir=desc&page=0&page_size=25'],
    ['(d) personnel, company-side filters', '/v1/personnel?lead_type=company&industries=Offices%20of%20Physicians&employee_bands=11-50,51-200&seniority=C-suite,VP-Director&page_size=25'],
  ];
  const auth = { authorization: `Bearer ${secret}` };
  // CPU per request of each process, to say where the API's added time goes.
  const procs = { api: [running.pid], elasticsearch: pidsOf('org.elasticsearch.bootstrap.Elasticsearch'), redis: pidsOf('redis-server'), bench: [process.pid] };
  const lines: string[] = [];
  const cpuLines: string[] = [];
  const floorLines: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [label, path] of scenarios.filter(([l]) => !args.only || args.only.split('|').some((o) => l.includes(o)))) {
    // Page 200 of a walk: the client has walked pages 0..199 (the server remembers where each ended).
    const deepPage = label.includes('walk') ? /[?&]page=(\d+)/.exec(path) : null;
    for (let page = 0; deepPage && page < Number(deepPage[1]); page++) {
      const r = await fetch(`${running.url}${path.replace(/page=\d+/, `page=${page}`)}`, { headers: auth });
      if (!r.ok) throw new Error(`walk page ${page}: ${r.status}`);
    }
    const ex = await fetch(`${running.url}${path}&explain=true`, { headers: auth }).then((r) => r.json() as Promise<{ meta: { explain: { index: string; body: Record<string, unknown>; ladder?: Record<string, unknown> } } }>);
    const { index, ladder } = ex.meta.explain;
    // A deep page the API found by counting (server/read/ladder.ts) sent two requests; the
    // baseline is what a client sends Elasticsearch for the same page: one from/size query.
    const offset = Number(/[?&]page=(\d+)/.exec(path)?.[1] ?? 0) * Number(/[?&]page_size=(\d+)/.exec(path)?.[1] ?? 25);
    const body = ladder ? { ...ex.meta.explain.body, query: ladder.query, from: offset, track_total_hits: ladder.track_total_hits } : ex.meta.explain.body;
    await measure({ url: running.url + path, headers: auth, duration: 2 });
    const api = await accounted(procs, () => measure({ url: running.url + path, headers: auth }));
    const direct = await accounted(procs, () => measure({ url: `${config.esUrl}/${index}/_search`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
    const proxy = await spawnSearchFloor(config.esUrl, index, body);
    const floor = await accounted({ ...procs, api: [proxy.pid] }, () => measure({ url: proxy.url }));
    await proxy.close();
    const ratio = api.p50 / Math.max(direct.p50, 0.001);
    const floorRatio = floor.p50 / Math.max(direct.p50, 0.001);
    out[label] = { api, direct, floor, p50_ratio: Number(ratio.toFixed(2)), floor_p50_ratio: Number(floorRatio.toFixed(2)) };
    floorLines.push(`| ${label} | ${floor.p50} / ${floor.p99} | ${floor.rps} | ${floorRatio.toFixed(2)} | ${floor.cpu.api} |`);
    cpuLines.push(`| ${label} | ${api.cpu.api} | ${api.cpu.elasticsearch} / ${direct.cpu.elasticsearch} | ${api.cpu.redis} | ${api.cpu.bench} / ${direct.cpu.bench} |`);
    lines.push(`| ${label} | ${api.p50} / ${api.p99} | ${api.rps} | ${direct.p50} / ${direct.p99} | ${direct.rps} | ${ratio.toFixed(2)} |`);
  }
  const p0 = out['(c) page 0 of a filtered walk'] as { api: Result } | undefined;
  const p200 = out['(c) page 200 of a filtered walk'] as { api: Result } | undefined;
  const e0 = out['(e) page 0 of the same filter'] as { api: Result; direct: Result } | undefined;
  const e200 = out['(e) page 200 asked directly'] as { api: Result; direct: Result } | undefined;
  const ratioOf = (a: Result, b: Result) => (a.p50 / Math.max(b.p50, 0.001)).toFixed(2);
  let depth = p0 && p200 ? `\npage 200 / page 0 after a walk (API p50): ${ratioOf(p200.api, p0.api)}\n` : '';
  if (e0 && e200) depth += `page 200 asked directly / page 0 (API p50): ${ratioOf(e200.api, e0.api)}; direct: ${ratioOf(e200.direct, e0.direct)}\n`;
  process.stdout.write(`\n| scenario | API p50 / p99 (ms) | API req/s | direct p50 / p99 (ms) | direct req/s | API/direct p50 |\n|---|---|---|---|---|---|\n${lines.join('\n')}\n${depth}`);
  process.stdout.write(`\nCPU ms per request (API run; Elasticsearch and the load generator also in the direct run):\n\n| scenario | API process | Elasticsearch API / direct | Redis | autocannon API / direct |\n|---|---|---|---|---|\n${cpuLines.join('\n')}\n`);
  process.stdout.write(`\nFloor: a bare Node proxy (bench/floor-proxy.mjs: http server, undici pool, JSON parse and re-serialize; no auth, Redis, routing or shaping):\n\n| scenario | floor p50 / p99 (ms) | floor req/s | floor/direct p50 | floor CPU ms/req |\n|---|---|---|---|---|\n${floorLines.join('\n')}\n`);
  process.stdout.write(`${JSON.stringify({ rows, connections: Number(args.connections), duration_s: Number(args.duration), results: out })}\n`);
  await running.close();
  await services.close();
}

await main();
