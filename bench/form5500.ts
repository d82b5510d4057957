/**
 * Form 5500 import benchmark: `npm run bench:form5500 -- --year 2023 --scale S [--seed N]`.
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
import { importForm5500 } from '../ingest/form5500/import.ts';
import { ingestFile } from '../ingest/run.ts';
import { ensureEs } from '../local/es-local.ts';
import { cpuOf, esPids } from './proc.ts';

const { values: args } = parseArgs({ options: { year: { type: 'string', default: '2023' }, scale: { type: 'string', default: '0.05' }, seed: { type: 'string', default: '42' } } });
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
    // Generated in a child process, so that this process's peak RSS is the import's.
    const genStart = Date.now();
    execFileSync(process.execPath, ['bin/bintel.js', 'generate', '--layout', 'form5500', '--year', String(year), '--scale', args.scale, '--seed', args.seed, '--zip', '--out', join(dir, 'dol')], { stdio: 'ignore' });
    process.stdout.write(`generated in ${((Date.now() - genStart) / 1000).toFixed(1)} s (a child process)\n`);
    // The import's own lines (one per file read, the resolve summary) go to stderr as they happen.
    const imp = await measure(() => importForm5500(config, [join(dir, 'dol')], { progress: null, log: (l) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${l}\n`), errors: join(dir, 'import') }));
    const s = imp.result;
    const inputRows = s.files.reduce((n, f) => n + f.rows, 0);
    process.stdout.write(`\n| dataset | rows | rows/s (read) |\n|---|---|---|\n`);
    for (const f of s.files) process.stdout.write(`| ${f.dataset} ${f.year} | ${fmt(f.rows)} | ${fmt(f.rows / Math.max(f.ms / 1000, 0.001))} |\n`);
    process.stdout.write(`\n| resource | docs | rows/s (load) |\n|---|---|---|\n`);
    for (const l of s.loads) process.stdout.write(`| ${l.entity} | ${fmt(l.indexed)} | ${fmt(l.indexed / Math.max(l.elapsedMs / 1000, 0.001))} |\n`);
    const loadSecs = s.loads.reduce((n, l) => n + l.elapsedMs, 0) / 1000;
    process.stdout.write(`\nimport total ${imp.secs.toFixed(1)} s (read ${(s.readMs / 1000).toFixed(1)} s, resolve ${(s.buildMs / 1000).toFixed(1)} s, load ${loadSecs.toFixed(1)} s); peak RSS ${fmt(process.resourceUsage().maxRSS / 1024)} MB\n`);
    const importUs = (imp.cpu * 1e6) / inputRows;
    process.stdout.write(`import CPU: ${importUs.toFixed(0)} µs per input row in bintel, ${((imp.esCpu * 1e6) / inputRows).toFixed(0)} µs in Elasticsearch\n`);

    // The plain CSV ingest of as many companies as the import built, for the CPU ratio.
    const companies = s.loads.find((l) => l.entity === 'companies')?.indexed ?? 1000;
    const csv = await generate({ out: join(dir, 'csv'), companies, personnel: 0, brokerOffices: 200, brokers: 50, seed: 7 });
    await ingestFile(config, 'brokers', csv.files.brokers, { progress: null, errors: join(dir, 'b.err') });
    await ingestFile(config, 'broker-offices', csv.files['broker-offices'], { progress: null, errors: join(dir, 'o.err') });
    const plain = await measure(() => ingestFile(config, 'companies', csv.files.companies, { progress: null, errors: join(dir, 'c.err') }));
    const plainUs = (plain.cpu * 1e6) / companies;
    process.stdout.write(`plain CSV ingest of ${fmt(companies)} companies: ${plainUs.toFixed(0)} µs per row in bintel, ${((plain.esCpu * 1e6) / companies).toFixed(0)} µs in Elasticsearch; import/plain CPU per row ${(importUs / plainUs).toFixed(2)}\n`);
  } finally {
    await cleanup().catch((err) => process.stderr.write(`cleanup: ${(err as Error).message}\n`));
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
