/**
 * Form 5500 import benchmark: `npm run bench:form5500 -- --year 2023 --scale S [--seed N] [--variety real|default] [--from DIR] [--baseline N]`.
 *
 * `--variety real` (the default) generates the variety of real filings (docs/data.md, "Generated
 * data"); `--variety default` what the importer expects (the data of earlier runs). A table at the
 * end gives the wall time and peak RSS of each phase: generate (the child's own peak), import
 * (reading and collecting the files), build (resolving), load into Elasticsearch, and the plain
 * CSV ingest of as many companies as the import built (at most `--baseline`, 100,000 by default)
 * as the same-run baseline.
 *
 * Generates a year of the DOL datasets in their exact layout, zipped as the DOL publishes them
 * (scale 1: f_5500 240k, SF 740k, Schedule A about 330k, Part I about 300k rows), in a child
 * process; then runs `bintel import form5500` and the baseline's `bintel ingest companies` as
 * users run them (bin/bintel.js, each a process of its own, the import with the malloc setting
 * the CLI gives it: bin/malloc.js), into a namespace of its own. Each child's RSS and CPU are read
 * from /proc every 50 ms (VmRSS, and VmHWM for the peak between samples); the import's phases
 * come from its summary (read, resolve, load times) and its log lines (rows/s per dataset file).
 * Prints rows/s per file, documents/s per resource, the total, peak RSS, and CPU per input row
 * of bintel and of Elasticsearch beside the plain ingest's CPU per company row. Indices are
 * deleted afterwards.
 */
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../core/config.ts';
import { createEs } from '../core/adapters/es.ts';
import { versionPattern } from '../core/names.ts';
import { ENTITY_NAMES } from '../mappings/index.ts';
import { generate } from '../ingest/generate/index.ts';
import { FORM5500_VARIETIES, type Form5500Variety } from '../ingest/form5500/generate/index.ts';
import { ensureEs } from '../local/es-local.ts';
import { tunedProcess } from '../bin/malloc.js';
import { cpuOf, cpuSeconds, esPids } from './proc.ts';

const { values: args } = parseArgs({ options: { year: { type: 'string', default: '2023' }, scale: { type: 'string', default: '0.05' }, seed: { type: 'string', default: '42' }, variety: { type: 'string', default: 'real' }, from: { type: 'string' }, baseline: { type: 'string', default: '100000' } } });
if (!FORM5500_VARIETIES.includes(args.variety as Form5500Variety)) throw new Error(`--variety must be one of ${FORM5500_VARIETIES.join(', ')}, got ${args.variety}`);
const base = loadConfig();
const namespace = `${base.namespace}-bench-f5500`;
const config = loadConfig({ ...process.env, BINTEL_NAMESPACE: namespace });
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** A field of /proc/PID/status in MB (VmRSS, VmHWM); NaN once the process is gone. */
function statusMb(pid: number, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

interface Sample { t: number; rss: number; hwm: number }

interface Run {
  code: number | null;
  out: string;
  /** Log lines (stderr) with the time each came. */
  lines: { t: number; line: string }[];
  samples: Sample[];
  start: number;
  end: number;
  /** CPU seconds of the child, and of Elasticsearch, during the run. */
  cpu: number;
  esCpu: number;
}

/**
 * Runs `bintel ARGS` as users run it (bin/bintel.js, its own process), with the process settings the
 * CLI gives the import (bin/malloc.js: set here, so the measured process is the one doing the work on every Node),
 * sampling its RSS and CPU from /proc every 50 ms; its log lines go on to stderr, timed.
 */
function bintel(cliArgs: string[]): Promise<Run> {
  const pids = esPids();
  const es0 = cpuOf(pids);
  const start = Date.now();
  // The import's process settings as the CLI gives them (bin/malloc.js), set here so that the measured process is the one doing the work on every Node.
  const tuned = tunedProcess({ ...process.env, BINTEL_NAMESPACE: namespace });
  const child = spawn(process.execPath, [...tuned.execArgv, 'bin/bintel.js', ...cliArgs], { env: tuned.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid as number;
  const samples: Sample[] = [];
  let cpu = 0;
  const sample = () => {
    const rss = statusMb(pid, 'VmRSS');
    const hwm = statusMb(pid, 'VmHWM');
    if (Number.isNaN(rss)) return;
    samples.push({ t: Date.now(), rss, hwm });
    cpu = cpuSeconds(pid) || cpu;
  };
  const timer = setInterval(sample, 50);
  let out = '';
  let pending = '';
  const lines: Run['lines'] = [];
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => {
    sample();
    pending += d;
    const parts = pending.split(/\r|\n/);
    pending = parts.pop() ?? '';
    for (const line of parts.filter(Boolean)) {
      lines.push({ t: Date.now(), line });
      if (!/^import form5500 \S+ \d|^\s*\d+(\.\d+)?%/.test(line)) process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
    }
  });
  return new Promise((done) => {
    child.on('exit', (code) => {
      clearInterval(timer);
      done({ code, out, lines, samples, start, end: Date.now(), cpu, esCpu: cpuOf(pids) - es0 });
    });
  });
}

/** Peak RSS of a run in [a, b]: the highest sample, or the high-water mark when it rose during the window. */
function peakIn(run: Run, a: number, b: number): number {
  let peak = 0;
  let before = 0;
  let after = Number.NaN;
  for (const s of run.samples) {
    if (s.t <= a) before = s.hwm;
    if (s.t >= a && s.t <= b) peak = Math.max(peak, s.rss);
    if (s.t >= b && Number.isNaN(after)) after = s.hwm;
  }
  if (Number.isNaN(after)) after = run.samples.at(-1)?.hwm ?? 0;
  return after > before ? Math.max(peak, after) : peak;
}

function need(run: Run, what: string): void {
  if (run.code !== 0) throw new Error(`${what} exited ${run.code}:\n${run.out}\n${run.lines.slice(-20).map((l) => l.line).join('\n')}`);
}

async function cleanup(): Promise<void> {
  const es = createEs(config);
  for (const name of ENTITY_NAMES) {
    const names = Object.keys(await es.indices.get({ index: versionPattern(config.namespace, name) }).catch(() => ({})));
    if (names.length) await es.indices.delete({ index: names.join(',') });
  }
  await es.close();
}

const num = (s: string) => Number(s.replace(/,/g, ''));

async function main(): Promise<void> {
  await ensureEs(config);
  const dir = await mkdtemp(join(tmpdir(), 'bintel-bench-f5500-'));
  try {
    const year = Number(args.year);
    // `--from DIR` imports a directory generated before (the generate row then says so).
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

    const imp = await bintel(['import', 'form5500', dol, '--errors', join(dir, 'import')]);
    need(imp, 'bintel import form5500');
    // From the import's log lines: "read F_5500 2023: 322,574 rows, ..., 7.6 s, 42,344 rows/s  FILE".
    const files = imp.lines.flatMap(({ line }) => {
      const m = /^read (\S+) (\d{4}): ([\d,]+) rows.*?, ([\d.]+) s, ([\d,]+) rows\/s/.exec(line);
      return m ? [{ dataset: m[1], year: m[2], rows: num(m[3]), secs: Number(m[4]) }] : [];
    });
    // From its summary: "read 4 files in 43.6 s", "resolved in 18.4 s", "companies: read N = indexed N + rejected 0 in 292.1 s; ...", "loaded and switched in 1117.5 s".
    const secsOf = (re: RegExp) => Number(re.exec(imp.out)?.[1] ?? Number.NaN);
    const readSecs = secsOf(/^read \d+ files in ([\d.]+) s/m);
    const buildSecs = secsOf(/^resolved in ([\d.]+) s/m);
    const loadSecs = secsOf(/^loaded and switched in ([\d.]+) s/m);
    const loads = [...imp.out.matchAll(/^([a-z-]+): read \d+ = indexed (\d+) \+ rejected \d+ in ([\d.]+) s/gm)].map((m) => ({ entity: m[1], indexed: Number(m[2]), secs: Number(m[3]) }));
    const inputRows = files.reduce((n, f) => n + f.rows, 0);
    const impSecs = (imp.end - imp.start) / 1000;
    process.stdout.write(`\n| dataset | rows | rows/s (read) |\n|---|---|---|\n`);
    for (const f of files) process.stdout.write(`| ${f.dataset} ${f.year} | ${fmt(f.rows)} | ${fmt(f.rows / Math.max(f.secs, 0.001))} |\n`);
    process.stdout.write(`\n| resource | docs | documents/s (load) |\n|---|---|---|\n`);
    for (const l of loads) process.stdout.write(`| ${l.entity} | ${fmt(l.indexed)} | ${fmt(l.indexed / Math.max(l.secs, 0.001))} |\n`);
    const importPeak = Math.max(...imp.samples.map((x) => x.hwm));
    process.stdout.write(`\nimport total ${impSecs.toFixed(1)} s (read ${readSecs.toFixed(1)} s, resolve ${buildSecs.toFixed(1)} s, load ${loadSecs.toFixed(1)} s); peak RSS ${fmt(importPeak)} MB (the bintel process)\n`);
    const importUs = (imp.cpu * 1e6) / inputRows;
    process.stdout.write(`import CPU: ${importUs.toFixed(0)} µs per input row in bintel, ${((imp.esCpu * 1e6) / inputRows).toFixed(0)} µs in Elasticsearch\n`);
    // The import logs the parents it joined as its loads end, just before the one switch of the four aliases.
    const served = imp.lines.find(({ line }) => /^joined [\d,]+ parents/.test(line));
    if (served) process.stdout.write(`served (the four aliases switched) ${((served.t - imp.start) / 60000).toFixed(1)} min after the import started; the lookalike graphs took the rest\n`);

    // The plain CSV ingest of as many companies as the import built (at most --baseline: at scale 1 the plain ingest of all 950,000 took longer than the import), run the same way.
    const companies = Math.max(1, Math.min(Number(args.baseline), loads.find((l) => l.entity === 'companies')?.indexed ?? 1000));
    const csv = await generate({ out: join(dir, 'csv'), companies, personnel: 0, brokerOffices: 200, brokers: 50, seed: 7 });
    for (const r of ['brokers', 'broker-offices'] as const) need(await bintel(['ingest', r, csv.files[r], '--errors', join(dir, `${r}.err`)]), `bintel ingest ${r}`);
    const plain = await bintel(['ingest', 'companies', csv.files.companies, '--errors', join(dir, 'c.err')]);
    need(plain, 'bintel ingest companies');
    const plainSecs = (plain.end - plain.start) / 1000;
    const plainUs = (plain.cpu * 1e6) / companies;
    process.stdout.write(`plain CSV ingest of ${fmt(companies)} companies: ${plainUs.toFixed(0)} µs per row in bintel, ${((plain.esCpu * 1e6) / companies).toFixed(0)} µs in Elasticsearch; import/plain CPU per row ${(importUs / plainUs).toFixed(2)}\n`);
    // Documents per second of the import's loads (each resource's own loading, before the switch) against the plain ingest's rows per second.
    const loaded = loads.reduce((n, l) => n + l.indexed, 0);
    const loadRate = loaded / Math.max(loads.reduce((n, l) => n + l.secs, 0), 0.001);
    const plainRate = companies / Math.max(plainSecs, 0.001);
    process.stdout.write(`load ${fmt(loadRate)} documents/s (${fmt(loaded)} documents), plain CSV ingest ${fmt(plainRate)} rows/s: ratio ${(loadRate / plainRate).toFixed(2)}\n`);

    // Phases: the import reads, then builds, then loads the resources one after another and switches them together.
    const buildStart = imp.end - loadSecs * 1000 - buildSecs * 1000;
    const loadStart = imp.end - loadSecs * 1000;
    const phases: [string, number, number][] = [
      ['import (read and collect, broker lines resolved)', imp.start, buildStart], ['build (resolve)', buildStart, loadStart], ['load into Elasticsearch', loadStart, imp.end],
    ];
    process.stdout.write(`\n| phase | time (s) | peak RSS (MB) |\n|---|---|---|\n| generate (variety ${args.variety}, child process) | ${args.from ? 'generated before' : genSecs.toFixed(1)} | ${args.from ? '' : fmt(genRss)} |\n`);
    // Within the load: each resource's own loading, one after another (parents first), then the switch and the lookalike graphs.
    let at = loadStart;
    for (const l of loads) {
      phases.push([`  load ${l.entity}`, at, at + l.secs * 1000]);
      at += l.secs * 1000;
    }
    phases.push(['  switch and lookalike graphs', at, imp.end]);
    for (const [name, a, b] of phases) process.stdout.write(`| ${name} | ${((b - a) / 1000).toFixed(1)} | ${fmt(peakIn(imp, a, b))} |\n`);
    process.stdout.write(`| import in all | ${impSecs.toFixed(1)} (${(impSecs / 60).toFixed(1)} min) | ${fmt(importPeak)} |\n`);
    process.stdout.write(`| baseline: plain CSV ingest of ${fmt(companies)} companies (same run) | ${plainSecs.toFixed(1)} | ${fmt(Math.max(...plain.samples.map((x) => x.hwm)))} |\n`);
  } finally {
    await cleanup().catch((err) => process.stderr.write(`cleanup: ${(err as Error).message}\n`));
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
