/**
 * The test runner behind `npm test` (`bintel test`): makes sure Elasticsearch and Redis are
 * up, gives the run a fresh namespace, runs every uvu file (test/**\/*.test.ts, sorted) in one
 * lane per Node runtime, removes what the run created in that namespace, and ends with the line
 * `N passed, N failed`. Exit code 1 on any failure, when no test ran, or when cleanup failed.
 *
 * Lanes run side by side, each with its own namespace (`<run>-n20`, `<run>-n24`) on the
 * one Elasticsearch and the one Redis. In a lane the pure files (`@test-kind pure`) run in one
 * process; every other file runs in a process of its own, in a namespace of its own under the
 * lane's (`<run>-n20-07`), `jobs` files at a time. A file that holds a lock (`@test-lock <name>`:
 * Elasticsearch nodes, a Redis Cluster) waits while any other file of the same lock runs, in any
 * lane, and its lane runs its next file meanwhile (test/runner/plan.ts).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, type Config } from '../core/config.ts';
import { ensureEs } from '../local/es-local.ts';
import { ensureRedis } from '../local/redis-local.ts';
import { cleanNamespace, footprint, type Footprint } from './runner/cleanup.ts';
import { planFiles, type FilePlan } from './runner/plan.ts';
import { laneName, resolveRuntimes, type Runtime } from './runner/runtimes.ts';
import { runSuite, type SuiteResult } from './runner/suite.ts';
import { AUDIT_ENV, auditSecrets } from './runner/secret-audit.ts';
import { changedDatasets, generateDatasets } from './helpers/datasets.ts';
import { TIMING_ENV, readLoads, timingReport, writeTimings, type FileTiming, type RunTimings } from './runner/timings.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TEST_DIR = join(ROOT, 'test');

type Log = (line: string) => void;

/** Options of one run. */
export interface RunOptions {
  /** Substrings of test file paths; empty runs every file. */
  filters: string[];
  /** The environment the test processes inherit (BINTEL_NAMESPACE is set for them). */
  env: NodeJS.ProcessEnv;
  /** Runtimes, one lane each: `current` or Node majors, comma-separated (default `current`). */
  runtimes?: string;
  /** Where the timing file is written (default BINTEL_TEST_TIMINGS, else test-timings.json). */
  timings?: string;
  /** Files run at a time in each lane (default BINTEL_TEST_JOBS, else 2). */
  jobs?: number;
  log?: Log;
}

/** Every `*.test.ts` under `dir`, as repository-relative paths with '/' separators, sorted. */
export async function findTestFiles(dir: string = TEST_DIR): Promise<string[]> {
  const found: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory() && e.name !== 'node_modules') found.push(...(await findTestFiles(path)));
    else if (e.isFile() && e.name.endsWith('.test.ts')) found.push(relative(ROOT, path).split(sep).join('/'));
  }
  return found.sort();
}

/** A URL without its password, for the log. */
function redacted(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.href;
}

/** The run's configuration: namespace BINTEL_TEST_NAMESPACE, or a fresh `bintel-test-<8 hex>`. */
function runConfig(env: NodeJS.ProcessEnv): Config {
  const given = env.BINTEL_TEST_NAMESPACE;
  try {
    return loadConfig({ ...env, BINTEL_NAMESPACE: given || `bintel-test-${randomBytes(4).toString('hex')}` });
  } catch (err) {
    // loadConfig names BINTEL_NAMESPACE; the user set BINTEL_TEST_NAMESPACE.
    if (given && err instanceof ConfigError) throw new ConfigError(`BINTEL_TEST_NAMESPACE: ${err.message}`);
    throw err;
  }
}

/** The environment of the test processes of a lane. */
function childEnv(env: NodeJS.ProcessEnv, namespace: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, BINTEL_NAMESPACE: namespace, LOG_LEVEL: env.LOG_LEVEL ?? 'silent' };
  // uvu colours only on a terminal and its stdout is our pipe; keep colours for humans.
  if (process.stdout.isTTY && env.NO_COLOR === undefined && env.FORCE_COLOR === undefined) out.FORCE_COLOR = '1';
  return out;
}

/** Named locks shared by the lanes of a run: one holder per name. */
class Locks {
  private readonly held = new Set<string>();
  private waiters: (() => void)[] = [];
  free(name: string | null): boolean {
    return name === null || !this.held.has(name);
  }
  /** Takes a free lock (check `free` in the same tick); returns its release. */
  take(name: string | null): () => void {
    if (name === null) return () => {};
    if (this.held.has(name)) throw new Error(`lock ${name} is held`);
    this.held.add(name);
    return () => {
      this.held.delete(name);
      const w = this.waiters;
      this.waiters = [];
      for (const wake of w) wake();
    };
  }
  /** Resolves when any lock is released. */
  released(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }
}

/** One lane: a runtime, its namespace, and what it ran. */
interface Lane {
  name: string;
  runtime: Runtime;
  namespace: string;
  env: NodeJS.ProcessEnv;
  timingDir: string;
  results: SuiteResult[];
  files: FileTiming[];
  ms: number;
}

/** What a lane runs: the batch of its pure files, then each other file in order; `seq` names its namespace. */
type Unit = { files: string[]; lock: string | null; seq: number };

function units(plans: FilePlan[]): Unit[] {
  const pure = plans.filter((p) => p.pure).map((p) => p.file);
  const all = [...(pure.length > 1 ? [{ files: pure, lock: null }] : pure.map((f) => ({ files: [f], lock: null }))), ...plans.filter((p) => !p.pure).map((p) => ({ files: [p.file], lock: p.lock }))];
  return all.map((u, seq) => ({ ...u, seq }));
}

const sec = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * The units, the longest first by the last run's timing file when there is one (so that a long
 * file does not start last and hold the run's end), else in their order.
 */
function longestFirst(todo: Unit[], timingFile: string): Unit[] {
  let last: RunTimings;
  try {
    last = JSON.parse(readFileSync(timingFile, 'utf8')) as RunTimings;
  } catch {
    return todo;
  }
  const ms = new Map<string, number>();
  for (const f of last.files ?? []) ms.set(f.file, Math.max(ms.get(f.file) ?? 0, f.ms));
  const of = (u: Unit): number => (u.files.length > 1 ? Infinity : ms.get(u.files[0]) ?? Infinity);
  return [...todo].sort((a, b) => of(b) - of(a) || a.seq - b.seq);
}

/** Runs a lane's units, `jobs` at a time; stops starting new ones once `stopped()` says so. */
async function runLane(lane: Lane, todo: Unit[], locks: Locks, ctx: { log: Log; stream: boolean; jobs: number; stopped: () => boolean }): Promise<void> {
  const started = performance.now();
  const queue = [...todo];
  const tag = ctx.stream ? '' : `[${lane.name}] `;
  const worker = async (): Promise<void> => {
    while (queue.length && !ctx.stopped()) {
      const i = queue.findIndex((u) => locks.free(u.lock));
      if (i < 0) {
        await locks.released();
        continue;
      }
      const [unit] = queue.splice(i, 1);
      await runUnit(unit, locks.take(unit.lock));
    }
  };
  const runUnit = async (unit: Unit, release: () => void): Promise<void> => {
    try {
      const label = unit.files.length === 1 ? unit.files[0] : `${unit.files.length} pure files`;
      if (ctx.stream) ctx.log(`\n# ${label}`);
      // A namespace of the file's own: it starts from nothing, whatever ran before or beside it.
      const env = { ...lane.env, BINTEL_NAMESPACE: `${lane.namespace}-${String(unit.seq).padStart(2, '0')}` };
      const r = await runSuite(unit.files.length === 1 ? unit.files[0] : unit.files, ROOT, env, { node: lane.runtime.node, stream: ctx.stream });
      if (!ctx.stream) ctx.log(`\n# ${tag}${label} (${sec(r.ms ?? 0)})\n${r.output.trimEnd()}`);
      const { output: _output, ...result } = r;
      lane.results.push({ ...result, file: `${tag}${result.file}` });
      lane.files.push({ lane: lane.name, file: result.file, ms: r.ms ?? 0, passed: r.passed, failed: r.failed, ...(r.parts ? { parts: r.parts } : {}) });
    } finally {
      release();
    }
  };
  await Promise.all(Array.from({ length: ctx.jobs }, worker));
  lane.ms = Math.round(performance.now() - started);
}

/** Removes what the run created; false (after saying why) when that did not fully work. */
async function cleanup(config: Config, before: Footprint, log: Log): Promise<boolean> {
  try {
    const r = await cleanNamespace(config, before);
    log(`\ncleanup of namespace ${config.namespace} and the namespaces under it: ${r.indices.length} index(es), ${r.keys.length} Redis key(s) removed`);
    if (!r.left.indices.size && !r.left.keys.size) return true;
    log(`cleanup left behind: ${[...r.left.indices, ...r.left.keys].slice(0, 20).join(', ')}`);
  } catch (err) {
    log(`\ncleanup of namespace ${config.namespace} failed: ${(err as Error).message}`);
  }
  return false;
}

/**
 * Every credential the run's tests issued or presented, looked for in every line the servers
 * of the run logged (test/runner/secret-audit.ts); counts as one test.
 */
function secretAudit(dir: string, log: Log): SuiteResult {
  const file = 'secrets absent from logs (whole run)';
  try {
    const r = auditSecrets(dir);
    log(`\n# ${file}: ${r.secrets} secret(s) issued or presented, ${r.lines} log line(s), ${r.leaks.length} holding a secret`);
    for (const l of r.leaks.slice(0, 10)) log(`  ${l.file}: ${l.line}`);
    const notes = r.leaks.length ? [`${r.leaks.length} log line(s) hold a secret`] : r.lines === 0 && r.secrets > 0 ? ['no server logged a line: the audit saw nothing'] : [];
    return { file, passed: notes.length ? 0 : 1, failed: notes.length ? 1 : 0, skipped: 0, notes };
  } catch (err) {
    return { file, passed: 0, failed: 1, skipped: 0, notes: [`audit failed: ${(err as Error).message}`] };
  }
}

/** The shared data sets are as they were loaded, at the end of every lane (counts as one test). */
async function datasetCheck(config: Config, lanes: string[], log: Log): Promise<SuiteResult> {
  const file = 'shared data sets unchanged (whole run)';
  try {
    const problems = await changedDatasets(config, lanes);
    log(`\n# ${file}: ${problems.length ? problems.join('; ') : 'yes'}`);
    return { file, passed: problems.length ? 0 : 1, failed: problems.length ? 1 : 0, skipped: 0, notes: problems };
  } catch (err) {
    return { file, passed: 0, failed: 1, skipped: 0, notes: [`check failed: ${(err as Error).message}`] };
  }
}

/** Per-file notes and the final tally; the last line is exactly `N passed, N failed`. */
function report(results: SuiteResult[], log: Log): { passed: number; failed: number } {
  const sum = (k: 'passed' | 'failed' | 'skipped'): number => results.reduce((s, r) => s + r[k], 0);
  log('');
  for (const r of results) {
    if (r.failed || r.notes.length) log(`${r.failed ? 'FAIL' : 'note'} ${r.file}: ${r.failed} failed${r.notes.map((n) => `; ${n}`).join('')}`);
  }
  if (sum('skipped')) log(`${sum('skipped')} skipped`);
  const tally = { passed: sum('passed'), failed: sum('failed') };
  log(`${tally.passed} passed, ${tally.failed} failed`);
  return tally;
}

/** Runs the test files matching `filters` (all when empty); resolves to the exit code. */
export async function runTests(opts: RunOptions): Promise<number> {
  const log = opts.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const started = performance.now();
  const config = runConfig(opts.env);
  const namespace = config.namespace;
  const all = await findTestFiles();
  const files = opts.filters.length ? all.filter((f) => opts.filters.some((x) => f.includes(x))) : all;
  if (!files.length) log(`no test file matches ${opts.filters.map((f) => JSON.stringify(f)).join(' or ')} (of ${all.length})`);
  const plans = await planFiles(ROOT, files);
  // The shared data sets' files (test/helpers/datasets.ts), generated once for every lane.
  const dataDir = await mkdtemp(join(tmpdir(), 'bintel-test-data-'));
  // Elasticsearch, Redis, the runtimes and the data sets' files are independent: made ready
  // side by side (the files only when a file that uses them runs).
  const [runtimes] = await Promise.all([
    resolveRuntimes(opts.runtimes ?? 'current'),
    ensureEs(config, log, opts.env),
    ensureRedis(config, log),
    plans.some((p) => p.datasets) ? generateDatasets(dataDir) : null,
  ]);
  const before = await footprint(config);
  const audit = await mkdtemp(join(tmpdir(), 'bintel-audit-'));
  const lanes: Lane[] = [];
  for (const runtime of runtimes) {
    const name = laneName(runtime);
    const ns = `${namespace}-n${runtime.version.replace(/^v/, '').split('.')[0]}`;
    const timingDir = await mkdtemp(join(tmpdir(), `bintel-timing-${name}-`));
    // Node 22+ keeps the bytecode of the modules it compiled (NODE_COMPILE_CACHE): the lane's
    // next process starts faster. Node 20 ignores it.
    const compileCache = join(dataDir, `compile-cache-${name}`);
    lanes.push({ name, runtime, namespace: ns, timingDir, env: { NODE_COMPILE_CACHE: compileCache, ...childEnv(opts.env, ns), [AUDIT_ENV]: audit, [TIMING_ENV]: timingDir, BINTEL_TEST_DATA_DIR: dataDir, BINTEL_TEST_LANE_NAMESPACE: ns }, results: [], files: [], ms: 0 });
  }
  const pure = plans.filter((p) => p.pure).length;
  const jobs = opts.jobs ?? (Number(opts.env.BINTEL_TEST_JOBS) || 2);
  if (!Number.isInteger(jobs) || jobs < 1) throw new ConfigError(`jobs: expected a whole number of at least 1, got ${jobs}`);
  log(`${files.length} test file(s) (${pure} pure), ${lanes.length} lane(s) of ${jobs} file(s) at a time: ${lanes.map((l) => `${l.name} ${l.runtime.version} in ${l.namespace}-*`).join(', ')}; Elasticsearch ${config.esUrl}, Redis ${redacted(config.redisUrl)}`);

  const timingFile = opts.timings ?? opts.env.BINTEL_TEST_TIMINGS ?? join(ROOT, 'test-timings.json');
  let interrupted = false;
  // The running files get the same SIGINT from the terminal; we only stop starting new ones,
  // so the cleanup below still runs.
  const onSigint = (): void => {
    interrupted = true;
  };
  process.on('SIGINT', onSigint);
  const locks = new Locks();
  const todo = longestFirst(units(plans), timingFile);
  const testsStarted = performance.now();
  try {
    await Promise.all(lanes.map((lane) => runLane(lane, todo, locks, { log, stream: lanes.length === 1 && jobs === 1, jobs, stopped: () => interrupted })));
  } finally {
    process.off('SIGINT', onSigint);
  }
  const testsMs = Math.round(performance.now() - testsStarted);

  const results = lanes.flatMap((l) => l.results);
  if (plans.some((p) => p.datasets)) results.push(await datasetCheck(config, lanes.map((l) => l.namespace), log));
  if (files.length) results.push(secretAudit(audit, log));
  await rm(audit, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
  const cleaned = await cleanup(config, before, log);
  const ran = results.length - (files.length ? 1 : 0);
  if (interrupted) log(`interrupted: ${todo.length * lanes.length - ran} file(s) not run`);

  const timings: RunTimings = {
    started: new Date(Date.now() - (performance.now() - started)).toISOString(),
    ms: testsMs,
    lanes: lanes.map((l) => ({ lane: l.name, node: l.runtime.node, version: l.runtime.version, namespace: l.namespace, ms: l.ms, passed: l.results.reduce((s, r) => s + r.passed, 0), failed: l.results.reduce((s, r) => s + r.failed, 0) })),
    files: lanes.flatMap((l) => l.files),
    loads: lanes.flatMap((l) => readLoads(l.timingDir).map((x) => ({ ...x, lane: l.name }))),
  };
  await Promise.all(lanes.map((l) => rm(l.timingDir, { recursive: true, force: true })));
  log('');
  for (const line of timingReport(timings)) log(line);
  try {
    await writeTimings(timingFile, timings);
    log(`timings of every file and load: ${relative(process.cwd(), timingFile) || timingFile}`);
  } catch (err) {
    log(`could not write the timing file ${timingFile}: ${(err as Error).message}`);
  }
  const { passed, failed } = report(results, log);
  return failed > 0 || passed === 0 || !cleaned || interrupted ? 1 : 0;
}
