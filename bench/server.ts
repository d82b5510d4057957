/**
 * The API in its own process for benchmarks: `bintel serve` on a free port, with the bench's
 * namespace and limits high enough that only the work is measured.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;

/** A running API process. */
export interface SpawnedServer {
  pid: number;
  url: string;
  close: () => Promise<void>;
}

/** A child process serving on `port` as a SpawnedServer: `close` ends it with SIGTERM and waits for it. */
function served(child: ChildProcess, port: number): SpawnedServer {
  return {
    pid: child.pid as number,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * `bintel serve` in a child process on a free port; `profileDir` makes it write a V8 CPU profile
 * there on exit; `root` runs another checkout's server (an A/B in one run).
 */
export async function spawnServer(namespace: string, opts: { profileDir?: string; env?: Record<string, string>; root?: string } = {}): Promise<SpawnedServer> {
  const port = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  const prof = opts.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profileDir}`] : [];
  const child = spawn(process.execPath, [...prof, join(opts.root ?? ROOT, 'bin/bintel.js'), 'serve', '--port', String(port)], {
    env: { ...process.env, BINTEL_NAMESPACE: namespace, LOG_LEVEL: 'silent', BINTEL_RATE_LIMIT_PER_MIN: '100000000', BINTEL_CRAWL_THRESHOLD: '100000000', BINTEL_DAILY_ROW_CAP: '2000000000', ...opts.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('listening') && resolve());
    child.once('exit', (code) => reject(new Error(`bintel serve exited with ${code}`)));
  });
  return served(child, port);
}

/**
 * A floor server (a bare `bench/*.mjs` baseline that prints `listening <port>`) in its own
 * process, with `env` added: bench/floor-proxy.mjs for a search, bench/floor-add.mjs for a job.
 */
export async function spawnFloor(script: string, env: Record<string, string>): Promise<SpawnedServer> {
  const child = spawn(process.execPath, [join(ROOT, 'bench', script)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      const m = /listening (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return served(child, port);
}

/** The floor proxy (bench/floor-proxy.mjs) of one search body on `index`; `env` may add its Redis round trips. */
export const spawnSearchFloor = (esUrl: string, index: string, body: unknown, env: Record<string, string> = {}): Promise<SpawnedServer> =>
  spawnFloor('floor-proxy.mjs', { FLOOR_ES: esUrl, FLOOR_PATH: `/${index}/_search`, FLOOR_BODY: JSON.stringify(body), ...env });
