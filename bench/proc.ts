/** CPU accounting of benchmark processes, read from /proc (Linux; 0 elsewhere). */
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

/** CPU seconds (user + system) a process has used. */
export function cpuSeconds(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** The pids whose command line matches `pattern` (pgrep -f). */
export function pidsOf(pattern: string): number[] {
  const r = spawnSync('pgrep', ['-f', pattern], { encoding: 'utf8' });
  return (r.stdout ?? '').split('\n').filter(Boolean).map(Number);
}

/** The Elasticsearch processes on this machine. */
export const esPids = (): number[] => pidsOf('org.elasticsearch.bootstrap.Elasticsearch');

/** CPU seconds the given processes have used together. */
export const cpuOf = (pids: number[]): number => pids.reduce((a, p) => a + cpuSeconds(p), 0);
