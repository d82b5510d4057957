/**
 * Form 5500 import benchmark: `npm run bench:form5500 -- --year 2023 --scale S [--seed N] [--variety real|default] [--from DIR] [--baseline N]`.
 *
 * `--variety real` (the default) generates the variety of real filings (docs/data.md, "Generated
 * data"); `--variety default` what the importer expects (the data of earlier runs). A table at the
 * end gives the wall time and peak RSS of each phase: generate (the child's own peak), import
 * (reading and collecting the files), build (resolving), load into Elasticsearch, and the plain
 * CSV ingest of as many companies as the import built (at most `--baseline`, 100,000 by default) as the same-run baseline. RSS is sampled every 50 ms and at each
 * log line; a phase's peak is its highest sample, or the process's maximum RSS when that rose
 * during the phase (the build is synchronous: no sample runs inside it).
 *
 * Generates a year of the DOL datasets in their exact layout, zipped as the DOL publishes them
 * (scale 1: f_5500 240k, SF 740k, Schedule A about 330k, Part I about 300k rows), in a child
 * process so that this one's peak RSS is the import's, imports it in this process with
 * `importForm5500` into a namespace of its own, and prints rows/s per dataset file,
 * read/resolve/load times, the total, peak RSS, and CPU per input row of this process
 * and of Elasticsearch (from /proc) beside the plain CSV ingest's CPU per company row (the
 * same number of generated companies loaded with `ingestFile`). Indices are deleted afterwards.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../core/config.ts';
import { createEs } from '../core/adapters/es.ts';
import { versionPattern } from '../core/names.ts';
import { ENTITY_NAMES } from '../mappings/index.ts';
import { generate } from '../ingest/generate/index.ts';
import { execFileSync } from 'node:child_process';
import { FORM5500_VARIETIES, type Form5500Variety } from '../ingest/form5500/generate/index.ts';
import { importForm5500 } from '../ingest/form5500/import.ts';
import { ingestFile } from '../ingest/run.ts';
import { ensureEs } from '../local/es-local.ts';
import { cpuOf, esPids } from './proc.ts';

const { values: args } = parseArgs({ options: { year: { type: 'string', default: '2023' }, scale: { type: 'string', default: '0.05' }, seed: { type: 'string', default: '42' }, variety: { type: 'string', default: 'real' }, from: { type: 'string' }, baseline: { type: 'string', default: '100000' } } });
if (!FORM5500_VARIETIES.includes(args.variety as Form5500Variety)) throw new Error(`--variety must be one of ${FORM5500_VARIETIES.join(', ')}, got ${args.variety}`);
const base = loadConfig();
const config = loadConfig({ ...process.env, BINTEL_NAMESPACE: `${base.namespace}-bench-f5500` });
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Node CPU seconds of this process and Elasticsearch's, and wall seconds, spent in `fn`. */
async function measure<T>(fn: () => Promise<T>): Promise<{ result: T; cpu: number; esCpu: number; secs: number }> {
  const pids = esPids();
  const [c0, e0, t0] = [process.cpuUsage(), cpuOf(pids), Date.now()];
  const result = await fn();
  const c = process.cpuUsage(c0);
  return { result, cpu: (c.user + c.system) / 1e6, esCpu: cpuOf(pids) - e0, secs: (Date.now() - t0) / 1000 };
}

/** RSS samples (ms since epoch, RSS and maximum RSS so far in MB) for per-phase peaks. */
const samples: { t: number; rss: number; max: number }[] = [];
const sample = () => samples.push({ t: Date.now(), rss: process.memoryUsage.rss() / 2 ** 20, max: process.resourceUsage().maxRSS / 1024 });

/** Peak RSS in [a, b]: the highest sample, or the maximum RSS when it rose during the window. */
function peakIn(a: number, b: number): number {
  let peak = 0;
  let before = 0;
  let after = Number.NaN;
  for (const s of samples) {
    if (s.t <= a) before = s.max;
    if (s.t >= a && s.t <= b) peak = Math.max(peak, s.rss);
    if (s.t >= b && Number.isNaN(after)) after = s.max;
  }
  return !Number.isNaN(after) && after > before ? Math.max(peak, after) : peak;
}

async function cleanup(): Promise<void> {
  const es = createEs(config);
  for (const name of ENTITY_NAMES) {
    const names = Object.keys(await es.indices.get({ index: versionPattern(config.namespace, name) }).catch(() => ({})));
    if (names.length) await es.indices.delete({ index: names.join(',') });
  }
  await es.close();
}

async function main(): Promise<void> {
  await ensureEs(config);
  const dir = await mkdtemp(join(tmpdir(), 'bintel-bench-f5500-'));
  try {
    const year = Number(args.year);
    // Generated in a child process, so that this process's peak RSS is the import's; `--from DIR`
    // imports a directory generated before (the generate row then says so).
    const dol = args.from ?? join(dir, 'dol');
    let genSecs = Number.NaN;
    let genRss = Number.NaN;
    if (!args.from) {
      const genStart = Date.now();
      const genOut = execFileSync(process.execPath, ['bin/bintel.js', 'generate', '--layout', 'form5500', '--year', String(year), '--scale', args.scale, '--seed', args.seed, '--variety', args.variety, '--zip', '--out', dol], { stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' });
      genSecs = (Date.now() - genStart) / 1000;
      genRss = Number(/peak RSS (\d+) MB/.exec(genOut)?.[1] ?? Number.NaN);
      process.stdout.write(`generated (variety ${args.variety}) in ${genSecs.toFixed(1)} s (a child process, peak RSS ${fmt(genRss)} MB)\n`);
    } else process.stdout.write(`importing ${dol} (generated before: --scale, --seed and --variety are its own)\n`);
    const sampler = setInterval(sample, 50);
    sampler.unref();
    sample();
    // The import's own lines (one per file read, the resolve summary) go to stderr as they happen.
    const impStart = Date.now();
    const imp = await measure(() => importForm5500(config, [dol], { progress: null, log: (l) => (sample(), process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${l}\n`)), errors: join(dir, 'import') }));
    sample();
    const impEnd = Date.now();
    const s = imp.result;
    const inputRows = s.files.reduce((n, f) => n + f.rows, 0);
    process.stdout.write(`\n| dataset | rows | rows/s (read) |\n|---|---|---|\n`);
    for (const f of s.files) process.stdout.write(`| ${f.dataset} ${f.year} | ${fmt(f.rows)} | ${fmt(f.rows / Math.max(f.ms / 1000, 0.001))} |\n`);
    process.stdout.write(`\n| resource | docs | rows/s (load) |\n|---|---|---|\n`);
    for (const l of s.loads) process.stdout.write(`| ${l.entity} | ${fmt(l.indexed)} | ${fmt(l.indexed / Math.max(l.stageMs / 1000, 0.001))} |\n`);
    const loadSecs = s.loadMs / 1000;
    process.stdout.write(`\nimport total ${imp.secs.toFixed(1)} s (read ${(s.readMs / 1000).toFixed(1)} s, resolve ${(s.buildMs / 1000).toFixed(1)} s, load ${loadSecs.toFixed(1)} s); peak RSS ${fmt(process.resourceUsage().maxRSS / 1024)} MB\n`);
    const importUs = (imp.cpu * 1e6) / inputRows;
    process.stdout.write(`import CPU: ${importUs.toFixed(0)} µs per input row in bintel, ${((imp.esCpu * 1e6) / inputRows).toFixed(0)} µs in Elasticsearch\n`);

    // The plain CSV ingest of as many companies as the import built, for the CPU ratio.
    // As many as the import built, at most --baseline (100,000 by default: at scale 1 the plain ingest of all 950,000 took longer than the import).
    const companies = Math.max(1, Math.min(Number(args.baseline), s.loads.find((l) => l.entity === 'companies')?.indexed ?? 1000));
    const csv = await generate({ out: join(dir, 'csv'), companies, personnel: 0, brokerOffices: 200, brokers: 50, seed: 7 });
    await ingestFile(config, 'brokers', csv.files.brokers, { progress: null, errors: join(dir, 'b.err') });
    await ingestFile(config, 'broker-offices', csv.files['broker-offices'], { progress: null, errors: join(dir, 'o.err') });
    sample();
    const plainStart = Date.now();
    const plain = await measure(() => ingestFile(config, 'companies', csv.files.companies, { progress: null, errors: join(dir, 'c.err') }));
    sample();
    const plainEnd = Date.now();
    clearInterval(sampler);
    const plainUs = (plain.cpu * 1e6) / companies;
    process.stdout.write(`plain CSV ingest of ${fmt(companies)} companies: ${plainUs.toFixed(0)} µs per row in bintel, ${((plain.esCpu * 1e6) / companies).toFixed(0)} µs in Elasticsearch; import/plain CPU per row ${(importUs / plainUs).toFixed(2)}\n`);
    // Documents per second of the import's loads (each resource's own loading, before the switch) against the plain ingest's rows per second.
    const loaded = s.loads.reduce((n, l) => n + l.indexed, 0);
    const loadRate = loaded / Math.max(s.loads.reduce((n, l) => n + l.stageMs, 0) / 1000, 0.001);
    const plainRate = companies / Math.max(plain.secs, 0.001);
    process.stdout.write(`load ${fmt(loadRate)} documents/s (${fmt(loaded)} documents), plain CSV ingest ${fmt(plainRate)} rows/s: ratio ${(loadRate / plainRate).toFixed(2)}\n`);

    // Phases: the import reads, then builds, then loads the resources one after another and switches them together.
    const loadStart = impEnd - loadSecs * 1000;
    const buildStart = loadStart - s.buildMs;
    const phases: [string, number, number][] = [
      ['import (read and collect)', impStart, buildStart], ['build (resolve)', buildStart, loadStart], ['load into Elasticsearch', loadStart, impEnd],
    ];
    process.stdout.write(`\n| phase | time (s) | peak RSS (MB) |\n|---|---|---|\n| generate (variety ${args.variety}, child process) | ${args.from ? 'generated before' : genSecs.toFixed(1)} | ${args.from ? '' : fmt(genRss)} |\n`);
    for (const [name, a, b] of phases) process.stdout.write(`| ${name} | ${((b - a) / 1000).toFixed(1)} | ${fmt(peakIn(a, b))} |\n`);
    process.stdout.write(`| baseline: plain CSV ingest of ${fmt(companies)} companies (same run) | ${((plainEnd - plainStart) / 1000).toFixed(1)} | ${fmt(peakIn(plainStart, plainEnd))} |\n`);
  } finally {
    await cleanup().catch((err) => process.stderr.write(`cleanup: ${(err as Error).message}\n`));
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
