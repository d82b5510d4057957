/**
 * Autocomplete benchmark: `npm run bench:autocomplete [-- --duration 8 --connections 8]`, on the
 * `<ns>-benchq` data of bench:query (`npm run bench:query -- --load-only` first, 1M rows; it
 * reloads indices built with an older mapping).
 *
 * For 2-, 3-, 5- and 8-character prefixes of company names sampled from the data (rotating over
 * 200 different names), autocannon measures GET /v1/companies/autocomplete through the API (its
 * own process) and, in the same run, the identical Elasticsearch request (built by the same pure
 * builder, server/read/autocomplete.ts) sent straight to Elasticsearch. Prints p50/p99, req/s and
 * the API/direct p50 ratio. Goals: p99 under 20 ms through the API, the API adding under 25% at p50.
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../core/config.ts';
import { aliasName } from '../core/names.ts';
import { entity } from '../mappings/index.ts';
import { createServices } from '../server/context.ts';
import { buildAutocomplete, parseAutocomplete } from '../server/read/autocomplete.ts';
import { spawnServer } from './server.ts';

const { values: args } = parseArgs({ options: { duration: { type: 'string', default: '8' }, connections: { type: 'string', default: '8' } } });
const base = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const config = Object.freeze({ ...base, namespace: `${base.namespace}-benchq` });
const companies = entity('companies');

interface Result {
  p50: number;
  p99: number;
  rps: number;
}

/** autocannon over `paths` in turn (one request each, rotating), or POST bodies to one URL. */
async function run(opts: { url: string; headers: Record<string, string>; paths?: string[]; bodies?: string[] }): Promise<Result> {
  let i = 0;
  const requests = opts.paths
    ? [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, path: (opts.paths as string[])[i++ % (opts.paths as string[]).length] }) }]
    : [{ method: 'POST' as const, setupRequest: (req: Record<string, unknown>) => ({ ...req, body: (opts.bodies as string[])[i++ % (opts.bodies as string[]).length] }) }];
  const res = await autocannon({ url: opts.url, headers: opts.headers, connections: Number(args.connections), duration: Number(args.duration), requests: requests as never });
  if (res.non2xx || res.errors) throw new Error(`${opts.url}: ${res.non2xx} non-2xx, ${res.errors} errors`);
  return { p50: res.latency.p50, p99: res.latency.p99, rps: Math.round(res.requests.average) };
}

async function main(): Promise<void> {
  const services = createServices(config);
  const index = aliasName(config.namespace, 'companies');
  const sample = await services.es.search<{ company_name: string }>({ index, size: 200, query: { match_all: {} }, sort: [{ id: 'asc' }], _source: ['company_name'] }).catch(() => null);
  const names = (sample?.hits.hits ?? []).map((h) => String(h._source?.company_name ?? '')).filter((n) => n.length >= 8);
  if (names.length < 50) throw new Error(`no bench data in ${config.namespace}: run \`npm run bench:query -- --load-only\` first`);
  const running = await spawnServer(config.namespace);
  const org = `bencha-${randomUUID().slice(0, 8)}`;
  const { secret } = await services.keys.createRoot({ org, user: 'bench' });
  const auth = { authorization: `Bearer ${secret}` };
  const lines: string[] = [];
  for (const chars of [2, 3, 5, 8]) {
    const prefixes = names.map((n) => n.slice(0, chars).trim()).filter((p) => p.length >= 2);
    const paths = prefixes.map((p) => `/v1/companies/autocomplete?query=${encodeURIComponent(p)}&limit=10`);
    const bodies = prefixes.map((p) => JSON.stringify(buildAutocomplete(parseAutocomplete(companies, { query: p, limit: '10' }))));
    await run({ url: running.url, headers: auth, paths: paths.slice(0, 20) }); // warm-up
    const api = await run({ url: running.url, headers: auth, paths });
    const direct = await run({ url: `${config.esUrl}/${index}/_search`, headers: { 'content-type': 'application/json' }, bodies });
    lines.push(`| ${chars} | ${api.p50} / ${api.p99} | ${api.rps} | ${direct.p50} / ${direct.p99} | ${direct.rps} | ${(api.p50 / Math.max(direct.p50, 0.001)).toFixed(2)} |`);
  }
  process.stdout.write(`\n| prefix chars | API p50 / p99 (ms) | API req/s | direct p50 / p99 (ms) | direct req/s | API/direct p50 |\n|---|---|---|---|---|---|\n${lines.join('\n')}\n`);
  await running.close();
  await services.close();
}

await main();
