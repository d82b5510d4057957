/**
 * Where a run's time went: wall time per file and per lane (from the runner), and per data load
 * (each test process appends one line per load to its lane's timing directory,
 * BINTEL_TEST_TIMING_DIR). The runner prints the ten slowest files and loads at the end of every
 * run and writes everything to a JSON file (test-timings.json, or BINTEL_TEST_TIMINGS).
 */
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const TIMING_ENV = 'BINTEL_TEST_TIMING_DIR';

/** One data load of a test process. */
export interface LoadTiming {
  /** The test file (or batch) that loaded it. */
  file: string;
  /** What was loaded: `generated companies=1500 ... seed=5`, `fixtures`, `dataset standard`. */
  what: string;
  /** `loaded` (built and loaded), `reused` (a shared data set already there). */
  how: 'loaded' | 'reused';
  ms: number;
}

/** Records one load (a no-op outside the runner). */
export function recordLoad(what: string, how: LoadTiming['how'], ms: number): void {
  const dir = process.env[TIMING_ENV];
  if (!dir) return;
  const line: LoadTiming = { file: process.env.BINTEL_TEST_FILE ?? process.argv[1] ?? '?', what, how, ms: Math.round(ms) };
  appendFileSync(join(dir, `loads-${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
}

/** Every load recorded in `dir`. */
export function readLoads(dir: string): LoadTiming[] {
  const out: LoadTiming[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.startsWith('loads-')) continue;
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) if (line) out.push(JSON.parse(line) as LoadTiming);
  }
  return out;
}

/** One file's (or batch's) time in one lane. */
export interface FileTiming {
  lane: string;
  file: string;
  ms: number;
  passed: number;
  failed: number;
  /** Inside a batch of pure files: each file's time. */
  parts?: { file: string; ms: number }[];
}

/** One lane's summary. */
export interface LaneTiming {
  lane: string;
  node: string;
  version: string;
  namespace: string;
  ms: number;
  passed: number;
  failed: number;
}

/** The whole run, as written to the timing file. */
export interface RunTimings {
  started: string;
  ms: number;
  lanes: LaneTiming[];
  files: FileTiming[];
  loads: (LoadTiming & { lane: string })[];
}

const sec = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The lines printed at the end of a run: per lane, the ten slowest files and loads. */
export function timingReport(t: RunTimings, top = 10): string[] {
  const lines = [`time: ${sec(t.ms)} in all; ${t.lanes.map((l) => `${l.lane} (${l.version}) ${sec(l.ms)}`).join(', ')}`];
  // A batch of pure files shows as its files, each with its own time inside the batch.
  const each = t.files.flatMap((f) => f.parts?.map((p) => ({ lane: f.lane, file: `${p.file} (in the pure batch)`, ms: p.ms })) ?? [f]);
  const files = each.sort((a, b) => b.ms - a.ms).slice(0, top);
  lines.push(`the ${files.length} slowest files:`);
  for (const f of files) lines.push(`  ${sec(f.ms).padStart(8)}  ${f.lane.padEnd(7)} ${f.file}`);
  const loads = [...t.loads].sort((a, b) => b.ms - a.ms).slice(0, top);
  if (loads.length) {
    const total = t.loads.reduce((s, l) => s + l.ms, 0);
    lines.push(`the ${loads.length} slowest of ${t.loads.length} data loads (${sec(total)} in all):`);
    for (const l of loads) lines.push(`  ${sec(l.ms).padStart(8)}  ${l.lane.padEnd(7)} ${l.how} ${l.what} (${l.file})`);
  }
  return lines;
}

/** Writes the timing file. */
export async function writeTimings(path: string, t: RunTimings): Promise<void> {
  await writeFile(path, `${JSON.stringify(t, null, 2)}\n`);
}
