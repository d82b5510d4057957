/**
 * A local Redis Cluster for tests: N masters (`redis-server --cluster-enabled yes`) on free
 * loopback ports, each with its own directory and an append-only file fsynced on every write
 * (so a write the cluster acknowledged survives a SIGKILL), joined with
 * `redis-cli --cluster create`. Never the machine's shared Redis. `stop()` kills every node and
 * removes the directories, also after a failed test.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export interface LocalCluster {
  nodes: { host: string; port: number }[];
  /** The REDIS_CLUSTER_NODES value of the cluster. */
  env: string;
  /** The port of the master serving a key's slot. */
  masterOf(key: string): Promise<number>;
  /** SIGKILL one node (by port). */
  kill(port: number): Promise<void>;
  /** Starts a killed node again from its directory (its identity and its append-only file). */
  restart(port: number): Promise<void>;
  stop(): Promise<void>;
}

/** True when nothing listens on 127.0.0.1:port. */
function free(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * `n` ports from 16000-21999 whose cluster-bus ports (port + 10000) are free too: all below Linux's
 * ephemeral range (32768-60999), where other processes' outgoing connections take their source
 * ports, so none can take one between this check and the server binding it; apart from the
 * Elasticsearch cluster helper's 12000-15999.
 */
async function freePorts(n: number): Promise<number[]> {
  const out: number[] = [];
  while (out.length < n) {
    const p = 16_000 + Math.floor(Math.random() * 6000);
    if (!out.includes(p) && (await free(p)) && (await free(p + 10_000))) out.push(p);
  }
  return out;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`redis cluster: ${what} not reached in ${timeoutMs} ms`);
}

async function answer(port: number, ...cmd: string[]): Promise<string> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
  r.on('error', () => {});
  try {
    await r.connect();
    return String(await r.call(cmd[0], ...cmd.slice(1)));
  } finally {
    r.disconnect();
  }
}

/** Starts a cluster of `masters` nodes (no replicas). */
export async function startRedisCluster(masters = 3): Promise<LocalCluster> {
  const root = await mkdtemp(join(tmpdir(), 'bintel-redis-cluster-'));
  const ports = await freePorts(masters);
  const procs = new Map<number, ChildProcess>();
  const start = async (port: number) => {
    const dir = join(root, String(port));
    await mkdir(dir, { recursive: true });
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000', '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--dir', dir, '--protected-mode', 'no'], { stdio: 'ignore' });
    procs.set(port, child);
    await until(`node ${port} answering`, async () => (await answer(port, 'PING')) === 'PONG');
  };
  const stop = async () => {
    for (const p of procs.values()) p.kill('SIGKILL');
    procs.clear();
    await rm(root, { recursive: true, force: true });
  };
  try {
    for (const p of ports) await start(p);
    const created = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8' });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}\n${created.stderr}`);
    for (const p of ports) await until(`cluster_state:ok on ${p}`, async () => (await answer(p, 'CLUSTER', 'INFO')).includes('cluster_state:ok'));
  } catch (err) {
    await stop();
    throw err;
  }
  const nodes = ports.map((port) => ({ host: '127.0.0.1', port }));
  return {
    nodes,
    env: nodes.map((n) => `${n.host}:${n.port}`).join(','),
    async masterOf(key: string) {
      const slot = Number(await answer(ports[0], 'CLUSTER', 'KEYSLOT', key));
      const r = new Redis({ port: ports[0], host: '127.0.0.1', lazyConnect: true });
      try {
        await r.connect();
        const slots = (await r.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
        const hit = slots.find(([lo, hi]) => slot >= lo && slot <= hi);
        if (!hit) throw new Error(`no master serves slot ${slot}`);
        return Number(hit[2][1]);
      } finally {
        r.disconnect();
      }
    },
    async kill(port: number) {
      const p = procs.get(port);
      if (!p) return;
      await new Promise<void>((resolve) => {
        p.once('exit', () => resolve());
        p.kill('SIGKILL');
      });
      procs.delete(port);
    },
    async restart(port: number) {
      await start(port);
      await until(`cluster_state:ok after restarting ${port}`, async () => (await Promise.all(ports.map((p) => answer(p, 'CLUSTER', 'INFO')))).every((i) => i.includes('cluster_state:ok')));
    },
    stop,
  };
}
