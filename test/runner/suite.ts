/**
 * Runs one uvu test file (or a batch of pure files, test/runner/batch.ts) in its own Node
 * process (TypeScript through tsx), and reads its result from uvu's summary.
 *
 * What uvu 0.5.6 does, and why the exit code alone is not enough:
 * - it prints `Total: T`, `Passed: P`, `Skipped: S` once per process; T counts the tests that
 *   were meant to run (the `.only` ones if any), so failures are T - P;
 * - it sets exit code 1 when a test throws, but an exception in a `before` hook is swallowed
 *   (its `finally { return }`): the suite shows `(0 / n)`, no error, and exit code 0;
 * - it never exits by itself, so a leaked handle (an unclosed client) keeps the process alive.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The outcome of one file (or one batch of pure files). */
export interface SuiteResult {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  /** Why the file counts as failed beyond its failing tests, or why it needed killing. */
  notes: string[];
  /** Wall time of the process, start to exit (0 for results that ran no process). */
  ms?: number;
  /** For a batch: each file's own time inside the process (its import and its suites). */
  parts?: { file: string; ms: number }[];
}

/** How one process is run. */
export interface SuiteOptions {
  /** The Node executable (a lane's runtime); this process's by default. */
  node?: string;
  /** Mirror the output as it comes (one lane); otherwise it is returned whole, to print as one block. */
  stream?: boolean;
}

/** The longest one file may run. */
const FILE_TIMEOUT_MS = 15 * 60_000;
/** How long a file may linger after printing its summary before it is killed. */
const LINGER_MS = 15_000;

const ANSI = /\x1b\[[0-9;]*m/g;
/** A line of the batch entry: one file's time inside the batch. */
const PART = /^##part (\d+) (.+)$/gm;
const BATCH = fileURLToPath(new URL('./batch.ts', import.meta.url));

/** uvu's summary numbers, or null when the process printed none. */
export function parseSummary(output: string): { total: number; passed: number; skipped: number } | null {
  const plain = output.replace(ANSI, '');
  const last = (label: string): number | null => {
    const all = [...plain.matchAll(new RegExp(`^\\s*${label}:\\s+(\\d+)\\s*$`, 'gm'))];
    const m = all[all.length - 1];
    return m ? Number(m[1]) : null;
  };
  const total = last('Total');
  const passed = last('Passed');
  if (total === null || passed === null) return null;
  return { total, passed, skipped: last('Skipped') ?? 0 };
}

/** Turns the exit and the summary into a result; every anomaly costs at least one failure. */
export function judge(file: string, output: string, exit: { code: number | null; signal: string | null; killedFor: string | null }): SuiteResult {
  const summary = parseSummary(output);
  const notes: string[] = [];
  if (!summary) {
    notes.push(exit.killedFor ?? `printed no uvu summary (exit ${exit.code ?? exit.signal}): it crashed, or never called .run()`);
    return { file, passed: 0, failed: 1, skipped: 0, notes };
  }
  let failed = Math.max(0, summary.total - summary.passed);
  if (failed > 0 && exit.code === 0) notes.push(`${failed} test(s) did not pass yet uvu reported no error: a before() hook probably threw (uvu 0.5.6 swallows hook errors)`);
  if (exit.killedFor) notes.push(exit.killedFor);
  else if (exit.code !== 0 && failed === 0) {
    notes.push(`exited with ${exit.code ?? exit.signal} although every test passed (an error after the tests, or it exited early)`);
    failed = 1;
  }
  return { file, passed: summary.passed, failed, skipped: summary.skipped, notes };
}

/** The per-file times a batch printed (`##part <ms> <file>`). */
export function parseParts(output: string): { file: string; ms: number }[] {
  return [...output.replace(ANSI, '').matchAll(PART)].map((m) => ({ file: m[2], ms: Number(m[1]) }));
}

/**
 * Runs `node --import tsx <file>` with `env` (or, for several files, the batch entry that runs
 * them in one process under one uvu summary). Resolves to the result and the whole output.
 */
export function runSuite(files: string | string[], cwd: string, env: NodeJS.ProcessEnv, opts: SuiteOptions = {}): Promise<SuiteResult & { output: string }> {
  const list = typeof files === 'string' ? [files] : files;
  const label = list.length === 1 ? list[0] : `${list.length} pure files (one process)`;
  const args = list.length === 1 ? ['--import', 'tsx', list[0]] : ['--import', 'tsx', BATCH, ...list];
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(opts.node ?? process.execPath, args, { cwd, env: { ...env, BINTEL_TEST_FILE: label }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let killedFor: string | null = null;
    let linger: NodeJS.Timeout | undefined;
    const kill = (why: string): void => {
      killedFor = why;
      child.kill('SIGKILL');
    };
    const timeout = setTimeout(() => kill(`killed after ${FILE_TIMEOUT_MS / 60_000} min`), FILE_TIMEOUT_MS);
    const take = (d: Buffer, to: NodeJS.WriteStream): void => {
      output += d.toString();
      if (opts.stream) to.write(d);
    };
    child.stdout.on('data', (d: Buffer) => {
      take(d, process.stdout);
      // uvu ends its summary with the Duration line; anything left running is a leaked handle.
      if (!linger && /Duration:/.test(output.replace(ANSI, ''))) {
        linger = setTimeout(() => kill(`warning: still running ${LINGER_MS / 1000} s after its summary (an unclosed client?); killed`), LINGER_MS);
      }
    });
    child.stderr.on('data', (d: Buffer) => take(d, process.stderr));
    child.on('close', (code, signal) => {
      clearTimeout(timeout);
      clearTimeout(linger);
      const result = judge(label, output, { code, signal, killedFor });
      const parts = list.length > 1 ? parseParts(output) : undefined;
      resolve({ ...result, ms: Math.round(performance.now() - started), ...(parts ? { parts } : {}), output });
    });
  });
}
