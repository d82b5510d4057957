/**
 * The test runner behind `npm test` (`bintel test`): makes sure Elasticsearch and Redis are
 * up, gives the run a fresh namespace, runs every uvu file (test/**\/*.test.ts, sorted) in its
 * own process, removes what the run created in that namespace, and ends with the line
 * `N passed, N failed`. Exit code 1 on any failure, when no test ran, or when cleanup failed.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, type Config } from '../core/config.ts';
import { ensureEs } from '../local/es-local.ts';
import { ensureRedis } from '../local/redis-local.ts';
import { cleanNamespace, footprint, type Footprint } from './runner/cleanup.ts';
import { runSuite, type SuiteResult } from './runner/suite.ts';
import { AUDIT_ENV, auditSecrets } from './runner/secret-audit.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TEST_DIR = join(ROOT, 'test');

type Log = (line: string) => void;

/** Options of one run. */
export interface RunOptions {
  /** Substrings of test file paths; empty runs every file. */
  filters: string[];
  /** The environment the test processes inherit (BINTEL_NAMESPACE is set for them). */
  env: NodeJS.ProcessEnv;
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

/** The environment of the test processes. */
function childEnv(env: NodeJS.ProcessEnv, namespace: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, BINTEL_NAMESPACE: namespace, LOG_LEVEL: env.LOG_LEVEL ?? 'silent' };
  // uvu colours only on a terminal and its stdout is our pipe; keep colours for humans.
  if (process.stdout.isTTY && env.NO_COLOR === undefined && env.FORCE_COLOR === undefined) out.FORCE_COLOR = '1';
  return out;
}

/** Runs the files one after another; stops early (after the current file) on Ctrl-C. */
async function runFiles(files: string[], env: NodeJS.ProcessEnv, log: Log): Promise<{ results: SuiteResult[]; interrupted: boolean }> {
  let interrupted = false;
  // The current file gets the same SIGINT from the terminal; we only stop starting new ones,
  // so the cleanup below still runs.
  const onSigint = (): void => {
    interrupted = true;
  };
  process.on('SIGINT', onSigint);
  const results: SuiteResult[] = [];
  try {
    for (const file of files) {
      if (interrupted) break;
      log(`\n# ${file}`);
      results.push(await runSuite(file, ROOT, env));
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
  return { results, interrupted };
}

/** Removes what the run created; false (after saying why) when that did not fully work. */
async function cleanup(config: Config, before: Footprint, log: Log): Promise<boolean> {
  try {
    const r = await cleanNamespace(config, before);
    log(`\ncleanup of namespace ${config.namespace}: ${r.indices.length} index(es), ${r.keys.length} Redis key(s) removed`);
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
  const config = runConfig(opts.env);
  const namespace = config.namespace;
  await ensureEs(config, log, opts.env);
  await ensureRedis(config, log);
  const all = await findTestFiles();
  const files = opts.filters.length ? all.filter((f) => opts.filters.some((x) => f.includes(x))) : all;
  if (!files.length) log(`no test file matches ${opts.filters.map((f) => JSON.stringify(f)).join(' or ')} (of ${all.length})`);
  log(`${files.length} test file(s), namespace ${namespace}, Elasticsearch ${config.esUrl}, Redis ${redacted(config.redisUrl)}`);
  const before = await footprint(config);
  const audit = await mkdtemp(join(tmpdir(), 'bintel-audit-'));
  const { results, interrupted } = await runFiles(files, { ...childEnv(opts.env, namespace), [AUDIT_ENV]: audit }, log);
  if (files.length) results.push(secretAudit(audit, log));
  await rm(audit, { recursive: true, force: true });
  const cleaned = await cleanup(config, before, log);
  if (interrupted) log(`interrupted: ${files.length - results.length} file(s) not run`);
  const { passed, failed } = report(results, log);
  return failed > 0 || passed === 0 || !cleaned || interrupted ? 1 : 0;
}
