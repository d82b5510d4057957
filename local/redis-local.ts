/**
 * Redis for local runs: use the one at REDIS_URL; when none answers there, the URL is on
 * loopback and redis-server is installed, start a throwaway one (no persistence, daemonized,
 * state under `config.home/redis`); otherwise say how to get one.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../core/config.ts';
import { createRedis, redisAnswers } from '../core/adapters/redis.ts';
import { isLoopback, onPath, runChecked, sleep, tailFile } from './sys.ts';

/** How long a fresh redis-server may take to answer PING. */
const START_TIMEOUT_MS = 10_000;

/** The port of a redis:// URL. */
const port = (url: URL): string => url.port || '6379';

/** The log of the server for this URL (one per port, so several can share the directory). */
const logFile = (url: URL, dir: string): string => join(dir, `redis-${port(url)}.log`);

/** The URL without its password, for messages. */
function redacted(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password) copy.password = '***';
  return copy.href;
}

/** The redis-server arguments for the URL: its port, loopback only, no persistence. */
function serverArgs(url: URL, dir: string): string[] {
  const args = ['--port', port(url), '--bind', url.hostname === '[::1]' ? '::1' : '127.0.0.1'];
  // Credits, keys and tags live here: the append-only file, fsynced every second, in the data directory.
  args.push('--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec', '--daemonize', 'yes');
  args.push('--dir', dir, '--pidfile', join(dir, `redis-${port(url)}.pid`), '--logfile', logFile(url, dir));
  // A password in the URL would otherwise make every AUTH fail against the new server.
  if (url.password) args.push('--requirepass', decodeURIComponent(url.password));
  return args;
}

/** Waits until PING answers at the URL; false after the timeout. */
async function waitForRedis(redisUrl: string): Promise<boolean> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await redisAnswers(redisUrl)) return true;
    await sleep(100);
  }
  return false;
}

/**
 * Makes sure Redis answers at `config.redisUrl`; starts a local redis-server when possible.
 * Never stops or replaces a running one. Returns whether it started one.
 */
export async function ensureRedis(config: Config, log: (line: string) => void = () => {}): Promise<{ started: boolean }> {
  if (config.redisClusterNodes) {
    // A Redis Cluster is the operator's: check that it answers, never start one.
    if (await clusterAnswers(config)) return { started: false };
    throw new Error(`the Redis Cluster at REDIS_CLUSTER_NODES (${config.redisClusterNodes.map((n) => `${n.host}:${n.port}`).join(',')}) does not answer with cluster_state:ok`);
  }
  if (await redisAnswers(config.redisUrl)) return { started: false };
  const url = new URL(config.redisUrl);
  if (!isLoopback(url.hostname)) throw new Error(`no Redis answers at ${redacted(url)}: start it there, or point REDIS_URL at a running Redis`);
  if (!onPath('redis-server')) {
    throw new Error(`no Redis answers at ${redacted(url)} and redis-server is not installed: apt-get install redis-server (or docker compose up -d redis), or set REDIS_URL to a running Redis`);
  }
  const dir = join(config.home, 'redis');
  await mkdir(dir, { recursive: true });
  log(`starting redis-server at ${redacted(url)} (append-only file, fsync every second; data, pid file and log in ${dir})`);
  runChecked('redis-server', serverArgs(url, dir), 'redis-server');
  if (await waitForRedis(config.redisUrl)) return { started: true };
  const tail = await tailFile(logFile(url, dir), 20);
  throw new Error(`redis-server was started but ${redacted(url)} does not answer PING after ${START_TIMEOUT_MS / 1000} s${tail ? `\n--- ${logFile(url, dir)}\n${tail}` : ''}`);
}

/** True when the cluster at REDIS_CLUSTER_NODES answers and reports cluster_state:ok. */
export async function clusterAnswers(config: Pick<Config, 'redisUrl' | 'redisClusterNodes'>): Promise<boolean> {
  const c = createRedis(config, { maxRetriesPerRequest: 0, connectTimeout: 2000 });
  c.on('error', () => {});
  try {
    await c.connect();
    const info = String(await c.call('CLUSTER', 'INFO'));
    return /cluster_state:ok/.test(info);
  } catch {
    return false;
  } finally {
    c.disconnect();
  }
}
