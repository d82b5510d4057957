/**
 * The Node runtimes a run's lanes use: `current` (the Node running the runner) or a major
 * version, found on this machine or fetched once from the npm registry (the npm package
 * `node@<major>`, as `npx -p node@24` does, cached by npm afterwards).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One runtime: its executable and version (`v24.1.0`). */
export interface Runtime {
  /** What was asked for: `current` or a major (`24`). */
  spec: string;
  node: string;
  version: string;
}

/** Majors with their runtimes, resolved once per process. */
const resolved = new Map<string, Promise<Runtime>>();

const major = (version: string): string => version.replace(/^v/, '').split('.')[0];

async function resolveOne(spec: string): Promise<Runtime> {
  if (spec === 'current' || spec === major(process.version)) return { spec, node: process.execPath, version: process.version };
  if (!/^\d{2}$/.test(spec)) throw new Error(`runtime "${spec}": use "current" or a Node major version such as 24`);
  try {
    const { stdout } = await run('npx', ['-y', '-p', `node@${spec}`, 'node', '-p', 'process.execPath + " " + process.version'], { timeout: 300_000, maxBuffer: 1 << 20 });
    const [node, version] = stdout.trim().split('\n').pop()!.split(' ');
    if (major(version) !== spec) throw new Error(`asked for Node ${spec}, npx ran ${version}`);
    return { spec, node, version };
  } catch (err) {
    throw new Error(`could not get Node ${spec} (npx -p node@${spec}): ${(err as Error).message.split('\n')[0]}`);
  }
}

/** The runtimes of a comma-separated list (`current,24`), duplicates removed by version. */
export async function resolveRuntimes(list: string): Promise<Runtime[]> {
  const specs = list.split(',').map((s) => s.trim()).filter(Boolean);
  if (!specs.length) throw new Error('no runtime given (e.g. --runtimes current,24)');
  const all = await Promise.all(specs.map((s) => {
    if (!resolved.has(s)) resolved.set(s, resolveOne(s));
    return resolved.get(s)!;
  }));
  const seen = new Set<string>();
  return all.filter((r) => !seen.has(r.version) && seen.add(r.version));
}

/** A lane's short name: `node20`, `node24`. */
export const laneName = (r: Runtime): string => `node${major(r.version)}`;
