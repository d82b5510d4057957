// The memory of the Form 5500 import. glibc's malloc serves a freed block of up to 32 MB again
// from its own heap instead of returning it to the system (its threshold for mapping a block on
// its own rises with every large block freed), so the import's typed columns, which grow by
// copying and are cut to their length when reading ends, left its RSS about 100 MB above what
// was live. A fixed threshold maps every block of 1 MB or more on its own and unmaps it when it
// is freed. glibc reads the threshold when the process starts: a command started without it runs
// again as a child with it set (measured in docs/performance.md, "Form 5500 import").
import { spawn } from 'node:child_process';

export const MMAP_THRESHOLD_VAR = 'MALLOC_MMAP_THRESHOLD_';
export const MMAP_THRESHOLD = String(1 << 20);

/** True when this process should run again with the threshold: Linux (glibc), not set yet, not turned off (BINTEL_MALLOC_TUNING=0). */
export function wantsMallocTuning(env = process.env) {
  return process.platform === 'linux' && env[MMAP_THRESHOLD_VAR] === undefined && env.BINTEL_MALLOC_TUNING !== '0';
}

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs this process's command again with the threshold set. Where Node can replace the process
 * (process.execve, Node 22.15 and later) it does: same pid, nothing waits. Else (Node 20) in a
 * child, and this process ends as the child ends (its exit code, or its signal); the child has a
 * process group of its own, so a Ctrl-C reaches it once, through this process (which passes
 * SIGINT, SIGTERM and SIGHUP on), as it would have reached the command run directly.
 */
export function rerunWithMallocTuning(args = process.argv.slice(1), { replace = true } = {}) {
  const env = { ...process.env, [MMAP_THRESHOLD_VAR]: MMAP_THRESHOLD };
  if (replace && typeof process.execve === 'function') process.execve(process.execPath, [process.execPath, ...process.execArgv, ...args], env);
  const child = spawn(process.execPath, [...process.execArgv, ...args], { stdio: 'inherit', detached: true, env });
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
