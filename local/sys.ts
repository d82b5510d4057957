/**
 * Small process and file helpers shared by the local service managers (Elasticsearch, Redis).
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** True when `cmd` resolves on PATH. */
export function onPath(cmd: string): boolean {
  return spawnSync('sh', ['-c', 'command -v "$1"', 'sh', cmd], { stdio: 'ignore' }).status === 0;
}

/** Runs a command to completion; throws with its exit code and output tail when it fails. */
export function runChecked(cmd: string, args: string[], what: string, opts: SpawnSyncOptions = {}): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  if (r.error) throw new Error(`${what}: ${r.error.message}`);
  const out = `${r.stderr ?? ''}${r.stdout ?? ''}`.trim();
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status ?? r.signal}): ${out.slice(-2000)}`);
  return String(r.stdout ?? '');
}

/** True when a process with this pid exists (EPERM still means it exists, owned by someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** True for the loopback names a URL may carry (`URL.hostname` keeps IPv6 brackets). */
export function isLoopback(hostname: string): boolean {
  return ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(hostname);
}

/** The last `lines` lines of a file, or '' when it cannot be read. */
export async function tailFile(path: string, lines = 30): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
