// The memory of the Form 5500 import, set when its process starts.
//
// glibc's malloc serves a freed block of up to 32 MB again from its own heap instead of returning
// it to the system (its threshold for mapping a block on its own rises with every large block
// freed), so the import's typed columns, which grow by copying and are cut to their length when
// reading ends, left its RSS about 100 MB above what was live. A fixed threshold maps every
// block of 1 MB or more on its own and unmaps it when it is freed.
//
// V8's young generation grows to three semi-spaces of 16 MB; the import's garbage is short-lived
// and its live set is in typed columns, so 4 MB semi-spaces hold the same live data in about
// 30 MB less (measured without Elasticsearch: bench/form5500-memory.ts).
//
// glibc reads the threshold and V8 its heap sizes when the process starts: a command started
// without them runs again with them (measured in docs/performance.md, "Form 5500 import").
import { spawn } from 'node:child_process';

export const MMAP_THRESHOLD_VAR = 'MALLOC_MMAP_THRESHOLD_';
export const MMAP_THRESHOLD = String(1 << 20);
/** Set in the process that runs with the settings (so it does not run again). */
const TUNED_VAR = 'BINTEL_PROCESS_TUNED';

/** The settings of a tuned process: its environment (a threshold already set is kept) and Node flags. */
export function tunedProcess(env = process.env) {
  return {
    env: { ...env, [MMAP_THRESHOLD_VAR]: env[MMAP_THRESHOLD_VAR] ?? MMAP_THRESHOLD, [TUNED_VAR]: '1' },
    execArgv: ['--max-semi-space-size=4'],
  };
}

/** True when this process should run again with the settings: Linux (glibc), not tuned yet, not turned off (BINTEL_MALLOC_TUNING=0). */
export function wantsMallocTuning(env = process.env) {
  return process.platform === 'linux' && env[TUNED_VAR] !== '1' && env.BINTEL_MALLOC_TUNING !== '0';
}

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs this process's command again with the settings. Where Node can replace the process
 * (process.execve, Node 22.15 and later) it does: same pid, nothing waits. Else (Node 20) in a
 * child, and this process ends as the child ends (its exit code, or its signal); the child has a
 * process group of its own, so a Ctrl-C reaches it once, through this process (which passes
 * SIGINT, SIGTERM and SIGHUP on), as it would have reached the command run directly.
 */
export function rerunWithMallocTuning(args = process.argv.slice(1), { replace = true } = {}) {
  const { env, execArgv } = tunedProcess();
  const argv = [...process.execArgv, ...execArgv, ...args];
  if (replace && typeof process.execve === 'function') process.execve(process.execPath, [process.execPath, ...argv], env);
  const child = spawn(process.execPath, argv, { stdio: 'inherit', detached: true, env });
  const pass = (signal) => () => child.kill(signal);
  const handlers = FORWARDED.map((s) => [s, pass(s)]);
  for (const [s, h] of handlers) process.on(s, h);
  return new Promise(() => {
    child.on('error', (err) => {
      process.stderr.write(`bintel: could not start ${process.execPath}: ${err.message}\n`);
      process.exit(1);
    });
    child.on('exit', (code, signal) => {
      for (const [s, h] of handlers) process.off(s, h);
      if (signal) process.kill(process.pid, signal);
      else process.exit(code ?? 1);
    });
  });
}
