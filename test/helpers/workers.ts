/**
 * `bintel worker` processes for tests: real processes, started for a namespace with extra
 * environment, and killed with SIGKILL (a worker that dies mid-job). `stopAll` in `after`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = new URL('../..', import.meta.url).pathname;
const running = new Set<ChildProcess>();

/** Starts `bintel worker --concurrency N` with `env` over the test's environment; resolves when it says it runs. */
export async function startWorker(env: Record<string, string>, concurrency = 1): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/bintel.js'), 'worker', '--concurrency', String(concurrency)], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => l.includes('worker running') && resolve());
    child.once('exit', (code) => reject(new Error(`bintel worker exited with ${code}`)));
  });
  return child;
}

/** SIGKILL: the worker dies as a crashed process would, holding whatever it held. */
export const kill = (w: ChildProcess): Promise<void> => new Promise<void>((resolve) => (w.exitCode !== null ? resolve() : (w.once('exit', () => resolve()), w.kill('SIGKILL'))));

/** Kills every worker this file started. */
export const stopAll = (): Promise<void[]> => Promise.all([...running].map(kill));
