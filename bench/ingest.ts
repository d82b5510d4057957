/**
 * Ingest benchmark: `npm run bench:ingest -- --rows N [--batch-size B] [--concurrency C]`.
 *
 * Generates N companies (plus the brokers and offices they reference, loaded first and not
 * timed), then in one run measures
 *   (a) the raw ceiling: the very documents `bintel ingest` would write, pre-serialized as
 *       NDJSON, streamed from disk to `_bulk` with the same batch size and concurrency;
 *   (b) `bintel ingest companies <csv>` as a separate process (parse, validate, join, bulk),
 * both into fresh indices with the same mapping and load settings. Prints docs/s of each,
 * the ratio b/a, and the CLI's peak RSS.
 *
 * Then Elasticsearch's own cost per document: the same NDJSON sent raw to an index without and
 * with index sorting (BINTEL_INDEX_SORT), each then force-merged to one segment as a load does
 * before its alias moves (BINTEL_MERGE_SEGMENTS): docs/s, Elasticsearch CPU µs per document
 * (from /proc), segments and size before and after, and the merge's time and CPU.
 * `--es-cost-only` skips (b).
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { loadConfig } from '../core/config.ts';
import { createEs, type Es } from '../core/adapters/es.ts';
import { ensureEs } from '../local/es-local.ts';
import { ENTITY_NAMES, csvFields, entity } from '../mappings/index.ts';
import { aliasName, versionPattern } from '../core/names.ts';

/** The resources loaded before companies (their parents and grandparents), in load order. */
const BEFORE_COMPANIES = ENTITY_NAMES.slice(0, ENTITY_NAMES.indexOf('companies'));
import { generate } from '../ingest/generate/index.ts';
import { openCsv } from '../ingest/csv-source.ts';
import { EsParentLookup } from '../ingest/parents.ts';
import { completeBatch, isRejected, prepareRow, type PreparedRow } from '../ingest/transform.ts';
import { toNdjson } from '../ingest/bulk.ts';
import { createLoadIndex, dropIndex, forceMerge, liveIndex } from '../ingest/indices.ts';
import { ingestFile } from '../ingest/run.ts';
import { cpuOf, cpuSeconds, esPids } from './proc.ts';
import { esMappings, esSettings, LOOKALIKE_FLAT, vectorMapping, type IndexShape } from '../mappings/es-mapping.ts';
import type { EntityDef } from '../mappings/types.ts';
import { LOOKALIKE_FIELD } from '../mappings/lookalike.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    'batch-size': { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '2' },
    seed: { type: 'string', default: '7' },
    'es-cost-only': { type: 'boolean', default: false },
    'cli-only': { type: 'boolean', default: false },
    // Time to ready: the CLI load as an operator runs it (merge included), once per BINTEL_VECTOR_BUILD value listed (e.g. after,during).
    ready: { type: 'string', default: '' },
    // Layouts of the ES-cost table: unsorted,sorted,lean,novector,flat.
    layouts: { type: 'string', default: 'unsorted,sorted,lean,novector,flat' },
    // Keep the last loaded companies index (and its parents) for bench:lookalikes -- --namespace <ns>.
    keep: { type: 'boolean', default: false },
    // Node flags for the CLI process, e.g. --node-flags=--max-semi-space-size=64 (measured both ways: docs/performance.md, Ingest).
    'node-flags': { type: 'string', default: '' },
  },
});
const rows = Number(args.rows);
const batchSize = Number(args['batch-size']);
const concurrency = Number(args.concurrency);
const base = loadConfig();
const config = Object.freeze({ ...base, namespace: `${base.namespace}-bench` });
const es = createEs(config);
const companies = entity('companies');
const root = resolve(new URL('..', import.meta.url).pathname);

async function prepareData(dir: string): Promise<string> {
  const brokers = Math.max(20, Math.round(rows / 40));
  const offices = Math.max(50, Math.round(rows / 5));
  process.stderr.write(`generating ${rows} companies, ${offices} offices, ${brokers} brokers into ${dir}\n`);
  const gen = await generate({ out: dir, companies: rows, personnel: 0, brokerOffices: offices, brokers, seed: Number(args.seed) });
  for (const name of BEFORE_COMPANIES) {
    await ingestFile(config, name, gen.files[name], { progress: null, errors: join(dir, `${name}.errors.csv`), es });
  }
  return gen.files.companies;
}

/** Writes the documents bintel would index (same transform), as NDJSON, untimed. */
async function writeNdjson(csvPath: string, out: string): Promise<number> {
  const source = await openCsv(csvPath, csvFields(companies));
  const lookup = new EsParentLookup(es, config.namespace);
  const ws = createWriteStream(out);
  let batch: PreparedRow[] = [];
  let n = 0;
  const flush = async () => {
    const { done } = await completeBatch(companies, batch, lookup);
    n += done.length;
    if (!ws.write(toNdjson(done))) await new Promise<void>((r) => ws.once('drain', () => r()));
    batch = [];
  };
  for await (const recs of source.records) {
    for (const rec of recs) {
      if ('issue' in rec) continue;
      const r = prepareRow(companies, rec, csvFields(companies));
      if (!isRejected(r) && batch.push(r) >= batchSize) await flush();
    }
  }
  if (batch.length) await flush();
  await new Promise<void>((r) => ws.end(() => r()));
  return n;
}

/** (a) Streams NDJSON lines from disk to _bulk, `batchSize` documents a request, `concurrency` in flight. */
async function rawBulk(ndjson: string, index: string, shape: IndexShape = { shards: 1, replicas: 0 }, create = true): Promise<{ docs: number; ms: number }> {
  if (create) await createLoadIndex(es, index, companies, shape);
  const rl = createInterface({ input: createReadStream(ndjson, { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
  const pending = new Set<Promise<void>>();
  let body = '';
  let lines = 0;
  let docs = 0;
  const send = (b: string) => {
    const p = es.transport
      .request({ method: 'POST', path: `/${index}/_bulk`, bulkBody: b, querystring: { filter_path: 'errors,items.*.status,items.*.error' } }, { requestTimeout: 120_000 })
      .then((res) => {
        if ((res as { errors: boolean }).errors) throw new Error('raw bulk had item errors');
      });
    pending.add(p);
    void p.finally(() => pending.delete(p));
    return p;
  };
  const t0 = performance.now();
  for await (const line of rl) {
    body += `${line}\n`;
    if (++lines % 2 === 0 && lines / 2 - docs >= batchSize) {
      docs = lines / 2;
      void send(body);
      body = '';
      while (pending.size >= concurrency) await Promise.race(pending);
    }
  }
  if (body) void send(body);
  await Promise.all(pending);
  await es.indices.refresh({ index });
  const ms = performance.now() - t0;
  return { docs: lines / 2, ms };
}

/** (b) Runs `bintel ingest companies` in its own process, sampling its peak RSS. */
async function cliIngest(csvPath: string): Promise<{ docs: number; ms: number; peakRssMb: number; cpuS: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...args['node-flags'].split(' ').filter(Boolean), join(root, 'bin/bintel.js'), 'ingest', 'companies', csvPath, '--batch-size', String(batchSize), '--concurrency', String(concurrency)], {
    // No force-merge at the end (BINTEL_MERGE_SEGMENTS=0): the raw baseline loads without one, and
    // a merge (about a third of a 100k-row load's time) is Elasticsearch's work, measured apart below.
    env: { ...process.env, BINTEL_NAMESPACE: config.namespace, BINTEL_MERGE_SEGMENTS: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  let peakKb = 0;
  let cpuS = 0;
  const timer = setInterval(() => {
    cpuS = Math.max(cpuS, cpuSeconds(child.pid as number));
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) peakKb = Math.max(peakKb, Number(m[1]));
    } catch {
      /* exited */
    }
  }, 100);
  const code = await new Promise<number>((r) => child.on('exit', (c) => r(c ?? 1)));
  clearInterval(timer);
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`bintel ingest exited ${code}: ${out}`);
  const m = /indexed (\d+)/.exec(out);
  return { docs: Number(m?.[1] ?? 0), ms, peakRssMb: peakKb / 1024, cpuS };
}

/**
 * (c) `bintel ingest companies` with the merge a load ends with (BINTEL_MERGE_SEGMENTS default 1)
 * and BINTEL_VECTOR_BUILD=`build`: the time until the alias moves (rows served, from the CLI's
 * line), until the lookalike graph is written (exit), and Elasticsearch's CPU per document in
 * each part (from /proc: every process of the node, so another load on the same node counts too).
 */
async function cliReady(csvPath: string, build: string): Promise<string> {
  const pids = esPids();
  const cpu0 = cpuOf(pids);
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(root, 'bin/bintel.js'), 'ingest', 'companies', csvPath, '--batch-size', String(batchSize), '--concurrency', String(concurrency)], {
    env: { ...process.env, BINTEL_NAMESPACE: config.namespace, BINTEL_VECTOR_BUILD: build },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let peakKb = 0;
  const sampler = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) peakKb = Math.max(peakKb, Number(m[1]));
    } catch {
      /* exited */
    }
  }, 200);
  let servedAt = 0;
  let servedCpu = 0;
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d: Buffer) => {
    if (!servedAt && /rows served behind/.test(String(d))) {
      servedAt = performance.now();
      servedCpu = cpuOf(pids);
    }
  });
  const code = await new Promise<number>((r) => child.on('exit', (c) => r(c ?? 1)));
  clearInterval(sampler);
  const end = performance.now();
  const cpu = cpuOf(pids) - cpu0;
  if (code !== 0) throw new Error(`bintel ingest (BINTEL_VECTOR_BUILD=${build}) exited ${code}: ${out}`);
  const docs = Number(/indexed (\d+)/.exec(out)?.[1] ?? 0);
  if (!servedAt) {
    servedAt = end;
    servedCpu = cpu0 + cpu;
  }
  const live = (await liveIndex(es, config.namespace, 'companies')) as string;
  const seg = await segmentsOf(live);
  const us = (cpuS: number) => Math.round((cpuS * 1e6) / Math.max(docs, 1));
  const servedS = (servedAt - t0) / 1000;
  return `| ${build} | ${docs} | ${servedS.toFixed(0)} s (${Math.round(docs / servedS)} rows/s) | ${((end - t0) / 1000).toFixed(0)} s | ${us(servedCpu - cpu0)} | ${us(cpu0 + cpu - servedCpu)} | ${seg.segments} / ${seg.mb} MB | ${Math.round(peakKb / 1024)} MB |`;
}

/** Segments and store size of an index (primaries). */
async function segmentsOf(index: string): Promise<{ segments: number; mb: number }> {
  const st = await es.indices.stats({ index, metric: ['segments', 'store'] });
  const p = st.indices?.[index]?.primaries;
  return { segments: p?.segments?.count ?? 0, mb: Math.round((p?.store?.size_in_bytes ?? 0) / 1e6) };
}

/**
 * Fields of an entity that some query reads: filters (list, cf, eb), sorts, search and
 * autocomplete, joins, geo, CRM matching, lookups, the side, signals. Conservative: a field named
 * anywhere a query could touch it counts as read.
 */
function fieldsQueried(def: EntityDef): Set<string> {
  const used = new Set<string>(['id', 'signals', def.geo.state, def.geo.dma, def.crm.domain, ...def.naturalKey]);
  if (def.crm.ein) used.add(def.crm.ein);
  if (def.side) used.add(def.side.field);
  if (def.ownGeo) for (const f of Object.values(def.ownGeo.fields)) used.add(f);
  for (const f of def.filters) for (const x of f.fields) used.add(x);
  for (const j of def.joins) used.add(j.key);
  for (const c of Object.values(def.autocomplete.columns)) if (c.domain) used.add(c.domain);
  for (const f of def.fields) if (f.cf || f.blank || f.sortable || f.search !== undefined || f.autocomplete || f.type === 'name' || /linkedin|domain|website|ein/.test(f.name)) used.add(f.name);
  return used;
}

/** The generated mapping with neither an index nor doc values on fields no query reads (they are only returned, from `_source`). */
function leanMapping(def: EntityDef): { mappings: Record<string, unknown>; lean: string[] } {
  const m = esMappings(def) as { properties: Record<string, Record<string, unknown>> };
  const used = fieldsQueried(def);
  const lean: string[] = [];
  for (const f of def.fields) {
    const p = m.properties[f.name];
    if (used.has(f.name) || !p) continue;
    lean.push(f.name);
    m.properties[f.name] = p.type === 'text' ? { ...p, index: false } : { ...p, index: false, doc_values: false };
  }
  return { mappings: m as Record<string, unknown>, lean };
}

/** Elasticsearch's cost per document of one index layout: raw load, then the force-merge a load ends with. */
async function esCost(ndjson: string, label: string, indexSort: boolean, variant: 'lean' | 'flat-vector' | 'flat-knn' | null = null): Promise<string> {
  const index = `${aliasName(config.namespace, 'companies')}-vcost${indexSort ? 's' : 'u'}${variant ?? ''}`;
  await dropIndex(es, index).catch(() => {});
  const pids = esPids();
  const cpu0 = cpuOf(pids);
  if (variant) {
    let mappings: Record<string, unknown>;
    if (variant === 'lean') {
      const lean = leanMapping(companies);
      process.stderr.write(`lean layout: no index or doc values on ${lean.lean.join(', ')}\n`);
      mappings = lean.mappings;
    } else if (variant === 'flat-knn') {
      // The lookalike vector indexed flat (index_options flat: knn scores every candidate), as a load writes it before its alias moves.
      const m = esMappings(companies) as { properties: Record<string, Record<string, unknown>> };
      m.properties[LOOKALIKE_FIELD] = vectorMapping(companies, LOOKALIKE_FLAT);
      mappings = m as Record<string, unknown>;
    } else {
      // The lookalike vector stored without its HNSW graph (a knn query would then scan every candidate).
      const m = esMappings(companies) as { properties: Record<string, Record<string, unknown>> };
      const { index_options: _graph, similarity: _sim, ...vector } = m.properties[LOOKALIKE_FIELD];
      m.properties[LOOKALIKE_FIELD] = { ...vector, index: false };
      mappings = m as Record<string, unknown>;
    }
    await es.indices.create({ index, settings: { ...esSettings({ shards: 1, replicas: 0, indexSort }, companies), refresh_interval: '-1', 'translog.durability': 'async' } as Record<string, unknown>, mappings });
  }
  // The layouts without a variant carry the lookalike graph as it is built during a load (BINTEL_VECTOR_BUILD=during).
  const raw = await rawBulk(ndjson, index, { shards: 1, replicas: 0, indexSort, vectorBuild: 'during' }, !variant);
  const loadCpu = cpuOf(pids) - cpu0;
  const before = await segmentsOf(index);
  const cpu1 = cpuOf(pids);
  const t = performance.now();
  // Polled (a held request times out while the node's one merge slot serves another load's merge).
  await forceMerge(es, index, 1);
  const mergeS = (performance.now() - t) / 1000;
  const mergeCpu = cpuOf(pids) - cpu1;
  const after = await segmentsOf(index);
  await dropIndex(es, index);
  const us = (cpuS: number) => Math.round((cpuS * 1e6) / raw.docs);
  return `| ${label} | ${Math.round(raw.docs / (raw.ms / 1000))} | ${us(loadCpu)} | ${before.segments} / ${before.mb} MB | ${mergeS.toFixed(0)} s, ${us(mergeCpu)} µs/doc | ${after.segments} / ${after.mb} MB |`;
}

async function cleanup(es: Es): Promise<void> {
  for (const name of [...BEFORE_COMPANIES, 'companies' as const]) {
    const versions = await es.indices.get({ index: versionPattern(config.namespace, name) }).catch(() => ({}));
    const names = Object.keys(versions);
    if (names.length) await es.indices.delete({ index: names.join(',') });
  }
}

async function main(): Promise<void> {
  await ensureEs(config);
  const dir = await mkdtemp(join(tmpdir(), 'bintel-bench-'));
  try {
    await cleanup(es);
    const csvPath = await prepareData(dir);
    if (args.ready && args.keep) {
      // Time to ready only (the data kept for bench:lookalikes): no NDJSON, no raw baseline.
      const lines: string[] = [];
      for (const build of args.ready.split(',')) lines.push(await cliReady(csvPath, build));
      process.stdout.write(`\nTime to ready: bintel ingest companies with its merge (BINTEL_MERGE_SEGMENTS=${base.mergeSegments}), ${rows} rows\n\n| BINTEL_VECTOR_BUILD | rows | rows served after | lookalike graph ready after | ES CPU µs/doc until served | ES CPU µs/doc after | segments / size | CLI peak RSS |\n|---|---|---|---|---|---|---|---|\n${lines.join('\n')}\n`);
      return;
    }
    const ndjson = join(dir, 'companies.ndjson');
    const cpu0 = process.cpuUsage();
    const n = await writeNdjson(csvPath, ndjson);
    const transformCpu = process.cpuUsage(cpu0);
    // The transform alone (read, parse, validate, join, companions, serialize to a file), in this process.
    process.stdout.write(`transform CPU in-process: ${Math.round((transformCpu.user + transformCpu.system) / n)} µs per row\n`);
    process.stderr.write(`prepared ${n} documents (${((await stat(ndjson)).size / 1e6).toFixed(0)} MB NDJSON, ${((await stat(csvPath)).size / 1e6).toFixed(0)} MB CSV)\n`);

    const layouts = new Set(args.layouts.split(','));
    const costs: [string, string, boolean, 'lean' | 'flat-vector' | 'flat-knn' | null][] = [
      ['unsorted', 'unsorted, lookalike graph (hnsw m 8, ef_construction 32)', false, null],
      ['sorted', 'sorted on the default sort, lookalike graph', true, null],
      ['lean', 'sorted, lean (only queried fields indexed), lookalike graph', true, 'lean'],
      ['novector', 'unsorted, lookalike vector not indexed (index: false)', false, 'flat-vector'],
      ['flat', 'unsorted, lookalike vector index_options flat (as loaded before the alias moves)', false, 'flat-knn'],
    ];
    const costLines: string[] = [];
    if (!args['cli-only']) for (const [key, label, sorted, variant] of costs) if (layouts.has(key)) costLines.push(await esCost(ndjson, label, sorted, variant));
    if (costLines.length) process.stdout.write(`\nElasticsearch's cost per document (raw _bulk of the same ${n} documents, 1 shard):\n\n| layout | raw _bulk docs/s | ES CPU µs/doc (load) | segments / size after load | force-merge to 1 segment | segments / size after |\n|---|---|---|---|---|---|\n${costLines.join('\n')}\n`);
    if (args['es-cost-only']) return;
    if (args.ready) {
      const lines: string[] = [];
      for (const build of args.ready.split(',')) lines.push(await cliReady(csvPath, build));
      process.stdout.write(`\nTime to ready: bintel ingest companies with its merge (BINTEL_MERGE_SEGMENTS=${base.mergeSegments}), ${rows} rows\n\n| BINTEL_VECTOR_BUILD | rows | rows served after | lookalike graph ready after | ES CPU µs/doc until served | ES CPU µs/doc after | segments / size | CLI peak RSS |\n|---|---|---|---|---|---|---|---|\n${lines.join('\n')}\n`);
      if (args.keep) return;
    }
    const rawIndex = `${aliasName(config.namespace, 'companies')}-vraw`;
    const raw = await rawBulk(ndjson, rawIndex);
    await dropIndex(es, rawIndex);
    const cli = await cliIngest(csvPath);
    const live = await liveIndex(es, config.namespace, 'companies');
    const count = live ? (await es.count({ index: live })).count : 0;

    const rawRate = raw.docs / (raw.ms / 1000);
    const cliRate = cli.docs / (cli.ms / 1000);
    const result = {
      rows,
      batch_size: batchSize,
      concurrency,
      raw_bulk_docs_per_s: Math.round(rawRate),
      bintel_ingest_docs_per_s: Math.round(cliRate),
      ratio: Number((cliRate / rawRate).toFixed(3)),
      bintel_peak_rss_mb: Math.round(cli.peakRssMb),
      // The CLI's own CPU (sampled every 100 ms, so up to 0.1 s short), per row read.
      bintel_cpu_us_per_row: Math.round((cli.cpuS * 1e6) / Math.max(cli.docs, 1)),
      bintel_indexed: cli.docs,
      live_index_count: count,
    };
    process.stdout.write(`\n| rows | raw _bulk docs/s | bintel ingest docs/s | ratio | peak RSS | CLI CPU µs/row |\n|---|---|---|---|---|---|\n`);
    process.stdout.write(`| ${rows} | ${result.raw_bulk_docs_per_s} | ${result.bintel_ingest_docs_per_s} | ${result.ratio} | ${result.bintel_peak_rss_mb} MB | ${result.bintel_cpu_us_per_row} |\n\n`);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    if (args.keep) process.stderr.write(`kept: the loaded indices of namespace ${config.namespace} (npm run bench:lookalikes -- --namespace ${config.namespace}; delete them after)\n`);
    else await cleanup(es).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
