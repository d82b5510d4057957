/**
 * CSV export benchmark: `npm run bench:export [-- --rounds 5 --limit 2000]`, on the `<ns>-benchq`
 * data of bench:query (load it first: `npm run bench:query -- --load-only`).
 *
 * The API runs in its own process. Each round downloads the same synchronous export (`limit`
 * rows, the maximum 2,000 by default) through the API, then walks the identical query straight
 * from Elasticsearch with a point in time and search_after (the query and sort from the list's
 * `explain=true`, the same `_source` fields, the same 1,000-row batches) as the baseline. Prints
 * rows/s of both, their ratio (goal: at least 0.80) and the API process's peak RSS above its idle
 * RSS during the exports (goal: under 150 MB), read from /proc.
 *
 * Then one async export of `--async-rows` rows (default 200,000; POST /v1/exports, run by the
 * API process's in-process worker, polled until completed, then downloaded) against the raw
 * walk of the same rows: rows/s from POST to completed, the download, and the API process's peak
 * RSS above idle during the job.
 */
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../core/config.ts';
import { aliasName } from '../core/names.ts';
import { createServices } from '../server/context.ts';
import { spawnServer } from './server.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, limit: { type: 'string', default: '2000' }, 'async-rows': { type: 'string', default: '200000' } } });
const base = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const config = Object.freeze({ ...base, namespace: `${base.namespace}-benchq` });
const FILTERS = 'states=CA,TX,NY,FL,OH,PA,IL,GA&sort_by=total_number_of_employees&sort_dir=desc&mode=full';

/** Resident set size of a process, MB. */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

async function main(): Promise<void> {
  const services = createServices(config);
  const count = await services.es.count({ index: aliasName(config.namespace, 'companies') }).catch(() => ({ count: 0 }));
  if (count.count < Number(args.limit)) throw new Error(`no bench data in ${config.namespace}: run \`npm run bench:query -- --load-only\` first`);
  const asyncRows = Number(args['async-rows']);
  const running = await spawnServer(config.namespace, { env: { BINTEL_EXPORT_MAX_ROWS: String(Math.max(asyncRows, 50_000)) } });
  const org = `benche-${randomUUID().slice(0, 8)}`;
  const { secret } = await services.keys.createRoot({ org, user: 'bench', internal: true });
  await services.credits.grant(org, 1_000_000_000_000);
  const auth = { authorization: `Bearer ${secret}` };
  const limit = Number(args.limit);
  /** The raw point-in-time walk of the same query: rows read (their _source serialized, as the API must). */
  const rawWalk = async (rows: number): Promise<number> => {
    const pit = (await services.es.openPointInTime({ index: aliasName(config.namespace, 'companies'), keep_alive: '1m' })).id;
    let walked = 0;
    let after: unknown[] | undefined;
    while (walked < rows) {
      const page = await services.es.search({ pit: { id: pit, keep_alive: '1m' }, query: query as never, sort: sort as never, size: Math.min(1000, rows - walked), _source: source as never, track_total_hits: false, ...(after ? { search_after: after as never } : {}) });
      const hits = page.hits.hits;
      if (!hits.length) break;
      walked += hits.length;
      after = hits[hits.length - 1].sort as unknown[];
      JSON.stringify(hits.map((h) => h._source));
    }
    await services.es.closePointInTime({ id: pit });
    return walked;
  };
  // The exact Elasticsearch query and sort of the same list call, and the fields a row carries.
  const ex = (await (await fetch(`${running.url}/v1/companies?${FILTERS}&page_size=1&explain=true`, { headers: auth })).json()) as { meta: { explain: { body: { query: unknown; sort: unknown; _source: unknown } } } };
  const { query, sort, _source: source } = ex.meta.explain.body;
  const idle = rssMb(running.pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(running.pid))), 20);
  const api: number[] = [];
  const raw: number[] = [];
  for (let round = 0; round < Number(args.rounds); round++) {
    let t = performance.now();
    const res = await fetch(`${running.url}/v1/companies/export.csv?${FILTERS}&limit=${limit}`, { headers: auth });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`export: ${res.status} ${text.slice(0, 200)}`);
    const rows = text.split('\r\n').filter(Boolean).length - 1;
    api.push(rows / ((performance.now() - t) / 1000));
    t = performance.now();
    const walked = await rawWalk(limit);
    raw.push(walked / ((performance.now() - t) / 1000));
    if (walked !== rows) throw new Error(`the walk read ${walked} rows, the export sent ${rows}`);
  }
  clearInterval(sampler);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const a = median(api);
  const r = median(raw);
  const syncPeak = peak;
  // The async export: POST, poll to completed, download; RSS sampled throughout.
  peak = rssMb(running.pid);
  const asyncIdle = peak;
  const sampler2 = setInterval(() => (peak = Math.max(peak, rssMb(running.pid))), 20);
  let t0 = performance.now();
  const body = { resource: 'companies', max_rows: asyncRows, ...Object.fromEntries(new URLSearchParams(FILTERS)) };
  const created = await fetch(`${running.url}/v1/exports`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const job = ((await created.json()) as { data: { id: string; rows_reserved: number } }).data;
  if (created.status !== 202) throw new Error(`POST /v1/exports: ${created.status} ${JSON.stringify(job)}`);
  let status = '';
  let written = 0;
  while (status !== 'completed') {
    await new Promise((res) => setTimeout(res, 100));
    const j = ((await (await fetch(`${running.url}/v1/exports/${job.id}`, { headers: auth })).json()) as { data: { status: string; rows_written: number } }).data;
    status = j.status;
    written = j.rows_written;
    if (status === 'failed') throw new Error('the async export failed');
  }
  const asyncS = (performance.now() - t0) / 1000;
  t0 = performance.now();
  const dl = await fetch(`${running.url}/v1/exports/${job.id}/download`, { headers: auth });
  let bytes = 0;
  for await (const chunk of dl.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  const dlS = (performance.now() - t0) / 1000;
  clearInterval(sampler2);
  t0 = performance.now();
  const rawAsync = await rawWalk(written);
  const rawS = (performance.now() - t0) / 1000;
  if (rawAsync !== written) throw new Error(`the walk read ${rawAsync} rows, the job wrote ${written}`);
  const asyncPeak = peak;
  peak = syncPeak;
  process.stdout.write(
    `\n| async export of ${written} rows | rows/s |\n|---|---|\n| API: POST to completed (file written) | ${Math.round(written / asyncS)} |\n| raw point-in-time walk, same query | ${Math.round(written / rawS)} |\n| API / raw | ${(rawS / asyncS).toFixed(2)} |\n| download (${(bytes / 2 ** 20).toFixed(0)} MB) | ${Math.round(written / dlS)} |\n\nAPI process RSS during the async export: idle ${asyncIdle.toFixed(0)} MB, peak ${asyncPeak.toFixed(0)} MB (+${(asyncPeak - asyncIdle).toFixed(0)} MB)\n`,
  );
  process.stdout.write(`\n| export of ${limit} rows (${args.rounds} rounds, median) | rows/s |\n|---|---|\n| API export.csv (CSV, streamed) | ${Math.round(a)} |\n| raw point-in-time walk, same query | ${Math.round(r)} |\n| API / raw | ${(a / r).toFixed(2)} |\n\nAPI process RSS: idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB (+${(peak - idle).toFixed(0)} MB)\n`);
  await running.close();
  await services.close();
}

await main();
