/**
 * Runs one uvu test file in its own Node process (TypeScript through tsx), streaming its
 * output, and reads its result from uvu's summary.
 *
 * What uvu 0.5.6 does, and why the exit code alone is not enough:
 * - it prints `Total: T`, `Passed: P`, `Skipped: S` once per process; T counts the tests that
 *   were meant to run (the `.only` ones if any), so failures are T - P;
 * - it sets exit code 1 when a test throws, but an exception in a `before` hook is swallowed
 *   (its `finally { return }`): the suite shows `(0 / n)`, no error, and exit code 0;
 * - it never exits by itself, so a leaked handle (an unclosed client) keeps the process alive.
 */
import { spawn } from 'node:child_process';

/** The outcome of one file. */
export interface SuiteResult {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  /** Why the file counts as failed beyond its failing tests, or why it needed killing. */
  notes: string[];
}

/** The longest one file may run. */
const FILE_TIMEOUT_MS = 15 * 60_000;
/** How long a file may linger after printing its summary before it is killed. */
const LINGER_MS = 15_000;

const ANSI = /\x1b\[[0-9;]*m/g;

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

/** Runs `node --import tsx <file>` with `env`, mirroring its output to ours. */
export function runSuite(file: string, cwd: string, env: NodeJS.ProcessEnv): Promise<SuiteResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let killedFor: string | null = null;
    let linger: NodeJS.Timeout | undefined;
    const kill = (why: string): void => {
      killedFor = why;
      child.kill('SIGKILL');
    };
    const timeout = setTimeout(() => kill(`killed after ${FILE_TIMEOUT_MS / 60_000} min`), FILE_TIMEOUT_MS);
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      process.stdout.write(d);
      // uvu ends its summary with the Duration line; anything left running is a leaked handle.
      if (!linger && /Duration:/.test(output.replace(ANSI, ''))) {
        linger = setTimeout(() => kill(`warning: still running ${LINGER_MS / 1000} s after its summary (an unclosed client?); killed`), LINGER_MS);
      }
    });
    child.stderr.on('data', (d: Buffer) => process.stderr.write(d));
    child.on('close', (code, signal) => {
      clearTimeout(timeout);
      clearTimeout(linger);
      resolve(judge(file, output, { code, signal, killedFor }));
    });
  });
}
